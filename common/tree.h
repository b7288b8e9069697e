/*
 * tree.h - the source trees tools copy (dft-clone) and edit (dft-annotate)
 * (path.c): paths that must stay inside a root, links that must not lead
 * out of it, and replacing a file's bytes only when nobody changed it.
 */
#ifndef DFT_TREE_H
#define DFT_TREE_H

#include "dft.h"

/*
 * rel below root, normalized: NULL when rel is absolute or climbs above
 * root ("sub/../../x"). Never touches the disk. Caller frees.
 */
char *dft_path_under(const char *root, const char *rel);
/*
 * 1 when the real location of path (its existing part resolved through
 * symbolic links, the rest lexical) is root's real location or below it;
 * 0 when it is not or cannot be resolved.
 */
int dft_path_real_inside(const char *root, const char *path);
/*
 * Keeps every symbolic link below root from leading out of it (a copied
 * source tree): a link to an absolute place inside from (the directory
 * root was copied from; NULL: root itself) is made relative to its place
 * in root; a link whose target lies outside root is removed, with a
 * warning naming it. Returns the number removed, or -1 with errno.
 */
int dft_tree_confine_links(const char *root, const char *from);
/* Identity and content of a file when a tool read it (dft_read_snap). */
struct dft_file_snap {
	int valid;
	dev_t dev;
	ino_t ino;
	off_t size;
	long mtime_s, mtime_ns;
	uint64_t hash;		/* dft_fnv1a64 of the bytes read */
};
/* dft_read_file that also fills *s, consistent with the bytes returned. */
char *dft_read_snap(const char *path, size_t *len, struct dft_file_snap *s);
/*
 * Replaces the bytes of a file a tool was asked to edit (dft-annotate):
 *  - refused when the real location of path (or of a symbolic link's
 *    target) is not below root's (root NULL: no check);
 *  - a symbolic link is written through to its target, a file with other
 *    hard links is rewritten in place (all links see the change); mode
 *    and owner (when permitted) are kept, the mtime becomes now;
 *  - was (optional): refused when the file no longer matches it (size,
 *    mtime, inode, content) just before it is replaced;
 *  - first removes stale temporaries of an earlier run that was killed
 *    (PATH.dft-tmp.PID.XXXXXX of a dead PID), with one warning each.
 * 0, or -1 with *why set to the reason (static text; errno too).
 */
int dft_replace_file(const char *root, const char *path, const void *data,
		     size_t len, const struct dft_file_snap *was,
		     const char **why);

#endif

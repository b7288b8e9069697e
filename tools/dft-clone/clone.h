/*
 * clone.h - what the parts of dft-clone share (tools/dft-clone/).
 *
 * main.c: options, the workspace, --resume; run.c: failure, clean-up,
 * signals and messages;
 * source.c: getting the source with libgit2 (clone, ref, submodules) or by
 * copying a directory; detect.c: build tool, languages, features, preset.
 */
#ifndef DFT_CLONE_H
#define DFT_CLONE_H

#include <signal.h>

#include "dft.h"
#include "tree.h"

#define MAX_DEPTH 64		/* directory and submodule nesting limit */

struct opts {
	const char *root;	/* -w, DFT_WORKSPACES, ./workspaces */
	const char *ref;	/* -r */
	const char *name;	/* -n: run directory name instead of a stamp */
	const char *resume;	/* --resume RUN_ID */
	int copy;		/* --copy */
	int no_submodules;	/* --no-submodules */
	int print_app_name;	/* --print-app-name */
	int allow_file_submodules;	/* --allow-file-submodules */
};

/* run.c: what a failure removes, signals, messages */
/*
 * What was created, so a failure can remove exactly that. The root and the
 * app directory may be shared with a concurrent run, so they are only
 * removed when empty (rmdir), up to the highest directory this run made.
 */
struct clone_cleanup {
	char *root;		/* created by us: the highest new ancestor */
	char *appdir;		/* created by us */
	char *ws;		/* created by us (removed recursively) */
	char *root_leaf;	/* the root itself, when root is set */
};

/* What this run created so far; main.c sets it, run.c removes it. */
extern struct clone_cleanup clone_cleanup;
/* Set by SIGINT, SIGTERM, SIGHUP: the signal number. */
extern volatile sig_atomic_t clone_interrupted;
/* The starting directory, for fchdir(2) after a chdir(2). */
extern int clone_cwd_fd;
/* Removes what clone_cleanup names and forgets it (atexit(3) safe). */
void cleanup_run(void);
/* Records clone_interrupted on SIGINT, SIGTERM and SIGHUP. */
void catch_signals(void);
/* Prints "dft-clone: message", removes what this run created, exits 2. */
DFT_NORETURN void fail(const char *fmt, ...) DFT_PRINTF(1, 2);
/*
 * When rc, a libgit2 return code, is negative: fail with "message: reason",
 * the reason being libgit2's (as libgit2's examples/common.c check_lg2).
 */
void check_lg2(int rc, const char *fmt, ...) DFT_PRINTF(2, 3);
/* After a step that may have been interrupted: clean up and die by it. */
void check_interrupted(void);
/* libgit2's own reason for the last failure (borrowed). */
const char *lg2_msg(int rc);
/* url with its password, if any, replaced by "***" (caller frees). */
char *redact_url(const char *url);

/* source.c */
/*
 * Clones url into src, checks out o->ref and the submodules; adds ref,
 * ref_kind and commit to sess and one object per submodule to subs.
 * Fails (exit 2) on error; returns DFT_EXIT_DATA when a submodule failed.
 */
int clone_git(const char *url, const char *src, const struct opts *o,
	      json_object *sess, json_object *subs);
/* Copies dir to src, leaving out root when it lies inside dir. */
void copy_dir(const char *dir, const char *src, const char *root,
	      json_object *sess);

/* detect.c */
/* Adds build_tool, languages, features and preset for the tree src. */
void detect(json_object *sess, const char *src);

#endif

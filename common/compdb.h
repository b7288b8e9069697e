/*
 * compdb.h - C sources and their compile database (compdb.c):
 * compile_commands.json, the libclang arguments of an entry, --prefix-map.
 */
#ifndef DFT_COMPDB_H
#define DFT_COMPDB_H

#include "dft.h"

/* A C or C++ source or header by its suffix (dft_c_suffixes), or Python. */
extern const char *const dft_c_suffixes[];
int dft_is_c_source(const char *path);
int dft_is_source(const char *path);
/* A source's "file_hash" in records: "fnv1a64:" + 16 hex digits (srchash.c;
 * buf of 25 bytes or more). */
char *dft_file_hash_str(const void *p, size_t n, char *buf, size_t bufsz);

/* compile_commands.json (compdb.c); paths absolute and normalized. */
struct dft_compile_cmd {
	char *directory;
	char *file;
	char *output;		/* NULL when absent */
	char **argv;		/* NULL-terminated; argv[0] is the compiler */
	int argc;
};
struct dft_compdb {
	struct dft_compile_cmd *cmds;
	size_t n;
};
void dft_compdb_init(struct dft_compdb *db);
/* Appends the entries of path to db. 0, or -1 with errno (no message). */
int dft_compdb_load(struct dft_compdb *db, const char *path);
/* The same, of path or (a directory) its compile_commands.json, *file set
 * to the file read (caller frees); a failure warns "cannot read the compile
 * database 'FILE': ..." (the one message of every tool) and returns -1. */
int dft_compdb_open(struct dft_compdb *db, const char *path, char **file);
void dft_compdb_release(struct dft_compdb *db);
/*
 * libclang arguments for one entry (NULL-terminated, caller frees with
 * dft_strv_free): no compiler, source, output or dependency options;
 * relative -I made absolute; "-x c++" when a C++ driver built a .c file.
 * *lang is "c" or "cpp".
 */
char **dft_compdb_clang_args(const struct dft_compile_cmd *c,
			     const char **lang);
/*
 * --prefix-map OLD=NEW (compdb.c), for a database written for another copy
 * of the tree. old and new are absolute and normalized; arg is the option
 * value as given; hits counts the entries dft_compdb_map rewrote with it.
 */
struct dft_prefix_map {
	char *arg, *old, *new;
	size_t hits;
};
/*
 * Appends the map arg ("OLD=NEW") to *v (*n entries). 0, or -1 when arg
 * is malformed: no '=', an empty OLD or an empty NEW (nothing is added).
 * Free the list with dft_prefix_maps_free.
 */
int dft_prefix_maps_add(struct dft_prefix_map **v, size_t *n,
			const char *arg);
void dft_prefix_maps_free(struct dft_prefix_map *v, size_t n);
/*
 * Rewrites each entry whose file is OLD or below it (the longest OLD
 * wins): file and directory move to NEW; relative include directories
 * and other path options are made absolute against the original
 * directory, which is appended as the last -I (headers generated into
 * the build copy still resolve). An include directory under an OLD that
 * does not exist here, while its NEW counterpart does, is replaced by
 * that. Counts each rewritten entry in its map's hits, and warns once
 * for each map that matched no entry.
 */
void dft_compdb_map(struct dft_compdb *db, struct dft_prefix_map *maps,
		    size_t n);

#endif

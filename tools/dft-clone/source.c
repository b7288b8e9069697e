/*
 * source.c - getting the application's source: a libgit2 clone (transfer
 * progress, credentials from the SSH agent, --ref, recursive submodules)
 * or a copy of a local directory. libgit2 runs no hooks and no filter
 * drivers; nothing here runs the git command.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "clone.h"
#include "progress.h"

struct clone_ctx {
	struct dft_progress fetch;
	struct dft_progress checkout;
	int fetch_started;
	int cred_tries;
	int allow_file;		/* --allow-file-submodules */
};

/* ---- libgit2 callbacks --------------------------------------------------- */

static int
on_transfer(const git_indexer_progress *st, void *payload)
{
	struct clone_ctx *c = payload;

	if (clone_interrupted)
		return -1;
	if (!c->fetch_started) {
		dft_progress_init(&c->fetch, "receiving objects",
				  st->total_objects);
		c->fetch_started = 1;
	}
	c->fetch.total = st->total_objects;
	dft_progress_update(&c->fetch, st->received_objects);
	return 0;
}

static void
on_checkout(const char *path, size_t done, size_t total, void *payload)
{
	struct clone_ctx *c = payload;

	(void)path;
	c->checkout.total = total;
	dft_progress_update(&c->checkout, done);
}

static int
on_checkout_notify(git_checkout_notify_t why, const char *path,
		   const git_diff_file *baseline, const git_diff_file *target,
		   const git_diff_file *workdir, void *payload)
{
	(void)why, (void)path, (void)baseline, (void)target, (void)workdir;
	(void)payload;
	return clone_interrupted ? -1 : 0;
}

/* ssh: ask the agent; https: no prompting, so no credentials. */
static int
on_credentials(git_credential **out, const char *url, const char *user,
	       unsigned int allowed, void *payload)
{
	struct clone_ctx *c = payload;

	(void)url;
	if (clone_interrupted || c->cred_tries++ >= 3)
		return GIT_PASSTHROUGH;
	if (allowed & GIT_CREDENTIAL_SSH_KEY)
		return git_credential_ssh_key_from_agent(out,
		    user != NULL ? user : "git");
	if (allowed & GIT_CREDENTIAL_USERNAME)
		return git_credential_username_new(out,
		    user != NULL ? user : "git");
	return GIT_PASSTHROUGH;
}

static void
set_fetch_opts(git_fetch_options *f, struct clone_ctx *c)
{
	f->callbacks.transfer_progress = on_transfer;
	f->callbacks.credentials = on_credentials;
	f->callbacks.payload = c;
	f->proxy_opts.type = GIT_PROXY_AUTO;
}

static void
set_checkout_opts(git_checkout_options *o, struct clone_ctx *c,
		  unsigned int strategy)
{
	o->checkout_strategy = strategy;
	o->progress_cb = on_checkout;
	o->progress_payload = c;
	o->notify_flags = GIT_CHECKOUT_NOTIFY_UPDATED;	/* to stop on a signal */
	o->notify_cb = on_checkout_notify;
	o->notify_payload = c;
}

/* ---- checkout of --ref --------------------------------------------------- */

static void
oid_hex(const git_oid *id, char *buf, size_t n)
{
	git_oid_tostr(buf, n, id);
}

/*
 * Checks out ref in a clone made without a checkout: a remote branch
 * (becomes a local branch), a tag, or anything git_revparse understands
 * (a full or abbreviated commit id). Sets *kind. Fails on error.
 */
static void
checkout_ref(git_repository *repo, const char *ref, struct clone_ctx *c,
	     const char **kind)
{
	git_checkout_options co;
	git_reference *rb = NULL, *lb = NULL;
	git_object *obj = NULL;
	git_commit *commit = NULL;
	char *name = NULL;
	int rc;

	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	set_checkout_opts(&co, c, GIT_CHECKOUT_FORCE);
	name = dft_xasprintf("origin/%s", ref);
	if (git_branch_lookup(&rb, repo, name, GIT_BRANCH_REMOTE) == 0) {
		*kind = "branch";
		rc = git_reference_peel(&obj, rb, GIT_OBJECT_COMMIT);
	} else {
		free(name);
		name = dft_xasprintf("refs/tags/%s", ref);
		if (git_reference_lookup(&rb, repo, name) == 0) {
			*kind = "tag";
			rc = git_reference_peel(&obj, rb, GIT_OBJECT_COMMIT);
		} else {
			git_object *any = NULL;

			*kind = "commit";
			rc = git_revparse_single(&any, repo, ref);
			if (rc == 0) {
				rc = git_object_peel(&obj, any,
						     GIT_OBJECT_COMMIT);
				git_object_free(any);
			}
		}
	}
	check_lg2(rc, "ref '%s' not found", ref);
	rc = git_checkout_tree(repo, obj, &co);
	check_interrupted();
	check_lg2(rc, "cannot check out '%s'", ref);
	if (strcmp(*kind, "branch") == 0) {
		free(name);
		name = dft_xasprintf("refs/heads/%s", ref);
		if (git_reference_lookup(&lb, repo, name) < 0) {
			rc = git_commit_lookup(&commit, repo,
					       git_object_id(obj));
			if (rc == 0)
				rc = git_branch_create(&lb, repo, ref, commit,
						       0);
			if (rc == 0)
				rc = git_branch_set_upstream(lb,
				    git_reference_shorthand(rb));
			check_lg2(rc, "cannot create branch '%s'", ref);
		}
		rc = git_repository_set_head(repo, name);
	} else {
		rc = git_repository_set_head_detached(repo,
						      git_object_id(obj));
	}
	check_lg2(rc, "cannot set HEAD to '%s'", ref);
	git_commit_free(commit);
	git_reference_free(lb);
	git_reference_free(rb);
	git_object_free(obj);
	free(name);
}

/* HEAD's commit id into buf ("" when unborn) and its branch (or NULL). */
static void
head_info(git_repository *repo, char *buf, size_t n, char **branch)
{
	git_reference *head = NULL;
	const git_oid *id;

	buf[0] = '\0';
	if (branch != NULL)
		*branch = NULL;
	if (git_repository_head(&head, repo) < 0)
		return;
	id = git_reference_target(head);
	if (id != NULL)
		oid_hex(id, buf, n);
	if (branch != NULL && git_reference_is_branch(head))
		*branch = dft_xstrdup(git_reference_shorthand(head));
	git_reference_free(head);
}

/* ---- submodules ---------------------------------------------------------- */

struct names {
	char **v;
	size_t n;
};

static int
collect_submodule(git_submodule *sm, const char *name, void *payload)
{
	struct names *ns = payload;

	(void)sm;
	ns->v = dft_xreallocarray(ns->v, ns->n + 1, sizeof(*ns->v));
	ns->v[ns->n++] = dft_xstrdup(name);
	return 0;
}

/*
 * Initialises and checks out every submodule of repo, then theirs.
 * Appends {path,url,commit,status} to list; returns how many failed
 * (each reported with a warning).
 */
static int
update_submodules(git_repository *repo, const char *prefix,
		  struct clone_ctx *c, json_object *list, int depth)
{
	struct names ns = { NULL, 0 };
	int failed = 0, rc;

	rc = git_submodule_foreach(repo, collect_submodule, &ns);
	if (rc < 0) {
		dft_warn("cannot list submodules of '%s': %s",
			 prefix[0] ? prefix : ".", lg2_msg(rc));
		return 1;
	}
	for (size_t i = 0; i < ns.n; i++) {
		git_submodule_update_options uo;
		git_submodule *sm = NULL;
		git_repository *sub = NULL;
		json_object *rec = json_object_new_object();
		char *path = NULL, hex[GIT_OID_HEXSZ + 1] = "";
		const char *status = "ok";

		git_submodule_update_options_init(&uo,
		    GIT_SUBMODULE_UPDATE_OPTIONS_VERSION);
		set_fetch_opts(&uo.fetch_opts, c);
		set_checkout_opts(&uo.checkout_opts, c, GIT_CHECKOUT_SAFE);
		rc = git_submodule_lookup(&sm, repo, ns.v[i]);
		path = dft_xasprintf("%s%s", prefix,
				     rc == 0 ? git_submodule_path(sm)
					     : ns.v[i]);
		/* as git since 2.38.1 (protocol.file.allow=user): a
		 * repository must not make us read local files */
		if (rc == 0 && !c->allow_file && git_submodule_url(sm) &&
		    strncasecmp(git_submodule_url(sm), "file:", 5) == 0) {
			static const char why[] = "a file:// submodule is "
				"refused (use --allow-file-submodules)";

			dft_warn("submodule '%s' from '%s': %s", path,
				 git_submodule_url(sm), why);
			json_object_object_add(rec, "error", dft_jstr(why));
			status = "refused";
			failed++;
			goto record;
		}
		/*
		 * libgit2 1.5 checks the submodule's path relative to the
		 * working directory of the process, so run from the
		 * superproject's work tree.
		 */
		if (rc == 0 && chdir(git_repository_workdir(repo)) < 0) {
			git_error_set_str(GIT_ERROR_OS, strerror(errno));
			rc = -1;
		}
		if (rc == 0)
			rc = git_submodule_update(sm, 1, &uo);
		if (fchdir(clone_cwd_fd) < 0)
			fail("cannot return to the working directory:");
		check_interrupted();
		if (rc == 0)
			rc = git_submodule_open(&sub, sm);
		if (rc < 0) {
			const char *u = sm != NULL ? git_submodule_url(sm)
						   : NULL;
			char *shown = redact_url(u != NULL ? u : "?");

			dft_warn("submodule '%s' from '%s': %s", path, shown,
				 lg2_msg(rc));
			json_object_object_add(rec, "error",
					       dft_jstr(lg2_msg(rc)));
			free(shown);
			status = "failed";
			failed++;
		} else {
			head_info(sub, hex, sizeof(hex), NULL);
		}
record:
		json_object_object_add(rec, "path", dft_jstr(path));
		json_object_object_add(rec, "url", dft_jstr(
		    sm != NULL ? git_submodule_url(sm) : NULL));
		json_object_object_add(rec, "commit",
				       dft_jstr(hex[0] ? hex : NULL));
		json_object_object_add(rec, "status", dft_jstr(status));
		json_object_array_add(list, rec);
		if (sub != NULL && depth < MAX_DEPTH) {
			char *sp = dft_xasprintf("%s/", path);

			failed += update_submodules(sub, sp, c, list,
						    depth + 1);
			free(sp);
		}
		git_repository_free(sub);
		git_submodule_free(sm);
		free(path);
		free(ns.v[i]);
	}
	free(ns.v);
	return failed;
}
static int
skipped_submodule(git_submodule *sm, const char *name, void *payload)
{
	json_object *rec = json_object_new_object();

	(void)name;
	json_object_object_add(rec, "path", dft_jstr(git_submodule_path(sm)));
	json_object_object_add(rec, "url", dft_jstr(git_submodule_url(sm)));
	json_object_object_add(rec, "commit", dft_jstr(NULL));
	json_object_object_add(rec, "status", dft_jstr("skipped"));
	json_object_array_add(payload, rec);
	return 0;
}

/* --no-submodules: each top-level submodule listed as "skipped". */
static int
list_submodules(git_repository *repo, json_object *list)
{
	int rc = git_submodule_foreach(repo, skipped_submodule, list);

	if (rc < 0) {
		dft_warn("cannot list submodules: %s", lg2_msg(rc));
		return 1;
	}
	return 0;
}

int
clone_git(const char *url, const char *src, const struct opts *o,
	  json_object *sess, json_object *subs)
{
	git_clone_options co;
	struct clone_ctx c;
	git_repository *repo = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	char *branch = NULL;
	const char *kind = "branch";
	int rc, failed;

	memset(&c, 0, sizeof(c));
	c.allow_file = o->allow_file_submodules;
	git_clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
	/*
	 * A file:// URL is copied like a local path (hard links where
	 * possible) instead of going through the pack protocol, which in
	 * libgit2 1.5 is ten times slower; remote URLs are unaffected.
	 */
	co.local = GIT_CLONE_LOCAL;
	dft_progress_init(&c.checkout, "checking out", 0);
	set_fetch_opts(&co.fetch_opts, &c);
	set_checkout_opts(&co.checkout_opts, &c,
			  o->ref != NULL ? GIT_CHECKOUT_NONE
					 : GIT_CHECKOUT_SAFE);
	rc = git_clone(&repo, url, src, &co);
	if (c.fetch_started)
		dft_progress_done(&c.fetch);
	check_interrupted();
	if (rc < 0) {
		char *shown = redact_url(url);

		fail("cannot clone '%s': %s", shown, lg2_msg(rc));
	}
	if (o->ref != NULL)
		checkout_ref(repo, o->ref, &c, &kind);
	dft_progress_done(&c.checkout);
	head_info(repo, hex, sizeof(hex), &branch);
	if (hex[0] == '\0') {
		/* an empty repository (or a remote HEAD to nothing): there is no
		 * source to build, and the run would only fail later */
		char *shown = redact_url(url);

		fail("'%s' has no commits: nothing to check out", shown);
	}
	if (o->ref == NULL && branch == NULL)
		kind = "commit";
	json_object_object_add(sess, "ref", dft_jstr(
	    o->ref != NULL ? o->ref : branch));
	json_object_object_add(sess, "ref_kind", dft_jstr(kind));
	json_object_object_add(sess, "commit", dft_jstr(hex[0] ? hex : NULL));
	if (o->no_submodules)
		failed = list_submodules(repo, subs);
	else
		failed = update_submodules(repo, "", &c, subs, 1);
	dft_progress_done(&c.checkout);
	free(branch);
	git_repository_free(repo);
	return failed ? DFT_EXIT_DATA : DFT_EXIT_OK;
}

/*
 * dft_copy_tree(from, to) except the directory skip (the workspace root,
 * when it lies inside the directory being copied).
 */
static int
copy_skipping(const char *from, const char *to, const char *skip)
{
	struct dirent **ents = NULL;
	struct stat st;
	int n, rc = 0;

	if (!dft_path_is_inside(from, skip))
		return dft_copy_tree(from, to);
	if (lstat(from, &st) < 0 || mkdir(to, st.st_mode & 07777) < 0)
		return -1;
	n = scandir(from, &ents, NULL, alphasort);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
			char *f = dft_path_join(from, name);
			char *t = dft_path_join(to, name);

			if (strcmp(f, skip) != 0 &&
			    copy_skipping(f, t, skip) < 0)
				rc = -1;
			free(f);
			free(t);
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

/* A repository's HEAD is still recorded. */
void
copy_dir(const char *dir, const char *src, const char *root,
	 json_object *sess)
{
	git_repository *repo = NULL;
	char hex[GIT_OID_HEXSZ + 1] = "";
	char rr[PATH_MAX];
	char *branch = NULL;

	if (realpath(root, rr) == NULL)
		fail("cannot resolve '%s':", root);
	if (copy_skipping(dir, src, rr) < 0) {
		int saved = errno;

		check_interrupted();
		errno = saved;
		fail("cannot copy '%s' to '%s':", dir, src);
	}
	check_interrupted();
	if (git_repository_open_ext(&repo, dir,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0)
		head_info(repo, hex, sizeof(hex), &branch);
	json_object_object_add(sess, "ref", dft_jstr(branch));
	json_object_object_add(sess, "ref_kind",
			       dft_jstr(branch ? "branch" : NULL));
	json_object_object_add(sess, "commit", dft_jstr(hex[0] ? hex : NULL));
	free(branch);
	git_repository_free(repo);
}

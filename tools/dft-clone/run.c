/*
 * run.c - the life of one dft-clone run: what a failure removes, the
 * signals that interrupt it, and its one-line messages (fail, check_lg2,
 * libgit2's reason, URLs without passwords).
 * It does not decide what to create; main.c records that in clone_cleanup.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "clone.h"

volatile sig_atomic_t clone_interrupted;
int clone_cwd_fd = -1;

struct clone_cleanup clone_cleanup;

/*
 * The URL without a password: "https://user:secret@host/x" becomes
 * "https://user:***@host/x", so records and messages do not leak it.
 * Caller frees.
 */
char *
redact_url(const char *url)
{
	const char *auth = strstr(url, "://"), *end, *at, *colon;

	if (auth == NULL)
		return dft_xstrdup(url);
	auth += 3;
	end = auth + strcspn(auth, "/?#");
	at = memchr(auth, '@', (size_t)(end - auth));
	if (at == NULL)
		return dft_xstrdup(url);
	while (memchr(at + 1, '@', (size_t)(end - at - 1)) != NULL)
		at = memchr(at + 1, '@', (size_t)(end - at - 1));
	colon = memchr(auth, ':', (size_t)(at - auth));
	if (colon == NULL)
		return dft_xstrdup(url);
	return dft_xasprintf("%.*s***%s", (int)(colon + 1 - url), url, at);
}

/* ---- failure and cleanup ------------------------------------------------- */

/* rmdir leaf, then its parents up to and including top, while empty. */
static void
rmdir_up(const char *leaf, const char *top)
{
	char *p = dft_xstrdup(leaf);

	while (dft_path_is_inside(top, p) && rmdir(p) == 0 &&
	       strcmp(p, top) != 0) {
		char *slash = strrchr(p, '/');

		if (slash == NULL || slash == p)
			break;
		*slash = '\0';
	}
	free(p);
}

void
cleanup_run(void)
{
	if (clone_cleanup.ws != NULL)
		dft_rm_rf(clone_cleanup.ws);
	if (clone_cleanup.appdir != NULL)
		rmdir(clone_cleanup.appdir);
	if (clone_cleanup.root != NULL)
		rmdir_up(clone_cleanup.root_leaf, clone_cleanup.root);
	free(clone_cleanup.ws);
	free(clone_cleanup.appdir);
	free(clone_cleanup.root);
	free(clone_cleanup.root_leaf);
	memset(&clone_cleanup, 0, sizeof(clone_cleanup));
}

void
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dft_vwarn(fmt, ap);
	va_end(ap);
	cleanup_run();
	git_libgit2_shutdown();
	exit(DFT_EXIT_FATAL);
}

const char *
lg2_msg(int rc)
{
	const git_error *e = git_error_last();

	if (e != NULL && e->message != NULL)
		return e->message;
	return rc == GIT_EUSER ? "interrupted" : "unknown libgit2 error";
}

void
check_lg2(int rc, const char *fmt, ...)
{
	va_list ap;
	char *what;
	int n;

	if (rc >= 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	what = dft_xmalloc(n < 0 ? 1 : (size_t)n + 1);
	what[0] = '\0';
	va_start(ap, fmt);
	if (n >= 0)
		vsnprintf(what, (size_t)n + 1, fmt, ap);
	va_end(ap);
	fail("%s: %s", what, lg2_msg(rc));
}

static void
on_signal(int sig)
{
	clone_interrupted = sig;
}

void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void
check_interrupted(void)
{
	int sig = clone_interrupted;

	if (sig == 0)
		return;
	dft_warn("interrupted; removing the unfinished workspace");
	cleanup_run();
	signal(sig, SIG_DFL);
	raise(sig);
	exit(DFT_EXIT_FATAL);
}

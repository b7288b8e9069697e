/*
 * proc.c - run a program from an argv (never a shell string) with an
 * environment overlay, a working directory, a timeout and its output
 * captured to a file. The child leads its own process group so that a
 * timeout stops everything it started (make, mpirun, ...).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dft.h"

static void
apply_env(const char *const *env)
{
	for (; env != NULL && *env != NULL; env++) {
		const char *eq = strchr(*env, '=');

		if (eq == NULL) {
			unsetenv(*env);
		} else {
			char *k = dft_xstrndup(*env, (size_t)(eq - *env));

			setenv(k, eq + 1, 1);
			free(k);
		}
	}
}

static DFT_NORETURN void
child(const char *const argv[], const struct dft_proc_opts *o, int errpipe)
{
	int fd;

	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	if (o->cwd != NULL && chdir(o->cwd) < 0)
		goto fail;
	apply_env(o->env);
	fd = open(o->input_path ? o->input_path : "/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
		goto fail;
	if (fd != STDIN_FILENO)
		close(fd);
	if (o->output_path != NULL) {
		fd = open(o->output_path, O_WRONLY | O_CREAT |
			  (o->append ? O_APPEND : O_TRUNC), 0644);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 ||
		    dup2(fd, STDERR_FILENO) < 0)
			goto fail;
		if (fd > STDERR_FILENO)
			close(fd);
	}
	execvp(argv[0], (char *const *)argv);
fail:
	fd = errno;
	if (write(errpipe, &fd, sizeof(fd)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * Runs argv (never through a shell). Returns 0 when it ran, with *status:
 * the exit code, 128+signal when killed, 124 on timeout; -1 when it could
 * not start (errno set).
 */
int
dft_run(const char *const argv[], const struct dft_proc_opts *opts,
	int *status)
{
	static const struct dft_proc_opts none;
	const struct dft_proc_opts *o = opts ? opts : &none;
	int pfd[2], err = 0, ws = 0;
	pid_t pid;
	double deadline = o->timeout_s > 0 ? dft_monotonic() + o->timeout_s : 0;
	int timed_out = 0;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(pfd[0]);
		close(pfd[1]);
		errno = err;
		return -1;
	}
	if (pid == 0)
		child(argv, o, pfd[1]);
	close(pfd[1]);
	/* exec succeeded iff the close-on-exec pipe closes with no data */
	while ((n = read(pfd[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(pid, NULL, 0);
		errno = err;
		return -1;
	}
	for (;;) {
		pid_t r = waitpid(pid, &ws, deadline > 0 ? WNOHANG : 0);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -1;
		if (deadline > 0 && dft_monotonic() > deadline) {
			if (!timed_out) {
				kill(-pid, SIGTERM);
				timed_out = 1;
				deadline = dft_monotonic() + 5;
			} else {
				kill(-pid, SIGKILL);
				deadline = 0;
			}
		}
		if (r == 0) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	if (timed_out)
		*status = 124;
	else if (WIFEXITED(ws))
		*status = WEXITSTATUS(ws);
	else if (WIFSIGNALED(ws))
		*status = 128 + WTERMSIG(ws);
	else
		*status = 1;
	return 0;
}

/*
 * imbalance.c - two processes (fork) each write their own part of the
 * output, one 120 MiB and the other 8 MiB, in 1 MiB requests; the run ends
 * when the slower one does (ground truth: imbalance.truth).
 *
 * usage: imbalance DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCK (1 << 20)

/* The bottleneck: rank 0 is given 15 times the blocks of rank 1. */
static long
write_part(const char *dir, int rank)
{
	int blocks = rank == 0 ? 120 : 8;
	char path[4096], *buf = malloc(BLOCK);
	long bytes = 0;
	int fd;

	if (buf == NULL)
		return -1;
	memset(buf, 'A' + rank, BLOCK);
	snprintf(path, sizeof(path), "%s/part%d.dat", dir, rank);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		free(buf);
		return -1;
	}
	for (int i = 0; i < blocks; i++) {
		if (write(fd, buf, BLOCK) != BLOCK) {
			bytes = -1;
			break;
		}
		bytes += BLOCK;
	}
	free(buf);
	if (close(fd) != 0)
		return -1;
	return bytes;
}

int
main(int argc, char **argv)
{
	long n;
	pid_t pid;
	int st;

	if (argc != 2) {
		fprintf(stderr, "usage: imbalance DIR\n");
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("imbalance: fork");
		return 1;
	}
	n = write_part(argv[1], pid == 0 ? 1 : 0);
	if (pid == 0)
		_exit(n < 0 ? 1 : 0);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0 || n < 0) {
		fprintf(stderr, "imbalance: a writer failed\n");
		return 1;
	}
	printf("imbalance: rank 0 wrote %ld bytes\n", n);
	return 0;
}

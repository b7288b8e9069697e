/*
 * stdio.c - an event log written with fwrite(3) on an unbuffered stream
 * (setvbuf _IONBF): 20000 lines of 24 bytes, each fwrite its own write(2)
 * (ground truth: stdio.truth).
 *
 * usage: stdio DIR
 */
#include <stdio.h>

#define EVENTS 20000
#define LINE 24

/* The bottleneck: one unbuffered fwrite per line. */
static long
log_events(FILE *fp)
{
	char line[LINE + 1];
	long bytes = 0;

	for (int i = 0; i < EVENTS; i++) {
		snprintf(line, sizeof(line), "event %08d state ok\n", i);
		if (fwrite(line, 1, LINE, fp) != LINE)
			return -1;
		bytes += LINE;
	}
	return bytes;
}

int
main(int argc, char **argv)
{
	char path[4096];
	FILE *fp;
	long n;

	if (argc != 2) {
		fprintf(stderr, "usage: stdio DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/events.log", argv[1]);
	fp = fopen(path, "w");
	if (fp == NULL || setvbuf(fp, NULL, _IONBF, 0) != 0) {
		perror("stdio");
		return 1;
	}
	n = log_events(fp);
	if (fclose(fp) != 0 || n < 0) {
		perror("stdio");
		return 1;
	}
	printf("stdio: %ld bytes in %d fwrite calls\n", n, EVENTS);
	return 0;
}

/*
 * clock.c - wall-clock ISO-8601 timestamps with milliseconds (UTC) and a
 * monotonic clock for durations.
 */
#include <time.h>

#include "dft.h"

double
dft_epoch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double
dft_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

char *
dft_iso_time(double epoch_s, char *buf, size_t n)
{
	time_t secs = (time_t)epoch_s;
	int ms = (int)((epoch_s - (double)secs) * 1000.0);
	struct tm tm;

	if (ms < 0)
		ms = 0;
	if (ms > 999)
		ms = 999;
	gmtime_r(&secs, &tm);
	snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
	return buf;
}

char *
dft_iso_now(char *buf, size_t n)
{
	return dft_iso_time(dft_epoch_now(), buf, n);
}

/*
 * preload.c - what libdftracer_preload.so adds to the core: initialise in
 * a constructor when DFTRACER_INIT=PRELOAD, finalise in a destructor (exit
 * also finalises through atexit; whichever runs first wins).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

__attribute__((constructor)) static void dft_preload_init(void)
{
	const char *mode = getenv("DFTRACER_INIT");

	if (mode && strcmp(mode, "PRELOAD") == 0)
		dft_init(NULL, NULL, NULL, 1, "preload");
}

__attribute__((destructor)) static void dft_preload_fini(void)
{
	dft_fini();
}

/*
 * linebuf.c — CMC_LINEBUF=1: make the target's stdout line buffered, so a
 * stdio program's reply to an operation reaches cmc when the line is
 * complete instead of when a 4 KiB buffer fills.  Runs as a constructor,
 * after libc is initialised (setvbuf may allocate: that is our malloc).
 */
#include <stdio.h>

#include "pl.h"

__attribute__((constructor)) static void pl_linebuf(void)
{
	char v[8];
	if (pl_env(CMC_ENV_LINEBUF, v, sizeof v) == 1 && v[0] == '1' && !v[1])
		setvbuf(stdout, NULL, _IOLBF, 0);
}

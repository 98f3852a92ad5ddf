/*
 * lines.h — the command loop the heapbugs targets share: lines from stdin
 * read with read(2) (so cmc sees each operation consumed), one reply line
 * per command written with write(2).  Each target defines command().
 * Exits 0 at end of input.
 */
#ifndef HEAPBUGS_LINES_H
#define HEAPBUGS_LINES_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void command(const char *line);

static void reply(const char *s)
{
	size_t len = strlen(s);
	while (len) {
		ssize_t w = write(1, s, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			exit(1);
		s += w;
		len -= (size_t)w;
	}
}

static int serve(void)
{
	char buf[256];
	size_t have = 0;
	for (;;) {
		ssize_t r = read(0, buf + have, sizeof buf - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		have += (size_t)r;
		char *start = buf, *nl;
		while ((nl = memchr(start, '\n', have - (size_t)(start - buf)))) {
			*nl = '\0';
			command(start);
			start = nl + 1;
		}
		have -= (size_t)(start - buf);
		memmove(buf, start, have);
		if (have == sizeof buf) {
			reply("ERR line too long\n");
			have = 0;
		}
	}
}

#endif

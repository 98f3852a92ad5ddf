/*
 * expirytarget.c — a stdin server whose data expires with time and whose
 * event loop runs a timer (tests/t5395-advance.sh), as caches, session
 * stores and rate limiters do.  Lines:
 *   SET     keeps a heap record that expires 10 s later (by the clock)
 *   GET     answers LIVE while it has not expired by the clock, GONE after
 *           (the expiry checked on the read itself, or the record swept),
 *           NONE before any SET
 *   PING    answers PONG, or SLOW for a third ping within 5 s
 * Between lines it waits in poll() with a 1 s timeout; each timeout runs
 * the sweep, which frees an expired record (the timer's own effect on the
 * heap) and counts sweeps in a heap counter only when it freed one.
 *
 *   expirytarget
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct rec {
	time_t expires;
	char data[24];
};

struct world {
	struct rec *rec;
	unsigned swept;
	int had;         /* a SET came */
	time_t pings[2]; /* the last two pings */
};

static time_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

int main(void)
{
	struct world *w = calloc(1, sizeof *w);
	char line[128];
	size_t len = 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	for (;;) {
		struct pollfd p = {.fd = 0, .events = POLLIN};
		int r = poll(&p, 1, 1000);
		if (r == 0) { /* the sweep */
			if (w->rec && now() >= w->rec->expires) {
				free(w->rec);
				w->rec = NULL;
				w->swept++;
			}
			continue;
		}
		if (r < 0)
			return 1;
		ssize_t n = read(0, line + len, sizeof line - 1 - len);
		if (n <= 0)
			return 0;
		len += (size_t)n;
		char *nl;
		while ((nl = memchr(line, '\n', len))) {
			*nl = 0;
			if (!strcmp(line, "SET")) {
				if (!w->rec)
					w->rec = malloc(sizeof *w->rec);
				w->rec->expires = now() + 10;
				strcpy(w->rec->data, "value");
				w->had = 1;
				puts("OK");
			} else if (!strcmp(line, "GET")) {
				puts(w->rec && now() < w->rec->expires ? "LIVE" : w->had ? "GONE" : "NONE");
			} else if (!strcmp(line, "PING")) {
				time_t t = now();
				int slow = w->pings[0] && t - w->pings[0] < 5;
				w->pings[0] = w->pings[1];
				w->pings[1] = t;
				puts(slow ? "SLOW" : "PONG");
			} else {
				puts("ERR");
			}
			size_t used = (size_t)(nl - line) + 1;
			memmove(line, nl + 1, len - used);
			len -= used;
		}
		if (len == sizeof line - 1)
			len = 0;
	}
}

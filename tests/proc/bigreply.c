/*
 * bigreply.c — a stdin target for the memory tests (t6600): every
 * operation answers with a large reply, and its heap holds a large block
 * that no operation changes, so that states differ in a few bytes of a
 * large raw window.
 *
 *   a, b       count in the heap (counters a and b), then reply REPLY
 *              bytes: "A=a B=b\n" padded with '.' up to REPLY
 *
 * Arguments: REPLY (bytes per reply, default 1048576), BLOCK (bytes of
 * the unchanging heap block, default 524288).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct counters {
	unsigned long a, b;
};

static void put(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(1, p, n);
		if (w <= 0)
			exit(1);
		p += w;
		n -= (size_t)w;
	}
}

int main(int argc, char **argv)
{
	size_t reply = argc > 1 ? strtoul(argv[1], NULL, 0) : 1u << 20;
	size_t block = argc > 2 ? strtoul(argv[2], NULL, 0) : 1u << 19;
	unsigned char *big = malloc(block ? block : 1);
	struct counters *c = calloc(1, sizeof *c);
	char *out = malloc(reply + 64);
	if (!big || !c || !out)
		return 1;
	for (size_t i = 0; i < block; i++)
		big[i] = (unsigned char)(i * 7 + 1);
	char line[64];
	size_t n = 0;
	for (;;) {
		ssize_t r = read(0, line + n, 1);
		if (r <= 0)
			return 0;
		if (line[n] != '\n' && n + 1 < sizeof line) {
			n++;
			continue;
		}
		line[n] = 0;
		n = 0;
		if (!strcmp(line, "a"))
			c->a++;
		else if (!strcmp(line, "b"))
			c->b++;
		int h = snprintf(out, reply + 64, "A=%lu B=%lu\n", c->a, c->b);
		size_t len = reply > (size_t)h ? reply : (size_t)h;
		memset(out + h, '.', len - (size_t)h);
		put(out, len);
	}
}

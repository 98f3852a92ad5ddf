/*
 * heapsize.c — a stdin target with a heap of a chosen size, for the
 * heap-size benchmark (tests/bench/heapsize.sh) and the incremental
 * fingerprint tests (t5370): `heapsize BYTES` (K or M after the number:
 * KiB, MiB) allocates BYTES of heap at
 * start and writes every page of it once, then each command changes one
 * byte of one page:
 *   SET k -> OK      page k of the block (mod its page count) gets a 1
 *   CLR k -> OK      the same byte gets its start-up value back
 * Reads stdin with read(2); one reply line per command, with write(2).
 * Exits 0 at end of input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096

static unsigned char *block;
static size_t pages;

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

/* The byte command k changes: in page k, away from the block's edges. */
static unsigned char *byte_of(const char *arg)
{
	unsigned long k = strtoul(arg, NULL, 10);
	return block + (k % pages) * PAGE + PAGE / 2;
}

static void command(const char *line)
{
	if (strncmp(line, "SET ", 4) == 0) {
		*byte_of(line + 4) = 1;
		reply("OK\n");
	} else if (strncmp(line, "CLR ", 4) == 0) {
		unsigned char *b = byte_of(line + 4);
		*b = (unsigned char)((size_t)(b - block) / PAGE);
		reply("OK\n");
	} else
		reply("ERR\n");
}

int main(int argc, char **argv)
{
	char *end = "";
	size_t bytes = argc > 1 ? strtoul(argv[1], &end, 0) : 65536;
	bytes <<= *end == 'K' ? 10 : *end == 'M' ? 20 : 0;
	pages = bytes / PAGE ? bytes / PAGE : 1;
	block = malloc(pages * PAGE);
	if (!block)
		return 2;
	for (size_t i = 0; i < pages; i++) /* every page touched once */
		memset(block + i * PAGE, (int)(i & 0xff), PAGE);
	char line[256];
	size_t len = 0;
	for (;;) {
		ssize_t r = read(0, line + len, sizeof line - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		len += (size_t)r;
		char *nl;
		while ((nl = memchr(line, '\n', len))) {
			*nl = 0;
			command(line);
			len -= (size_t)(nl + 1 - line);
			memmove(line, nl + 1, len);
		}
		if (len == sizeof line - 1)
			len = 0; /* an overlong line: dropped */
	}
}

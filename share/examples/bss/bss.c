/*
 * bss.c — the M1 case: a set of small keys kept in a fixed global array, no
 * heap at all, commands on stdin.  Its state is the bytes of the global
 * `bss_present` at a fixed address, so raw hashing of that one symbol (from
 * the ELF symbol table) is already canonical: for keys 1..3 in any order, 8
 * distinct states.  Emits nothing.
 *
 * Reads stdin with read(2) (no stdio buffering on input); one reply line per
 * command on stdout, written with write(2):
 *   INS k -> OK | EXISTS   DEL k -> OK | MISSING   HAS k -> YES | NO
 *   LIST  -> the keys in order, space separated     k in 0..63
 * Exits 0 at end of input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BSS_KEYS 64

/* bss_present[k] is 1 when key k is in the set, else 0.  Global (not
 * static) so that it is easy to name; it is in .bss. */
unsigned char bss_present[BSS_KEYS];

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

static int key_arg(const char *line, long *key)
{
	char *end;
	if (line[3] != ' ')
		return -1;
	errno = 0;
	*key = strtol(line + 4, &end, 10);
	return (errno || end == line + 4 || *end || *key < 0 || *key >= BSS_KEYS) ? -1 : 0;
}

static void command(const char *line)
{
	long k;
	if (strncmp(line, "INS", 3) == 0 && key_arg(line, &k) == 0) {
		reply(bss_present[k] ? "EXISTS\n" : "OK\n");
		bss_present[k] = 1;
	} else if (strncmp(line, "DEL", 3) == 0 && key_arg(line, &k) == 0) {
		reply(bss_present[k] ? "OK\n" : "MISSING\n");
		bss_present[k] = 0;
	} else if (strncmp(line, "HAS", 3) == 0 && key_arg(line, &k) == 0) {
		reply(bss_present[k] ? "YES\n" : "NO\n");
	} else if (strcmp(line, "LIST") == 0) {
		char out[4 * BSS_KEYS + 2];
		size_t n = 0;
		for (int i = 0; i < BSS_KEYS; i++)
			if (bss_present[i])
				n += (size_t)snprintf(out + n, sizeof out - n, n ? " %d" : "%d", i);
		snprintf(out + n, sizeof out - n, "\n");
		reply(out);
	} else {
		reply("ERR expected INS k, DEL k, HAS k or LIST with k in 0..63\n");
	}
}

int main(void)
{
	char buf[256];
	size_t have = 0;
	for (;;) {
		ssize_t r = read(0, buf + have, sizeof buf - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
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
	return 0;
}

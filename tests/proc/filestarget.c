/*
 * filestarget.c — a stdin target (t5398) whose state lives partly in open
 * files that fork shares between a snapshot's child and its origin, and
 * whose seeds come by the paths a _FORTIFY_SOURCE build and stdio take to
 * /dev/urandom.  Built with -D_FORTIFY_SOURCE=2: open() with flags the
 * compiler cannot see becomes __open_2, as in Debian's perl.
 *
 * At start: 8 bytes from fopen("/dev/urandom") and 8 from open() of it
 * (flags from a volatile), kept in a heap block; a tmpfile() as a line
 * buffer (GNU ed's way) and a memfd written at its own offset, on the
 * descriptor given as the first argument if any (a high one: the fork
 * child finds the program's files by scanning the descriptor numbers).
 *   add X    append the line X to the tmpfile (at its end)   -> OK
 *   count    read the tmpfile from its start, count its lines and keep
 *            the count in the heap                           -> N
 *   mem X    write X at the memfd's current offset, then read
 *            the memfd whole and keep its length             -> LEN
 *   seed     the 16 seed bytes, in hex                       -> HEX
 *   anything else                                            -> ERR
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct state {
	unsigned char seed[16];
	long lines, memlen;
};

static struct state *st;

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	st = calloc(1, sizeof *st);
	FILE *r = fopen("/dev/urandom", "r");
	if (!r || fread(st->seed, 1, 8, r) != 8)
		return 1;
	fclose(r);
	volatile int flags = O_RDONLY | O_CLOEXEC;
	int fd = open("/dev/urandom", flags);
	if (fd < 0 || read(fd, st->seed + 8, 8) != 8)
		return 1;
	close(fd);
	FILE *buf = tmpfile();
	int mem = memfd_create("filestarget", 0);
	if (!buf || mem < 0)
		return 1;
	if (argc > 1) {
		int at = atoi(argv[1]);
		if (dup2(mem, at) != at)
			return 1;
		close(mem);
		mem = at;
	}
	char line[256];
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "add ", 4)) {
			fseek(buf, 0, SEEK_END);
			fprintf(buf, "%s\n", line + 4);
			fflush(buf);
			puts("OK");
		} else if (!strcmp(line, "count")) {
			char l[256];
			long n = 0;
			rewind(buf);
			while (fgets(l, sizeof l, buf))
				n++;
			st->lines = n;
			printf("%ld\n", n);
		} else if (!strncmp(line, "mem ", 4)) {
			if (write(mem, line + 4, strlen(line + 4)) < 0)
				return 1;
			struct stat s;
			fstat(mem, &s);
			st->memlen = (long)s.st_size;
			printf("%ld\n", st->memlen);
		} else if (!strcmp(line, "seed")) {
			for (int i = 0; i < 16; i++)
				printf("%02x", st->seed[i]);
			printf("\n");
		} else {
			puts("ERR");
		}
	}
	return 0;
}

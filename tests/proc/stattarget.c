/*
 * stattarget.c — a stdin program that reports what the system says about
 * its files and its CPU time (tests/t5397-det-stat.sh).  Lines:
 *   STAT    fstat() of stdin (a pipe) and stat() of "f" (created first
 *           if missing): "pipe ino I dev D | f ino I dev D mtime M" and
 *           whether the two stats of f agree ("same")
 *   CPU     getrusage(RUSAGE_SELF)'s user seconds, times()'s user ticks,
 *           clock(): "cpu U T C"
 * In the deterministic environment every figure is the same on every run.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	char line[64];
	setvbuf(stdout, NULL, _IONBF, 0);
	while (fgets(line, sizeof line, stdin)) {
		if (!strcmp(line, "STAT\n")) {
			struct stat p, f, g;
			int fd = open("f", O_CREAT | O_WRONLY, 0644);
			if (fd >= 0)
				close(fd);
			if (fstat(0, &p) || stat("f", &f) || lstat("f", &g)) {
				puts("ERR");
				continue;
			}
			printf("pipe ino %llu dev %llu | f ino %llu dev %llu mtime %lld %s\n",
			       (unsigned long long)p.st_ino, (unsigned long long)p.st_dev,
			       (unsigned long long)f.st_ino, (unsigned long long)f.st_dev, (long long)f.st_mtime,
			       f.st_ino == g.st_ino && f.st_dev == g.st_dev ? "same" : "differ");
		} else if (!strcmp(line, "CPU\n")) {
			struct rusage u;
			struct tms t;
			getrusage(RUSAGE_SELF, &u);
			times(&t);
			printf("cpu %ld.%06ld %ld %ld\n", (long)u.ru_utime.tv_sec, (long)u.ru_utime.tv_usec,
			       (long)t.tms_utime, (long)clock());
		} else {
			puts("ERR");
		}
	}
	return 0;
}

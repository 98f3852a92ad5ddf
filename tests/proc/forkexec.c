/*
 * forkexec.c — the process limit that tests/bench/process.sh compares cmc
 * against: the mean wall time of one fork + exec + wait of a program, in
 * microseconds, over N runs.  With -p, the child first turns ASLR off and the
 * environment carries LD_PRELOAD=$CMC_PRELOAD, as cmc starts its targets.
 *
 * Usage: forkexec [-p] N PROGRAM [ARG...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int i = 1, pre = 0;
	if (argc > 1 && !strcmp(argv[1], "-p"))
		pre = 1, i++;
	if (argc - i < 2) {
		fprintf(stderr, "usage: forkexec [-p] N PROGRAM [ARG...]\n");
		return 2;
	}
	long n = atol(argv[i]);
	char **av = argv + i + 1;
	char pl[4200];
	if (pre && getenv("CMC_PRELOAD")) {
		snprintf(pl, sizeof pl, "LD_PRELOAD=%s", getenv("CMC_PRELOAD"));
		putenv(pl);
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long k = 0; k < n; k++) {
		pid_t p = fork();
		if (p < 0)
			return 1;
		if (p == 0) {
			int fd = open("/dev/null", O_WRONLY);
			(void)fd;
			if (pre)
				personality(ADDR_NO_RANDOMIZE);
			dup2(fd, 1);
			dup2(fd, 2);
			execv(av[0], av);
			_exit(127);
		}
		int st;
		waitpid(p, &st, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / (double)n;
	printf("%.1f\n", us);
	return 0;
}

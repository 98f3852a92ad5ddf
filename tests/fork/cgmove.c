/*
 * cgmove.c — what moving a fork child into a cgroup v1 pids cgroup costs,
 * for tests/bench/process.sh: as cmc did it (the parent writes the child's
 * pid to cgroup.procs: the kernel then write-locks every thread group on
 * the machine) and as a fork-snapshot child does it now (the child writes
 * "0" to tasks, moving its only thread, which skips that lock; see
 * preload/snap.c).  Prints the two mean microseconds of N moves each, or
 * one line saying why it cannot (not root, no v1 pids hierarchy).
 * Usage: cgmove N
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

/* The v1 hierarchy with the pids controller, from /proc/self/mounts. */
static int pids_mount(char *out, size_t n)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[400], type[64], opts[512];
	int found = 0;
	while (f && !found && fscanf(f, "%255s %399s %63s %511s %*d %*d", dev, dir, type, opts) == 4) {
		char tmp[520];
		snprintf(tmp, sizeof tmp, ",%s,", opts);
		if (!strcmp(type, "cgroup") && strstr(tmp, ",pids,")) {
			snprintf(out, n, "%s", dir);
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* Mean seconds per move; self: the child moves itself. */
static double moves(const char *dir, int n, int self)
{
	char p[600];
	snprintf(p, sizeof p, "%s/%s", dir, self ? "tasks" : "cgroup.procs");
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	double total = 0;
	for (int i = 0; i < n; i++) {
		int pp[2];
		if (pipe(pp) < 0)
			break;
		pid_t pid = fork();
		if (pid < 0)
			break;
		if (pid == 0) {
			double t0 = now(), d = 0;
			if (self && write(fd, "0", 1) == 1)
				d = now() - t0;
			_exit(write(pp[1], &d, sizeof d) == (ssize_t)sizeof d ? 0 : 1);
		}
		double d = 0;
		if (!self) {
			char b[24];
			int len = snprintf(b, sizeof b, "%d", (int)pid);
			double t0 = now();
			if (write(fd, b, (size_t)len) == len)
				d = now() - t0;
		}
		double cd = 0;
		if (read(pp[0], &cd, sizeof cd) != (ssize_t)sizeof cd)
			cd = 0;
		total += self ? cd : d;
		waitpid(pid, NULL, 0);
		close(pp[0]);
		close(pp[1]);
	}
	close(fd);
	return total / n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	if (n < 1)
		n = 1;
	char mnt[400], dir[512];
	if (geteuid() != 0 || !pids_mount(mnt, sizeof mnt)) {
		printf("n/a (needs root and the cgroup v1 pids controller)\n");
		return 0;
	}
	snprintf(dir, sizeof dir, "%s/cmc-cgmove-%d", mnt, (int)getpid());
	if (mkdir(dir, 0755) < 0) {
		printf("n/a (mkdir %s: %s)\n", dir, strerror(errno));
		return 0;
	}
	double outside = moves(dir, n, 0), self = moves(dir, n, 1);
	rmdir(dir);
	printf("%.1f %.1f\n", outside * 1e6, self * 1e6);
	return 0;
}

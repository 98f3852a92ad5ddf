/*
 * procfd.c — the program's open descriptors (the fork child's own files,
 * snapfiles.c) and the /proc/self/fd path that names one (snapfiles.c,
 * detstat.c, durable.c).  Raw system calls only, no allocation
 * (async-signal-safe).
 */
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl.h"

char *pl_put_dec(char *out, long v)
{
	char digits[24];
	int n = 0;
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
	do
		digits[n++] = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (v < 0)
		*out++ = '-';
	while (n)
		*out++ = digits[--n];
	*out = 0;
	return out;
}

void pl_fd_link(char *out, int fd)
{
	static const char pre[] = "/proc/self/fd/";
	memcpy(out, pre, sizeof pre - 1);
	pl_put_dec(out + sizeof pre - 1, fd);
}

/*
 * By poll(2) with no events and no wait, which answers POLLNVAL for a
 * number that is not open: one call over the first PL_FD_SCAN numbers.
 * Listing /proc/self/fd cost a fork child ~60 us (a fresh process's /proc
 * directory and one dentry per descriptor made on the spot) against ~15-25
 * for the poll, timed inside fresh children; on whole runs, 5-9% more
 * fork transitions a second (the commit that made it so says how).  A
 * descriptor at PL_FD_SCAN or
 * above (or above the soft RLIMIT_NOFILE, which poll's count may not
 * pass) is not listed.
 */
int pl_list_fds(int *fds, int max, int skip)
{
	struct rlimit rl;
	long n = PL_FD_SCAN;
	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) == 0 && rl.rlim_cur < (rlim_t)n)
		n = (long)rl.rlim_cur;
	struct pollfd p[PL_FD_SCAN];
	for (long i = 0; i < n; i++)
		p[i] = (struct pollfd){.fd = (int)i};
	if (syscall(SYS_poll, p, n, 0) < 0)
		return 0;
	int nfds = 0;
	for (long i = 0; i < n && nfds < max; i++)
		if (!(p[i].revents & POLLNVAL) && (int)i != skip)
			fds[nfds++] = (int)i;
	return nfds;
}

/*
 * procfd.c — the program's descriptors as /proc/self/fd lists them, and
 * the path that names one there, for the fork child's work on its open
 * files (snapcwd.c, snapfiles.c) and the wall's handler (sigwall.c).  Raw
 * system calls only, no allocation (async-signal-safe).
 */
#include <fcntl.h>
#include <string.h>
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

int pl_list_fds(int *fds, int max, int skip)
{
	int dir = (int)syscall(SYS_open, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (dir < 0)
		return 0;
	char buf[4096];
	long n;
	int nfds = 0;
	while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
		for (long off = 0; off < n;) {
			const char *name = buf + off + 19; /* struct linux_dirent64's d_name */
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, sizeof reclen);
			off += reclen;
			if (name[0] < '0' || name[0] > '9')
				continue;
			int fd = 0;
			for (const char *q = name; *q >= '0' && *q <= '9'; q++)
				fd = fd * 10 + (*q - '0');
			if (fd != dir && fd != skip && nfds < max)
				fds[nfds++] = fd;
		}
	syscall(SYS_close, dir);
	return nfds;
}

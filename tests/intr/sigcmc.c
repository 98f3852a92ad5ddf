/*
 * sigcmc.c — a stdin target for tests/t6500-interrupt.sh that signals cmc
 * on request.  Each line is a command, answered with one line (write(2)):
 *
 *   inc        counter += 1                                  -> OK
 *   set K      set bit K of `bits`                           -> OK
 *   poke       append a line to the file $SIGCMC_POKE names, so the test
 *              learns that the search has begun and signals cmc itself,
 *              as the user would                             -> OK
 *   sig N      send signal N to cmc, found as the nearest ancestor whose
 *              command name is "cmc" (getppid() is virtualised by the
 *              preload, so it walks /proc/PID/stat), then    -> SENT
 *   child N    the same from a child process it forks, which then waits
 *              in pause() until cmc kills the target's process group
 *              (a sender that is gone before cmc looks at it
 *              cannot be told from the user's)              -> SENT
 *   probe W    ask the kernel whether cmc could be signalled (signal 0):
 *              W is "pid" (cmc's pid), "group" (cmc's process group)
 *              or "all" (-1, every process we may signal)  -> ALIVE
 *              when the kernel said yes, GONE when no, NOCMC when cmc
 *              was not found
 *   own W H    make W the owner of stdin's I/O signals, by H ("fcntl":
 *              F_SETOWN, "ex": F_SETOWN_EX, "ioctl": FIOSETOWN), and
 *              turn them on (O_ASYNC): W is "cmc" or "self" (then
 *              SIGIO is ignored here, and the owner read back)
 *                                       -> SET, or the error's name
 *   anything else                                            -> ERR
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

unsigned long counter, bits;

static void say(const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(1, s, n);
		if (w <= 0)
			_exit(1);
		s += w;
		n -= (size_t)w;
	}
}

/* The parent of pid and its command name, from /proc/PID/stat. */
static pid_t parent_of(pid_t pid, char *comm, size_t len)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	char *l = strchr(buf, '('), *r = strrchr(buf, ')');
	if (!l || !r || r < l)
		return -1;
	snprintf(comm, len, "%.*s", (int)(r - l - 1), l + 1);
	int ppid;
	if (sscanf(r + 2, "%*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

static pid_t find_cmc(void)
{
	pid_t p = (pid_t)syscall(SYS_getpid);
	char comm[64];
	for (int i = 0; i < 32 && p > 1; i++) {
		pid_t pp = parent_of(p, comm, sizeof comm);
		if (i > 0 && strcmp(comm, "cmc") == 0)
			return p;
		p = pp;
	}
	return -1;
}

static void send_sig(int sig)
{
	pid_t cmc = find_cmc();
	if (cmc > 0)
		syscall(SYS_kill, cmc, sig);
}

int main(void)
{
	char line[256];
	size_t n = 0;
	for (;;) {
		char c;
		ssize_t r = read(0, &c, 1);
		if (r <= 0)
			return 0;
		if (c != '\n') {
			if (n < sizeof line - 1)
				line[n++] = c;
			continue;
		}
		line[n] = 0;
		n = 0;
		int sig;
		if (strcmp(line, "inc") == 0) {
			counter++;
			say("OK\n");
		} else if (sscanf(line, "set %d", &sig) == 1 && sig >= 0 && sig < 64) {
			bits |= 1ul << sig;
			say("OK\n");
		} else if (strcmp(line, "poke") == 0) {
			const char *f = getenv("SIGCMC_POKE");
			int fd = f ? open(f, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
			if (fd >= 0) {
				(void)!write(fd, "poke\n", 5);
				close(fd);
			}
			say("OK\n");
		} else if (strncmp(line, "probe ", 6) == 0) {
			pid_t cmc = find_cmc(), whom = 0;
			if (strcmp(line + 6, "pid") == 0)
				whom = cmc;
			else if (strcmp(line + 6, "group") == 0)
				whom = -(pid_t)syscall(SYS_getpgid, cmc);
			else if (strcmp(line + 6, "all") == 0)
				whom = -1;
			if (cmc <= 0 || whom == 0 || whom == 1)
				say("NOCMC\n");
			else
				say(syscall(SYS_kill, whom, 0) == 0 ? "ALIVE\n" : "GONE\n");
		} else if (strncmp(line, "own ", 4) == 0) {
			char who[16], how[16];
			if (sscanf(line + 4, "%15s %15s", who, how) != 2) {
				say("ERR\n");
				continue;
			}
			bool self = strcmp(who, "self") == 0;
			pid_t w = self ? (pid_t)syscall(SYS_getpid) : find_cmc();
			if (self)
				signal(SIGIO, SIG_IGN);
			long r;
			if (strcmp(how, "fcntl") == 0) {
				r = syscall(SYS_fcntl, 0, F_SETOWN, w);
			} else if (strcmp(how, "ex") == 0) {
				struct f_owner_ex ex = {.type = F_OWNER_PID, .pid = w};
				r = syscall(SYS_fcntl, 0, F_SETOWN_EX, &ex);
			} else {
				int v = w;
				r = syscall(SYS_ioctl, 0, FIOSETOWN, &v);
			}
			if (r == 0)
				r = syscall(SYS_fcntl, 0, F_SETFL, O_ASYNC | (int)syscall(SYS_fcntl, 0, F_GETFL));
			if (r == 0 && self && syscall(SYS_fcntl, 0, F_GETOWN) != w)
				say("WRONG\n");
			else
				say(r == 0 ? "SET\n" : errno == ESRCH ? "ESRCH\n" : "OTHER\n");
		} else if (sscanf(line, "sig %d", &sig) == 1) {
			send_sig(sig);
			say("SENT\n");
		} else if (sscanf(line, "child %d", &sig) == 1) {
			int fds[2];
			if (pipe(fds) != 0) {
				say("ERR\n");
				continue;
			}
			pid_t pid = fork();
			if (pid == 0) {
				send_sig(sig);
				(void)!write(fds[1], "s", 1); /* sent: the parent may answer */
				for (;;)
					pause();
			}
			char b;
			close(fds[1]);
			bool sent = pid > 0 && read(fds[0], &b, 1) == 1;
			close(fds[0]);
			say(sent ? "SENT\n" : "ERR\n");
		} else {
			say("ERR\n");
		}
	}
}

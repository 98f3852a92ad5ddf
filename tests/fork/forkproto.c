/*
 * forkproto.c — the floor of one fork-snapshot transition with the fixed
 * costs the design asks of every transition, for tests/bench/process.sh:
 * forklimit.c's fork + round trip + kill + reap, plus what no target can
 * spare it:
 *   - the request reaches a process asleep in read() by a signal, and the
 *     fork happens in its handler (the target runs no code of ours else);
 *   - fresh channels for the child (input, output, canonical: DESIGN.md,
 *     process mode 4), passed with SCM_RIGHTS and dup2'd into place;
 *   - quiescence read off the kernel: /proc/PID/syscall until the child
 *     is back in read(0), and FIONREAD on the input (process mode 2);
 *   - the observation: /proc/PID/mem opened and HEAP bytes read.
 * Nothing else that cmc does (a jail, a TCP connection, /proc/PID/stat,
 * hashing, the pool) is counted.  Prints the median microseconds of N
 * rounds.  Usage: forkproto N [HEAP-BYTES]
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

static int ctl_fd = -1; /* the snapshot's end of the request socket */

/* In the snapshot: take the child's channels, fork, put them in place in
 * the child, which answers with its pid and returns into the restarted
 * read(). */
static void on_request(int sig)
{
	(void)sig;
	int fds[3], saved = errno;
	char byte, cbuf[CMSG_SPACE(sizeof fds)];
	struct iovec iov = {&byte, 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof cbuf};
	if (recvmsg(ctl_fd, &mh, 0) != 1 || !CMSG_FIRSTHDR(&mh)) {
		errno = saved;
		return;
	}
	memcpy(fds, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof fds);
	/* a child of the bench, as cmc's snapshots are of cmc (CLONE_PARENT) */
	long pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		dup2(fds[0], 0);
		dup2(fds[1], 1);
		dup2(fds[2], 5);
		pid_t me = getpid();
		send(ctl_fd, &me, sizeof me, 0);
	}
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	errno = saved;
}

/* The target: echo one byte per byte read, from stdin to stdout. */
static _Noreturn void snapshot(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_request;
	sa.sa_flags = SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	char c;
	for (;;) {
		ssize_t r = read(0, &c, 1);
		if (r == 1)
			r = write(1, &c, 1);
		else if (r == 0)
			_exit(0);
	}
}

/* Is pid asleep in read(0)?  (/proc/PID/syscall: "0 0x0 ...") */
static int in_read0(int fd)
{
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	return n >= 6 && memcmp(buf, "0 0x0 ", 6) == 0;
}

static int proc_open(pid_t pid, const char *what)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, what);
	return open(path, O_RDONLY | O_CLOEXEC);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	size_t heap_len = argc > 2 ? (size_t)atol(argv[2]) : 32768;
	if (n < 1)
		n = 1;
	if (heap_len < 1 || heap_len > (1u << 20))
		heap_len = 32768;
	double *t = malloc((size_t)n * sizeof *t);
	char *heap = malloc(1 << 20), *copy = malloc(heap_len);
	for (int i = 0; i < (1 << 20); i += 4096)
		heap[i] = (char)i;
	int sp[2], idle[2];
	if (!t || !heap || !copy || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp) < 0 || pipe(idle) < 0)
		return 1;
	pid_t snap = fork();
	if (snap < 0)
		return 1;
	if (snap == 0) {
		close(sp[0]);
		ctl_fd = sp[1];
		dup2(idle[0], 0);
		snapshot();
	}
	close(sp[1]);
	/* the snapshot asleep in read(0) before the first request */
	int sys = proc_open(snap, "syscall");
	while (sys >= 0 && !in_read0(sys))
		sched_yield();
	close(sys);
	for (int i = 0; i < n; i++) {
		int in[2], out[2], canon[2];
		char c = 'x';
		double t0 = now();
		if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(canon, O_CLOEXEC) < 0)
			return 1;
		if (write(in[1], &c, 1) != 1) /* there before the child is */
			return 1;
		int fds[3] = {in[0], out[1], canon[1]};
		char cbuf[CMSG_SPACE(sizeof fds)];
		memset(cbuf, 0, sizeof cbuf);
		struct iovec iov = {&c, 1};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				    .msg_controllen = sizeof cbuf};
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof fds);
		memcpy(CMSG_DATA(cm), fds, sizeof fds);
		pid_t child = 0;
		if (sendmsg(sp[0], &mh, 0) != 1 || kill(snap, SIGUSR1) < 0 ||
		    recv(sp[0], &child, sizeof child, 0) != sizeof child || child <= 0)
			return 1;
		close(in[0]);
		close(out[1]);
		close(canon[1]);
		if (read(out[0], &c, 1) != 1)
			return 1;
		/* quiescent: all input taken, asleep in read(0) again */
		sys = proc_open(child, "syscall");
		int left = 1;
		while (sys >= 0 && (ioctl(in[1], FIONREAD, &left) < 0 || left || !in_read0(sys)))
			sched_yield();
		int mem = proc_open(child, "mem");
		if (sys < 0 || mem < 0 || pread(mem, copy, heap_len, (off_t)(uintptr_t)heap) != (ssize_t)heap_len)
			return 1;
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		close(sys);
		close(mem);
		close(in[1]);
		close(out[0]);
		close(canon[0]);
		t[i] = now() - t0;
	}
	kill(snap, SIGKILL);
	waitpid(snap, NULL, 0);
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	printf("%.1f\n", t[n / 2] * 1e6);
	free(heap);
	free(copy);
	free(t);
	return 0;
}

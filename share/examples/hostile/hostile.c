/*
 * hostile.c — a target that misbehaves on purpose, for cmc's hardening
 * tests (tests/t6000-hostile.sh).  It reads lines on stdin with fgets:
 *
 *   a      remember one more item (a heap node), reply "OK", emit a record
 *   evil   once at least one `a` was seen, do what argv[1] names (below);
 *          before that, reply "OK" like `a` does not — so the shortest
 *          trace to the misbehaviour is always [a, evil]
 *
 * Modes (argv[1]):
 *   escapes   reply and canonical record full of ANSI/OSC sequences, NULs
 *   flood     write to stdout without end
 *   noread    never read input again (sleep forever)
 *   closein   close stdin and stdout, then sleep forever
 *   orphans   fork two children that outlive the target (one in a new
 *             session), then exit with status 5
 *   exec      exec /bin/sleep (another program that never reads)
 *   setsid    leave cmc's process group (setsid), fork a child, go on
 *             serving
 *   sigstop   raise(SIGSTOP)
 *   exitmid   write half a reply and half a record, then _exit(3)
 *   exhaust   allocate until the preload's region is exhausted
 *   trunc     write a canonical record header promising more than follows
 *   oversize  write a canonical record header with a length over the bound
 *   garbage   write bytes that are not a record on the canonical fd
 *   forkbomb  fork children (each sleeps) until fork fails, report count
 *   bigfile   write to a file until the file-size limit stops it
 *   spin      burn CPU without end
 *   bigmap    map 64 GiB of address space and abort() when refused (as an
 *             xmalloc-style wrapper does): past cmc's `limit as`
 * Modes against the snapshot socket (fd 1000, cmc_region.h section 5;
 * tests/t6400-fork-protocol.sh), each replying "OK" (dup2snap and
 * closesnap: "BAD" when a call did not return what it would outside cmc,
 * where fd 1000 is free) and serving on:
 *   fdfull    open /dev/null until the fd table is full (RLIMIT_NOFILE
 *             set to $HOSTILE_NOFILE, 1024 unset, first), and keep it full
 *   dup2snap  dup2 stdin onto fd 1000, and dup3 and F_DUPFD there too
 *   closesnap close(1000), and close_range over it
 *   snapgarb  write to fd 1000: a forged FORKED naming pid 1, then junk
 *   reexec    execve /proc/self/exe, which serves on as the same state
 *             (over tcp, its new image listens on PORT again: BAD if
 *             it cannot)
 *
 * With a second argument PORT it is a one-connection TCP server instead:
 * it listens on 127.0.0.1:PORT, accepts one connection and serves it as
 * its stdin and stdout, so `closein` closes the connection.
 *
 * Every process this program creates appends its pid to ./hostile.pids
 * (relative to its working directory), so the tests can check that none
 * is left behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmc_emit.h"

struct item {
	struct item *next;
	int n;
};

static void note_pid(void)
{
	char b[32];
	int fd = open("hostile.pids", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* The pid the test sees: /proc (the machine's) names it, where the
	 * preload may present a deterministic getpid() and the kernel's is
	 * the one in cmc's PID namespace.  (Not there: the kernel's.) */
	char self[32];
	ssize_t k = readlink("/proc/self", self, sizeof self - 1);
	int n = k > 0 ? snprintf(b, sizeof b, "%.*s\n", (int)k, self)
		      : snprintf(b, sizeof b, "%ld\n", (long)syscall(SYS_getpid));
	if (write(fd, b, (size_t)n) < 0)
		_exit(9);
	close(fd);
}

static void raw_canon(const void *p, size_t n)
{
	const char *v = getenv("CMC_CANON_FD");
	if (v && write(atoi(v), p, n) < 0)
		_exit(9);
}

static int skip_emit; /* the record written by evil stays the last one */
static const char *port_arg; /* argv[2] of a tcp server, or NULL */

static _Noreturn void sleep_forever(void)
{
	for (;;)
		pause();
}

static void evil(const char *mode, struct item *head)
{
	static const char esc[] = "OK\x1b]0;pwned\x07\x1b[31mRED\x1b[2J\x1b[H\0after-nul\x9b\xff\n";
	if (!strcmp(mode, "escapes")) {
		fwrite(esc, 1, sizeof esc - 1, stdout);
		fflush(stdout);
		cmc_emit(esc, sizeof esc - 1);
		skip_emit = 1;
		return;
	}
	if (!strcmp(mode, "flood")) {
		static char mb[1 << 16];
		memset(mb, 'x', sizeof mb);
		for (;;)
			if (write(1, mb, sizeof mb) < 0)
				_exit(9);
	}
	if (!strcmp(mode, "noread"))
		sleep_forever();
	if (!strcmp(mode, "closein")) {
		close(0);
		close(1);
		sleep_forever();
	}
	if (!strcmp(mode, "orphans") || !strcmp(mode, "setsid")) {
		if (!strcmp(mode, "setsid"))
			setsid();
		for (int i = 0; i < 2; i++) {
			pid_t p = fork();
			if (p == 0) {
				if (i == 1)
					setsid();
				note_pid();
				close(0);
				sleep_forever();
			}
		}
		if (!strcmp(mode, "orphans"))
			_exit(5);
		puts("OK");
		return;
	}
	if (!strcmp(mode, "exec")) {
		execl("/bin/sleep", "sleep", "100000", (char *)NULL);
		_exit(9);
	}
	if (!strcmp(mode, "sigstop")) {
		raise(SIGSTOP);
		puts("OK");
		return;
	}
	if (!strcmp(mode, "exitmid")) {
		fputs("O", stdout);
		fflush(stdout);
		raw_canon("CMCR\x10\0\0\0half", 12);
		_exit(3);
	}
	if (!strcmp(mode, "exhaust")) {
		for (size_t n = 1 << 12;; n += n / 2) {
			char *p = malloc(n);
			if (!p) {
				puts("OK malloc returned NULL");
				return;
			}
			p[0] = 1;
		}
	}
	if (!strcmp(mode, "trunc")) {
		raw_canon("CMCR\x40\0\0\0short", 13);
		puts("OK");
		return;
	}
	if (!strcmp(mode, "oversize")) {
		raw_canon("CMCR\xff\xff\xff\x7f", 8);
		puts("OK");
		return;
	}
	if (!strcmp(mode, "garbage")) {
		raw_canon("this is no record\n", 18);
		puts("OK");
		return;
	}
	if (!strcmp(mode, "forkbomb")) {
		int n = 0;
		for (; n < 10000; n++) {
			pid_t p = fork();
			if (p < 0)
				break;
			if (p == 0) {
				note_pid();
				close(0);
				sleep_forever();
			}
		}
		printf("OK forked %d\n", n);
		return;
	}
	if (!strcmp(mode, "bigfile")) {
		static char mb[1 << 16];
		int fd = open("hostile.big", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		for (int i = 0; fd >= 0 && i < 1 << 14; i++)
			if (write(fd, mb, sizeof mb) < 0)
				break;
		puts("OK wrote");
		return;
	}
	if (!strcmp(mode, "bigmap")) {
		void *p = mmap(NULL, 64ULL << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		if (p == MAP_FAILED)
			abort();
		puts("OK mapped");
		return;
	}
	if (!strcmp(mode, "fdfull")) {
		struct rlimit rl;
		const char *lim = getenv("HOSTILE_NOFILE");
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
			rl.rlim_cur = lim ? (rlim_t)atoi(lim) : 1024;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		int last = -1, fd, e;
		while ((fd = open("/dev/null", O_RDONLY)) >= 0)
			last = fd;
		e = errno;
		/* HOSTILE_FREE=k: then leave k fds free (the last ones opened) */
		for (int k = getenv("HOSTILE_FREE") ? atoi(getenv("HOSTILE_FREE")) : 0; k > 0 && last > 2; k--)
			close(last--);
		printf("OK full %s\n", e == EMFILE ? "EMFILE" : strerror(e));
		return;
	}
	if (!strcmp(mode, "dup2snap")) {
		/* what they return outside cmc, where fd 1000 is free */
		int r1 = dup2(0, 1000), r2 = dup3(0, 1000, O_CLOEXEC), r3 = fcntl(0, F_DUPFD, 1000);
		printf("%s %d %d %d\n", r1 == 1000 && r2 == 1000 && r3 == 1001 ? "OK" : "BAD", r1, r2, r3);
		return;
	}
	if (!strcmp(mode, "closesnap")) {
		int r1 = close(1000), e1 = errno;
		int r2 = close_range(999, 1001, 0);
		printf("%s %d %d\n", r1 == -1 && e1 == EBADF && r2 == 0 ? "OK" : "BAD", r1, r2);
		return;
	}
	if (!strcmp(mode, "snapgarb")) {
		/* a whole forged FORKED naming pid 1 (struct cmc_snap_msg of
		 * preload/layout/cmc_region.h: 576 bytes, magic, kind 3, a = pid),
		 * then a line of junk */
		static unsigned int forged[144] = {0x50534d43u, 3u, 1u};
		static const char junk[] = "garbage on the snapshot socket\n";
		ssize_t r1 = write(1000, forged, sizeof forged), r2 = write(1000, junk, sizeof junk);
		printf("OK %d %d\n", r1 > 0, r2 > 0);
		return;
	}
	if (!strcmp(mode, "reexec")) {
		char items[16], *av[] = {"hostile", "reexec-done", items, (char *)port_arg, NULL};
		snprintf(items, sizeof items, "%d", head ? head->n : 0);
		fflush(stdout);
		execv("/proc/self/exe", av);
		_exit(9);
	}
	if (!strcmp(mode, "spin")) {
		for (volatile unsigned long x = 0;; x++)
			;
	}
	(void)head;
	puts("OK unknown mode");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "escapes";
	port_arg = argc > 2 && strcmp(mode, "reexec-done") != 0 ? argv[2] : NULL;
	struct item *head = NULL;
	int n = 0;
	char line[256];
	note_pid();
	if (argc > 2 && strcmp(mode, "reexec-done") != 0) {
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])),
					.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		int one = 1, l = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 1) < 0)
			_exit(8);
		int c = accept(l, NULL, NULL);
		if (c < 0 || dup2(c, 0) < 0 || dup2(c, 1) < 0)
			_exit(8);
		close(c);
		close(l);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "reexec-done")) {
		/* the image reexec started: the same state (its count), and
		 * this is its reply to evil */
		n = argc > 2 ? atoi(argv[2]) : 0;
		/* a tcp server's new image listens again on the port it was
		 * told (the first one closed its listener): under cmc, the
		 * real port the CONFIG message names (preload/detnet.c) */
		int l = argc > 3 ? socket(AF_INET, SOCK_STREAM, 0) : -1, one = 1;
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		if (l >= 0) {
			a.sin_port = htons((uint16_t)atoi(argv[3]));
			setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		}
		if (l >= 0 && (bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 1) < 0))
			printf("BAD reexec: cannot listen on port %s again: %s\n", argv[3], strerror(errno));
		else
			puts("OK reexec");
	}
	for (;;) {
		unsigned char rec[8];
		if (skip_emit)
			goto next;
		for (int i = 0; i < 8; i++)
			rec[i] = (unsigned char)((unsigned long long)n >> (8 * i));
		cmc_emit(rec, sizeof rec);
next:
		skip_emit = 0;
		if (!fgets(line, sizeof line, stdin))
			break;
		if (!strcmp(line, "a\n")) {
			struct item *it = malloc(sizeof *it);
			it->next = head;
			it->n = ++n;
			head = it;
			puts("OK");
		} else if (!strcmp(line, "evil\n") && n > 0) {
			evil(mode, head);
		} else
			puts("OK");
	}
	return 0;
}

/*
 * proctarget.c — a small stdin target for the t5 process-mode tests: each
 * line is a command, answered with one line on stdout (write(2), no stdio
 * buffering).  Its misbehaviours are on request, so the tests can check how
 * cmc reports each fault.
 *
 *   inc        counter += 1              -> OK
 *   crash      dies on SIGSEGV
 *   bomb       dies on SIGSEGV once counter >= 2, else -> OK
 *   abort      dies on SIGABRT
 *   assert     says on stderr why it gives up, as a failed assert() does
 *              (with an escape sequence in it), then dies on SIGABRT
 *   hang       blocks forever (pause), never reads again; when $PT_READY
 *              and $PT_HOLD name FIFOs, first opens PT_HOLD for writing
 *              and holds it, then writes "ready" to PT_READY, so a test
 *              learns exactly when it hangs and (at EOF) when it died
 *   flood      writes 4 MiB of output
 *   exit N     exits with status N
 *   alloc N    malloc(N) and touch it    -> OK
 *   cgroup     its jail's cgroup path        -> CG v2|pids /path (or CG none)
 *   write F    append a byte to file F in its working directory -> SIZE n
 *   grow F     append a byte to file F and set counter to F's size: with
 *              F outside its working directory (an absolute path), every
 *              run of one trace reaches another counter -> SIZE n
 *   hw         append a byte through the file --hold opened -> SIZE n
 *   mw         count in the first byte of --map's mapping -> MAPPED n OWN,
 *              or MAPPED n SHARED when n is not how many mw this process
 *              and its ancestors ran (another's writes reached it)
 *   ids        its process ids      -> IDS pid ppid pgrp pgid sid
 *   files      how many entries its working directory has -> FILES n
 *   cd D       chdir(D)                  -> OK (ERR when refused)
 *   pwd        its working directory    -> PWD path
 *   env        keep a heap copy of the environment's strings and of the
 *              address of a local variable (as shells and interpreters
 *              do)                       -> OK
 *   stack      keep a heap copy of 16 KiB of stack below the caller, never
 *              written by this call (as padding and scratch reach the heap
 *              in real programs)         -> OK
 *   roll       keep in the heap a number the processor's cycle counter
 *              gives (differs on every run: a nondeterministic target)
 *                                        -> OK
 *   rolled     -> ERR after a roll, else OK
 *   anything else                        -> ERR
 *
 * Arguments: --exit-at-start N (exit before reading anything),
 *            --pause (never read: blocks in pause()),
 *            --epoll (an event loop: wait for stdin in epoll_wait before
 *            each read, retried on EINTR, as servers do),
 *            --epoll-many N (N more epoll instances, never used),
 *            --epoll-ms N (the epoll wait's timeout, default -1; every
 *            return from it counts in the global `wakeups`),
 *            --hold F (open F, created, and keep it open for `hw`),
 *            --map F (F, created, 4 KiB, mapped shared for `mw`),
 *            --altstack (an alternate signal stack of its own, the global
 *            `altarea`, as programs with stack-overflow handlers have; the
 *            command `altq` answers ALT ok while sigaltstack() reports it),
 *            --poll-eintr (wait for stdin in poll() and exit 3 when it is
 *            interrupted, as OpenBSD netcat does; a process forked from
 *            the first exits at once, the first 100 ms later, so a fork
 *            snapshot's child is seen to end before the snapshot does).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned long counter;
unsigned long wakeups;
static int held = -1;
static unsigned char *map;

static void say(const char *s);

/* What `stack` copies: the bytes below the caller's frame, as earlier
 * calls (and anything else that ran on this stack) left them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized" /* the point of it */
static __attribute__((noinline)) void keep_stack(void)
{
	volatile unsigned char scratch[16384];
	unsigned char *p = malloc(sizeof scratch);
	if (!p)
		exit(1);
	for (size_t i = 0; i < sizeof scratch; i++)
		p[i] = scratch[i];
	if (getenv("PT_SUM")) {
		unsigned long h = 0; size_t nz = 0;
		for (size_t i = 0; i < sizeof scratch; i++) { h = h * 31 + p[i]; nz += p[i] != 0; }
		char b[64]; snprintf(b, sizeof b, "SUM %lx %zu\n", h, nz); say(b);
	}
}
#pragma GCC diagnostic pop

extern char **environ;

unsigned char altarea[65536];

static __attribute__((noinline)) void keep_env(void)
{
	int local = 0;
	size_t n = sizeof(void *);
	for (char **e = environ; *e; e++)
		n += strlen(*e) + 1;
	char *p = malloc(n), *d = p + sizeof(void *);
	if (!p)
		exit(1);
	void *where = (void *)&local;
	memcpy(p, &where, sizeof where);
	for (char **e = environ; *e; e++)
		d = stpcpy(d, *e) + 1;
}

static void say(const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(1, s, n);
		if (w <= 0)
			exit(1);
		s += w;
		n -= (size_t)w;
	}
}

static void command(const char *line)
{
	static bool rolled;
	if (!strcmp(line, "roll")) {
		unsigned long long *r = malloc(sizeof *r);
		if (!r)
			exit(1);
#if defined(__x86_64__) || defined(__i386__)
		*r = __builtin_ia32_rdtsc(); /* not a call the preload can answer */
#else
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		*r = (unsigned long long)ts.tv_nsec;
#endif
		rolled = true;
		say("OK\n");
	} else if (!strcmp(line, "rolled")) {
		say(rolled ? "ERR\n" : "OK\n");
	} else if (!strcmp(line, "inc")) {
		counter++;
		say("OK\n");
	} else if (!strcmp(line, "crash")) {
		raise(SIGSEGV);
	} else if (!strcmp(line, "bomb")) {
		if (counter >= 2)
			raise(SIGSEGV);
		say("OK\n");
	} else if (!strcmp(line, "abort")) {
		abort();
	} else if (!strcmp(line, "assert")) {
		static const char why[] = "proctarget: pt.c:42: command: Assertion `counter < 2' "
					  "failed \x1b[31mred\x1b[0m\n";
		if (write(2, why, sizeof why - 1) < 0)
			_exit(3);
		abort();
	} else if (!strcmp(line, "hang")) {
		const char *ready = getenv("PT_READY"), *hold = getenv("PT_HOLD");
		if (ready && hold) {
			/* Hold first, then say ready: a test that kills cmc as soon
			 * as it reads "ready" must find the FIFO already held, or
			 * its reader would wait for a writer that never comes. */
			if (open(hold, O_WRONLY) < 0)
				exit(1);
			int fd = open(ready, O_WRONLY);
			if (fd < 0 || write(fd, "ready\n", 6) != 6)
				exit(1);
			close(fd);
		}
		for (;;)
			pause();
	} else if (!strcmp(line, "flood")) {
		static char block[65536];
		memset(block, 'x', sizeof block);
		for (int i = 0; i < 64; i++)
			if (write(1, block, sizeof block) < 0)
				exit(1);
	} else if (!strncmp(line, "exit ", 5)) {
		exit(atoi(line + 5));
	} else if (!strcmp(line, "cgroup")) {
		/* the jail's: a path of cmc's (".../cmc-PID/tN") on the v1
		 * pids hierarchy or on v2, whichever has one */
		char buf[512] = "CG none\n";
		FILE *f = fopen("/proc/self/cgroup", "re");
		char l[400];
		while (f && fgets(l, sizeof l, f)) {
			char *path = strchr(l, ':') ? strchr(strchr(l, ':') + 1, ':') : NULL;
			if (!path || !strstr(path, "/cmc-"))
				continue;
			*path++ = 0;
			bool v2 = !strcmp(l, "0:");
			bool pids = strstr(l, ":pids") && (strstr(l, ":pids")[5] == 0 || strstr(l, ":pids")[5] == ',');
			if (v2 || pids)
				snprintf(buf, sizeof buf, "CG %s %s", v2 ? "v2" : "pids", path);
		}
		if (f)
			fclose(f);
		say(buf);
	} else if (!strcmp(line, "env")) {
		keep_env();
		say("OK\n");
	} else if (!strcmp(line, "stack")) {
		keep_stack();
		say("OK\n");
	} else if (!strncmp(line, "write ", 6)) {
		int fd = open(line + 6, O_WRONLY | O_CREAT | O_APPEND, 0644);
		struct stat st;
		char b[48] = "ERR\n";
		if (fd >= 0 && write(fd, "x", 1) == 1 && fstat(fd, &st) == 0)
			snprintf(b, sizeof b, "SIZE %lld\n", (long long)st.st_size);
		say(b);
		if (fd >= 0)
			close(fd);
	} else if (!strncmp(line, "grow ", 5)) {
		int fd = open(line + 5, O_WRONLY | O_CREAT | O_APPEND, 0644);
		struct stat st;
		char b[48] = "ERR\n";
		if (fd >= 0 && write(fd, "x", 1) == 1 && fstat(fd, &st) == 0) {
			counter = (unsigned long)st.st_size;
			snprintf(b, sizeof b, "SIZE %lld\n", (long long)st.st_size);
		}
		say(b);
		if (fd >= 0)
			close(fd);
	} else if (!strcmp(line, "hw")) {
		struct stat st;
		char b[48] = "ERR\n";
		if (held >= 0 && write(held, "x", 1) == 1 && fstat(held, &st) == 0)
			snprintf(b, sizeof b, "SIZE %lld\n", (long long)st.st_size);
		say(b);
	} else if (!strcmp(line, "mw")) {
		static int mine; /* this history's own mw, in private memory */
		char b[48] = "ERR\n";
		mine++;
		if (map) {
			int n = ++map[0];
			snprintf(b, sizeof b, "MAPPED %d %s\n", n, n == mine ? "OWN" : "SHARED");
		}
		say(b);
	} else if (!strcmp(line, "ids")) {
		char b[96];
		snprintf(b, sizeof b, "IDS %d %d %d %d %d\n", (int)getpid(), (int)getppid(), (int)getpgrp(),
			 (int)getpgid(0), (int)getsid(0));
		say(b);
	} else if (!strcmp(line, "files")) {
		DIR *d = opendir(".");
		int n = 0;
		while (d && readdir(d))
			n++;
		if (d)
			closedir(d);
		char b[32];
		snprintf(b, sizeof b, "FILES %d\n", n);
		say(b);
	} else if (!strncmp(line, "cd ", 3)) {
		say(chdir(line + 3) == 0 ? "OK\n" : "ERR\n");
	} else if (!strcmp(line, "pwd")) {
		char b[600], w[512];
		snprintf(b, sizeof b, "PWD %s\n", getcwd(w, sizeof w) ? w : "?");
		say(b);
	} else if (!strcmp(line, "altq")) {
		stack_t o;
		bool mine = sigaltstack(NULL, &o) == 0 && o.ss_sp == (void *)altarea &&
			    o.ss_size == sizeof altarea && !(o.ss_flags & SS_DISABLE);
		say(mine ? "ALT ok\n" : "ALT lost\n");
	} else if (!strncmp(line, "alloc ", 6)) {
		size_t n = strtoul(line + 6, NULL, 10);
		char *p = malloc(n);
		if (p)
			memset(p, 1, n);
		say(p ? "OK\n" : "NULL\n");
	} else {
		say("ERR\n");
	}
}

int main(int argc, char **argv)
{
	int ep = -1;
	pid_t first = getpid();
	bool poll_eintr = false;
	int epoll_ms = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--poll-eintr"))
			poll_eintr = true;
		/* more epoll instances than the preload tracks for a fork
		 * snapshot's child (preload/epoll.c): N more, idle */
		if (!strcmp(argv[i], "--epoll-many") && i + 1 < argc)
			for (int k = atoi(argv[i + 1]); k > 0; k--)
				if (epoll_create1(0) < 0)
					exit(3);
		if (!strcmp(argv[i], "--hold") && i + 1 < argc)
			held = open(argv[i + 1], O_RDWR | O_CREAT | O_APPEND, 0644);
		if (!strcmp(argv[i], "--map") && i + 1 < argc) {
			int fd = open(argv[i + 1], O_RDWR | O_CREAT, 0644);
			void *m = fd >= 0 && ftruncate(fd, 4096) == 0
					  ? mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
			map = m == MAP_FAILED ? NULL : m;
		}
		if (!strcmp(argv[i], "--altstack")) {
			stack_t ss = {.ss_sp = altarea, .ss_size = sizeof altarea};
			if (sigaltstack(&ss, NULL) < 0)
				exit(3);
		}
		if (!strcmp(argv[i], "--epoll-ms") && i + 1 < argc)
			epoll_ms = atoi(argv[i + 1]);
		if (!strcmp(argv[i], "--epoll")) {
			struct epoll_event ev = {.events = EPOLLIN};
			ep = epoll_create1(EPOLL_CLOEXEC);
			if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev) < 0)
				exit(3);
		}
		if (!strcmp(argv[i], "--exit-at-start") && i + 1 < argc)
			exit(atoi(argv[i + 1]));
		if (!strcmp(argv[i], "--pause"))
			for (;;)
				pause();
	}
	char line[256];
	size_t len = 0;
	for (;;) {
		char c;
		struct epoll_event ev;
		/* retried when a signal (a fork request) interrupts it */
		for (int n = 0; ep >= 0 && len == 0 && n <= 0;) {
			n = epoll_wait(ep, &ev, 1, epoll_ms);
			wakeups++;
			if (n < 0 && errno != EINTR)
				exit(3);
		}
		struct pollfd pf = {.fd = 0, .events = POLLIN};
		if (poll_eintr && len == 0 && poll(&pf, 1, -1) < 0) {
			if (getpid() == first) {
				struct timespec ts = {0, 100 * 1000 * 1000};
				nanosleep(&ts, NULL);
			}
			exit(3);
		}
		ssize_t r = read(0, &c, 1);
		if (r <= 0)
			return 0;
		if (c != '\n') {
			if (len < sizeof line - 1)
				line[len++] = c;
			continue;
		}
		line[len] = 0;
		len = 0;
		command(line);
	}
}

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
 *   hang       blocks forever (pause), never reads again; when $PT_READY
 *              and $PT_HOLD name FIFOs, first opens PT_HOLD for writing
 *              and holds it, then writes "ready" to PT_READY, so a test
 *              learns exactly when it hangs and (at EOF) when it died
 *   flood      writes 4 MiB of output
 *   exit N     exits with status N
 *   alloc N    malloc(N) and touch it    -> OK
 *   cgroup     its jail's cgroup path        -> CG v2|pids /path (or CG none)
 *   anything else                        -> ERR
 *
 * Arguments: --exit-at-start N (exit before reading anything),
 *            --pause (never read: blocks in pause()),
 *            --epoll (an event loop: wait for stdin in epoll_wait before
 *            each read, retried on EINTR, as servers do),
 *            --epoll-many N (N more epoll instances, never used),
 *            --poll-eintr (wait for stdin in poll() and exit 3 when it is
 *            interrupted, as OpenBSD netcat does; a process forked from
 *            the first exits at once, the first 100 ms later, so a fork
 *            snapshot's child is seen to end before the snapshot does).
 */
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
#include <unistd.h>

unsigned long counter;

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
	if (!strcmp(line, "inc")) {
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
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--poll-eintr"))
			poll_eintr = true;
		/* more epoll instances than the preload tracks for a fork
		 * snapshot's child (preload/epoll.c): N more, idle */
		if (!strcmp(argv[i], "--epoll-many") && i + 1 < argc)
			for (int k = atoi(argv[i + 1]); k > 0; k--)
				if (epoll_create1(0) < 0)
					exit(3);
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
		while (ep >= 0 && len == 0 && epoll_wait(ep, &ev, 1, -1) < 0)
			if (errno != EINTR)
				exit(3);
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

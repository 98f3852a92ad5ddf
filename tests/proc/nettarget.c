/*
 * nettarget.c — a TCP server for the t5 tests that keeps what real
 * servers keep (tests/t5320-det-net.sh): in a heap record, the port it was
 * told (argv), the port getsockname() reports, the peer's port from
 * accept() and getpeername(), and a count of the times its event loop
 * woke without input (a timer tick that reads the clock, as lighttpd's
 * once a second).  Every line it receives is appended to the record; it
 * answers "OK n", to "ports" what it holds: "PORTS told sock accept
 * peer", to "ticks" "TICKS n".  "timer MS" sets the wait's timeout (-1:
 * none) in a local variable, not in the record, and answers "TIMER MS":
 * the heap stays as it was, only the wait differs.
 *
 *   nettarget PORT [--poll|--select|--epoll] [--tick MS] [--eintr-spin N]
 * waits in the call named (default poll) with a timeout of MS (default 1)
 * milliseconds, -1 for none; a timeout bumps the tick count and stores
 * time(NULL).  --eintr-spin N: after a wait that a signal interrupted (a
 * fork request), spin N million loop turns before waiting again, so that
 * a snapshot's child is long out of its wait (t5320).  --keep-env: a heap
 * copy of its environment, as nginx keeps one (t5350).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct rec {
	char told[8];
	unsigned sock_port, peer_accept, peer_name;
	unsigned long ticks;
	long long now;
	size_t len;
	char lines[4000];
};

enum { W_POLL, W_SELECT, W_EPOLL };

/* 1: readable, 0: timed out, -1: error */
static int wait_in(int how, int fd, int ep, int ms)
{
	if (how == W_POLL) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		return poll(&p, 1, ms);
	}
	if (how == W_SELECT) {
		fd_set r;
		FD_ZERO(&r);
		FD_SET(fd, &r);
		struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
		return select(fd + 1, &r, NULL, NULL, &tv);
	}
	struct epoll_event ev;
	return epoll_wait(ep, &ev, 1, ms);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int how = W_POLL, ms = 1;
	long spin = 0;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--select")) how = W_SELECT;
		else if (!strcmp(argv[i], "--epoll")) how = W_EPOLL;
		else if (!strcmp(argv[i], "--tick") && i + 1 < argc) ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--eintr-spin") && i + 1 < argc) spin = atol(argv[++i]) * 1000000;
		else if (!strcmp(argv[i], "--keep-env")) {
			extern char **environ;
			static char **kept;
			size_t n = 0;
			while (environ[n])
				n++;
			kept = calloc(n + 1, sizeof *kept);
			for (size_t k = 0; kept && k < n; k++)
				kept[k] = strdup(environ[k]);
		}
	}
	struct rec *r = calloc(1, sizeof *r);
	snprintf(r->told, sizeof r->told, "%s", argv[1]);
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1])),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	if (bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &al) < 0)
		return 3;
	r->sock_port = ntohs(a.sin_port);
	struct sockaddr_in p;
	socklen_t pl = sizeof p;
	int c = accept(l, (struct sockaddr *)&p, &pl);
	if (c < 0)
		return 4;
	r->peer_accept = ntohs(p.sin_port);
	pl = sizeof p;
	if (getpeername(c, (struct sockaddr *)&p, &pl) == 0)
		r->peer_name = ntohs(p.sin_port);
	int ep = -1; /* only for --epoll: fork snapshots cannot share one */
	if (how == W_EPOLL) {
		struct epoll_event ev = {.events = EPOLLIN, .data.fd = c};
		ep = epoll_create1(0);
		epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
	}
	char buf[512];
	for (;;) {
		int w = wait_in(how, c, ep, ms);
		if (w == 0) {
			r->ticks++;
			r->now = (long long)time(NULL);
			continue;
		}
		if (w < 0) { /* EINTR (a fork request) */
			for (volatile long k = 0; k < spin; k++)
				;
			continue;
		}
		ssize_t n = read(c, buf, sizeof buf - 1);
		if (n <= 0)
			return 0;
		buf[n] = 0;
		if (!strncmp(buf, "timer ", 6)) {
			ms = atoi(buf + 6);
			char out[32];
			int k = snprintf(out, sizeof out, "TIMER %d\n", ms);
			if (write(c, out, (size_t)k) < 0)
				return 5;
			continue;
		}
		if (r->len + (size_t)n < sizeof r->lines) {
			memcpy(r->lines + r->len, buf, (size_t)n);
			r->len += (size_t)n;
		}
		char out[96];
		int k = n == 6 && !memcmp(buf, "ports\n", 6)
				? snprintf(out, sizeof out, "PORTS %s %u %u %u\n", r->told, r->sock_port,
					   r->peer_accept, r->peer_name)
			: n == 6 && !memcmp(buf, "ticks\n", 6)
				? snprintf(out, sizeof out, "TICKS %lu\n", r->ticks)
				: snprintf(out, sizeof out, "OK %zu\n", r->len);
		if (write(c, out, (size_t)k) < 0)
			return 5;
	}
}

/*
 * detnet.c — fixed TCP addresses for a target in the deterministic
 * environment (CMC_DETERMINISTIC=1 and the real port cmc sends, cmc_region.h):
 * cmc listens each target it starts on a free port, a different one for
 * every process (a replay, a worker's root, another run), and connects from
 * an ephemeral port.  A server keeps both (its configuration, the peer of
 * each connection), so raw states differed between runs of one trace and
 * between workers.  Here the target is told CMC_NET_PORT and sees only it:
 *   bind        of CMC_NET_PORT binds the real port instead;
 *   getsockname reports CMC_NET_PORT for the real port;
 *   accept, accept4, getpeername
 *               report CMC_NET_PEER_PORT as the peer's port of a
 *               connection to the real port (cmc is its only client).
 * IPv4 and IPv6 alike (the port sits at the same offset in both).  The
 * connection a fork snapshot's child is given (snap.c) comes from cmc's
 * own listener and is not rewritten: the child inherits what its origin
 * learnt at accept.  Raw system calls only.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl.h"

static int net = -1;            /* -1 not read yet, 0 off, 1 on */
static uint16_t real_port;

static int on(void)
{
	if (net < 0) {
		net = 0;
		uint16_t p = pl_det_on() ? pl_snap_config_port() : 0;
		if (p) {
			real_port = p;
			net = 1;
		}
	}
	return net;
}

static int inet(const struct sockaddr *a, socklen_t len)
{
	return a && len >= (socklen_t)sizeof(struct sockaddr_in) &&
	       (a->sa_family == AF_INET || a->sa_family == AF_INET6);
}

/* sin_port and sin6_port: same offset, network order */
static uint16_t port_of(const struct sockaddr *a)
{
	return ntohs(((const struct sockaddr_in *)a)->sin_port);
}

static void set_port(struct sockaddr *a, uint16_t p)
{
	((struct sockaddr_in *)a)->sin_port = htons(p);
}

/* Is fd bound to the real port (a listener or a connection to it)? */
static int local_real(int fd)
{
	struct sockaddr_storage l;
	socklen_t ll = sizeof l;
	return syscall(SYS_getsockname, fd, &l, &ll) == 0 && inet((struct sockaddr *)&l, ll) &&
	       port_of((struct sockaddr *)&l) == real_port;
}

PL_EXPORT int bind(int fd, const struct sockaddr *a, socklen_t len)
{
	struct sockaddr_storage c;
	if (on() && inet(a, len) && len <= (socklen_t)sizeof c && port_of(a) == CMC_NET_PORT) {
		memcpy(&c, a, len);
		set_port((struct sockaddr *)&c, real_port);
		a = (const struct sockaddr *)&c;
	}
	return (int)syscall(SYS_bind, fd, a, len);
}

PL_EXPORT int getsockname(int fd, struct sockaddr *restrict a, socklen_t *restrict len)
{
	socklen_t cap = len ? *len : 0;
	int r = (int)syscall(SYS_getsockname, fd, a, len);
	if (r == 0 && on() && cap >= (socklen_t)sizeof(struct sockaddr_in) && inet(a, *len) &&
	    port_of(a) == real_port)
		set_port(a, CMC_NET_PORT);
	return r;
}

/* The peer of a connection to the real port, as the target sees it. */
static void peer(int fd, struct sockaddr *a, socklen_t cap, socklen_t len)
{
	if (on() && a && cap >= (socklen_t)sizeof(struct sockaddr_in) && inet(a, len) && local_real(fd))
		set_port(a, CMC_NET_PEER_PORT);
}

PL_EXPORT int getpeername(int fd, struct sockaddr *restrict a, socklen_t *restrict len)
{
	socklen_t cap = len ? *len : 0;
	int r = (int)syscall(SYS_getpeername, fd, a, len);
	if (r == 0)
		peer(fd, a, cap, *len);
	return r;
}

PL_EXPORT int accept4(int fd, struct sockaddr *restrict a, socklen_t *restrict len, int flags)
{
	socklen_t cap = a && len ? *len : 0;
	int r = (int)syscall(SYS_accept4, fd, a, len, flags);
	if (r >= 0 && cap)
		peer(r, a, cap, *len);
	return r;
}

PL_EXPORT int accept(int fd, struct sockaddr *restrict a, socklen_t *restrict len)
{
	return accept4(fd, a, len, 0);
}

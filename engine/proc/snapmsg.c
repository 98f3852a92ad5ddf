/*
 * snapmsg.c — checking what arrives on cmc's end of a snapshot socket
 * (snapmsg.h).  The target's end is the program's fd CMC_SNAP_FD: a
 * program can write anything there, so nothing in a datagram is used
 * before it was found to be a whole message of a kind the phase allows,
 * with every field that kind leaves unused still zero (the preload's
 * reply() sends a zeroed message) and the ones it uses in range.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "snapmsg.h"

/* Every byte of [p, p + n) zero? */
static bool zero(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* The fields after `b` (ports, nfds, to[], paths; flags unless the kind
 * has them) are zero. */
static bool tail_zero(const struct cmc_snap_msg *m, bool has_flags)
{
	return m->lport == 0 && m->pport == 0 && m->nfds == 0 && zero(m->to, sizeof m->to) &&
	       (has_flags || m->flags == 0) && zero(m->cwd_at, sizeof m->cwd_at) &&
	       zero(m->cwd_src, sizeof m->cwd_src);
}

unsigned proc_snap_check(enum proc_snap_phase ph, const void *msg, size_t len, int msg_flags,
			 size_t nfds, const char **why)
{
	struct cmc_snap_msg m;
	*why = NULL;
	if (msg_flags & MSG_TRUNC)
		*why = "a datagram longer than a message";
	else if (len != sizeof m)
		*why = len ? "a datagram shorter than a message" : "an empty datagram";
	else if (nfds || (msg_flags & MSG_CTRUNC))
		*why = "a message carrying descriptors";
	if (*why)
		return 0;
	memcpy(&m, msg, sizeof m); /* (msg may be unaligned) */
	if (m.magic != CMC_SNAP_MAGIC) {
		*why = "a message without the snapshot magic";
		return 0;
	}
	switch (m.kind) {
	case CMC_SNAP_READY:
		if (m.a <= 0 || m.b != 0 || !tail_zero(&m, false))
			*why = "a malformed READY";
		break;
	case CMC_SNAP_FORKED:
		if (ph != PROC_SNAP_FORKING)
			*why = "a FORKED no fork request asked for";
		else if (m.a <= 0 || m.b < -1 ||
			 (m.flags & ~(CMC_SNAP_IN_CGROUP | CMC_SNAP_IN_TASKS | CMC_SNAP_OWN_CWD)) ||
			 !tail_zero(&m, true))
			*why = "a malformed FORKED";
		break;
	case CMC_SNAP_ERROR:
		if (ph != PROC_SNAP_FORKING)
			*why = "an ERROR no fork request asked for";
		else if (m.a <= 0 || m.a > 4095 || m.b != 0 || !tail_zero(&m, false))
			*why = "a malformed ERROR";
		break;
	case CMC_SNAP_FORK:
	case CMC_SNAP_GO:
	case CMC_SNAP_CONFIG:
		*why = "a message only cmc sends";
		break;
	default:
		*why = "a message of no known kind";
		break;
	}
	return *why ? 0 : m.kind;
}

int proc_snap_recv(int fd, enum proc_snap_phase ph, struct cmc_snap_msg *m, const char **why, pid_t *from)
{
	union {
		char buf[CMSG_SPACE(CMC_SNAP_MAXFDS * sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} c;
	/* one byte more than a message: a longer datagram shows as MSG_TRUNC */
	char data[sizeof *m + 1];
	struct iovec iov = {data, sizeof data};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf,
			    .msg_controllen = sizeof c.buf};
	ssize_t r;
	while ((r = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC | MSG_TRUNC)) < 0 && errno == EINTR)
		;
	if (r < 0)
		return 0;
	size_t nfds = 0;
	if (from)
		*from = 0;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&mh); h; h = CMSG_NXTHDR(&mh, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_CREDENTIALS &&
		    h->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred u;
			memcpy(&u, CMSG_DATA(h), sizeof u);
			if (from)
				*from = u.pid;
		} else if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) {
			size_t n = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < n; i++) {
				int got;
				memcpy(&got, CMSG_DATA(h) + i * sizeof(int), sizeof got);
				close(got); /* never kept: a target sends no descriptor */
				nfds++;
			}
		}
	if (r == 0 && !nfds) {
		errno = EPIPE; /* (or an empty datagram) the target's end is closed */
		return 0;
	}
	size_t len = (size_t)r > sizeof data ? sizeof data : (size_t)r;
	int fl = mh.msg_flags | ((size_t)r > sizeof *m ? MSG_TRUNC : 0);
	if (!proc_snap_check(ph, data, len, fl, nfds, why))
		return -1;
	memcpy(m, data, sizeof *m);
	return 1;
}

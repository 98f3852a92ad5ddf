/*
 * snap-fuzzer.c — libFuzzer target for cmc's side of the snapshot socket
 * (engine/proc/snapmsg.c): what a target's end may send, checked against
 * the phase the exchange is in, before any field is used.
 * Input: byte 0 bit 0 the phase (IDLE / FORKING), bit 1 "compact" (the
 * message is built from the next 16 bytes: kind, a, b, flags; every other
 * field zero, as the preload sends them), bit 2 "through a socket" (sent on
 * a socketpair and read back by proc_snap_recv, with byte 1 % 4
 * descriptors attached); byte 1 also sets MSG_TRUNC (bit 6) and
 * MSG_CTRUNC (bit 7) for the pure check; the rest is the datagram.
 * Checked: an accepted message is a whole one with the magic, a kind the
 * phase allows and the fields its kind uses in range; a refused one says
 * why; the socket path agrees with the pure check and leaks no descriptor.
 */
#include <assert.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmc_region.h"
#include "proc/snapmsg.h"

static void check_accepted(enum proc_snap_phase ph, unsigned kind, const struct cmc_snap_msg *m)
{
	assert(m->magic == CMC_SNAP_MAGIC && m->kind == kind);
	assert(m->a > 0);
	switch (kind) {
	case CMC_SNAP_READY:
		break;
	case CMC_SNAP_FORKED:
		assert(ph == PROC_SNAP_FORKING && m->b >= -1);
		assert(!(m->flags & ~(CMC_SNAP_IN_CGROUP | CMC_SNAP_IN_TASKS | CMC_SNAP_OWN_CWD)));
		break;
	case CMC_SNAP_ERROR:
		assert(ph == PROC_SNAP_FORKING && m->a <= 4095);
		break;
	default:
		assert(!"a kind the target may not send was accepted");
	}
	assert(m->nfds == 0 && m->cwd_at[0] == 0 && m->cwd_src[0] == 0);
}

/* The socket path: one pair for the whole run (an fd per input would be
 * most of the time spent). */
static int sp[2] = {-1, -1};

static void through_socket(enum proc_snap_phase ph, const uint8_t *p, size_t n, unsigned nfds)
{
	if (sp[0] < 0) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
			return;
		int one = 1; /* as cmc's end: the sender's pid comes with each */
		setsockopt(sp[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
	}
	int lowest = dup(0); /* the lowest free fd now */
	close(lowest);
	int fds[3];
	union {
		char buf[CMSG_SPACE(sizeof fds)];
		struct cmsghdr align;
	} c;
	memset(&c, 0, sizeof c);
	struct iovec iov = {(void *)p, n};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	for (unsigned i = 0; i < nfds; i++)
		fds[i] = 0; /* stdin, as many times as asked */
	if (nfds) {
		mh.msg_control = c.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(h), fds, nfds * sizeof(int));
	}
	if (sendmsg(sp[1], &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		return; /* (longer than the socket takes) */
	struct cmc_snap_msg m;
	const char *why = NULL;
	pid_t from = -1;
	int r = proc_snap_recv(sp[0], ph, &m, &why, &from);
	assert(r != 1 || from == getpid()); /* the kernel's word, not the message's */
	const char *why2 = NULL;
	size_t len = n > sizeof m + 1 ? sizeof m + 1 : n;
	unsigned k = proc_snap_check(ph, p, len, n > sizeof m ? MSG_TRUNC : 0, nfds, &why2);
	if (n == 0 && !nfds) {
		assert(r == 0); /* an empty datagram reads as the end */
	} else {
		assert(r == (k ? 1 : -1));
		if (r > 0)
			check_accepted(ph, k, &m);
		else
			assert(why && why2);
	}
	/* nothing left behind: the attached descriptors were closed */
	int now = dup(0);
	close(now);
	assert(now == lowest);
	struct cmc_snap_msg rest;
	assert(proc_snap_recv(sp[0], ph, &rest, &why, NULL) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	enum proc_snap_phase ph = data[0] & 1 ? PROC_SNAP_FORKING : PROC_SNAP_IDLE;
	bool compact = data[0] & 2, sock = data[0] & 4;
	int flags = (data[1] & 0x40 ? MSG_TRUNC : 0) | (data[1] & 0x80 ? MSG_CTRUNC : 0);
	unsigned nfds = data[1] % 4;
	data += 2, size -= 2;
	struct cmc_snap_msg built;
	const uint8_t *p = data;
	size_t n = size;
	if (compact) {
		if (size < 16)
			return 0;
		memset(&built, 0, sizeof built);
		built.magic = CMC_SNAP_MAGIC;
		memcpy(&built.kind, data, 4);
		built.kind %= 8;
		memcpy(&built.a, data + 4, 4);
		memcpy(&built.b, data + 8, 4);
		memcpy(&built.flags, data + 12, 4);
		p = (const uint8_t *)&built;
		n = sizeof built;
	}
	if (sock) {
		through_socket(ph, p, n, nfds);
		return 0;
	}
	const char *why = NULL;
	unsigned k = proc_snap_check(ph, p, n, flags, nfds, &why);
	if (!k) {
		assert(why && why[0]);
		return 0;
	}
	assert(!why && n == sizeof built && !nfds && !flags);
	struct cmc_snap_msg m;
	memcpy(&m, p, sizeof m);
	check_accepted(ph, k, &m);
	return 0;
}

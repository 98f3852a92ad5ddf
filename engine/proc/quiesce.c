/*
 * quiesce.c — deciding, exactly and without sleeping, that the target
 * has finished an operation: it has consumed every byte cmc sent AND it is
 * blocked waiting for more input.
 *
 *   consumed  stdin: FIONREAD on cmc's end of the pipe is 0.
 *             tcp:   SIOCOUTQ on cmc's socket is 0 (everything sent was
 *                    acknowledged, i.e. sits in the target's receive queue or
 *                    was read) and the target's end of the connection, found
 *                    through sock_diag by its port pair, has no unread bytes
 *                    and an inode (a connection still in the accept queue
 *                    has inode 0: not yet accepted).
 *             tcp before connecting: a socket listens on the port.
 *   blocked   /proc/PID/syscall names a read-family call (read, readv,
 *             recv*, poll, select, epoll_wait, accept; for stdin a read on
 *             fd 0), /proc/PID/stat says S (asleep), and /proc/PID/syscall
 *             reads the same again: the target went back to sleep after
 *             taking the bytes, it is not merely about to return.
 * glibc's stdio reads go through the read syscall, so fgets/scanf programs
 * are seen the same way as read() programs.
 *
 * Waiting: a short phase of sched_yield() between checks (the target usually
 * answers within tens of microseconds), then poll() on the output pipes with
 * a 1 ms timeout as the scheduling point.  Output is drained at every turn
 * (a target blocked writing to a full pipe is not quiescent).  The per-op
 * timeout only turns a hang into a reported fault.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layout/cmc_region.h"
#include "pages.h"
#include "snapmsg.h"
#include "target.h"
#include "util.h"

#define SPIN_S 0.0005   /* yield-and-check this long before poll()ing */

volatile sig_atomic_t proc_interrupted;

/* ---- record channels --------------------------------------------------- */

void proc_chan_feed(struct proc_chan *c, const uint8_t *p, size_t n)
{
	/* (A zero-length record completes with its header, even when the
	 * header ends this read: hence the second condition.) */
	while ((n || (c->hdr_got == 8 && c->cur.len == c->want)) && !c->bad) {
		if (c->hdr_got < 8) {
			size_t k = 8 - c->hdr_got < n ? 8 - c->hdr_got : n;
			memcpy(c->hdr + c->hdr_got, p, k);
			c->hdr_got += k;
			p += k;
			n -= k;
			if (c->hdr_got < 8)
				return;
			if (proc_le32(c->hdr) != c->magic || proc_le32(c->hdr + 4) > c->max) {
				c->bad = true;
				return;
			}
			c->want = proc_le32(c->hdr + 4);
			c->cur.len = 0;
		}
		size_t k = c->want - c->cur.len < n ? c->want - c->cur.len : n;
		proc_buf_add(&c->cur, p, k);
		p += k;
		n -= k;
		if (c->cur.len == c->want) {
			/* complete: it becomes the last record */
			struct proc_buf tmp = c->last;
			c->last = c->cur;
			c->cur = tmp;
			c->cur.len = 0;
			c->hdr_got = 0;
			c->complete++;
			for (int i = 0; i < PROC_STICKY; i++)
				if (c->sticky_kind[i] && !c->sticky_seen[i] && c->last.len >= 4 &&
				    proc_le32(c->last.p) == c->sticky_kind[i]) {
					proc_buf_set(&c->sticky[i], c->last.p, c->last.len);
					c->sticky_seen[i] = true;
				}
		}
	}
}

/* poll() without waiting; how many fds have something (or their end). */
static int poll_now(struct pollfd *p, nfds_t n)
{
	int r;
	while ((r = poll(p, n, 0)) < 0 && errno == EINTR)
		;
	return r;
}

static bool readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	return poll_now(&p, 1) > 0;
}

/* Read what is there, once poll() said there is something; false on EOF
 * or error (the fd is then closed).  The output pipes may be blocking (no
 * fcntl per channel): a read is only made when poll() said it will not
 * wait, and one shorter than asked for has emptied a pipe or stream socket
 * for now, which is all EAGAIN would say. */
static bool drain_fd(int *fd, struct proc_target *t, struct proc_chan *c)
{
	uint8_t buf[65536];
	for (bool more = true; more && *fd >= 0;) {
		ssize_t r = read(*fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return true;
		if (r <= 0) {
			close(*fd);
			*fd = -1;
			if (fd == &t->in_fd)
				t->peer_closed = true; /* only a tcp connection is read here */
			return false;
		}
		more = (size_t)r == sizeof buf && readable(*fd);
		if (c) {
			proc_chan_feed(c, buf, (size_t)r);
			continue;
		}
		/* Output: keep at most reply_cap bytes per operation. */
		size_t room = t->reply.len < t->reply_cap ? t->reply_cap - t->reply.len : 0;
		proc_buf_add(&t->reply, buf, (size_t)r < room ? (size_t)r : room);
		if ((size_t)r > room)
			t->flood = true;
	}
	return *fd >= 0;
}

bool proc_target_drain(struct proc_target *t)
{
	/* A tcp target answers on the connection; its stdout and stderr count
	 * as reply too. */
	/* One poll() asks all four; only those with something are read (and
	 * only they: the pipes may be blocking). */
	int *fds[] = {t->transport == PROC_TCP && t->connected ? &t->in_fd : NULL, &t->out_fd, &t->canon.fd,
		      &t->ctl.fd};
	struct proc_chan *chans[] = {NULL, NULL, &t->canon, &t->ctl};
	struct pollfd p[4];
	for (int i = 0; i < 4; i++)
		p[i] = (struct pollfd){.fd = fds[i] ? *fds[i] : -1, .events = POLLIN, .revents = 0};
	int r = poll_now(p, 4);
	for (int i = 0; r > 0 && i < 4; i++)
		if (fds[i] && *fds[i] >= 0 && p[i].revents)
			drain_fd(fds[i], t, chans[i]);
	return !t->flood && !t->canon.bad && !t->ctl.bad;
}

bool proc_target_reap(struct proc_target *t)
{
	if (t->pid <= 0)
		return true;
	int st;
	pid_t r = waitpid(t->pid, &st, WNOHANG);
	if (r == t->pid) {
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			t->status = st;
			t->exited = WIFEXITED(st);
			t->signaled = WIFSIGNALED(st);
			proc_pid_forget(t->pid);
			t->pid = 0;
			return true;
		}
	}
	return false;
}

/* ---- the kernel's view ------------------------------------------------ */

static ssize_t pread_all(int fd, char *buf, size_t n)
{
	ssize_t r;
	while ((r = pread(fd, buf, n - 1, 0)) < 0 && errno == EINTR)
		;
	if (r >= 0)
		buf[r] = 0;
	return r;
}

/* A read-family syscall that means "waiting for input". */
static bool waiting_call(long nr, unsigned long a0, const struct proc_target *t)
{
	switch (nr) {
	case SYS_read:
	case SYS_readv:
	case SYS_pread64:
	case SYS_preadv:
	case SYS_preadv2:
		/* A stdin program waits on fd 0; a tcp server on its socket,
		 * whose number cmc does not know (the queues decide). */
		return t->transport == PROC_TCP || a0 == 0;
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_recvmmsg:
	case SYS_poll:
	case SYS_ppoll:
	case SYS_select:
	case SYS_pselect6:
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
	case SYS_accept:
	case SYS_accept4:
		return true;
	default:
		return false;
	}
}

/* The syscall the target sleeps in, as "nr a0" text; false when running. */
static bool sys_line(const struct proc_target *t, char *buf, size_t n, long *nr, unsigned long *a0)
{
	if (pread_all(t->sys_fd, buf, n) <= 0)
		return false;
	char *end;
	*nr = strtol(buf, &end, 10);
	if (end == buf)
		return false; /* "running" */
	*a0 = strtoul(end, NULL, 0);
	return true;
}

static char proc_state(const struct proc_target *t)
{
	char buf[512];
	if (pread_all(t->stat_fd, buf, sizeof buf) <= 0)
		return '?';
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/*
 * The target's side of the connection, asked of the kernel through
 * sock_diag netlink (reading /proc/net/tcp costs milliseconds when many
 * sockets linger in TIME_WAIT).  An exact lookup by the 4-tuple gives the
 * socket's unread bytes (rqueue) and inode (0 while still in the accept
 * queue); a dump of listening sockets answers "does it listen yet".
 */
struct diag_req {
	struct nlmsghdr nh;
	struct inet_diag_req_v2 r;
};

/* One netlink socket per thread, for every target it watches (a socket
 * per target was a socket() and a close() per fork transition); never
 * closed: one fd per search thread.  Requests and answers on it are
 * numbered, so an answer a failed request left behind is skipped. */
static _Thread_local int diag_fd = -1;
static _Thread_local uint32_t diag_seq;

static int diag_socket(void)
{
	if (diag_fd < 0)
		diag_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	return diag_fd;
}

/* Send one request and walk the answers; fn returns true to stop early.
 * Returns true when fn stopped it. */
static bool diag_ask(struct diag_req *q, bool (*fn)(const struct inet_diag_msg *, void *), void *ctx)
{
	int fd = diag_socket();
	if (fd < 0)
		return false;
	q->nh.nlmsg_len = sizeof *q;
	q->nh.nlmsg_seq = ++diag_seq;
	q->nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q->r.sdiag_protocol = IPPROTO_TCP;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	if (sendto(fd, q, sizeof *q, 0, (struct sockaddr *)&sa, sizeof sa) < 0)
		return false;
	long buf[8192 / sizeof(long)];
	bool hit = false;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return hit;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != q->nh.nlmsg_seq)
				continue; /* an earlier request's */
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
				return hit;
			if (!hit && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
				hit = fn(NLMSG_DATA(h), ctx);
			if (!(q->nh.nlmsg_flags & NLM_F_DUMP))
				return hit;
		}
	}
}

/* The listeners on one port, as the dump reports them. */
struct port_listeners {
	uint16_t port;
	uint32_t inode[8];
	int n;
};

static bool on_port(const struct inet_diag_msg *m, void *ctx)
{
	struct port_listeners *q = ctx;
	if (ntohs(m->id.idiag_sport) == q->port && q->n < 8)
		q->inode[q->n++] = m->idiag_inode;
	return false; /* every listener: the port may have more than one */
}

/* Does process pid hold socket `inode` among its descriptors? */
static bool holds_socket(pid_t pid, uint32_t inode)
{
	char path[64], want[32], got[32];
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	int wl = snprintf(want, sizeof want, "socket:[%u]", inode);
	DIR *d = opendir(path);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char lp[64 + sizeof e->d_name];
		snprintf(lp, sizeof lp, "%s/%s", path, e->d_name);
		found = readlink(lp, got, sizeof got) == wl && memcmp(got, want, (size_t)wl) == 0;
	}
	closedir(d);
	return found;
}

/* pid or one of its descendants (a wrapper such as `sh -c` may fork the
 * server) holds socket `inode`.  Descendants come from the kernel's
 * children lists; `budget` bounds the walk against a fork bomb. */
static bool tree_holds_socket(pid_t pid, uint32_t inode, int *budget)
{
	if (--*budget < 0)
		return false;
	if (holds_socket(pid, inode))
		return true;
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	for (char *p = buf, *end; *p; p = end) {
		long c = strtol(p, &end, 10);
		if (end == p)
			break;
		if (c > 0 && tree_holds_socket((pid_t)c, inode, budget))
			return true;
	}
	return false;
}

/*
 * Does the target listen on its port yet?  A listener there that is not
 * the target's (nor a child's) is another program's: the port cmc chose
 * was free when it looked, and something bound it before the target did
 * (another cmc, any server).  Connecting to it would check someone else's
 * program, so it never counts; its inode, kept in t->foreign_inode, tells
 * the start-up to try another port and makes each later look one dump,
 * not a walk through /proc.
 */
static bool listening(struct proc_target *t)
{
	for (int fam = 0; fam < 2; fam++) {
		struct diag_req q = {.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP};
		q.r.sdiag_family = fam ? AF_INET6 : AF_INET;
		q.r.idiag_states = 1u << 10; /* TCP_LISTEN */
		struct port_listeners l = {.port = t->port};
		diag_ask(&q, on_port, &l);
		for (int i = 0; i < l.n; i++) {
			if (l.inode[i] == t->foreign_inode)
				continue;
			int budget = 64;
			if (t->pid > 0 && tree_holds_socket(t->pid, l.inode[i], &budget))
				return true;
			t->foreign_inode = l.inode[i];
		}
	}
	return false;
}

bool proc_port_taken(struct proc_target *t)
{
	if (!t->foreign_inode && !t->connected && t->transport == PROC_TCP)
		listening(t); /* once the target is gone, any listener is another's */
	return t->foreign_inode != 0;
}

static bool conn_drained(const struct inet_diag_msg *m, void *ctx)
{
	*(bool *)ctx = m->idiag_rqueue == 0 && m->idiag_inode != 0;
	return true;
}

/* The target's end: local port = its port, remote = ours; IPv4, or an IPv6
 * socket with v4-mapped addresses when it listens on ::. */
static bool target_drained(struct proc_target *t)
{
	for (int fam = 0; fam < 2; fam++) {
		struct diag_req q = {.nh.nlmsg_flags = NLM_F_REQUEST};
		q.r.sdiag_family = fam ? AF_INET6 : AF_INET;
		q.r.idiag_states = ~0u;
		q.r.id.idiag_sport = htons(t->port);
		q.r.id.idiag_dport = htons(t->client_port);
		q.r.id.idiag_cookie[0] = q.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
		uint32_t lo = htonl(INADDR_LOOPBACK);
		if (fam) {
			q.r.id.idiag_src[2] = q.r.id.idiag_dst[2] = htonl(0xffff);
			q.r.id.idiag_src[3] = q.r.id.idiag_dst[3] = lo;
		} else
			q.r.id.idiag_src[0] = q.r.id.idiag_dst[0] = lo;
		bool drained = false;
		if (diag_ask(&q, conn_drained, &drained))
			return drained;
	}
	return false;
}

static bool input_consumed(struct proc_target *t)
{
	int n = 0;
	if (t->input_closed) /* nothing more comes; a tcp target's end may be gone */
		return t->transport == PROC_STDIN || t->in_fd < 0 ||
		       (ioctl(t->in_fd, SIOCOUTQ, &n) == 0 && n == 0);
	if (t->transport == PROC_STDIN)
		return t->in_fd >= 0 && ioctl(t->in_fd, FIONREAD, &n) == 0 && n == 0;
	if (!t->connected)
		return listening(t);
	if (t->in_fd < 0) /* the target closed the connection: nothing more
			     * reaches it; it exits, or waits for another */
		return t->peer_closed;
	if (ioctl(t->in_fd, SIOCOUTQ, &n) < 0 || n != 0)
		return false;
	return target_drained(t);
}

/* Asleep (state S) in a waiting call, the same call on two looks (a
 * sched_yield() between them when `yield`); *nr is the call. */
static bool asleep_waiting(struct proc_target *t, bool yield, long *nr)
{
	char a[256], b[256];
	long nr2;
	unsigned long a0, a02;
	if (!sys_line(t, a, sizeof a, nr, &a0) || !waiting_call(*nr, a0, t) || proc_state(t) != 'S')
		return false;
	if (yield)
		sched_yield();
	return sys_line(t, b, sizeof b, &nr2, &a02) && strcmp(a, b) == 0;
}

/*
 * The target's context switches so far (voluntary and not), from
 * /proc/PID/status; UINT64_MAX when unreadable.  Each time it runs and
 * stops running again one of them moves.
 */
static uint64_t switches(const struct proc_target *t)
{
	int fd = proc_open_pid(t->pid, "status");
	char buf[4096];
	ssize_t r = fd >= 0 ? pread_all(fd, buf, sizeof buf) : -1;
	if (fd >= 0)
		close(fd);
	if (r <= 0)
		return UINT64_MAX;
	uint64_t n = 0;
	for (const char *p = buf; (p = strstr(p, "ctxt_switches:")); p += 14)
		n += strtoull(p + 14, NULL, 10);
	return n;
}

/*
 * After an eof operation the input counts as consumed at once (nothing
 * more comes), and a target asleep in read(0) looks exactly like one that
 * has read its end and gone back to sleep in another call.  Closing the
 * input wakes it, though not always at once: a process another worker is
 * starting holds a copy of the pipe's write end from its fork to its exec,
 * and the end of file comes only then.  Until the target has run since
 * the input closed (a context switch more than then), it has not seen the
 * end, and is not quiescent; once it has run and sleeps again in a
 * waiting call, it has: it exited, or it waits for something else.
 */
static bool saw_eof(struct proc_target *t)
{
	if (!t->eof_unseen)
		return true;
	uint64_t n = switches(t);
	if (n == t->eof_switches && n != UINT64_MAX)
		return false;
	t->eof_unseen = false;
	return true;
}

static bool quiescent(struct proc_target *t)
{
	long nr;
	/* saw_eof() before the look at the sleep: a sleep seen first and a
	 * switch counted after could be the old read() and the wake-up that
	 * ends it, and the target would be read while it exits. */
	if (!input_consumed(t) || !saw_eof(t) || !asleep_waiting(t, false, &nr))
		return false;
	/* connected but not yet accepted (after eof: waiting for the next) */
	return !(t->transport == PROC_TCP && t->connected && !t->input_closed && !t->peer_closed &&
		 (nr == SYS_accept || nr == SYS_accept4));
}

/*
 * A parked snapshot, after a fork request interrupted it, must be back
 * asleep in a waiting call: a program that does not retry a call the
 * request signal interrupted (OpenBSD netcat exits on poll()'s EINTR)
 * dies in the snapshot and in its child alike, and what the child then
 * did is the fork's doing, not the operation's.  Asleep twice in the same
 * call, a yield apart, counts as settled (by the time a child's end was
 * seen, a surviving snapshot has long been back in its call: no need to
 * sleep, which would cost every exiting child a millisecond); ending, or
 * not settling within the timeout, does not.  Parked targets have their
 * /proc files closed: they are opened here for the question.
 */
bool proc_target_settles(struct proc_target *t, unsigned timeout_ms)
{
	int sys_fd = t->sys_fd, stat_fd = t->stat_fd;
	if (t->pid > 0 && t->sys_fd < 0)
		t->sys_fd = proc_open_pid(t->pid, "syscall");
	if (t->pid > 0 && t->stat_fd < 0)
		t->stat_fd = proc_open_pid(t->pid, "stat");
	double deadline = eng_now() + timeout_ms / 1000.0;
	bool settled = false;
	long nr;
	while (!proc_target_reap(t)) {
		if (asleep_waiting(t, true, &nr)) {
			settled = !proc_target_reap(t);
			break;
		}
		if (eng_now() > deadline || proc_interrupted)
			break;
		poll(NULL, 0, 1);
	}
	if (sys_fd < 0 && t->sys_fd >= 0) {
		close(t->sys_fd);
		t->sys_fd = -1;
	}
	if (stat_fd < 0 && t->stat_fd >= 0) {
		close(t->stat_fd);
		t->stat_fd = -1;
	}
	return settled;
}

/* ---- one step --------------------------------------------------------- */

/*
 * What the target's end of the snapshot socket sent meanwhile, read under
 * either executor alike (snapmsg.h).  A READY says an image the
 * target exec'd loaded the preload: /proc/PID/mem, bound to the address
 * space it was opened on, is opened again.  Anything else breaks the
 * protocol: the first such message is kept for proc_observe() to report,
 * and the socket is read no more.
 */
static void snap_drain(struct proc_target *t)
{
	struct cmc_snap_msg m;
	const char *why = NULL;
	int r = 0;
	if (t->snap_fd < 0 || t->snap_fault[0])
		return;
	pid_t from;
	while ((r = proc_snap_recv(t->snap_fd, PROC_SNAP_IDLE, &m, &why, &from)) > 0) {
		t->snap_readies++;
		t->snap_ready_pid = from; /* the kernel's word: m.a is the namespace's pid */
		/* a new image: a new address space, whose pages no cache describes */
		proc_pages_unref(t->pages);
		t->pages = NULL;
		t->pages_own = false;
		int mem = t->pid > 0 ? proc_open_pid(t->pid, "mem") : -1;
		if (mem >= 0) {
			if (t->mem_fd >= 0)
				close(t->mem_fd);
			t->mem_fd = mem;
		}
	}
	if (r < 0)
		snprintf(t->snap_fault, sizeof t->snap_fault, "%s", why);
}

enum proc_wait proc_target_step(struct proc_target *t, const uint8_t *bytes, size_t len,
				unsigned timeout_ms, double *elapsed_s)
{
	double t0 = eng_now(), deadline = t0 + timeout_ms / 1000.0;
	size_t sent = t->present < len ? t->present : len;
	enum proc_wait w;
	t->present = 0;
	t->reply.len = 0;
	t->flood = false;
	memset(t->ctl.sticky_seen, 0, sizeof t->ctl.sticky_seen);
	for (;;) {
		if (proc_interrupted) {
			w = PROC_INTERRUPTED;
			break;
		}
		if (sent < len && t->in_fd >= 0) {
			ssize_t r = t->transport == PROC_TCP
					    ? send(t->in_fd, bytes + sent, len - sent, MSG_NOSIGNAL)
					    : write(t->in_fd, bytes + sent, len - sent);
			if (r > 0)
				sent += (size_t)r;
			else if (r < 0 && errno != EAGAIN && errno != EINTR)
				sent = len; /* the target closed its input: it will exit or hang */
		}
		if (!proc_target_drain(t)) {
			w = t->flood ? PROC_FLOOD : PROC_BADCHAN;
			break;
		}
		if (proc_target_reap(t)) {
			proc_target_drain(t);
			w = PROC_GONE;
			break;
		}
		if (sent == len && quiescent(t)) {
			/* Whatever it wrote before blocking is in the pipes now. */
			if (!proc_target_drain(t)) {
				w = t->flood ? PROC_FLOOD : PROC_BADCHAN;
				break;
			}
			w = PROC_QUIESCENT;
			break;
		}
		char st = proc_state(t);
		if (st == 'T' || st == 't') {
			w = PROC_STOPPED;
			break;
		}
		double now = eng_now();
		if (now > deadline) {
			w = PROC_TIMEOUT;
			break;
		}
		if (now - t0 < SPIN_S) {
			sched_yield();
			continue;
		}
		struct pollfd p[3];
		int n = 0;
		if (t->out_fd >= 0) p[n++] = (struct pollfd){.fd = t->out_fd, .events = POLLIN};
		if (t->canon.fd >= 0) p[n++] = (struct pollfd){.fd = t->canon.fd, .events = POLLIN};
		if (t->ctl.fd >= 0) p[n++] = (struct pollfd){.fd = t->ctl.fd, .events = POLLIN};
		if (poll(p, (nfds_t)n, 1) < 0 && errno != EINTR)
			eng_die("poll: %s", strerror(errno));
	}
	if (w != PROC_INTERRUPTED)
		snap_drain(t);
	if (elapsed_s)
		*elapsed_s = eng_now() - t0;
	return w;
}

/* The region header (cmc_region.h); false when unreadable. */
static bool region_hdr(const struct proc_target *t, struct cmc_region_hdr *h)
{
	return t->preload_on && t->mem_fd >= 0 && !proc_region_hdr(t, h);
}

/*
 * A timeout operation (advance_ms 0) or an advance (preload/detwait.c
 * takes both in CMC_TICK_SIG's handler).  A timeout is delivered when the
 * target sleeps in a wait whose timeout the deterministic environment
 * suspended, an advance whatever it does: the header's `timeouts`, or
 * `advances`, moves when the target has taken it, and then it runs until
 * it is quiescent again.  Otherwise (no such wait; no preload, so no
 * virtual clock) nothing happens, and the state stays what it was.
 */
static enum proc_wait deliver_tick(struct proc_target *t, uint32_t advance_ms, unsigned timeout_ms,
				   double *elapsed_s)
{
	/* Asleep first: a fork snapshot's child may still be on its way back
	 * into the wait its fork request interrupted, and between that wait's
	 * EINTR and the next one wait_ms reads 0 (detwait.c): the timeout
	 * would be lost on a state that has one (seen once in CI). */
	enum proc_wait w = proc_target_step(t, NULL, 0, timeout_ms, NULL);
	if (w != PROC_QUIESCENT) {
		if (elapsed_s)
			*elapsed_s = 0;
		return w;
	}
	struct cmc_region_hdr h;
	if (!region_hdr(t, &h) || (!advance_ms && !h.wait_ms))
		return proc_target_step(t, NULL, 0, timeout_ms, elapsed_s);
	uint32_t before = advance_ms ? h.advances : h.timeouts;
	/* a timeout is kill()'s SI_USER; an advance carries its milliseconds */
	union sigval v = {.sival_int = (int)advance_ms};
	if ((advance_ms ? sigqueue(t->pid, CMC_TICK_SIG, v) : kill(t->pid, CMC_TICK_SIG)) == 0) {
		double deadline = eng_now() + timeout_ms / 1000.0;
		while (region_hdr(t, &h) && (advance_ms ? h.advances : h.timeouts) == before &&
		       !proc_target_reap(t) && !proc_interrupted && eng_now() < deadline)
			sched_yield();
	}
	return proc_target_step(t, NULL, 0, timeout_ms, elapsed_s);
}

/*
 * `op LABEL reconnect` (tcp): a new connection from cmc, as a client that
 * hangs up and dials again.  cmc closes its end if the connection is
 * still open and waits for the target to settle after the close, then
 * connects to the port the target listens on and waits for it to accept
 * and settle, as at the start.  Two waits, so the close and the new
 * connection never reach the target in one wake-up, where which it
 * handled first would be a matter of timing.  A target that no longer
 * accepts (it closed its listener) leaves the connection closed: the
 * state says so, as after a close by the target.
 */
static enum proc_wait reconnect(struct proc_target *t, unsigned timeout_ms, double *elapsed_s)
{
	double el = 0, total = 0;
	enum proc_wait w = PROC_QUIESCENT;
	if (t->in_fd >= 0) {
		close(t->in_fd);
		t->in_fd = -1;
		t->peer_closed = true; /* no connection: what input_consumed() asks */
		w = proc_target_step(t, NULL, 0, timeout_ms, &el);
		total += el;
	}
	if (w == PROC_QUIESCENT) {
		t->in_fd = proc_tcp_connect(t->port, &t->client_port);
		t->peer_closed = t->in_fd < 0;
		t->input_closed = false;
		t->eof_unseen = false;
		w = proc_target_step(t, NULL, 0, timeout_ms, &el);
		total += el;
	}
	if (elapsed_s)
		*elapsed_s = total;
	return w;
}

enum proc_wait proc_target_op(struct proc_target *t, const struct proc_op *op, unsigned timeout_ms,
			      double *elapsed_s)
{
	if (op->reconnect)
		return reconnect(t, timeout_ms, elapsed_s);
	if (op->timeout || op->advance_ms)
		return deliver_tick(t, op->advance_ms, timeout_ms, elapsed_s);
	if (!op->eof)
		return proc_target_step(t, op->bytes, op->len, timeout_ms, elapsed_s);
	if (!t->input_closed && t->in_fd >= 0) {
		t->eof_switches = switches(t);
		t->eof_unseen = true;
		if (t->transport == PROC_TCP) {
			shutdown(t->in_fd, SHUT_WR); /* replies still come back on it */
		} else {
			close(t->in_fd);
			t->in_fd = -1;
		}
	}
	t->input_closed = true;
	return proc_target_step(t, NULL, 0, timeout_ms, elapsed_s);
}

/*
 * exec_fork.c — the fork-snapshot executor (issue 8): the target is started
 * once (the root snapshot); every successor is a child the quiescent
 * origin forks on request (preload/snap.c, protocol in cmc_region.h section
 * 5), which takes one operation on fresh channels made here: a new pipe for
 * stdin, or a new loopback TCP connection (from this executor's own
 * listener) put where the target's accepted connection was, and new pipes
 * for stdout/stderr, the canonical fd and the control fd.  Siblings never
 * share a stream.  A child that is still quiescent after its operation is
 * kept as a snapshot of the state it reached: the state the search will
 * most likely ask for next.
 *
 * The pool.  At most `limit` snapshots live besides the root (setting
 * `snapshots`, default PROC_FORK_LIMIT_DEFAULT, about 1 GiB of a list-sized
 * target's dirtied pages and page tables); a snapshot holds two fds in
 * cmc (its input channel, which must stay open or the target would see EOF,
 * and its snapshot socket) and only the pages it dirtied.  Usefulness:
 *   - a state is expanded once: release() kills the origin (never the root);
 *   - breadth-first search asks for states in the order they were created,
 *     skipping duplicates, so when the snapshot of creation number i is
 *     reached, every live snapshot created before it is stale (a duplicate
 *     the engine did not admit, or one it will ask for much later under DFS);
 *   - when the pool is full a stale snapshot is evicted, oldest first; with
 *     none stale the new child is not kept (the newest is the one needed
 *     last, so keeping the older ones is Belady's choice for BFS), and its
 *     origin is kept instead of being killed at release (`parent`): one
 *     snapshot stands for all the children it could not keep, each of which
 *     then costs one fork and one replayed operation.  A parent is stale
 *     once a state two levels below it is asked for.
 * A state with no snapshot is re-created by forking its nearest live
 * ancestor (the root at worst) and replaying the rest of its trace.
 *
 * Fork snapshots are impossible for a target with threads (fork copies only
 * the calling thread), without the preload, or when the snapshot server did
 * not start (statically linked target): the executor then says why on
 * stderr and delegates everything to the replay executor.
 *
 * Workers (--jobs): each has its own executor and root, and all share one
 * pool (struct fork_pool, proc_fork_share()), since the engine hands a
 * state to whichever worker is free; a snapshot can be asked to fork by any
 * thread of cmc.
 *
 * Ownership: every process started here is a child of cmc (CLONE_PARENT in
 * the preload), reaped by proc_target_kill(); destroy() kills the
 * executor's root and, for the last executor sharing the pool, the pool.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmc_region.h"
#include "limits.h"
#include "prop.h"
#include "scratch.h"
#include "snapmsg.h"
#include "target.h"
#include "util.h"

/* A live snapshot: the process and the state it holds.  Invariants: t->pid
 * > 0 and the process is quiescent (blocked on its input); reply is the
 * reply of trace's last step (NULL: empty, or n == 0); replies is NULL
 * unless the executors keep every step's reply (proc_exec.keep_replies),
 * then it has n entries and replies[n - 1] == reply; t->canon.last is the
 * last complete canonical record the process wrote over its whole history.
 *
 * What it costs in cmc (share/scenario.md, "Executors"): the process's fds
 * (fit_fds()), its trace (2 bytes a step), its last reply (at most
 * reply-cap bytes), its canonical record (at most CMC_CANON_MAX) and, with
 * a plugin property, one pointer a step: the replies are shared, each held
 * once by every snapshot whose trace passes through its step.  Its raw
 * window and observation are not kept: observe_snap() reads them again. */
struct snap {
	struct proc_target *t;
	uint16_t *trace;
	size_t n;
	struct proc_bytes *reply;
	struct proc_bytes **replies;
	uint64_t seq;           /* creation order */
	bool stale;
	bool parent;            /* expanded, kept for children the pool could not hold */
	int users;              /* executors using it as origin or fork source (pool lock) */
	bool doomed;            /* out of the pool: the last user frees it */
	pthread_mutex_t fmu;    /* one fork request at a time on its socket */
	const void *maker;      /* the executor whose cpu it runs on (compared only) */
};

/*
 * The pool, shared by the executors of all workers (--jobs: a state made by
 * one worker is often expanded by another).  Every field and every snap's
 * users/doomed/stale/parent are under mu; the pool is in creation order.
 * A snapshot in use (users > 0) is never freed: removed, it is doomed.
 */
struct fork_pool {
	pthread_mutex_t mu;
	struct snap **s;
	size_t n, limit;
	uint64_t seq;
	unsigned refs;          /* executors sharing it */
	cpu_set_t cpus;         /* cmc's allowed cpus before any worker was pinned */
	unsigned next_cpu;      /* pin(): the next worker's, round robin */
	struct snap **dead;     /* out of the pool, killed, not yet reaped: bury() */
	size_t ndead, dead_cap;
	bool said_fallback;     /* one "fork snapshots unavailable" line per run */
};

struct forkx {
	struct proc_exec x;     /* first: the common part */
	const struct proc_image *img;
	struct proc_exec *fb;   /* the replay executor, once fork snapshots cannot work */
	struct snap *root;      /* the initial state; NULL before the first reach */
	struct fork_pool *pl;   /* live snapshots besides roots and temporary origins */
	struct snap *origin;    /* the reached state (users counts us) */
	bool origin_temp;       /* origin is not in the pool: killed at release */
	bool unkept;            /* the last apply's successor could go on, but the
				 * pool had no room for it: its origin becomes a
				 * parent unless discard() says it is not wanted */
	struct snap *kept;      /* put in the pool by the last apply; compared, never
				 * followed, unless found in the pool (lock held) */
	bool forged;            /* a snapshot lied about its child (fork_child()):
				 * snapshots are trusted no more */
	int lfd;                /* tcp: listener the new connections come from */
	uint16_t lport;
	int conn_no;            /* tcp: the target's connection fd number, -1 unknown */
	struct proc_obs scratch;
	bool pinned;            /* the executing thread was pinned to one cpu */
	cpu_set_t saved_cpus;   /* its affinity before */
	cpu_set_t cpu;          /* the one it is pinned to */
};

/* ---- processes --------------------------------------------------------- */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Kill and reap; a tcp connection is reset, not closed, so no TIME_WAIT
 * piles up over hundreds of thousands of transitions. */
static void kill_target(struct proc_target *t)
{
	if (!t)
		return;
	if (t->transport == PROC_TCP && t->in_fd >= 0) {
		struct linger lg = {1, 0};
		setsockopt(t->in_fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
	}
	proc_target_kill(t);
}

static void snap_free(struct snap *s)
{
	if (!s)
		return;
	kill_target(s->t);
	pthread_mutex_destroy(&s->fmu);
	proc_bytes_unref(s->reply);
	for (size_t i = 0; s->replies && i < s->n; i++)
		proc_bytes_unref(s->replies[i]);
	free(s->replies);
	free(s->trace);
	free(s);
}

/* A snapshot keeps its descriptors (its channels and /proc files): the
 * last operation it is expanded by it takes itself, unforked (fork_apply),
 * on the channels it has.  Its buffers go: it is quiescent, so nothing is
 * in flight on them, and the replies live in the snap. */
static void trim(struct proc_target *t)
{
	proc_buf_free(&t->reply);
	proc_buf_free(&t->canon.cur);
	proc_buf_free(&t->ctl.cur);
	proc_buf_free(&t->ctl.last);
	proc_buf_free(&t->ctl.sticky);
	t->ctl.sticky_seen = false; /* reported with the operation that made it */
}

static int make_pipe(int p[2])
{
	return pipe2(p, O_CLOEXEC);
}


/* A fresh loopback connection: *mine is cmc's end, *theirs the accepted
 * end for the target; ports as the quiescence check looks them up. */
static int tcp_pair(struct forkx *f, int *mine, int *theirs, uint16_t *cport)
{
	if (f->lfd < 0) {
		f->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		socklen_t al = sizeof a;
		if (f->lfd < 0 || bind(f->lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(f->lfd, 64) < 0 ||
		    getsockname(f->lfd, (struct sockaddr *)&a, &al) < 0) {
			close_fd(&f->lfd);
			return -1;
		}
		f->lport = ntohs(a.sin_port);
	}
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(f->lport),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) < 0) {
		if (c >= 0)
			close(c);
		return -1;
	}
	int s;
	while ((s = accept4(f->lfd, NULL, NULL, SOCK_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (s < 0) {
		close(c);
		return -1;
	}
	int one = 1;
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	socklen_t al = sizeof a;
	getsockname(c, (struct sockaddr *)&a, &al);
	*cport = ntohs(a.sin_port);
	proc_set_nonblock(c);
	*mine = c;
	*theirs = s;
	return 0;
}

void proc_snap_passcred(int fd)
{
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
}

/* Wait for the answer to a fork request on the snapshot socket, checked
 * (snapmsg.h; a READY is a stray, passed over: fork_child): yield-and-
 * check for a moment first (the answer usually comes within ~100 us, and a
 * sleeping poll adds a wake-up to every transition), then poll.  -1 when
 * none came, or with *why when what came broke the protocol.  *from: the
 * sender's pid, the kernel's word (SCM_CREDENTIALS, proc_snap_passcred()),
 * in cmc's namespace; 0 when it did not say. */
static int snap_recv(int fd, struct cmc_snap_msg *m, unsigned timeout_ms, const char **why, pid_t *from)
{
	double t0 = eng_now(), deadline = t0 + timeout_ms / 1000.0;
	*why = NULL;
	for (;;) {
		int r = proc_snap_recv(fd, PROC_SNAP_FORKING, m, why, from);
		if (r > 0)
			return 0;
		if (r < 0 || (errno != EAGAIN && errno != EINTR))
			return -1; /* malformed, or the snapshot is gone */
		if (proc_interrupted)
			return -1;
		double now = eng_now(), left = deadline - now;
		if (left <= 0)
			return -1;
		if (now - t0 < 0.0003) {
			sched_yield();
			continue;
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		poll(&p, 1, left > 0.05 ? 50 : (int)(left * 1000) + 1);
	}
}

/* A CONFIG (the real port of a tcp target) on cmc's end fd, when the
 * target was given one at its start. */
static void send_config(int fd, uint16_t port)
{
	if (!port)
		return;
	struct cmc_snap_msg cfg = {.magic = CMC_SNAP_MAGIC, .kind = CMC_SNAP_CONFIG, .a = port};
	send(fd, &cfg, sizeof cfg, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* As much of op's input as the new channel takes now, before the child
 * exists: its interrupted read, restarted, then returns at once instead
 * of sleeping until cmc sends (a wake-up and a switch fewer per
 * transition).  The rest, if any, is sent by proc_target_step(). */
static size_t presend(int fd, bool tcp, const struct proc_op *op)
{
	if (!op || op->eof || op->timeout || !op->len)
		return 0;
	ssize_t r = tcp ? send(fd, op->bytes, op->len, MSG_DONTWAIT | MSG_NOSIGNAL)
			: write(fd, op->bytes, op->len);
	return r > 0 ? (size_t)r : 0;
}

/* Has pid ended (waitable, not reaped)? */
static bool exited(pid_t pid)
{
	siginfo_t si = {0};
	return waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/*
 * A child whose /proc files are already gone is on its way out: wait, up
 * to timeout_ms, until it has ended.  Its exit can take a while (a mount
 * namespace of its own is torn down first), and a SIGKILL sent meanwhile,
 * as one sent to a process that cannot be opened would be, makes the
 * kernel report that signal instead of the status it exited with.
 */
static bool ends_within(pid_t pid, unsigned timeout_ms)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0)
		return exited(pid);
	struct pollfd p = {.fd = pfd, .events = POLLIN};
	while (poll(&p, 1, (int)timeout_ms) < 0 && errno == EINTR)
		;
	close(pfd);
	return exited(pid);
}

/*
 * Ask snapshot s to fork; the child, a fresh proc_target on fresh
 * channels, carries s's history (canonical record, load base), and
 * `first`'s input (an operation, or NULL) is already on its way to it
 * (presend()).  NULL with f->x.err on failure.
 */
static struct proc_target *fork_child(struct forkx *f, struct snap *s, const struct proc_op *first)
{
	const struct proc_scenario *sc = f->x.sc;
	struct proc_target *p = s->t;
	int in[2] = {-1, -1}, out[2] = {-1, -1}, canon[2] = {-1, -1}, ctl[2] = {-1, -1}, sp[2] = {-1, -1};
	uint16_t cport = 0;
	int in_mine, in_theirs;
	if (p->transport == PROC_TCP) {
		if (tcp_pair(f, &in_mine, &in_theirs, &cport) < 0) {
			snprintf(f->x.err, sizeof f->x.err, "fork executor: cannot make a loopback connection: %s",
				 strerror(errno));
			return NULL;
		}
	} else {
		if (make_pipe(in) < 0)
			eng_die("pipe: %s", strerror(errno));
		in_mine = in[1];
		in_theirs = in[0];
		proc_set_nonblock(in_mine);
	}
	size_t sent = presend(in_mine, p->transport == PROC_TCP, first);
	if (make_pipe(out) < 0 || make_pipe(canon) < 0 || make_pipe(ctl) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		eng_die("pipe: %s", strerror(errno));
	proc_snap_passcred(sp[0]);
	/* The child's socket starts as the root's did, with the CONFIG first
	 * (cmc_region.h section 5): an image the child execs peeks it there. */
	send_config(sp[0], p->config_port);

	/* h9: the child's own process cap and kill scope; it is started in
	 * its cgroup where the kernel can do that (the jail keeps the fd). */
	int cgroup, tasks;
	struct proc_jail *jail = proc_jail_ready(sc, &cgroup, &tasks);
	struct cmc_snap_msg m = {.magic = CMC_SNAP_MAGIC, .kind = CMC_SNAP_FORK, .a = f->conn_no,
				 .lport = p->port, .pport = p->client_port};
	int send_fds[CMC_SNAP_MAXFDS] = {in_theirs, out[1], out[1], canon[1], ctl[1], sp[1]};
	int32_t to[CMC_SNAP_MAXFDS] = {p->transport == PROC_TCP ? CMC_SNAP_TO_CONN : 0, 1, 2, (int32_t)sc->canon_fd,
			 PROC_CTL_FD, CMC_SNAP_TO_SOCKET};
	m.nfds = 6;
	if (cgroup >= 0) {
		send_fds[m.nfds] = cgroup;
		to[m.nfds++] = CMC_SNAP_TO_CGROUP;
	}
	if (tasks >= 0) {
		send_fds[m.nfds] = tasks;
		to[m.nfds++] = CMC_SNAP_TO_TASKS;
	}
	/* The child's own working directory: a copy of its origin's. */
	struct proc_scratch *cwd = NULL;
	if (p->scratch && strlen(proc_scratch_at(p->scratch)) < sizeof m.cwd_at &&
	    (cwd = proc_scratch_fork(p->scratch))) {
		if (strlen(proc_scratch_dir(cwd)) < sizeof m.cwd_src) {
			snprintf(m.cwd_at, sizeof m.cwd_at, "%s", proc_scratch_at(p->scratch));
			snprintf(m.cwd_src, sizeof m.cwd_src, "%s", proc_scratch_dir(cwd));
		} else {
			proc_scratch_unref(cwd);
			cwd = NULL;
		}
	}
	memcpy(m.to, to, sizeof to);
	char cbuf[CMSG_SPACE(sizeof send_fds)];
	memset(cbuf, 0, sizeof cbuf);
	struct iovec iov = {&m, sizeof m};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = CMSG_SPACE(m.nfds * sizeof(int))};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(m.nfds * sizeof(int));
	memcpy(CMSG_DATA(c), send_fds, m.nfds * sizeof(int));

	struct cmc_snap_msg rep = {0};
	pid_t child = 0; /* the kernel's word for who answered */
	const char *bad = NULL;
	int rc = -1;
	pthread_mutex_lock(&s->fmu);
	bool foreign = s->maker != f;
	if (sendmsg(p->snap_fd, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof m && kill(p->pid, CMC_SNAP_SIG) == 0)
		do /* a READY now is a stray: a program the target started (fork
		    * and exec, as a shell runs a command) inherited the socket
		    * and the preload, whose server then said it was installed */
			rc = snap_recv(p->snap_fd, &rep, sc->timeout_ms, &bad, &child);
		while (rc == 0 && rep.kind == CMC_SNAP_READY);
	int e = errno;
	/* The origin's server passed over its CONFIG to read the FORK: put
	 * one first again, for an image the origin execs when it is spent. */
	send_config(p->snap_fd, p->config_port);
	pthread_mutex_unlock(&s->fmu);
	/* The child's pid is the sender's, which the kernel gives, not the
	 * number the message carries (the child's own in the namespace; and
	 * anything at all in a message the target forged on its socket): and
	 * only a child of cmc that is no target yet (proc_pid_adopt()).  Else
	 * the answer is a lie: a protocol fault, and snapshots are trusted
	 * no more (fork_apply()). */
	bool forged = rc == 0 && rep.kind == CMC_SNAP_FORKED && !proc_pid_adopt(child);
	close(in_theirs);
	close(out[1]);
	close(canon[1]);
	close(ctl[1]);
	close(sp[1]);
	if (rc < 0 || rep.kind != CMC_SNAP_FORKED || forged) {
		proc_scratch_unref(cwd);
		if (rc == 0 && rep.kind == CMC_SNAP_ERROR)
			e = rep.a;
		bool epoll_full = rc == 0 && rep.kind == CMC_SNAP_ERROR && rep.a == EOVERFLOW;
		snprintf(f->x.err, sizeof f->x.err, "%s",
			 proc_interrupted ? "interrupted"
			 : epoll_full ? "the target has more epoll instances or entries than the preload "
					"keeps for a snapshot's child (preload/epoll.c)"
			 : bad ? "fork executor: the snapshot's answer broke the protocol: "
				      : "fork executor: the snapshot did not fork on request");
		if (bad && !proc_interrupted)
			snprintf(f->x.err + strlen(f->x.err), sizeof f->x.err - strlen(f->x.err), "%s", bad);
		if (epoll_full || bad)
			e = 0; /* said above */
		if (!proc_interrupted && e)
			snprintf(f->x.err + strlen(f->x.err), sizeof f->x.err - strlen(f->x.err), " (%s)",
				 strerror(e));
		if (forged) {
			f->forged = true;
			snprintf(f->x.err, sizeof f->x.err,
				 "a snapshot's socket carried a FORKED message (naming pid %d) that no "
				 "new child of cmc sent", (int)rep.a);
		}
		close(in_mine);
		close(out[0]);
		close(canon[0]);
		close(ctl[0]);
		close(sp[0]);
		proc_jail_free(jail);
		return NULL;
	}
	if (p->transport == PROC_TCP && rep.b < 0) {
		snprintf(f->x.err, sizeof f->x.err, "fork executor: the target's connection "
			 "(127.0.0.1:%u from port %u) was not found among its descriptors", p->port, p->client_port);
		/* the child took no input channel: kill it */
		kill(child, SIGKILL);
	}
	f->conn_no = rep.b;
	f->x.st.forks++;
	/* A snapshot another worker made runs on that worker's cpu (adopt()
	 * moves those it finds in the pool): bring the child to ours. */
	if (f->pinned && foreign)
		sched_setaffinity(child, sizeof f->cpu, &f->cpu);

	struct proc_target *t = eng_xcalloc(1, sizeof *t);
	t->pid = child;
	t->pgid = 0; /* shares the root's group: never kill(-pgid) from a child */
	t->sc = sc;
	t->transport = p->transport;
	t->reply_cap = p->reply_cap;
	t->preload_on = p->preload_on;
	t->load_base = p->load_base;
	t->base_known = p->base_known;
	t->connected = true;
	t->jail = jail;
	if (rep.flags & CMC_SNAP_OWN_CWD) {
		t->scratch = cwd;
	} else {
		t->scratch = proc_scratch_ref(p->scratch);
		proc_scratch_unref(cwd); /* it could not mount it: it shares its origin's */
	}
	proc_jail_enter(jail, t->pid, (rep.flags & CMC_SNAP_IN_CGROUP) != 0,
			(rep.flags & CMC_SNAP_IN_TASKS) != 0);
	if (cmc_snap_needs_go(cgroup >= 0, tasks >= 0, rep.flags)) {
		/* it waits, its input maybe there already, until it is in (and
		 * passes over the CONFIG on the way: one goes after GO again) */
		struct cmc_snap_msg go = {.magic = CMC_SNAP_MAGIC, .kind = CMC_SNAP_GO};
		send(sp[0], &go, sizeof go, MSG_NOSIGNAL);
		send_config(sp[0], p->config_port);
	}
	t->config_port = p->config_port;
	t->in_fd = in_mine;
	t->out_fd = out[0];
	t->snap_fd = sp[0];
	t->canon = (struct proc_chan){.fd = canon[0], .magic = CMC_CANON_MAGIC, .max = CMC_CANON_MAX,
				      .complete = p->canon.complete};
	proc_buf_set(&t->canon.last, p->canon.last.p, p->canon.last.len);
	t->ctl = (struct proc_chan){.fd = ctl[0], .magic = CMC_CTL_MAGIC, .max = CMC_CTL_MAX,
				  .sticky_kind = CMC_CTL_LIMIT};
	if (t->transport == PROC_TCP) {
		t->port = f->lport;
		t->client_port = cport;
	}
	t->present = sent;
	t->mem_fd = proc_open_pid(t->pid, "mem");
	t->sys_fd = proc_open_pid(t->pid, "syscall");
	t->stat_fd = proc_open_pid(t->pid, "stat");
	int open_errno = errno;
	/* With its input there before it ran, the child may have done the
	 * operation, and ended, before these opens: then they may fail, and
	 * nothing needs them (the step sees it gone and reaps it). */
	bool missing = t->mem_fd < 0 || t->sys_fd < 0 || t->stat_fd < 0;
	bool ended = missing && (exited(t->pid) || ((open_errno == ESRCH || open_errno == ENOENT) &&
						    ends_within(t->pid, sc->timeout_ms)));
	if ((!ended && (t->mem_fd < 0 || t->sys_fd < 0 || t->stat_fd < 0)) ||
	    (rep.b < 0 && t->transport == PROC_TCP)) {
		if (!(t->transport == PROC_TCP && rep.b < 0))
			snprintf(f->x.err, sizeof f->x.err, "fork executor: cannot open /proc/%d: %s", (int)t->pid,
				 strerror(open_errno));
		kill_target(t);
		return NULL;
	}
	return t;
}

/* ---- the pool ---------------------------------------------------------- */

static void pool_remove(struct fork_pool *pl, struct snap *s)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->s[i] == s) {
			memmove(pl->s + i, pl->s + i + 1, (pl->n - i - 1) * sizeof *pl->s);
			pl->n--;
			return;
		}
}

/* Used by nobody and never again: killed, reaped and freed by bury(),
 * outside the pool lock.  A kill and wait under it stalled every other
 * worker (and the admitting thread's forget() while they all wait); even
 * a kill alone wakes the snapshot, which then runs before the lock holder
 * gets the cpu back.  Pool lock held. */
static void grave(struct fork_pool *pl, struct snap *s)
{
	if (pl->ndead == pl->dead_cap) {
		pl->dead_cap = pl->dead_cap ? 2 * pl->dead_cap : 16;
		pl->dead = eng_xrealloc(pl->dead, pl->dead_cap * sizeof *pl->dead);
	}
	pl->dead[pl->ndead++] = s;
}

/* Reap the dead that run on f's cpu (all of them for NULL): a snapshot on
 * another worker's cpu exits there, and waiting for it here leaves this
 * cpu idle while it delays that worker. */
static void bury(struct fork_pool *pl, const struct forkx *f)
{
	struct snap *mine[64];
	size_t n = 0;
	pthread_mutex_lock(&pl->mu);
	for (size_t i = 0; i < pl->ndead && n < sizeof mine / sizeof mine[0];)
		if (!f || pl->dead[i]->maker == f) {
			mine[n++] = pl->dead[i];
			pl->dead[i] = pl->dead[--pl->ndead];
		} else {
			i++;
		}
	pthread_mutex_unlock(&pl->mu);
	for (size_t i = 0; i < n; i++)
		snap_free(mine[i]);
	if (n == sizeof mine / sizeof mine[0])
		bury(pl, f);
}

/* Out of the pool; freed now, or by its last user (pool lock held). */
static void pool_drop(struct fork_pool *pl, struct snap *s)
{
	pool_remove(pl, s);
	if (s->users > 0)
		s->doomed = true;
	else
		grave(pl, s);
}

/* One user fewer (pool lock held). */
static void unuse(struct fork_pool *pl, struct snap *s)
{
	if (--s->users == 0 && s->doomed)
		grave(pl, s);
}

/* Room for one more: evict the oldest stale snapshot, else (when
 * `parents`) the oldest parent; false when neither exists. */
static bool pool_room(struct fork_pool *pl, bool parents)
{
	if (pl->n < pl->limit)
		return true;
	for (int pass = 0; pass < 1 + parents; pass++)
		for (size_t i = 0; i < pl->n; i++) { /* the pool is in creation order */
			struct snap *s = pl->s[i];
			if (s->users || !(pass ? s->parent : s->stale))
				continue;
			pool_drop(pl, s);
			return true;
		}
	return false;
}

static bool same_trace(const struct snap *s, const uint16_t *trace, size_t n)
{
	return s->n == n && (n == 0 || memcmp(s->trace, trace, n * sizeof *trace) == 0);
}

static struct snap *snap_new(struct forkx *f, struct proc_target *t, const struct snap *parent, int op)
{
	struct snap *s = eng_xcalloc(1, sizeof *s);
	size_t n = parent ? parent->n + (op >= 0) : 0;
	s->t = t;
	s->n = n;
	s->seq = __atomic_fetch_add(&f->pl->seq, 1, __ATOMIC_RELAXED);
	s->maker = f;
	pthread_mutex_init(&s->fmu, NULL);
	if (n) {
		s->trace = eng_xmalloc(n * sizeof *s->trace);
		if (parent->n) /* h9: memcpy from NULL is UB (UBSan), even for 0 bytes */
			memcpy(s->trace, parent->trace, parent->n * sizeof *s->trace);
		if (op >= 0)
			s->trace[n - 1] = (uint16_t)op;
		s->reply = op >= 0 ? proc_bytes_new(t->reply.p, t->reply.len)
				   : proc_bytes_ref(parent->reply);
		if (f->x.keep_replies) {
			s->replies = eng_xcalloc(n, sizeof *s->replies);
			for (size_t i = 0; i < parent->n; i++)
				s->replies[i] = proc_bytes_ref(parent->replies[i]);
			if (op >= 0)
				s->replies[n - 1] = proc_bytes_ref(s->reply);
		}
	}
	return s;
}

/* ---- falling back ------------------------------------------------------ */

static void mirror(struct forkx *f)
{
	f->x.replies = f->fb->replies;
	f->x.nreplies = f->fb->nreplies;
	struct proc_exec_stats own = f->x.st;
	f->x.st = f->fb->st;
	f->x.st.forks = own.forks;
	f->x.st.spent = own.spent;
	f->x.st.discarded = own.discarded;
	f->x.st.peak = own.peak;
	memcpy(f->x.err, f->fb->err, sizeof f->x.err);
}

static void fall_back(struct forkx *f, const char *why)
{
	/* from now on x.replies is the replay executor's (mirror()) */
	proc_exec_replies_free(&f->x);
	if (!__atomic_exchange_n(&f->pl->said_fallback, true, __ATOMIC_RELAXED))
		fprintf(stderr, "cmc: %s: fork snapshots unavailable (%s): using the replay executor\n",
			f->x.sc->path, why);
	f->fb = proc_replay_new(f->x.sc, f->x.preload, f->img);
}

static int task_count(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A kernel object the target holds whose state fork shares between parent
 * and child instead of copying: a timer, a signal or event counter, an
 * io_uring.  Snapshots of such a target are not independent;
 * NULL when there is none, else what it is. */
static const char *shared_object(pid_t pid, char *buf, size_t n)
{
	/* (an eventpoll is not one: the preload makes a child's anew, preload/epoll.c) */
	static const char *const kinds[] = {"timerfd", "signalfd", "eventfd", "io_uring"};
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return NULL;
	const char *found = NULL;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		char lp[64 + sizeof e->d_name], target[64];
		if (e->d_name[0] == '.')
			continue;
		snprintf(lp, sizeof lp, "%s/%s", path, e->d_name);
		ssize_t k = readlink(lp, target, sizeof target - 1);
		if (k <= 12 || strncmp(target, "anon_inode:[", 12) != 0)
			continue;
		target[k] = 0;
		for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && !found; i++) {
			size_t kl = strlen(kinds[i]);
			if (!strncmp(target + 12, kinds[i], kl) && target[12 + kl] == ']') {
				snprintf(buf, n, "the target holds an %s (fd %.12s), which fork shares "
					 "between snapshots", kinds[i], e->d_name);
				found = buf;
			}
		}
	}
	closedir(d);
	return found;
}

/* ---- reach / apply ----------------------------------------------------- */

/* The executor's view of the origin's replies: references, no copies
 * (the origin may be spent before the frontend reads them). */
static void set_replies(struct forkx *f, const struct snap *s)
{
	struct proc_exec *x = &f->x;
	proc_exec_replies_clear(x);
	for (size_t i = 0; s->replies && i < s->n; i++)
		proc_exec_replies_set(x, i, proc_bytes_ref(s->replies[i]));
}

/* Start the root; decide whether fork snapshots work for this target. */
static int start_root(struct forkx *f, struct proc_obs *obs)
{
	struct proc_exec *x = &f->x;
	struct proc_obs *o = obs ? obs : &f->scratch;
	proc_obs_reset(o);
	if (!x->preload[0]) {
		fall_back(f, "no preload");
		return 1;
	}
	struct proc_target *t = proc_target_start_snap(x->sc, x->preload, o, &x->st.spawn_s);
	x->st.spawns++;
	if (!t) {
		proc_obs_seal(o);
		snprintf(x->err, sizeof x->err, "%s", o->fault_msg);
		return -1;
	}
	const char *why = NULL;
	char buf[64], sbuf[160];
	int nt = task_count(t->pid);
	/* One READY per exec that loaded the preload (a wrapper such as sh
	 * that execs the program sends one too), read and checked by the
	 * start-up's wait as by the replay executor's: the last counts.
	 * Anything else there is the root's protocol fault, reported by
	 * proc_observe() as under replay. */
	bool ready = t->snap_readies && t->snap_ready_pid == t->pid;
	if (!ready && !t->snap_fault[0])
		why = "the preload's snapshot server is not running in the target (statically linked?)";
	else if (nt != 1) {
		snprintf(buf, sizeof buf, "the target runs %d threads", nt);
		why = buf;
	} else {
		why = shared_object(t->pid, sbuf, sizeof sbuf);
	}
	if (why) {
		kill_target(t);
		fall_back(f, why);
		return 1;
	}
	proc_observe(t, f->img, PROC_QUIESCENT, o);
	f->root = snap_new(f, t, NULL, -1);
	trim(t);
	return 0;
}

/* Fork s and replay trace[s->n .. n) in the child: the state after trace. */
static struct snap *recreate(struct forkx *f, struct snap *s, const uint16_t *trace, size_t n)
{
	struct proc_exec *x = &f->x;
	const struct proc_scenario *sc = x->sc;
	struct proc_target *t = fork_child(f, s, s->n < n ? &sc->ops[trace[s->n]] : NULL);
	if (!t)
		return NULL;
	struct snap *r = snap_new(f, t, s, -1);
	r->trace = eng_xrealloc(r->trace, n * sizeof *r->trace);
	memcpy(r->trace, trace, n * sizeof *trace);
	if (x->keep_replies) {
		r->replies = eng_xrealloc(r->replies, n * sizeof *r->replies);
		memset(r->replies + r->n, 0, (n - r->n) * sizeof *r->replies);
	}
	for (size_t i = s->n; i < n; i++) {
		const struct proc_op *op = &sc->ops[trace[i]];
		double el = 0;
		enum proc_wait w = proc_target_op(t, op, sc->timeout_ms, &el);
		r->n = i + 1;
		x->st.ops++;
		x->st.replayed++;
		x->st.quiesce_s += el;
		proc_bytes_unref(r->reply);
		r->reply = proc_bytes_new(t->reply.p, t->reply.len);
		if (r->replies)
			r->replies[i] = proc_bytes_ref(r->reply);
		if (w != PROC_QUIESCENT) {
			if (w == PROC_INTERRUPTED)
				snprintf(x->err, sizeof x->err, "interrupted");
			else {
				proc_obs_reset(&f->scratch);
				proc_observe(t, f->img, w, &f->scratch);
				snprintf(x->err, sizeof x->err,
					 "nondeterministic target: replaying step %zu (%.100s) of a trace that "
					 "succeeded before, the target now %s%s%.600s", i + 1, op->label,
					 w == PROC_GONE ? "ended" : "failed",
					 f->scratch.fault != PROC_FAULT_NONE ? ": " : "", f->scratch.fault_msg);
			}
			snap_free(r);
			return NULL;
		}
	}
	trim(t);
	return r;
}

/*
 * Keep the worker and its targets on one cpu: a transition is a chain of
 * hand-offs (cmc asks, the snapshot forks, the child answers), and on one
 * run queue each hand-off is a yield, not a cross-cpu wake-up that waits
 * for the other cpu's current task (measured: ~0.5 ms per hand-off on a
 * busy 2-cpu machine).  With --jobs each worker has a cpu of its own, and
 * a snapshot another worker made is moved to ours before it forks
 * (adopt()): pinned workers whose snapshots forked on the other cpu were
 * slower than free ones (1600 against 1950 transitions/s on list, keys
 * 1..9); with adoption, quiescence takes as long as with one job (~120
 * us/op, against ~370 unpinned).  The targets inherit the thread's
 * affinity when they are started.
 */
static void pin(struct forkx *f)
{
	struct fork_pool *pl = f->pl;
	cpu_set_t one;
	if (f->pinned || CPU_COUNT(&pl->cpus) < 2)
		return;
	/* The first worker starts from the cpu the scheduler runs it on now
	 * (other cmc processes are elsewhere), the others follow round robin
	 * over the cpus cmc was allowed (a thread started by a pinned one
	 * inherits its single cpu). */
	unsigned k = __atomic_fetch_add(&pl->next_cpu, 1, __ATOMIC_RELAXED);
	if (k == 0) {
		int here = sched_getcpu();
		for (int c = 0; c < here && c < CPU_SETSIZE; c++)
			k += CPU_ISSET(c, &pl->cpus) != 0;
		__atomic_store_n(&pl->next_cpu, k + 1, __ATOMIC_RELAXED);
	}
	k %= (unsigned)CPU_COUNT(&pl->cpus);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &pl->cpus) && k-- == 0) {
			CPU_ZERO(&one);
			CPU_SET(c, &one);
			if (sched_getaffinity(0, sizeof f->saved_cpus, &f->saved_cpus) == 0 &&
			    sched_setaffinity(0, sizeof one, &one) == 0) {
				f->cpu = one;
				f->pinned = true;
			}
			return;
		}
}

/* A snapshot another worker made sleeps on that worker's cpu: move it to
 * ours before asking it to fork (pool lock held), so that the fork request
 * and its children stay on this cpu. */
static void adopt(struct forkx *f, struct snap *s)
{
	if (!f->pinned || s->maker == f || s->t->pid <= 0)
		return;
	pthread_mutex_lock(&s->fmu);
	sched_setaffinity(s->t->pid, sizeof f->cpu, &f->cpu);
	s->maker = f;
	pthread_mutex_unlock(&s->fmu);
}

/* Re-observe a snapshot: it has not run since it was observed. */
static void observe_snap(struct forkx *f, struct snap *o, struct proc_obs *obs)
{
	struct proc_target *t = o->t;
	proc_obs_reset(obs);
	if (t->mem_fd < 0)
		t->mem_fd = proc_open_pid(t->pid, "mem");
	if (o->reply)
		proc_buf_set(&t->reply, o->reply->p, o->reply->len);
	proc_observe(t, f->img, PROC_QUIESCENT, obs);
	proc_buf_free(&t->reply);
}

/*
 * The state after trace as a live snapshot: the pool's own, or one forked
 * from the nearest live ancestor with the rest of the trace replayed.  A
 * snapshot that no longer forks (its worker thread ended, and with it, by
 * PR_SET_PDEATHSIG, the processes it started) is dropped and the state is
 * made again from this executor's own root.
 */
static int find_origin(struct forkx *f, const uint16_t *trace, size_t n)
{
	struct fork_pool *pl = f->pl;
	for (int attempt = 0; attempt < 2; attempt++) {
		struct snap *best = f->root, *hit = NULL;
		pthread_mutex_lock(&pl->mu);
		for (size_t i = 0; !hit && n && i < pl->n; i++)
			if (same_trace(pl->s[i], trace, n)) {
				hit = pl->s[i];
				for (size_t j = 0; j < i; j++)
					pl->s[j]->stale |= !pl->s[j]->parent;
			}
		/* A parent two levels above the state asked for has had all its
		 * dropped children asked for already (breadth-first). */
		for (size_t i = 0; i < pl->n; i++)
			if (pl->s[i]->parent && pl->s[i]->n + 1 < n)
				pl->s[i]->stale = true;
		if (hit) {
			adopt(f, hit);
			hit->users++;
			pthread_mutex_unlock(&pl->mu);
			f->origin = hit;
			f->origin_temp = false;
			return 0;
		}
		for (size_t i = 0; attempt == 0 && i < pl->n; i++) {
			struct snap *s = pl->s[i];
			if (s->n < n && s->n > best->n && memcmp(s->trace, trace, s->n * sizeof *trace) == 0)
				best = s;
		}
		adopt(f, best);
		best->users++;
		pthread_mutex_unlock(&pl->mu);
		struct snap *r = n ? recreate(f, best, trace, n) : NULL;
		pthread_mutex_lock(&pl->mu);
		if (!r && best != f->root && !proc_interrupted && (f->forged || proc_target_reap(best->t)))
			pool_drop(pl, best); /* gone, or a liar: try again from our root */
		if (best != f->root)
			unuse(pl, best);
		else
			best->users--;
		pthread_mutex_unlock(&pl->mu);
		if (r) {
			r->users = 1;
			f->origin = r;
			f->origin_temp = true;
			return 0;
		}
		if (best == f->root || f->forged)
			return -1;
	}
	return -1;
}

/* Snapshots stopped working: one did not fork on request and could not be
 * made again (the target exits once cmc leaves its channels idle, closes or
 * reuses the snapshot socket, blocks the request signal...).  Say why
 * (`died`: the snapshot had ended), drop the root and go on by replay,
 * which needs none of that, at the state after trace[0..n): counts and
 * traces stay those of replay, the reference.  Snapshots already in the
 * pool stay until the executor goes. */
static int fall_back_at(struct forkx *f, bool died, const uint16_t *trace, size_t n,
			struct proc_obs *obs)
{
	char why[sizeof f->x.err + 64];
	snprintf(why, sizeof why, "%s", died ? "the target ended while parked as a snapshot" : f->x.err);
	snap_free(f->root);
	f->root = NULL;
	fall_back(f, why);
	int rc = f->fb->ops->reach(f->fb, trace, n, obs);
	mirror(f);
	return rc;
}

static int fork_reach(struct proc_exec *x, const uint16_t *trace, size_t n, struct proc_obs *obs)
{
	struct forkx *f = (struct forkx *)x;
	if (!f->root && !f->fb)
		pin(f);
	if (!f->fb && !f->root) {
		int rc = start_root(f, n == 0 ? obs : NULL);
		if (rc < 0)
			return -1;
		if (rc == 0 && n == 0) {
			f->origin = f->root;
			f->origin_temp = false;
			proc_exec_replies_clear(x);
			return 0;
		}
	}
	if (f->fb) {
		int rc = f->fb->ops->reach(f->fb, trace, n, obs);
		mirror(f);
		return rc;
	}
	f->origin = NULL;
	if (n == 0) {
		f->origin = f->root;
		f->origin_temp = false;
	} else if (find_origin(f, trace, n) < 0) {
		if (proc_interrupted)
			return -1;
		/* no live ancestor forks any more */
		return fall_back_at(f, f->root && proc_target_reap(f->root->t), trace, n, obs);
	}
	set_replies(f, f->origin);
	if (obs)
		observe_snap(f, f->origin, obs);
	return 0;
}

/* fork_apply could not fork its origin: fall back there, then apply op. */
static void fork_release(struct proc_exec *x);
static int fork_unavailable(struct forkx *f, unsigned op, struct proc_obs *obs)
{
	struct snap *o = f->origin;
	bool died = proc_target_reap(o->t);
	size_t n = o->n;
	uint16_t *tr = n ? eng_xmemdup(o->trace, n * sizeof *tr) : NULL;
	fork_release(&f->x); /* may free o */
	int rc = fall_back_at(f, died, tr, n, NULL);
	free(tr);
	if (rc == 0) {
		rc = f->fb->ops->apply(f->fb, op, false, obs);
		mirror(f);
	}
	return rc;
}

/* The origin lied about the child it made for op (fork_child()): that
 * successor is a protocol fault, and the run goes on by replay, which
 * asks no snapshot for anything, from the origin's state (the other
 * operations from it are observed as replay observes them). */
static int forged_fault(struct forkx *f, struct proc_obs *obs)
{
	char msg[sizeof obs->fault_msg];
	snprintf(msg, sizeof msg, "%.500s", f->x.err);
	struct snap *o = f->origin;
	size_t n = o->n;
	uint16_t *tr = n ? eng_xmemdup(o->trace, n * sizeof *tr) : NULL;
	/* Out of the pool, which other workers share: its socket may still
	 * hold its real child's answer, which a later request would take. */
	pthread_mutex_lock(&f->pl->mu);
	o->parent = false;
	pthread_mutex_unlock(&f->pl->mu);
	fork_release(&f->x); /* may free o */
	int rc = fall_back_at(f, false, tr, n, NULL);
	free(tr);
	proc_obs_reset(obs);
	obs->fault = PROC_FAULT_PROTOCOL;
	snprintf(obs->fault_msg, sizeof obs->fault_msg, "%s", msg);
	proc_obs_seal(obs);
	return rc;
}

/* The successor by op is observed in t (quiescent, ended or faulted): keep
 * it in the pool as a snapshot if it can go on and the pool has room, else
 * let it go.  `origin` is the snap it came from (its trace and replies). */
static void keep_or_kill(struct forkx *f, struct snap *origin, struct proc_target *t, unsigned op,
			 enum proc_wait w)
{
	const struct proc_scenario *sc = f->x.sc;
	struct snap *s = NULL;
	/* After an eof nothing follows (frontend.c): such a state is never forked;
	 * nor one whose snapshot socket carried garbage (a protocol fault:
	 * the search does not expand it, and its socket is not to be trusted). */
	if (w == PROC_QUIESCENT && !sc->ops[op].eof && !t->snap_fault[0]) {
		s = snap_new(f, t, origin, (int)op);
		trim(t);
	}
	pthread_mutex_lock(&f->pl->mu);
	if (s && pool_room(f->pl, false)) {
		f->kept = s;
		f->pl->s[f->pl->n++] = s;
		if (f->pl->n > f->x.st.peak)
			f->x.st.peak = f->pl->n;
		s = NULL;
		t = NULL;
	} else if (s)
		f->unkept = true; /* its origin a parent, if the search wants it */
	pthread_mutex_unlock(&f->pl->mu);
	if (s)
		snap_free(s);
	else if (t)
		kill_target(t);
}

/* The successor the last apply could not keep was not discarded: the
 * search will ask for it, and it is made again from its origin, which must
 * stay (a parent).  A successor past the bounds or seen before makes none:
 * at the last level of a bounded search every origin would otherwise
 * become a parent the moment the pool is full. */
static void settle_unkept(struct forkx *f)
{
	if (!f->unkept)
		return;
	f->unkept = false;
	if (!f->origin || f->origin == f->root)
		return;
	pthread_mutex_lock(&f->pl->mu);
	f->origin->parent = true;
	pthread_mutex_unlock(&f->pl->mu);
}

/*
 * The last operation a state is expanded by needs no fork: the snapshot
 * takes it itself, on the channels it kept (trim()), and becomes its
 * successor.  That saves a fork, a set of channels and the origin's kill,
 * on about one transition in four.  Only for a snapshot nobody else holds
 * or will ask for again: not a root (states are made again from it), not
 * a parent (it stands for children the pool could not keep), not one
 * another worker is forking from.  The successor is what a child forked
 * at this point would have reached: the child would be this process
 * after one more fork request, which a target sleeps through (a restarted
 * read, or a retried poll: proc_target_settles() holds every snapshot to
 * that).  Returns false, having done nothing, when the origin is not
 * spendable.  Taken out of the pool, it is ours alone.
 */
static bool spend_origin(struct forkx *f, unsigned op, struct proc_obs *obs)
{
	struct fork_pool *pl = f->pl;
	struct snap *o = f->origin;
	if (!o || o == f->root || o->t->pid <= 0)
		return false;
	pthread_mutex_lock(&pl->mu);
	bool mine = !o->parent && !o->doomed && o->users == 1;
	if (mine && !f->origin_temp)
		pool_remove(pl, o);
	pthread_mutex_unlock(&pl->mu);
	if (!mine)
		return false;
	const struct proc_scenario *sc = f->x.sc;
	struct proc_target *t = o->t;
	f->origin = NULL;
	o->t = NULL;
	proc_obs_reset(obs);
	double el = 0;
	enum proc_wait w = proc_target_op(t, &sc->ops[op], sc->timeout_ms, &el);
	f->x.st.ops++;
	f->x.st.spent++;
	f->x.st.quiesce_s += el;
	obs->quiesce_s = el;
	if (w == PROC_INTERRUPTED) {
		snprintf(f->x.err, sizeof f->x.err, "interrupted");
		kill_target(t);
	} else {
		proc_observe(t, f->img, w, obs);
		keep_or_kill(f, o, t, op, w);
	}
	snap_free(o); /* its process went on as t */
	return true;
}

static int fork_apply(struct proc_exec *x, unsigned op, bool last, struct proc_obs *obs)
{
	struct forkx *f = (struct forkx *)x;
	const struct proc_scenario *sc = x->sc;
	f->kept = NULL;
	if (f->fb) {
		int rc = f->fb->ops->apply(f->fb, op, last, obs);
		mirror(f);
		return rc;
	}
	if (!f->origin) {
		snprintf(x->err, sizeof x->err, "fork executor: apply without reach");
		return -1;
	}
	settle_unkept(f);
	if (last && spend_origin(f, op, obs))
		return proc_interrupted ? -1 : 0;
	struct proc_target *t = fork_child(f, f->origin, &sc->ops[op]);
	if (!t && !f->forged && f->origin != f->root && !proc_interrupted && proc_target_reap(f->origin->t)) {
		/* the origin is gone (see find_origin): make it again */
		struct snap *o = f->origin;
		uint16_t *tr = eng_xmemdup(o->trace, o->n * sizeof *tr);
		size_t n = o->n;
		pthread_mutex_lock(&f->pl->mu);
		if (f->origin_temp) {
			o->users = 0;
			grave(f->pl, o);
		} else {
			pool_drop(f->pl, o);
			unuse(f->pl, o);
		}
		pthread_mutex_unlock(&f->pl->mu);
		f->origin = NULL;
		int rc = find_origin(f, tr, n);
		if (rc < 0 && f->forged && !proc_interrupted) {
			/* an ancestor lied about its child: replay from here on */
			rc = fall_back_at(f, false, tr, n, NULL);
			free(tr);
			if (rc == 0) {
				rc = f->fb->ops->apply(f->fb, op, false, obs);
				mirror(f);
			}
			return rc;
		}
		free(tr);
		if (rc < 0)
			return -1;
		t = fork_child(f, f->origin, &sc->ops[op]);
	}
	if (!t && f->forged && !proc_interrupted)
		return forged_fault(f, obs);
	if (!t && !proc_interrupted)
		return fork_unavailable(f, op, obs);
	if (!t)
		return -1;
	proc_obs_reset(obs);
	double el = 0;
	enum proc_wait w = proc_target_op(t, &sc->ops[op], sc->timeout_ms, &el);
	x->st.ops++;
	x->st.quiesce_s += el;
	obs->quiesce_s = el;
	if (w == PROC_INTERRUPTED) {
		snprintf(x->err, sizeof x->err, "interrupted");
		kill_target(t);
		return -1;
	}
	if (w != PROC_QUIESCENT && !proc_target_settles(f->origin->t, sc->timeout_ms)) {
		/* the fork request itself undid the origin: this outcome is
		 * not the operation's (proc_target_settles) */
		snprintf(x->err, sizeof x->err, "a snapshot did not survive its fork request");
		kill_target(t);
		return proc_interrupted ? -1 : fork_unavailable(f, op, obs);
	}
	proc_observe(t, f->img, w, obs);
	keep_or_kill(f, f->origin, t, op, w);
	return 0;
}

/* The engine will never ask for the last apply's successor (a duplicate,
 * or past the bounds): its snapshot could only fill the pool and hold a
 * process and a jail.  Most successors are duplicates, so this keeps the
 * pool to the states still to expand. */
static void fork_discard(struct proc_exec *x)
{
	struct forkx *f = (struct forkx *)x;
	struct fork_pool *pl = f->pl;
	f->unkept = false;
	if (f->fb || !f->kept)
		return;
	pthread_mutex_lock(&pl->mu);
	for (size_t i = pl->n; i-- > 0;) /* it went in last: look from the end */
		if (pl->s[i] == f->kept) {
			if (!pl->s[i]->users) {
				pool_drop(pl, pl->s[i]);
				x->st.discarded++;
			}
			break;
		}
	pthread_mutex_unlock(&pl->mu);
	f->kept = NULL;
}

/* A successor of some earlier apply, a duplicate found only when the
 * search admitted it (--jobs): its snapshot, if the pool kept one, would
 * never be used. */
static void fork_forget(struct proc_exec *x, const uint16_t *trace, size_t n)
{
	struct forkx *f = (struct forkx *)x;
	struct fork_pool *pl = f->pl;
	if (f->fb || !n)
		return;
	pthread_mutex_lock(&pl->mu);
	for (size_t i = pl->n; i-- > 0;) /* recent: look from the end */
		if (same_trace(pl->s[i], trace, n)) {
			if (!pl->s[i]->users && !pl->s[i]->parent) {
				pool_drop(pl, pl->s[i]);
				x->st.discarded++;
			}
			break;
		}
	pthread_mutex_unlock(&pl->mu);
}

static void fork_release(struct proc_exec *x)
{
	struct forkx *f = (struct forkx *)x;
	if (f->fb) {
		f->fb->ops->release(f->fb);
		return;
	}
	/* Expanded: the search does not come back to it, unless it stands
	 * for children the pool could not keep. */
	settle_unkept(f);
	struct snap *o = f->origin;
	bool temp = f->origin_temp;
	f->origin = NULL;
	struct fork_pool *pl = f->pl;
	if (!o || o == f->root) {
		/* (spent by the last apply: what it evicted is still to bury) */
		bury(pl, f);
		return;
	}
	pthread_mutex_lock(&pl->mu);
	if (o->parent && !temp) {
		unuse(pl, o); /* stays where it is in the pool */
	} else if (o->parent && pool_room(pl, false)) {
		/* (not at the cost of an older parent: those are asked for first) */
		o->users--;
		pl->s[pl->n++] = o; /* newest: the pool stays in creation order */
	} else if (temp) {
		o->users--;
		grave(pl, o);
	} else {
		pool_drop(pl, o);
		unuse(pl, o);
	}
	pthread_mutex_unlock(&pl->mu);
	bury(pl, f);
}

static void fork_destroy(struct proc_exec *x)
{
	struct forkx *f = (struct forkx *)x;
	fork_release(x);
	struct fork_pool *pl = f->pl;
	pthread_mutex_lock(&pl->mu);
	bool last = --pl->refs == 0;
	if (last)
		for (size_t i = 0; i < pl->n; i++)
			grave(pl, pl->s[i]);
	pthread_mutex_unlock(&pl->mu);
	if (last) {
		bury(pl, NULL);
		free(pl->dead);
		pthread_mutex_destroy(&pl->mu);
		free(pl->s);
		free(pl);
	}
	/* The root last: its group holds whatever the targets forked
	 * themselves (and, while another worker runs, snapshots it may still
	 * fork from: those find them gone and start again from their root). */
	snap_free(f->root);
	close_fd(&f->lfd);
	if (f->fb) {
		f->fb->ops->destroy(f->fb);
	} else {
		proc_exec_replies_free(x);
	}
	proc_obs_free(&f->scratch);
	if (f->pinned)
		sched_setaffinity(0, sizeof f->saved_cpus, &f->saved_cpus);
	free(f);
}

static const struct proc_exec_ops fork_ops = {
	.name = "fork",
	.reach = fork_reach,
	.apply = fork_apply,
	.discard = fork_discard,
	.forget = fork_forget,
	.release = fork_release,
	.destroy = fork_destroy,
};

unsigned long proc_nofile_orig;

/* Two fds per snapshot: raise the soft fd limit to fit the pool (targets
 * get the original back, spawn.c), or shrink the pool to the limit. */
static size_t fit_fds(const char *path, size_t limit)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	struct rlimit rl;
	/* per snapshot: its input channel, snapshot socket, output, canonical
	 * and control pipes, three /proc files (trim()), and up to six files
	 * of its jail (limits.c); and cmc's own */
	rlim_t need = (rlim_t)limit * 16 + 256;
	pthread_mutex_lock(&mu);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need) {
		if (!proc_nofile_orig)
			proc_nofile_orig = (unsigned long)rl.rlim_cur;
		rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < need) {
			size_t fit = rl.rlim_cur > 512 ? (size_t)(rl.rlim_cur - 256) / 16 : 64;
			if (fit < limit) {
				fprintf(stderr, "cmc: %s: the fd limit (%llu) holds %zu snapshots, not %zu\n", path,
					(unsigned long long)rl.rlim_cur, fit, limit);
				limit = fit;
			}
		}
	}
	pthread_mutex_unlock(&mu);
	return limit;
}

static struct forkx *forkx_new(const struct proc_scenario *sc, const char *preload,
				const struct proc_image *img)
{
	struct forkx *f = eng_xcalloc(1, sizeof *f);
	f->x.ops = &fork_ops;
	f->x.sc = sc;
	f->x.preload = preload;
	f->x.keep_replies = proc_props_read_replies(sc);
	f->img = img;
	f->lfd = -1;
	f->conn_no = -1;
	return f;
}

struct proc_exec *proc_fork_new(const struct proc_scenario *sc, const char *preload,
				const struct proc_image *img, size_t limit)
{
	struct forkx *f = forkx_new(sc, preload, img);
	struct fork_pool *pl = eng_xcalloc(1, sizeof *pl);
	pthread_mutex_init(&pl->mu, NULL);
	pl->limit = fit_fds(sc->path, limit ? limit : PROC_FORK_LIMIT_DEFAULT);
	pl->s = eng_xcalloc(pl->limit, sizeof *pl->s);
	pl->refs = 1;
	if (sched_getaffinity(0, sizeof pl->cpus, &pl->cpus) < 0)
		CPU_ZERO(&pl->cpus);
	f->pl = pl;
	return &f->x;
}

struct proc_exec *proc_fork_share(struct proc_exec *other, const struct proc_scenario *sc,
				  const char *preload, const struct proc_image *img)
{
	if (strcmp(other->ops->name, "fork") != 0)
		return proc_fork_new(sc, preload, img, 0);
	struct forkx *o = (struct forkx *)other, *f = forkx_new(sc, preload, img);
	pthread_mutex_lock(&o->pl->mu);
	o->pl->refs++;
	pthread_mutex_unlock(&o->pl->mu);
	f->pl = o->pl;
	f->conn_no = o->conn_no;
	return &f->x;
}

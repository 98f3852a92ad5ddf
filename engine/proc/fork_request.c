/*
 * fork_request.c — asking a snapshot to fork (the FORK message on its
 * snapshot socket, preload/snap.c; protocol in cmc_region.h section 5) and
 * turning the answer into the child's proc_target.
 *
 * Rules: the answer is believed only as far as the kernel vouches for it:
 * the child's pid is the sender's (SCM_CREDENTIALS), and it must be a new
 * child of cmc (proc_pid_adopt()); anything else is a forged answer, after
 * which the executor trusts no snapshot.  One request at a time per
 * snapshot (snap->fmu).  Every process made here is a child of cmc, reaped
 * by proc_target_kill() (through fork_kill_target()).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fork_int.h"
#include "limits.h"
#include "pages.h"
#include "scratch.h"
#include "snapmsg.h"

/* Kill and reap; a tcp connection is reset, not closed, so no TIME_WAIT
 * piles up over hundreds of thousands of transitions. */
void fork_kill_target(struct proc_target *t)
{
	if (!t)
		return;
	if (t->transport == PROC_TCP && t->in_fd >= 0) {
		struct linger lg = {1, 0};
		setsockopt(t->in_fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
	}
	proc_target_kill(t);
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
 * (fork_presend()).  NULL with f->x.err on failure.
 */
struct proc_target *fork_child(struct forkx *f, struct snap *s, const struct proc_op *first)
{
	const struct proc_scenario *sc = f->x.sc;
	struct proc_target *p = s->t;
	struct fork_chans ch;
	if (fork_chans_open(f, p->transport == PROC_TCP, &ch) < 0) {
		snprintf(f->x.err, sizeof f->x.err, "fork executor: cannot make a loopback connection: %s",
			 strerror(errno));
		return NULL;
	}
	size_t sent = fork_presend(ch.in_mine, p->transport == PROC_TCP, first);
	/* The child's socket starts as the root's did, with the CONFIG first
	 * (cmc_region.h section 5): an image the child execs peeks it there. */
	send_config(ch.sp[0], p->config_port);

	/* The child's own process cap and kill scope; it is started in
	 * its cgroup where the kernel can do that (the jail keeps the fd). */
	int cgroup, tasks;
	struct proc_jail *jail = proc_jail_ready(sc, &cgroup, &tasks);
	struct cmc_snap_msg m = {.magic = CMC_SNAP_MAGIC, .kind = CMC_SNAP_FORK, .a = f->conn_no,
				 .lport = p->port, .pport = p->client_port};
	int send_fds[CMC_SNAP_MAXFDS] = {ch.in_theirs, ch.out[1], ch.out[1], ch.canon[1], ch.ctl[1], ch.sp[1]};
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
			/* the namespace made for it, which the child enters
			 * (else it mounts cwd_src in one of its own) */
			if (proc_scratch_nsfd(cwd) >= 0) {
				send_fds[m.nfds] = proc_scratch_nsfd(cwd);
				to[m.nfds++] = CMC_SNAP_TO_MNTNS;
			}
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
	fork_chans_close_theirs(&ch);
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
		fork_chans_close_mine(&ch);
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
	/* A snapshot another worker made runs on that worker's cpu (fork_adopt()
	 * moves those it finds in the pool): bring the child to ours. */
	if (f->pinned && foreign)
		sched_setaffinity(child, sizeof f->cpu, &f->cpu);

	struct proc_target *t = proc_target_alloc(sc);
	t->pid = child;
	t->pgid = 0; /* shares the root's group: never kill(-pgid) from a child */
	t->transport = p->transport;
	t->reply_cap = p->reply_cap;
	t->preload_on = p->preload_on;
	t->load_base = p->load_base;
	/* what its clean pages hold: only a cache of the origin's own
	 * observation (pages.h); one it inherited does not describe the
	 * pages it wrote since, which this child now shares */
	t->pages = p->pages_own ? proc_pages_ref(p->pages) : NULL;
	t->pages_cache = true;
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
		send(ch.sp[0], &go, sizeof go, MSG_NOSIGNAL);
		send_config(ch.sp[0], p->config_port);
	}
	t->config_port = p->config_port;
	t->in_fd = ch.in_mine;
	t->out_fd = ch.out[0];
	t->snap_fd = ch.sp[0];
	t->canon.fd = ch.canon[0];
	t->canon.complete = p->canon.complete;
	proc_buf_set(&t->canon.last, p->canon.last.p, p->canon.last.len);
	t->ctl.fd = ch.ctl[0];
	if (t->transport == PROC_TCP) {
		t->port = f->lport;
		t->client_port = ch.cport;
	}
	t->present = sent;
	bool missing = !proc_target_open_proc(t);
	int open_errno = errno;
	/* With its input there before it ran, the child may have done the
	 * operation, and ended, before these opens: then they may fail, and
	 * nothing needs them (the step sees it gone and reaps it). */
	bool ended = missing && (exited(t->pid) || ((open_errno == ESRCH || open_errno == ENOENT) &&
						    ends_within(t->pid, sc->timeout_ms)));
	if ((!ended && missing) ||
	    (rep.b < 0 && t->transport == PROC_TCP)) {
		if (!(t->transport == PROC_TCP && rep.b < 0))
			snprintf(f->x.err, sizeof f->x.err, "fork executor: cannot open /proc/%d: %s", (int)t->pid,
				 strerror(open_errno));
		fork_kill_target(t);
		return NULL;
	}
	return t;
}

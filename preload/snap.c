/*
 * snap.c — the snapshot server inside the target (the fork executor): on cmc's
 * request the quiescent target forks; the child takes the next operation on
 * fresh descriptors, the parent stays behind as the saved state.  Protocol
 * and message layout: cmc_region.h section 5.  Owns the snapshot socket
 * (CMC_SNAP_FD) and the CMC_SNAP_SIG handler.
 *
 * Why a signal: a quiescent target sleeps in read()/recv()/poll() on its
 * input and will not run any code of ours by itself.  Interposing read and
 * friends does not reach glibc's stdio, which calls the read syscall
 * internally; a signal reaches every program.  cmc writes a FORK message,
 * then sends the signal; the handler (SA_RESTART, every signal blocked while
 * it runs) forks inside the handler and returns.  The interrupted call is
 * restarted by the kernel with the same arguments, so in the child a read on
 * fd 0 now reads the new pipe dup2'd onto fd 0 (poll/select/epoll_wait are
 * never restarted by the kernel: detwait.c's wrappers resume them, so the
 * program never sees the EINTR).  The handler runs on the preload's own
 * alternate stack (sigstack.c), so the program's stack holds no signal
 * frame a replayed process would not have: taking a snapshot is invisible
 * to the program.  Measured
 * here: a fork request costs ~60-100 us from cmc's kill() to the FORKED
 * reply for a small target, against ~500 us for a fresh exec.
 *
 * The fork is a raw clone(CLONE_PARENT | CLONE_CHILD_SETTID |
 * CLONE_CHILD_CLEARTID) — what glibc's _Fork does, plus CLONE_PARENT — so:
 *   - every snapshot is a child of cmc, not of the snapshot it came from:
 *     cmc reaps it and reads its exit status like any target, and
 *     PR_SET_PDEATHSIG ties each one directly to cmc (no chain to break);
 *   - the child's thread id in glibc's thread descriptor is written by the
 *     kernel (CHILD_SETTID at the address glibc registered, which
 *     PR_GET_TID_ADDRESS returns), as glibc's own fork does;
 *   - no atfork handlers run: the child must be the same program state as
 *     the parent, as a replayed process would be.
 * When cmc sends the child's cgroup v2 directory, the call is clone3 with
 * CLONE_INTO_CGROUP as well: the child starts in its own cgroup instead of
 * being moved there (plain clone where the kernel refuses).
 * Everything here is async-signal-safe and never allocates.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl.h"

/* clone3's argument (linux/sched.h's struct clone_args, whose header
 * clashes with glibc's sched.h), up to the cgroup field (CLONE_ARGS_SIZE_VER2). */
struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
		set_tid_size, cgroup;
};
#define CLONE_INTO_CGROUP_FLAG 0x200000000ULL

static int snap_fd = -1;
static int *tid_addr;   /* glibc's registered clear_child_tid address */
static int conn_fd = -1; /* the connection's fd, once found (tcp targets) */
/* CMC_SNAP_NO_SELF_MOVE=1 (tests): the child neither starts in its cgroup
 * nor moves itself, as where the kernel refuses both, so that cmc moves
 * it from outside (and it waits for GO). */
static bool no_self_move;

static long sys(long nr, long a, long b, long c, long d, long e)
{
	return syscall(nr, a, b, c, d, e);
}

static void reply(uint32_t kind, int32_t a, int32_t b, uint32_t flags)
{
	struct cmc_snap_msg m = {.magic = CMC_SNAP_MAGIC, .kind = kind, .a = a, .b = b, .flags = flags};
	while (send(snap_fd, &m, sizeof m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

static uint16_t port_of(const struct sockaddr_storage *ss)
{
	/* sin_port and sin6_port sit at the same offset */
	const struct sockaddr_in6 *a = (const void *)ss;
	return (uint16_t)((a->sin6_port >> 8) | (a->sin6_port << 8));
}

/* The fd of the connected socket with these ports, or -1. */
static int find_conn(uint16_t lport, uint16_t pport)
{
	struct rlimit rl;
	int max = 4096;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)max)
		max = (int)rl.rlim_cur;
	for (int fd = 0; fd < max; fd++) {
		struct sockaddr_storage l, p;
		socklen_t ll = sizeof l, pl = sizeof p;
		/* (raw calls: detnet.c's would report the ports the target sees) */
		if (fd == snap_fd || sys(SYS_getsockname, fd, (long)&l, (long)&ll, 0, 0) < 0)
			continue;
		if ((l.ss_family != AF_INET && l.ss_family != AF_INET6) ||
		    sys(SYS_getpeername, fd, (long)&p, (long)&pl, 0, 0) < 0)
			continue;
		if (port_of(&l) == lport && port_of(&p) == pport)
			return fd;
	}
	return -1;
}

static bool is_to(const struct cmc_snap_msg *m, int fd)
{
	for (uint32_t i = 0; i < m->nfds; i++)
		if (m->to[i] == fd)
			return true;
	return false;
}

/* In the child: put the received descriptors in place. */
static void install(const struct cmc_snap_msg *m, int *fds)
{
	int top = snap_fd;
	for (uint32_t i = 0; i < m->nfds; i++)
		if (m->to[i] > top)
			top = m->to[i];
	/* A received fd may have landed on a number the target had closed and
	 * that is also a destination: move it out of the way first. */
	for (uint32_t i = 0; i < m->nfds; i++)
		if (is_to(m, fds[i])) {
			int hi = (int)sys(SYS_fcntl, fds[i], F_DUPFD_CLOEXEC, top + 1, 0, 0);
			sys(SYS_close, fds[i], 0, 0, 0, 0);
			fds[i] = hi;
		}
	for (uint32_t i = 0; i < m->nfds; i++) {
		int to = m->to[i];
		if (fds[i] < 0 || to < 0)
			continue;
		/* (raw calls here: snapfd.c's hide the socket) */
		int fl = (int)sys(SYS_fcntl, to, F_GETFL, 0, 0, 0), fdfl = (int)sys(SYS_fcntl, to, F_GETFD, 0, 0, 0);
		if (fl < 0 || fdfl < 0)
			continue; /* the target closed it: it stays closed */
		/* cmc's fds come without status flags, and dup2 clears
		 * FD_CLOEXEC: set only what the target's fd had (a call per
		 * flag saved here is a call saved per transition) */
		if (fl & (O_NONBLOCK | O_APPEND | O_ASYNC))
			sys(SYS_fcntl, fds[i], F_SETFL, fl & (O_NONBLOCK | O_APPEND | O_ASYNC), 0, 0);
		/* raw: the interposed dup2 (epoll.c) would take `to` out of the
		 * epoll lists that pl_epoll_rebuild() is about to register anew */
		sys(SYS_dup2, fds[i], to, 0, 0, 0);
		if (fdfl)
			sys(SYS_fcntl, to, F_SETFD, fdfl, 0, 0);
	}
	for (uint32_t i = 0; i < m->nfds; i++)
		if (fds[i] >= 0)
			sys(SYS_close, fds[i], 0, 0, 0, 0);
}

/* The fd CMC_SNAP_FD names, or -1 (no digits, or too large). */
static int env_fd(void)
{
	char v[24];
	if (pl_env(CMC_ENV_SNAP_FD, v, sizeof v) != 1 || !v[0])
		return -1;
	int fd = 0;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9' || fd > 1000000)
			return -1;
		fd = fd * 10 + (*p - '0');
	}
	return fd;
}

uint16_t pl_snap_config_port(void)
{
	static int port = -1;
	if (port < 0) {
		port = 0;
		int fd = snap_fd >= 0 ? snap_fd : env_fd();
		struct cmc_snap_msg m;
		if (fd >= 0 && recv(fd, &m, sizeof m, MSG_PEEK | MSG_DONTWAIT) == (ssize_t)sizeof m &&
		    m.magic == CMC_SNAP_MAGIC && m.kind == CMC_SNAP_CONFIG && m.a > 0 && m.a <= 65535)
			port = m.a;
	}
	return (uint16_t)port;
}

static void serve(void)
{
	struct cmc_snap_msg m;
	int fds[CMC_SNAP_MAXFDS];
	char cbuf[CMSG_SPACE(sizeof fds)];
	struct iovec iov = {&m, sizeof m};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof cbuf};
	ssize_t r;
	/* (past the CONFIG message cmc put first, which carries no fds) */
	do {
		mh.msg_controllen = sizeof cbuf;
		while ((r = recvmsg(snap_fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
			;
	} while (r == (ssize_t)sizeof m && m.magic == CMC_SNAP_MAGIC && m.kind == CMC_SNAP_CONFIG);
	if (r < 0)
		return; /* nothing asked: a stray signal */
	uint32_t got = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < n; i++) {
				int fd;
				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
				if (got < CMC_SNAP_MAXFDS)
					fds[got++] = fd;
				else
					sys(SYS_close, fd, 0, 0, 0, 0);
			}
		}
	if (r != (ssize_t)sizeof m || m.magic != CMC_SNAP_MAGIC || m.kind != CMC_SNAP_FORK ||
	    m.nfds != got || (mh.msg_flags & MSG_CTRUNC) || pl_epoll_overflowed()) {
		for (uint32_t i = 0; i < got; i++)
			sys(SYS_close, fds[i], 0, 0, 0, 0);
		/* (overflowed: a child's epoll instances could not be made anew;
		 * descriptors cut: the fd table is full, or the program's fd limit
		 * is below what the kernel needs to give them) */
		reply(CMC_SNAP_ERROR, pl_epoll_overflowed() ? EOVERFLOW : (mh.msg_flags & MSG_CTRUNC) ? EMFILE : EPROTO,
		      0, 0);
		return;
	}
	for (uint32_t i = 0; i < m.nfds; i++)
		if (m.to[i] == CMC_SNAP_TO_CONN) {
			if (m.a >= 0)
				conn_fd = m.a;
			else if (conn_fd < 0)
				conn_fd = find_conn(m.lport, m.pport);
			m.to[i] = conn_fd; /* -1: not found, the fd is dropped */
		}
	for (uint32_t i = 0; i < m.nfds; i++)
		if (m.to[i] == CMC_SNAP_TO_SOCKET)
			m.to[i] = snap_fd; /* wherever snapfd.c keeps it */
	int cgroup = -1, tasks = -1, mntns = -1;
	for (uint32_t i = 0; i < m.nfds; i++)
		if (m.to[i] == CMC_SNAP_TO_CGROUP || m.to[i] == CMC_SNAP_TO_TASKS || m.to[i] == CMC_SNAP_TO_MNTNS) {
			*(m.to[i] == CMC_SNAP_TO_CGROUP ? &cgroup : m.to[i] == CMC_SNAP_TO_TASKS ? &tasks : &mntns) = fds[i];
			m.to[i] = -1; /* not installed: closed in the child too */
		}
	pid_t cmc = (pid_t)sys(SYS_getppid, 0, 0, 0, 0, 0);
	void *rl_head = NULL;
	size_t rl_len = 0;
	sys(SYS_get_robust_list, 0, (long)&rl_head, (long)&rl_len, 0, 0);
	long pid = -1;
	uint32_t flags = 0;
	if (cgroup >= 0 && !no_self_move) {
		/* Born in its own cgroup: moving it there afterwards took the
		 * kernel's cgroup locks once per child, against every other
		 * worker's forks.  (With CLONE_PARENT the exit signal is the
		 * origin's, and clone3 wants 0 here.) */
		struct clone3_args ca = {.flags = CLONE_PARENT | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID |
						  CLONE_INTO_CGROUP_FLAG,
					 .child_tid = (uint64_t)(uintptr_t)tid_addr,
					 .cgroup = (uint64_t)cgroup};
		pid = sys(SYS_clone3, (long)&ca, sizeof ca, 0, 0, 0);
		if (pid >= 0)
			flags = CMC_SNAP_IN_CGROUP;
	}
	if (pid < 0) /* no clone3 or no such cgroup here: cmc moves the child */
		pid = sys(SYS_clone, CLONE_PARENT | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD, 0, 0,
			  (long)tid_addr, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (sys(SYS_getppid, 0, 0, 0, 0, 0) != cmc)
			_exit(127); /* cmc died before the line above */
		if (rl_head)
			sys(SYS_set_robust_list, (long)rl_head, (long)rl_len, 0, 0, 0);
		/* Into its v1 cgroup by itself: a thread that moves itself
		 * alone ("0" to tasks) is spared the kernel's lock over every
		 * thread group on the machine, which moving a process from
		 * outside takes (measured: 17 against 42 us a move). */
		if (tasks >= 0 && !no_self_move && sys(SYS_write, tasks, (long)"0", 1, 0, 0) == 1)
			flags |= CMC_SNAP_IN_TASKS;
		if (m.cwd_src[0] && pl_snap_own_cwd(m.cwd_src, m.cwd_at, mntns))
			flags |= CMC_SNAP_OWN_CWD;
		/* its open files' offsets, and unnamed files' contents */
		pl_snap_own_files((flags & CMC_SNAP_OWN_CWD) ? m.cwd_at : NULL, snap_fd, fds, got);
		/* still on the origin's socket: the answer to its request */
		reply(CMC_SNAP_FORKED, (int32_t)sys(SYS_getpid, 0, 0, 0, 0, 0), conn_fd, flags);
		install(&m, fds);
		pl_epoll_rebuild(); /* on the channels just installed */
		/* Not in a cgroup it was sent: wait until cmc has moved it
		 * (GO, on the new socket installed above), for its input may
		 * be there already. */
		if (cmc_snap_needs_go(cgroup >= 0, tasks >= 0, flags)) {
			struct cmc_snap_msg g;
			do { /* (past the CONFIG, which cmc sends after GO again) */
				while ((r = recv(snap_fd, &g, sizeof g, 0)) < 0 && errno == EINTR)
					;
			} while (r == (ssize_t)sizeof g && g.magic == CMC_SNAP_MAGIC && g.kind == CMC_SNAP_CONFIG);
		}
		return;
	}
	for (uint32_t i = 0; i < got; i++)
		sys(SYS_close, fds[i], 0, 0, 0, 0);
	if (pid < 0)
		reply(CMC_SNAP_ERROR, errno, 0, 0);
	/* else the child answers */
}

int pl_snap_fd(void)
{
	return __atomic_load_n(&snap_fd, __ATOMIC_RELAXED);
}

void pl_snap_set_fd(int fd)
{
	__atomic_store_n(&snap_fd, fd, __ATOMIC_RELAXED);
}

/* Fork requests served, for the waits that one interrupted (detwait.c). */
static volatile sig_atomic_t requests;

unsigned pl_snap_requests(void)
{
	return (unsigned)requests;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	/* Only cmc (our parent, for every snapshot) may ask. */
	if (si->si_code == SI_USER && si->si_pid == (pid_t)sys(SYS_getppid, 0, 0, 0, 0, 0)) {
		requests++;
		serve();
	}
	errno = saved;
}

/*
 * The constructor runs on the program's own stack, and what it handles
 * differs on every run (cmc's pid in the socket's credentials, the
 * target's in READY): copies of them, in its frames and the calls'
 * below, would be there for the program to find in an uninitialised
 * local.  So its frames are wiped when it is done: a frame as deep as
 * theirs, zeroed, from the same place.
 */
static __attribute__((noinline)) void scrub(void)
{
	unsigned char below[8192];
	explicit_bzero(below, sizeof below);
}

static void serve_init(void);

/* The process that made the snapshot socket: cmc (0: unknown). */
static pid_t cmc_pid;

pid_t pl_snap_cmc(void) { return cmc_pid; }

__attribute__((constructor)) static void pl_snap_init(void)
{
	serve_init();
	scrub();
}

static __attribute__((noinline)) void serve_init(void)
{
	char v[24];
	if (pl_env(CMC_ENV_SNAP_FD, v, sizeof v) != 1 || !v[0])
		return;
	int fd = 0;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9' || fd > 1000000) {
			struct pl_msg m = {.len = 0};
			pl_msg_str(&m, "bad " CMC_ENV_SNAP_FD "='");
			pl_msg_str(&m, v);
			pl_msg_str(&m, "': expected a descriptor number");
			pl_fault(CMC_FAULT_BAD_ENV, &m);
		}
		fd = fd * 10 + (*p - '0');
	}
	/* A program the target started (a shell's command) has the socket and
	 * the environment too, but the snapshots are the target's: its READY
	 * would reach cmc as the answer to a fork request.  The socket's peer
	 * is the process that made the pair, cmc: only its child serves, and
	 * any other closes the socket, under either executor alike.  (Raw
	 * getppid: detenv.c may report another.  Not in the environment,
	 * which must not depend on cmc's pid.) */
	struct ucred cred;
	socklen_t cl = sizeof cred;
	int type = 0;
	socklen_t tl = sizeof type;
	/* An image the program exec'd after it put a file of its own at
	 * this number (snapfd.c moved the socket, close-on-exec): the fd is
	 * the program's, not a socket to serve or close. */
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 || type != SOCK_SEQPACKET)
		return;
	(void)pl_snap_config_port(); /* before a program the target started closes it */
	bool known = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0;
	if (known)
		cmc_pid = cred.pid;
	bool ours = !known || (long)cred.pid == sys(SYS_getppid, 0, 0, 0, 0, 0);
	if (!ours) {
		sys(SYS_close, fd, 0, 0, 0, 0);
		return;
	}
	if (sys(SYS_fcntl, fd, F_GETFD, 0, 0, 0) < 0 || prctl(PR_GET_TID_ADDRESS, &tid_addr) < 0)
		return; /* no server: cmc sees no READY and falls back to replay */
	no_self_move = pl_env("CMC_SNAP_NO_SELF_MOVE", v, sizeof v) == 1 && v[0] == '1';
	snap_fd = fd;
	if (pl_sig_handle(CMC_SNAP_SIG, on_signal) < 0) { /* sigstack.c says why its stack */
		snap_fd = -1;
		return;
	}
	reply(CMC_SNAP_READY, (int32_t)sys(SYS_getpid, 0, 0, 0, 0, 0), 0, 0);
}

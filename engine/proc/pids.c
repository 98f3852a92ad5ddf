/*
 * pids.c — the pids of a run's targets: which processes cmc owns, and
 * the PID namespace they live in.
 *
 * Ownership.  A pid cmc may signal is one the kernel gave it: the return of
 * its own fork(), or, for a fork snapshot's child (preload/snap.c, made
 * with CLONE_PARENT), the sender's pid the kernel attaches to the child's
 * FORKED message (SCM_CREDENTIALS, translated to cmc's namespace), never a
 * number written in a message.  Even that is only taken if it is a child
 * of cmc not owned yet (proc_pid_adopt()): a target can forge a message
 * (the socket is its descriptor), and root can even choose the credentials
 * it sends.  A child of cmc stays cmc's until cmc reaps it, and cmc reaps
 * only the pids it owns, each by its own pid: so an owned pid names the
 * same process until proc_pid_forget(), and kill() on it reaches nothing
 * else (no pidfd needed, none of the fd budget a snapshot has spent).
 *
 * Containment.  Where cmc may (root: CAP_SYS_ADMIN), each run's targets
 * live in a PID namespace of their own: a tiny init made with
 * clone(CLONE_NEWPID) that only reaps orphans, and every thread that starts
 * targets joins it for its children (setns(CLONE_NEWPID) changes where the
 * thread's later forks put their children; the children are still cmc's,
 * which the fork executor relies on).  Whatever a target does — leave its
 * process group and cgroup, setsid, clear its death signal, double-fork —
 * its processes stay in that namespace, and killing the init kills every
 * one of them: at the run's end (proc_pids_close()), and when cmc dies in
 * any way (the init reads a pipe only cmc holds open: its end of file is
 * cmc's death, whichever thread made the init).  Inside, pid 1 is the init,
 * and no process outside the namespace can be named: a raw kill(-1, sig) or
 * a write to a cgroup.procs reaches the run's own processes only.  Without
 * root (or where the kernel refuses) the targets run in today's jail
 * (process group, death signal, cgroup when root, and the seccomp wall
 * that keeps their signals from cmc: sigwall.c), and proc_pids_lost()
 * says so.  share/scenario.md ("Containment") documents both.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target.h"
#include "util.h"

/* ---- the pids cmc owns --------------------------------------------------- */

/* Invariant: own[0..nown) are distinct pids > 0, each a child of cmc not
 * yet reaped (added when the kernel made it ours, removed once reaped). */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pid_t *own;
static size_t nown, own_cap;

static bool owned(pid_t pid)
{
	for (size_t i = 0; i < nown; i++)
		if (own[i] == pid)
			return true;
	return false;
}

static void add(pid_t pid)
{
	if (nown == own_cap) {
		own_cap = own_cap ? 2 * own_cap : 64;
		own = eng_xrealloc(own, own_cap * sizeof *own);
	}
	own[nown++] = pid;
}

void proc_pid_own(pid_t pid)
{
	if (pid <= 0)
		return;
	pthread_mutex_lock(&mu);
	if (!owned(pid))
		add(pid);
	pthread_mutex_unlock(&mu);
}

/* A child of cmc, alive or ended but not reaped (waitable). */
static bool is_child(pid_t pid)
{
	siginfo_t si;
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT) == 0;
}

bool proc_pid_adopt(pid_t pid)
{
	pthread_mutex_lock(&mu);
	bool ok = pid > 0 && pid != getpid() && !owned(pid) && is_child(pid);
	if (ok)
		add(pid);
	pthread_mutex_unlock(&mu);
	return ok;
}

void proc_pid_forget(pid_t pid)
{
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < nown; i++)
		if (own[i] == pid) {
			own[i] = own[--nown];
			break;
		}
	pthread_mutex_unlock(&mu);
}

/* ---- the run's PID namespace ------------------------------------------- */

/* Invariant: init > 0 iff a namespace is up; nsfd (it), home (cmc's own)
 * and life are then open (life: cmc's end of the pipe whose end of file
 * ends the init). */
static pid_t init;
static int nsfd = -1, home = -1, life = -1;
static bool tried, said;
static char lost[200];

/* The init: reap whatever is orphaned in the namespace until cmc is gone
 * (its pipe's end of file), then exit, which kills the namespace.  Raw
 * system calls only: it is a copy of one thread of a threaded process. */
static _Noreturn void init_main(int rd)
{
	if (rd > 0)
		syscall(SYS_close_range, 0, rd - 1, 0);
	syscall(SYS_close_range, rd + 1, ~0U, 0);
	/* (no PR_SET_PDEATHSIG: it follows the thread that made the init,
	 * and a worker thread may end before the run does) */
	prctl(PR_SET_NAME, "cmc-init");
	setsid(); /* out of cmc's group: a terminal's ^C is cmc's to handle */
	sigset_t chld; /* only SIGCHLD: not cmc's blocked SIGINT/SIGTERM/SIGHUP */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_SETMASK, &chld, NULL);
	int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		struct pollfd p[2] = {{.fd = rd, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
		int n = poll(p, sfd >= 0 ? 2 : 1, sfd >= 0 ? -1 : 1000);
		if (n > 0 && p[0].revents)
			_exit(0);
		if (sfd >= 0 && n > 0 && p[1].revents) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof si) > 0)
				;
		}
	}
}

static void start_ns(void)
{
	tried = true;
	const char *no = getenv("CMC_NO_PIDNS");
	if (no && *no && strcmp(no, "0")) {
		snprintf(lost, sizeof lost, "CMC_NO_PIDNS is set");
		return;
	}
	if (geteuid() != 0) {
		snprintf(lost, sizeof lost, "not root");
		return;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(lost, sizeof lost, "pipe: %s", strerror(errno));
		return;
	}
	long pid = syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		close(p[1]);
		init_main(p[0]);
	}
	int e = errno;
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		snprintf(lost, sizeof lost, "clone(CLONE_NEWPID): %s", strerror(e));
		return;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/ns/pid", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		close(p[1]);
		kill((pid_t)pid, SIGKILL);
		waitpid((pid_t)pid, NULL, 0);
		snprintf(lost, sizeof lost, "%s: %s", path, strerror(e));
		return;
	}
	home = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (home < 0) {
		e = errno;
		close(fd);
		close(p[1]);
		kill((pid_t)pid, SIGKILL);
		waitpid((pid_t)pid, NULL, 0);
		snprintf(lost, sizeof lost, "/proc/self/ns/pid: %s", strerror(e));
		return;
	}
	init = (pid_t)pid;
	nsfd = fd;
	life = p[1];
	add(init); /* (mu held) never a snapshot's child: proc_pid_adopt() */
}

static void say_lost(const char *why)
{
	if (!lost[0])
		snprintf(lost, sizeof lost, "%s", why);
	if (!said) {
		said = true;
		fprintf(stderr, "cmc: targets run without a PID namespace of their own (%s): a target "
			"that leaves its process group and cgroup can outlive the run\n", lost);
	}
}

/* A thread whose children go into another PID namespace cannot make
 * threads (the kernel refuses CLONE_THREAD then), and cmc's do: so a
 * thread is in the run's namespace for its children only from
 * proc_pids_enter() to proc_pids_leave(), around one fork. */
bool proc_pids_enter(void)
{
	pthread_mutex_lock(&mu);
	if (!tried)
		start_ns();
	bool in = false;
	if (init > 0) {
		in = setns(nsfd, CLONE_NEWPID) == 0;
		if (!in) {
			char why[120];
			snprintf(why, sizeof why, "setns: %s", strerror(errno));
			say_lost(why);
		}
	} else
		say_lost(lost);
	pthread_mutex_unlock(&mu);
	return in;
}

void proc_pids_leave(bool entered)
{
	pthread_mutex_lock(&mu);
	if (entered && setns(home, CLONE_NEWPID) < 0)
		eng_die("setns back to cmc's own PID namespace: %s", strerror(errno));
	pthread_mutex_unlock(&mu);
}

const char *proc_pids_lost(void)
{
	pthread_mutex_lock(&mu);
	const char *r = tried && (init <= 0 || said) ? lost : NULL;
	pthread_mutex_unlock(&mu);
	return r;
}

void proc_pids_close(void)
{
	pthread_mutex_lock(&mu);
	pid_t p = init;
	if (p > 0) {
		/* Its exit kills every process in the namespace.  The kernel
		 * lets it finish only once cmc has reaped its own children
		 * there (the targets, all reaped by now, and whatever a target
		 * made with CLONE_PARENT): those are reaped here, the init last. */
		kill(p, SIGKILL);
		close(nsfd);
		close(home);
		close(life);
		nsfd = home = life = -1;
		init = 0;
		for (size_t i = 0; i < nown; i++)
			if (own[i] == p)
				own[i] = own[--nown];
	}
	tried = false;
	said = false;
	lost[0] = 0;
	pthread_mutex_unlock(&mu);
	if (p <= 0)
		return;
	/* The init ends once every process of the namespace is reaped, and
	 * strays made with CLONE_PARENT are cmc's to reap: reap them while
	 * waiting on the init's pidfd, which wakes the moment it ends (a
	 * millisecond a round for the strays, two seconds at most). */
	int pfd = (int)syscall(SYS_pidfd_open, p, 0);
	for (int i = 0; i < 2000; i++) {
		if (waitpid(p, NULL, WNOHANG) == p)
			break;
		siginfo_t si = {0};
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid > 0 && si.si_pid != p) {
			pthread_mutex_lock(&mu);
			bool mine = owned(si.si_pid);
			pthread_mutex_unlock(&mu);
			if (!mine) /* a stray made with CLONE_PARENT: nobody else's to reap */
				waitpid(si.si_pid, NULL, WNOHANG);
		}
		struct pollfd w = {.fd = pfd, .events = POLLIN};
		if (pfd < 0 || poll(&w, 1, 1) < 0)
			poll(NULL, 0, 1);
	}
	if (pfd >= 0)
		close(pfd);
}

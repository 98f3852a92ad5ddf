/*
 * spawn.c — starting a target: a fresh process group that dies with
 * cmc (PR_SET_PDEATHSIG), ASLR off (personality ADDR_NO_RANDOMIZE), a small
 * fixed environment with the preload and its CMC_* variables, fds 0/1/2,
 * the canonical fd and the control fd wired to pipes cmc reads, everything
 * else closed.  Then start-up: wait until the target is quiescent; for tcp,
 * until it listens on the port cmc chose, then connect and wait again.
 *
 * Owns killing: proc_target_kill() is the only way a target ends early, and
 * it kills the whole group and reaps, so no process outlives its executor.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layout/cmc_region.h"
#include "limits.h"
#include "pages.h"
#include "scratch.h"
#include "target.h"
#include "util.h"

/*
 * A free loopback port right now; the target binds it a moment later.
 * Between the two another program may take it: the start-up then sees a
 * listener that is not the target's (quiesce.c) and tries another
 * port.  Within cmc, workers starting targets at once never get the same
 * port: the last ports handed out are not handed out again (the kernel
 * would, as nothing holds them until their target binds).
 * CMC_TEST_PORT=P makes the first port this process picks P (tests: a port
 * they have taken themselves).
 */
static uint16_t free_port(void)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static uint16_t recent[64];
	static unsigned next;
	static bool test_port_used;
	uint16_t port = 0;
	pthread_mutex_lock(&mu);
	const char *tp = getenv("CMC_TEST_PORT");
	if (tp && !test_port_used) {
		test_port_used = true;
		long v = strtol(tp, NULL, 10);
		if (v > 0 && v < 65536)
			port = (uint16_t)v;
	}
	for (int attempt = 0; !port && attempt < 16; attempt++) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			break;
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		socklen_t al = sizeof a;
		if (bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
		    getsockname(s, (struct sockaddr *)&a, &al) == 0)
			port = ntohs(a.sin_port);
		close(s);
		for (size_t i = 0; port && i < sizeof recent / sizeof recent[0]; i++)
			if (recent[i] == port)
				port = 0;
	}
	if (port)
		recent[next++ % (sizeof recent / sizeof recent[0])] = port;
	pthread_mutex_unlock(&mu);
	return port;
}

/* argv with every "{port}" replaced. */
static char **build_argv(const struct proc_scenario *sc, uint16_t port)
{
	char **av = eng_xcalloc(sc->argc + 1, sizeof(char *));
	char ps[8];
	snprintf(ps, sizeof ps, "%u", port);
	for (size_t i = 0; i < sc->argc; i++) {
		const char *w = sc->argv[i];
		size_t n = strlen(w) + 1, cnt = 0;
		for (const char *q = w; (q = strstr(q, "{port}")); q += 6)
			cnt++;
		char *o = eng_xmalloc(n + cnt * 8), *d = o;
		for (const char *q = w; *q;) {
			if (!strncmp(q, "{port}", 6)) {
				d += sprintf(d, "%s", ps);
				q += 6;
			} else
				*d++ = *q++;
		}
		*d = 0;
		av[i] = o;
	}
	return av;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	char buf[4200];
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, sizeof buf, f, ap);
	va_end(ap);
	return eng_xstrdup(buf);
}

/* The target's whole environment: fixed, so runs repeat. */
static char **build_env(const struct proc_scenario *sc, const char *preload, uint16_t port, size_t *n,
			bool *det)
{
	char **env = eng_xcalloc(16 + sc->nenv, sizeof(char *));
	size_t k = 0;
	env[k++] = eng_xstrdup("PATH=/usr/local/bin:/usr/bin:/bin");
	env[k++] = eng_xstrdup("LC_ALL=C");
	env[k++] = eng_xstrdup("TZ=UTC");
	env[k++] = eng_xstrdup("HOME=/nonexistent");
	if (preload && *preload)
		env[k++] = fmt("LD_PRELOAD=%s", preload);
	env[k++] = fmt("CMC_HEAP_BASE=0x%llx", (unsigned long long)sc->heap_base);
	env[k++] = fmt("CMC_HEAP_SIZE=%llu", (unsigned long long)sc->heap_size);
	env[k++] = fmt("CMC_CTL_FD=%d", PROC_CTL_FD);
	env[k++] = fmt("CMC_CANON_FD=%d", sc->canon_fd);
	if (sc->line_buffer)
		env[k++] = eng_xstrdup("CMC_LINEBUF=1");
	if (sc->exit_live)
		env[k++] = eng_xstrdup("CMC_EXIT_LIVE=1");
	/* Under either executor (cmc_region.h section 5): the environment,
	 * and so the stack the kernel lays out from it, is one thing
	 * whichever executor runs the target and whatever cmc's pid. */
	if (preload && *preload)
		env[k++] = fmt("%s=%d", CMC_ENV_SNAP_FD, CMC_SNAP_FD_DEFAULT);
	/* Deterministic time, randomness and pid (preload/detenv.c) unless
	 * the scenario says otherwise with an env line. */
	bool det_set = false;
	for (size_t i = 0; i < sc->nenv; i++)
		det_set |= !strncmp(sc->env[i], "CMC_DETERMINISTIC=", 18);
	if (!det_set)
		env[k++] = eng_xstrdup("CMC_DETERMINISTIC=1");
	*det = !det_set && preload && *preload;
	for (size_t i = 0; i < sc->nenv; i++)
		env[k++] = eng_xstrdup(sc->env[i]);
	env[k] = NULL;
	*n = k;
	return env;
}

static void free_vec(char **v)
{
	if (!v)
		return;
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

/* In the child: put `from` at `to` (from is a high fd, CLOEXEC). */
static void child_fd(int from, int to)
{
	if (dup2(from, to) < 0)
		_exit(127);
}

static _Noreturn void child(const struct proc_scenario *sc, char **av, char **env, int in_r,
			    int out_w, int canon_w, int ctl_w, int snap_w, int errp, bool det,
			    const struct proc_scratch *scratch, const char *exe, pid_t wall_pgrp)
{
	int e;
	sigset_t all;
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The parent may have died between fork and prctl. */
	if (getppid() == 1)
		_exit(127);
	if (personality(ADDR_NO_RANDOMIZE) < 0)
		goto fail;
	if (proc_nofile_orig) {
		struct rlimit rl;
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = proc_nofile_orig;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (scratch ? proc_scratch_enter(scratch) < 0 : sc->cwd && chdir(sc->cwd) < 0)
		goto fail;
	if (proc_limits_child(sc) < 0)
		goto fail;
	/* Move the pipe ends above every target fd first, so dup2 never
	 * clobbers one we still need. */
	int hi_in = fcntl(in_r, F_DUPFD_CLOEXEC, 100);
	int hi_out = fcntl(out_w, F_DUPFD_CLOEXEC, 100);
	int hi_canon = fcntl(canon_w, F_DUPFD_CLOEXEC, 100);
	int hi_ctl = fcntl(ctl_w, F_DUPFD_CLOEXEC, 100);
	int hi_err = fcntl(errp, F_DUPFD_CLOEXEC, 100);
	if (hi_in < 0 || hi_out < 0 || hi_canon < 0 || hi_ctl < 0 || hi_err < 0)
		goto fail;
	if (snap_w >= 0 && dup2(snap_w, CMC_SNAP_FD_DEFAULT) < 0)
		goto fail;
	errp = hi_err;
	child_fd(hi_in, 0);
	child_fd(hi_out, 1);
	child_fd(hi_out, 2);
	child_fd(hi_canon, sc->canon_fd);
	child_fd(hi_ctl, PROC_CTL_FD);
	/* Everything else is closed: fds between 3 and 99 that are not ours,
	 * and the high copies (CLOEXEC, gone at exec; errp must survive until
	 * then). */
	for (int fd = 3; fd < 100; fd++)
		if (fd != sc->canon_fd && fd != PROC_CTL_FD)
			close(fd);
	/* Sharing cmc's pid numbers: the target must not signal cmc. */
	if (wall_pgrp > 0)
		(void)proc_sigwall_child(getppid(), wall_pgrp);
	/* Deterministic: stop at exec so cmc can fix AT_RANDOM (fix_random). */
	if (det)
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	execve(exe, av, env);
fail:
	e = errno;
	if (write(errp, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

/*
 * The kernel gives every exec 16 random bytes (AT_RANDOM) from which glibc
 * derives its stack and pointer guards before any preload runs; mangled
 * pointers land in the heap (sqlite3's shell has a table of them), so two
 * runs would differ.  The child stops at exec (PTRACE_TRACEME): write fixed
 * bytes there and let it go.  Not traced (ptrace refused): nothing to do.
 */
static void fix_random(pid_t pid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	long tracer = 0;
	while (f && fgets(buf, sizeof buf, f))
		if (sscanf(buf, "TracerPid: %ld", &tracer) == 1)
			break;
	if (f)
		fclose(f);
	if (tracer != (long)gettid()) /* the tracer is the forking thread */
		return;
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return;
	snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t av[2], at_random = 0;
	while (fd >= 0 && read(fd, av, sizeof av) == (ssize_t)sizeof av && av[0] != 0)
		if (av[0] == 25 /* AT_RANDOM */)
			at_random = av[1];
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	static const uint8_t fixed[16] = "cmc-determinism";
	if (fd >= 0 && at_random)
		(void)!pwrite(fd, fixed, sizeof fixed, (off_t)at_random);
	if (fd >= 0)
		close(fd);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
}

void proc_set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, O_NONBLOCK);
}

int proc_open_pid(pid_t pid, const char *what)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, what);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void describe_end(struct proc_target *t, struct proc_obs *obs, const char *when)
{
	if (t->signaled)
		snprintf(obs->fault_msg, sizeof obs->fault_msg, "%s: target died on signal %d (%s) %s",
			 t->sc->exe, WTERMSIG(t->status), strsignal(WTERMSIG(t->status)), when);
	else
		snprintf(obs->fault_msg, sizeof obs->fault_msg, "%s: target exited with status %d %s",
			 t->sc->exe, WEXITSTATUS(t->status), when);
}

/* Append what the target last wrote (stdout and stderr, whatever it said
 * about why it could not start) to the start-up fault: its tail, at most
 * 160 bytes, made printable here (\n, \xHH), since error lines are
 * printed as they are. */
static void said(const struct proc_target *t, struct proc_obs *obs)
{
	const uint8_t *p = t->reply.p;
	size_t n = t->reply.len;
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' '))
		n--;
	if (!n)
		return;
	size_t from = n > 160 ? n - 160 : 0;
	size_t k = strlen(obs->fault_msg);
	char *m = obs->fault_msg;
	const size_t cap = sizeof obs->fault_msg;
	k += (size_t)snprintf(m + k, k < cap ? cap - k : 0, "; its output ended \"%s", from ? "..." : "");
	for (size_t i = from; i < n && k + 5 < cap; i++) {
		uint8_t c = p[i];
		if (c == '\n')
			k += (size_t)snprintf(m + k, cap - k, "\\n");
		else if (c < 0x20 || c > 0x7e || c == '\\' || c == '"')
			k += (size_t)snprintf(m + k, cap - k, "\\x%02x", c);
		else
			m[k++] = (char)c;
	}
	if (k + 2 < cap) {
		m[k++] = '"';
		m[k] = 0;
	} else
		m[cap - 1] = 0;
}

int proc_tcp_connect(uint16_t port, uint16_t *client_port)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
		close(s);
		return -1;
	}
	int one = 1;
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	socklen_t al = sizeof a;
	getsockname(s, (struct sockaddr *)&a, &al);
	*client_port = ntohs(a.sin_port);
	proc_set_nonblock(s);
	return s;
}

struct proc_target *proc_target_alloc(const struct proc_scenario *sc)
{
	struct proc_target *t = eng_xcalloc(1, sizeof *t);
	t->sc = sc;
	t->transport = sc->transport;
	t->reply_cap = sc->reply_cap;
	t->in_fd = t->out_fd = t->mem_fd = t->sys_fd = t->stat_fd = -1;
	t->canon.fd = t->ctl.fd = t->snap_fd = -1;
	t->canon.magic = CMC_CANON_MAGIC;
	t->canon.max = CMC_CANON_MAX;
	t->ctl.magic = CMC_CTL_MAGIC;
	t->ctl.sticky_kind[PROC_STICKY_LIMIT] = CMC_CTL_LIMIT;
	t->ctl.sticky_kind[PROC_STICKY_SIGNAL] = CMC_CTL_SIGNAL;
	t->ctl.max = CMC_CTL_MAX;
	return t;
}

bool proc_target_open_proc(struct proc_target *t)
{
	t->mem_fd = proc_open_pid(t->pid, "mem");
	t->sys_fd = proc_open_pid(t->pid, "syscall");
	t->stat_fd = proc_open_pid(t->pid, "stat");
	return t->mem_fd >= 0 && t->sys_fd >= 0 && t->stat_fd >= 0;
}

/* cmc's and the child's ends of a new target's channels, until the
 * child has them (then cmc's are the target's, the child's are closed). */
struct spawn_fds {
	int in[2], out[2], canon[2], ctl[2], errp[2], sp[2];
};

static void spawn_fds_close(struct spawn_fds *d)
{
	int *fds[] = {&d->in[0], &d->in[1], &d->out[0], &d->out[1], &d->canon[0], &d->canon[1],
		      &d->ctl[0], &d->ctl[1], &d->errp[0], &d->errp[1], &d->sp[0], &d->sp[1]};
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
}

/* The channels: the input (a pipe, or /dev/null for tcp, whose port is
 * chosen here), output, canonical, control and exec-error pipes.  -1 with
 * obs filled when no port is free. */
static int open_channels(struct proc_target *t, struct spawn_fds *d, struct proc_obs *obs)
{
	const struct proc_scenario *sc = t->sc;
	*d = (struct spawn_fds){.in = {-1, -1}, .out = {-1, -1}, .canon = {-1, -1}, .ctl = {-1, -1},
				.errp = {-1, -1}, .sp = {-1, -1}};
	if (sc->transport == PROC_TCP) {
		t->port = free_port();
		if (!t->port) {
			obs->fault = PROC_FAULT_START;
			snprintf(obs->fault_msg, sizeof obs->fault_msg, "cannot find a free loopback port: %s",
				 strerror(errno));
			return -1;
		}
		d->in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	} else if (pipe2(d->in, O_CLOEXEC) < 0)
		eng_die("pipe: %s", strerror(errno));
	if (d->in[0] < 0 || pipe2(d->out, O_CLOEXEC) < 0 || pipe2(d->canon, O_CLOEXEC) < 0 ||
	    pipe2(d->ctl, O_CLOEXEC) < 0 || pipe2(d->errp, O_CLOEXEC) < 0)
		eng_die("pipe: %s", strerror(errno));
	return 0;
}

/* The snapshot socket is there under either executor, so the target's
 * descriptors are the same, and its READY is sent alike (a send that
 * failed would leave other bytes on its stack); the replay executor holds
 * its end and reads it as the fork executor does between operations
 * (snapmsg.h). */
static void open_snap_socket(struct proc_target *t, struct spawn_fds *d, bool det)
{
	if (t->preload_on && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, d->sp) < 0)
		eng_die("socketpair: %s", strerror(errno));
	if (d->sp[0] >= 0)
		proc_snap_passcred(d->sp[0]);
	/* Fixed addresses: the target is told CMC_NET_PORT, and learns the
	 * real port, which changes with every process, from this message,
	 * not from its environment (preload/detnet.c). */
	if (d->sp[0] >= 0 && det && t->port) {
		struct cmc_snap_msg cfg = {.magic = CMC_SNAP_MAGIC, .kind = CMC_SNAP_CONFIG, .a = t->port};
		send(d->sp[0], &cfg, sizeof cfg, MSG_DONTWAIT | MSG_NOSIGNAL);
		t->config_port = t->port; /* (every snapshot's socket gets it too: fork_request.c) */
	}
}

/* The target starts in a directory of its own: a path relative to ours
 * is made absolute first. */
static void absolute_exe(const struct proc_scenario *sc, char exe[PATH_MAX])
{
	if (sc->exe[0] == '/' || !getcwd(exe, PATH_MAX - 1) || strlen(exe) + strlen(sc->exe) + 2 > PATH_MAX)
		snprintf(exe, PATH_MAX, "%s", sc->exe);
	else
		strcat(strcat(exe, "/"), sc->exe);
}

/* Fork the child (in its jail and the run's PID namespace) and keep cmc's
 * ends of its channels in t; the child's are closed here, but for the
 * read end of the exec-error pipe, d->errp[0]. */
static void launch(struct proc_target *t, struct spawn_fds *d, char **av, char **env, bool det,
		   const char *exe)
{
	const struct proc_scenario *sc = t->sc;
	t->jail = proc_jail_new(sc);
	bool in_ns = proc_pids_enter(); /* the run's PID namespace, where there is one */
	pid_t wall_pgrp = in_ns ? 0 : getpgrp();
	pid_t pid = fork();
	if (pid < 0)
		eng_die("fork: %s", strerror(errno));
	if (pid > 0) {
		proc_pids_leave(in_ns);
		proc_pid_own(pid);
	}
	if (pid == 0)
		child(sc, av, env, d->in[0], d->out[1], d->canon[1], d->ctl[1], d->sp[1], d->errp[1], det,
		      t->scratch, exe, wall_pgrp);
	/* Both sides set the group, so kill(-pid) works whoever runs first. */
	setpgid(pid, pid);
	t->pid = t->pgid = pid;
	int *theirs[] = {&d->in[0], &d->out[1], &d->canon[1], &d->ctl[1], &d->errp[1], &d->sp[1]};
	for (size_t i = 0; i < sizeof theirs / sizeof theirs[0]; i++)
		if (*theirs[i] >= 0) {
			close(*theirs[i]);
			*theirs[i] = -1;
		}
	t->snap_fd = d->sp[0];
	t->in_fd = d->in[1];
	t->out_fd = d->out[0];
	t->canon.fd = d->canon[0];
	t->ctl.fd = d->ctl[0];
	if (t->in_fd >= 0)
		proc_set_nonblock(t->in_fd);
}

/* exec succeeded iff the error pipe closes empty (it is CLOEXEC); false
 * with obs filled when it did not.  Closes errp. */
static bool exec_done(struct proc_target *t, int errp, struct proc_obs *obs)
{
	int e = 0;
	ssize_t r;
	while ((r = read(errp, &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(errp);
	if (r <= 0)
		return true;
	obs->fault = PROC_FAULT_START;
	snprintf(obs->fault_msg, sizeof obs->fault_msg, "%s: cannot execute target: %s", t->sc->exe,
		 strerror(e));
	return false;
}

/* Its /proc files; false with obs filled when they do not open.  A target
 * that exits at once is gone before they open: then how it ended is
 * reported, not the open (*taken: the port another program took, if that
 * is why: one that could not bind its port ends this fast). */
static bool open_proc_files(struct proc_target *t, struct proc_obs *obs, uint16_t *taken)
{
	const struct proc_scenario *sc = t->sc;
	pid_t pid = t->pid;
	if (proc_target_open_proc(t))
		return true;
	int oerr = errno;
	double deadline = eng_now() + sc->timeout_ms / 1000.0;
	while (!proc_target_reap(t) && eng_now() < deadline) {
		struct pollfd pf = {.fd = t->out_fd, .events = POLLIN};
		proc_target_drain(t);
		poll(&pf, 1, 1);
	}
	proc_target_drain(t); /* what it wrote before it ended */
	obs->fault = PROC_FAULT_START;
	if (t->pid == 0) {
		*taken = sc->transport == PROC_TCP && proc_port_taken(t) ? t->port : 0;
		describe_end(t, obs, "during start-up");
		said(t, obs);
		proc_obs_set_end(obs, t);
		return false;
	}
	errno = oerr;
	snprintf(obs->fault_msg, sizeof obs->fault_msg,
		 "%s: cannot open /proc/%d/{mem,syscall,stat}: %s (cmc needs ptrace access "
		 "to its own children)", sc->exe, (int)pid, strerror(errno));
	return false;
}

/* Why the start-up did not end quiescent (w), in obs. */
static void describe_startup(struct proc_target *t, enum proc_wait w, struct proc_obs *obs)
{
	const struct proc_scenario *sc = t->sc;
	obs->fault = PROC_FAULT_START;
	switch (w) {
	case PROC_GONE:
		if (t->ctl.last.len >= 8 || (!t->signaled && WEXITSTATUS(t->status) > CMC_FAULT_EXIT_BASE &&
					     WEXITSTATUS(t->status) <= CMC_FAULT_EXIT_BASE + (int)CMC_FAULT_MAX))
			obs->fault = PROC_FAULT_HEAP;
		describe_end(t, obs, "during start-up");
		if (t->ctl.last.len > 8)
			snprintf(obs->fault_msg + strlen(obs->fault_msg),
				 sizeof obs->fault_msg - strlen(obs->fault_msg), ": preload: %.*s",
				 (int)(t->ctl.last.len - 8), (const char *)t->ctl.last.p + 8);
		proc_obs_set_end(obs, t);
		break;
	case PROC_TIMEOUT:
		if (sc->transport == PROC_TCP && !t->connected) {
			obs->fault = PROC_FAULT_LISTEN;
			snprintf(obs->fault_msg, sizeof obs->fault_msg,
				 "%s: target never listened on 127.0.0.1:%u within %u ms%s", sc->exe,
				 t->port, sc->timeout_ms,
				 t->foreign_inode ? " (another program listens there)" : "");
		} else
			snprintf(obs->fault_msg, sizeof obs->fault_msg,
				 "%s: target did not become quiescent (blocked reading its input) "
				 "within %u ms of starting", sc->exe, sc->timeout_ms);
		break;
	case PROC_FLOOD:
		snprintf(obs->fault_msg, sizeof obs->fault_msg,
			 "%s: target wrote more than %llu bytes during start-up (reply-cap)", sc->exe,
			 (unsigned long long)sc->reply_cap);
		break;
	case PROC_INTERRUPTED:
		snprintf(obs->fault_msg, sizeof obs->fault_msg, "interrupted");
		break;
	case PROC_BADCHAN:
		obs->fault = PROC_FAULT_PROTOCOL;
		snprintf(obs->fault_msg, sizeof obs->fault_msg,
			 "%s: malformed record on the canonical or control fd during start-up", sc->exe);
		break;
	default:
		snprintf(obs->fault_msg, sizeof obs->fault_msg, "%s: target stopped during start-up",
			 sc->exe);
		break;
	}
	if (w == PROC_GONE || w == PROC_TIMEOUT || w == PROC_STOPPED)
		said(t, obs);
}

/* Wait for start-up quiescence; for tcp, until it listens, then connect
 * and wait again.  False with obs filled (and *taken, as above) when it
 * did not get there. */
static bool wait_startup(struct proc_target *t, struct proc_obs *obs, uint16_t *taken)
{
	const struct proc_scenario *sc = t->sc;
	enum proc_wait w = proc_target_step(t, NULL, 0, sc->timeout_ms, NULL);
	*taken = w != PROC_QUIESCENT && sc->transport == PROC_TCP && !t->connected && proc_port_taken(t)
			 ? t->port : 0;
	if (w == PROC_QUIESCENT && sc->transport == PROC_TCP) {
		t->in_fd = proc_tcp_connect(t->port, &t->client_port);
		if (t->in_fd < 0) {
			obs->fault = PROC_FAULT_LISTEN;
			snprintf(obs->fault_msg, sizeof obs->fault_msg,
				 "%s: cannot connect to the target on 127.0.0.1:%u: %s", sc->exe, t->port,
				 strerror(errno));
			return false;
		}
		t->connected = true;
		w = proc_target_step(t, NULL, 0, sc->timeout_ms, NULL);
	}
	if (w != PROC_QUIESCENT) {
		describe_startup(t, w, obs);
		return false;
	}
	return true;
}

/* One attempt at starting the target (start_tcp_retry() makes more when
 * another program took the port: *taken). */
static struct proc_target *start(const struct proc_scenario *sc, const char *preload,
				 struct proc_obs *obs, double *spawn_s, bool snap, uint16_t *taken,
				 struct proc_scratch *in)
{
	double t0 = eng_now();
	struct proc_target *t = proc_target_alloc(sc);
	t->preload_on = preload && *preload;
	struct spawn_fds d;
	if (open_channels(t, &d, obs) < 0) {
		free(t);
		return NULL;
	}
	size_t nenv;
	bool det;
	char **env = build_env(sc, preload, t->port, &nenv, &det);
	char **av = build_argv(sc, det && t->port ? CMC_NET_PORT : t->port);
	open_snap_socket(t, &d, det);

	/* CMC_SHARED_CWD=1 (benchmarks: what the directory of its own costs):
	 * the target works in the scenario's cwd (or cmc's) itself. */
	const char *shared = getenv("CMC_SHARED_CWD");
	if (in)
		t->scratch = proc_scratch_ref(in); /* a restart after a crash (durable.c) */
	else if (!(shared && !strcmp(shared, "1")))
		t->scratch = proc_scratch_new(sc, obs->fault_msg, sizeof obs->fault_msg);
	if (!t->scratch && !in && !(shared && !strcmp(shared, "1"))) {
		obs->fault = PROC_FAULT_START;
		free_vec(av);
		free_vec(env);
		spawn_fds_close(&d);
		free(t);
		return NULL;
	}
	char exe[PATH_MAX];
	absolute_exe(sc, exe);
	launch(t, &d, av, env, det, exe);
	free_vec(av);
	free_vec(env);
	if (!exec_done(t, d.errp[0], obs)) {
		proc_target_kill(t);
		return NULL;
	}
	if (det)
		fix_random(t->pid);
	if (!open_proc_files(t, obs, taken) || !wait_startup(t, obs, taken)) {
		proc_target_kill(t);
		return NULL;
	}
	/* /proc/PID/mem is bound to the address space it was opened on: a
	 * target started through a wrapper (sh -c "... exec prog") has exec'd
	 * since, so open it again now that the program is the one waiting. */
	int mem = proc_open_pid(t->pid, "mem");
	if (mem >= 0) {
		close(t->mem_fd);
		t->mem_fd = mem;
	}
	if (spawn_s)
		*spawn_s += eng_now() - t0;
	return t;
}

/* A start-up that failed because another program took the target's port
 * before the target could bind it is not the target's failure: start it
 * again on another port (a few times; the last failure is reported). */
static struct proc_target *start_tcp_retry(const struct proc_scenario *sc, const char *preload,
					   struct proc_obs *obs, double *spawn_s, bool snap,
					   struct proc_scratch *in)
{
	for (int attempt = 1;; attempt++) {
		uint16_t taken = 0; /* the port another program took, or 0 */
		struct proc_target *t = start(sc, preload, obs, spawn_s, snap, &taken, in);
		if (t || !taken || attempt == 3 || proc_interrupted)
			return t;
		fprintf(stderr, "cmc: %s: another program took port %u before the target could listen "
			"there: starting it again on another port\n", sc->path, taken);
		proc_obs_reset(obs);
	}
}

struct proc_target *proc_target_start(const struct proc_scenario *sc, const char *preload,
				      struct proc_obs *obs, double *spawn_s)
{
	return start_tcp_retry(sc, preload, obs, spawn_s, false, NULL);
}

struct proc_target *proc_target_start_in(const struct proc_scenario *sc, const char *preload,
					 struct proc_scratch *in, struct proc_obs *obs, double *spawn_s)
{
	return start_tcp_retry(sc, preload, obs, spawn_s, false, in);
}

struct proc_target *proc_target_start_snap(const struct proc_scenario *sc, const char *preload,
					   struct proc_obs *obs, double *spawn_s)
{
	return start_tcp_retry(sc, preload, obs, spawn_s, true, NULL);
}

static void chan_close(struct proc_chan *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	proc_buf_free(&c->cur);
	proc_buf_free(&c->last);
	for (int i = 0; i < PROC_STICKY; i++)
		proc_buf_free(&c->sticky[i]);
}

void proc_target_kill(struct proc_target *t)
{
	if (!t)
		return;
	/* The group first (children the target forked, which keep the group
	 * alive even after the target is reaped), then the target itself in
	 * case it left the group. */
	if (t->pgid > 0)
		kill(-t->pgid, SIGKILL);
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		int st;
		while (waitpid(t->pid, &st, 0) < 0 && errno == EINTR)
			;
		proc_pid_forget(t->pid);
		t->pid = 0;
	}
	proc_jail_free(t->jail); /* whatever left the group or outlived it */
	proc_scratch_unref(t->scratch);
	proc_pages_unref(t->pages);
	int *fds[] = {&t->in_fd, &t->out_fd, &t->mem_fd, &t->sys_fd, &t->stat_fd, &t->snap_fd};
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
	chan_close(&t->canon);
	chan_close(&t->ctl);
	proc_buf_free(&t->reply);
	free(t);
}

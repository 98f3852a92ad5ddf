/*
 * fork_fds.c — the descriptors of the fork executor: the fresh channels a
 * snapshot's child is given (a pipe for stdin or a loopback connection
 * from the executor's own listener, pipes for stdout/stderr, the canonical
 * and control fds, a snapshot socket), the input presented before the
 * child exists, and cmc's fd limit, raised to fit the pool.
 *
 * Rules: every fd made here is CLOEXEC (no target inherits one by
 * accident); the child's ends go to it in one FORK message and are closed
 * in cmc right after (fork_chans_close_theirs()), cmc's ends belong to the
 * child's proc_target from then on.  Nothing here touches the pool.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fork_int.h"

void fork_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int fork_pipe(int p[2])
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
			fork_close_fd(&f->lfd);
			return -1;
		}
		f->lport = ntohs(a.sin_port);
	}
	int c = proc_tcp_connect(f->lport, cport);
	if (c < 0)
		return -1;
	int s;
	while ((s = accept4(f->lfd, NULL, NULL, SOCK_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (s < 0) {
		close(c);
		return -1;
	}
	*mine = c;
	*theirs = s;
	return 0;
}

int fork_chans_open(struct forkx *f, bool tcp, struct fork_chans *c)
{
	int in[2];
	*c = (struct fork_chans){.in_mine = -1, .in_theirs = -1, .out = {-1, -1}, .canon = {-1, -1},
				 .ctl = {-1, -1}, .sp = {-1, -1}};
	if (tcp) {
		if (tcp_pair(f, &c->in_mine, &c->in_theirs, &c->cport) < 0)
			return -1;
	} else {
		if (fork_pipe(in) < 0)
			eng_die("pipe: %s", strerror(errno));
		c->in_mine = in[1];
		c->in_theirs = in[0];
		proc_set_nonblock(c->in_mine);
	}
	if (fork_pipe(c->out) < 0 || fork_pipe(c->canon) < 0 || fork_pipe(c->ctl) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, c->sp) < 0)
		eng_die("pipe: %s", strerror(errno));
	proc_snap_passcred(c->sp[0]);
	return 0;
}

void fork_chans_close_theirs(struct fork_chans *c)
{
	fork_close_fd(&c->in_theirs);
	fork_close_fd(&c->out[1]);
	fork_close_fd(&c->canon[1]);
	fork_close_fd(&c->ctl[1]);
	fork_close_fd(&c->sp[1]);
}

void fork_chans_close_mine(struct fork_chans *c)
{
	fork_close_fd(&c->in_mine);
	fork_close_fd(&c->out[0]);
	fork_close_fd(&c->canon[0]);
	fork_close_fd(&c->ctl[0]);
	fork_close_fd(&c->sp[0]);
}

void proc_snap_passcred(int fd)
{
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
}

/* As much of op's input as the new channel takes now, before the child
 * exists: its interrupted read, restarted, then returns at once instead
 * of sleeping until cmc sends (a wake-up and a switch fewer per
 * transition).  The rest, if any, is sent by proc_target_step(). */
size_t fork_presend(int fd, bool tcp, const struct proc_op *op)
{
	if (!op || op->eof || op->timeout || !op->len)
		return 0;
	ssize_t r = tcp ? send(fd, op->bytes, op->len, MSG_DONTWAIT | MSG_NOSIGNAL)
			: write(fd, op->bytes, op->len);
	return r > 0 ? (size_t)r : 0;
}

unsigned long proc_nofile_orig;

/*
 * Make cmc's descriptor table hold `want` fds now, in one step.  The
 * kernel grows a process's table by doubling it as fds are opened, and in
 * a process of several threads each growth waits for an RCU grace period
 * (expand_files()): the pool's descriptors, opened one by one as its
 * snapshots fill, took five or six of them, 8-25 ms each, with every
 * worker stopped (perf sched: a --jobs 2 run of 333 transitions idle on
 * both cpus a third of its time).  One fd placed at the top costs that
 * wait once; a table already that large costs nothing.
 */
static void grow_fd_table(size_t want)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < 2)
		return;
	if ((rlim_t)want > rl.rlim_cur)
		want = (size_t)rl.rlim_cur;
	int fd = open("/", O_PATH | O_CLOEXEC);
	int top = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, (int)(want - 1));
	if (top >= 0)
		close(top);
	if (fd >= 0)
		close(fd);
}

/* Per snapshot: its input channel, snapshot socket, output, canonical
 * and control pipes, three /proc files (fork_snap_trim()), up to six files
 * of its jail (limits.c) and its working directory's namespace
 * (scratchns.c); and cmc's own. */
#define FDS_PER_SNAPSHOT 17
#define FDS_OWN 256

/* Raise the soft fd limit to fit the pool (targets get the original back,
 * spawn.c), or shrink the pool to the limit. */
size_t fork_fit_fds(const char *path, size_t limit)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	struct rlimit rl;
	rlim_t need = (rlim_t)limit * FDS_PER_SNAPSHOT + FDS_OWN;
	pthread_mutex_lock(&mu);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need) {
		if (!proc_nofile_orig)
			proc_nofile_orig = (unsigned long)rl.rlim_cur;
		rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < need) {
			size_t fit = rl.rlim_cur > 2 * FDS_OWN ? (size_t)(rl.rlim_cur - FDS_OWN) / FDS_PER_SNAPSHOT
							       : 64;
			if (fit < limit) {
				fprintf(stderr, "cmc: %s: the fd limit (%llu) holds %zu snapshots, not %zu\n", path,
					(unsigned long long)rl.rlim_cur, fit, limit);
				limit = fit;
			}
		}
	}
	grow_fd_table(limit * FDS_PER_SNAPSHOT + FDS_OWN);
	pthread_mutex_unlock(&mu);
	return limit;
}

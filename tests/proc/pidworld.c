/*
 * pidworld.c — a target that reaches for processes outside its run, for
 * tests/t6010-pid-world.sh.  Like share/examples/hostile: it
 * reads lines on stdin; `a` is remembered (a heap node) and answered "OK";
 * `evil`, once an `a` was seen, does what argv[1] names, then answers "OK";
 * anything else is answered "OK".
 *
 * Modes (argv[1]):
 *   forge PID   write a FORKED message naming PID on the snapshot socket
 *               (CMC_SNAP_FD), as if a fork request had made it
 *   signal      signal its (virtual) parent in every way libc offers:
 *               kill(getppid()), killpg(getppid()) (that is kill(-1)),
 *               sigqueue, tgkill, pidfd_send_signal, and its session's group
 *   ppid        answer every `evil` with "OK <getppid()>" (for a run
 *               with CMC_DETERMINISTIC=0)
 *   escape MARK leave its cgroups for the root ones, setsid, clear its
 *               death signal and double-fork a grandchild that does the same
 *               and sleeps for a long time (MARK: on its command line, for
 *               pgrep)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmc_region.h"

struct item {
	struct item *next;
	int n;
};

static void forge(pid_t victim)
{
	const char *v = getenv(CMC_ENV_SNAP_FD);
	if (!v)
		return;
	struct cmc_snap_msg m;
	memset(&m, 0, sizeof m);
	m.magic = CMC_SNAP_MAGIC;
	m.kind = CMC_SNAP_FORKED;
	m.a = victim;
	m.b = -1;
	(void)!send(atoi(v), &m, sizeof m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void signal_parent(void)
{
	pid_t pp = getppid();
	kill(pp, SIGUSR1);
	kill(pp, SIGTERM);
	killpg(pp, SIGTERM);
	sigqueue(pp, SIGUSR1, (union sigval){.sival_int = 7});
	tgkill(pp, pp, SIGUSR2);
	int fd = (int)pidfd_open(pp, 0);
	if (fd >= 0) {
		syscall(SYS_pidfd_send_signal, fd, SIGTERM, NULL, 0);
		close(fd);
	}
	kill(-getsid(0), SIGTERM);
}

/* Out of every cgroup cmc put it in: the root of each hierarchy. */
static void leave_cgroups(void)
{
	static const char *const roots[] = {
		"/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/unified/cgroup.procs",
		"/sys/fs/cgroup/pids/cgroup.procs", "/sys/fs/cgroup/memory/cgroup.procs",
		"/sys/fs/cgroup/systemd/cgroup.procs",
	};
	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
		int fd = open(roots[i], O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			(void)!write(fd, "0", 1);
			close(fd);
		}
	}
}

static void escape(void)
{
	leave_cgroups();
	setsid();
	prctl(PR_SET_PDEATHSIG, 0);
	pid_t c = fork();
	if (c != 0)
		return;
	setsid();
	if (fork() != 0)
		_exit(0);
	prctl(PR_SET_PDEATHSIG, 0);
	leave_cgroups();
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	for (int fd = 0; fd < 64; fd++)
		close(fd);
	for (int i = 0; i < 1000; i++)
		sleep(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	struct item *head = NULL;
	int n = 0;
	char line[256];
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof line, stdin)) {
		if (!strcmp(line, "a\n")) {
			struct item *it = malloc(sizeof *it);
			it->next = head;
			it->n = ++n;
			head = it;
		} else if (!strcmp(line, "evil\n") && !strcmp(mode, "ppid")) {
			printf("OK %d\n", (int)getppid());
			continue;
		} else if (!strcmp(line, "evil\n") && n > 0) {
			if (!strcmp(mode, "forge") && argc > 2)
				forge((pid_t)atoi(argv[2]));
			else if (!strcmp(mode, "signal"))
				signal_parent();
			else if (!strcmp(mode, "escape"))
				escape();
		}
		puts("OK");
	}
	return 0;
}

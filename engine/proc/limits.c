/*
 * limits.c — resource limits on targets and the cgroup jail around
 * each one (contract and rationale in limits.h).
 *
 * Cgroup layout: under the cgroup cmc itself runs in, on one hierarchy it
 * can write (the v1 `pids` controller when mounted, which both caps and
 * scopes; else cgroup v2, whose cgroup.kill scopes but which has no pids
 * controller of ours to cap with):
 *     <mount><own cgroup>/cmc-<cmc pid>/t<n>
 * The parent `cmc-<pid>` is created on first use and removed at exit; left-
 * overs of a cmc that was SIGKILLed (its pid gone) are removed the next time
 * any cmc makes its parent.  A jail's directories that cannot be removed yet
 * (a killed process still exiting) are retried at the next jail and at exit.
 * Freed jails are pooled and reused once empty, so neither a replay run nor
 * a fork run pays a cgroup mkdir/rmdir pair per target.
 *
 * Thread model: each search thread starts its own targets; the jail a thread
 * prepared is handed to its forked child through a thread-local pointer (the
 * child is a copy of exactly that thread).  The shared state (mount points,
 * pending removals) is behind one mutex.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "limits.h"
#include "util.h"

enum { V2, V1PIDS, NHIER };

/* The files of a jail's cgroup it keeps open (jfd()): a jail is reused
 * for many targets and read after every operation, and an open + close
 * of a cgroup file costs more than the read or write itself. */
enum { JF_PROCS, JF_KILL, JF_STATE, JF_PIDS_EVENTS, JF_DIR, JF_TASKS, JF_N };
static const char *const jf_name[NHIER][JF_N] = {
	[V2] = {"cgroup.procs", "cgroup.kill", "cgroup.events", NULL, ".", NULL},
	[V1PIDS] = {"cgroup.procs", NULL, "pids.current", "pids.events", NULL, "tasks"},
};

/* Invariant: dir[h][0] != 0 iff the jail has a cgroup on hierarchy h, on
 * one hierarchy at most (probe()); fd[h][k] is -1 or an open fd on
 * dir[h]/jf_name[h][k]; in[h] implies dir[h][0]: its process was put in
 * that cgroup, so what is left there when the jail is freed is its own to
 * kill (a fork child that never got in is still a member of its origin's
 * cgroup, which must not kill it). */
struct proc_jail {
	char dir[NHIER][512];
	int fd[NHIER][JF_N];
	bool in[NHIER];
	bool killed;    /* cgroup.kill was written: never reused (jail_kill()) */
	unsigned long long pids_max_events; /* pids.events "max" when made */
	uint64_t pids_max;                  /* the pids.max written (0: max) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool probed;
static char parent[NHIER][400];     /* ".../cmc-<pid>", "" when unusable */
static char **pending;              /* directories to rmdir later */
static size_t npending;
static unsigned long next_id;
static _Thread_local struct proc_jail *armed; /* for the child of this thread */
/* Jails whose processes were killed, kept for reuse: mkdir + rmdir of a
 * cgroup pair costs ~135 us, a quarter of a target's exec.  One is reused
 * only once it is empty again (a killed process may still be exiting).
 * The pool is not capped below what was ever in use at once: a fork search
 * frees jails in bursts (a level's snapshots dropped together) and takes
 * them back one by one, so a smaller cap turned every other fork child
 * into a mkdir + rmdir pair.  Jails in use plus pooled never exceed the
 * most targets alive at once (bounded by the fork pool, whose fd budget
 * counts their files), except past POOL_CAP, a guard. */
#define POOL_CAP 8192
static struct proc_jail **pool;
static size_t npool, pool_size;

/* ---- small file helpers (the child uses only put_str) ------------------ */

static int put_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = strlen(s);
	ssize_t w = write(fd, s, n);
	int e = errno;
	close(fd);
	errno = e;
	return w == (ssize_t)n ? 0 : -1;
}

static int put_path(const char *dir, const char *file, const char *s)
{
	char p[600];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	return put_str(p, s);
}

/* ---- a jail's files, kept open ------------------------------------------ */

static struct proc_jail *jail_alloc(void)
{
	struct proc_jail *j = eng_xcalloc(1, sizeof *j);
	for (int h = 0; h < NHIER; h++)
		for (int k = 0; k < JF_N; k++)
			j->fd[h][k] = -1;
	return j;
}

static int jfd(struct proc_jail *j, int h, int k)
{
	if (j->fd[h][k] < 0 && j->dir[h][0] && jf_name[h][k]) {
		char p[600];
		snprintf(p, sizeof p, "%s/%s", j->dir[h], jf_name[h][k]);
		j->fd[h][k] = open(p, (k == JF_PROCS ? O_RDWR : k == JF_KILL || k == JF_TASKS ? O_WRONLY
						 : k == JF_DIR ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
	}
	return j->fd[h][k];
}

static int jput(struct proc_jail *j, int h, int k, const char *s)
{
	int fd = jfd(j, h, k);
	size_t n = strlen(s);
	return fd >= 0 && write(fd, s, n) == (ssize_t)n ? 0 : -1;
}

/* The start of a jail file (pread from 0 asks the kernel anew). */
static bool jget(struct proc_jail *j, int h, int k, char *buf, size_t n)
{
	int fd = jfd(j, h, k);
	ssize_t r = fd >= 0 ? pread(fd, buf, n - 1, 0) : -1;
	if (r < 0)
		return false;
	buf[r] = 0;
	return true;
}

static void jail_close_h(struct proc_jail *j, int h)
{
	for (int k = 0; k < JF_N; k++)
		if (j->fd[h][k] >= 0) {
			close(j->fd[h][k]);
			j->fd[h][k] = -1;
		}
}

static void jail_close(struct proc_jail *j)
{
	for (int h = 0; h < NHIER; h++)
		jail_close_h(j, h);
}

/* ---- finding the hierarchies ------------------------------------------- */

/* This process's cgroup path on the hierarchy whose /proc/self/cgroup
 * line starts with `prefix` ("0::" for v2, or a v1 line naming pids). */
static bool own_cgroup(bool v2, char *out, size_t n)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return false;
	char line[1024];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = 0; /* line: the hierarchy id */
		const char *ctrls = c1 + 1;
		bool hit = v2 ? (!strcmp(line, "0") && !*ctrls) : false;
		if (!v2) {
			/* a comma-separated list that contains "pids" */
			char tmp[256];
			snprintf(tmp, sizeof tmp, ",%s,", ctrls);
			hit = strstr(tmp, ",pids,") != NULL;
		}
		if (hit) {
			snprintf(out, n, "%s", strcmp(c2 + 1, "/") ? c2 + 1 : "");
			found = true;
		}
	}
	fclose(f);
	return found;
}

static bool mount_of(bool v2, char *out, size_t n)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	if (!f)
		return false;
	char dev[256], dir[400], type[64], opts[512];
	bool found = false;
	while (!found && fscanf(f, "%255s %399s %63s %511s %*d %*d", dev, dir, type, opts) == 4) {
		if (v2 && !strcmp(type, "cgroup2"))
			found = true;
		else if (!v2 && !strcmp(type, "cgroup")) {
			char tmp[520];
			snprintf(tmp, sizeof tmp, ",%s,", opts);
			found = strstr(tmp, ",pids,") != NULL;
		}
		if (found)
			snprintf(out, n, "%s", dir);
	}
	fclose(f);
	return found;
}

/* Remove cmc-<pid> directories (and their t<n> children) whose cmc is gone. */
static void sweep_stale(const char *base)
{
	DIR *d = opendir(base);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		int pid;
		char end;
		if (sscanf(e->d_name, "cmc-%d%c", &pid, &end) != 1 || pid <= 0)
			continue;
		if (kill(pid, 0) == 0 || errno == EPERM)
			continue;
		char p[1100];
		if (snprintf(p, sizeof p, "%s/%s", base, e->d_name) >= (int)sizeof p)
			continue;
		DIR *sd = opendir(p);
		if (sd) {
			struct dirent *se;
			while ((se = readdir(sd))) {
				if (se->d_name[0] != 't')
					continue;
				char sp[1400];
				if (snprintf(sp, sizeof sp, "%s/%s", p, se->d_name) >= (int)sizeof sp)
					continue;
				if (rmdir(sp) < 0) {
					put_path(sp, "cgroup.kill", "1");
				}
			}
			closedir(sd);
		}
		rmdir(p);
	}
	closedir(d);
}

static void remove_all(void);

static void probe(void)
{
	probed = true;
	const char *no = getenv("CMC_NO_CGROUP");
	if (geteuid() != 0 || (no && *no))
		return;
	/* One hierarchy per jail: the v1 pids controller where it is mounted
	 * (it caps and scopes alike), else v2.  Both cost a jail twice over
	 * (measured, tests/bench/process.sh on a hybrid machine: 0.95-1.04 s
	 * for the list at depth 9 with either one, 1.18-1.23 s with both):
	 * two memberships per child, two emptiness reads per reuse, two kill
	 * scopes per free, for one cap and one scope. */
	const char *want = getenv("CMC_CGROUP"); /* "v2": v2 first (containment on v2 alone) */
	bool v2_first = want && !strcmp(want, "v2");
	for (int k = 0; k < NHIER; k++) {
		int h = (k == 0) != v2_first ? V1PIDS : V2;
		char mnt[400], own[400], base[800];
		if (!mount_of(h == V2, mnt, sizeof mnt) || !own_cgroup(h == V2, own, sizeof own))
			continue;
		snprintf(base, sizeof base, "%s%s", mnt, own);
		sweep_stale(base); /* (a killed cmc's, whichever it used) */
		if (parent[h == V2 ? V1PIDS : V2][0])
			continue;
		char dir[sizeof parent[0]];
		if (snprintf(dir, sizeof dir, "%s/cmc-%d", base, (int)getpid()) >= (int)sizeof dir)
			continue;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			continue;
		if (h == V2) {
			/* cgroup.kill (Linux 5.14) is what makes v2 worth it.  Asked
			 * of our own directory: the root cgroup, where cmc runs on
			 * a hybrid system, never has the file. */
			char k[900];
			snprintf(k, sizeof k, "%s/cgroup.kill", dir);
			if (access(k, F_OK) != 0) {
				rmdir(dir);
				continue;
			}
		}
		snprintf(parent[h], sizeof parent[h], "%s", dir);
	}
	if (parent[V2][0] || parent[V1PIDS][0])
		atexit(remove_all);
}

/* ---- the jail ---------------------------------------------------------- */

/* v1: kill the pids listed in an open cgroup.procs until a pass finds
 * nobody (a fork racing the kill is caught by the next pass; pids.max
 * bounds how many there can be). */
static void kill_listed(int fd)
{
	int self = (int)getpid();
	for (int pass = 0; pass < 1000; pass++) {
		char buf[4096];
		int n = 0;
		off_t off = 0;
		ssize_t r;
		size_t keep = 0;
		while ((r = pread(fd, buf + keep, sizeof buf - 1 - keep, off)) > 0) {
			off += r;
			size_t len = keep + (size_t)r;
			buf[len] = 0;
			char *p = buf, *nl;
			while ((nl = strchr(p, '\n'))) {
				int pid = atoi(p);
				/* (a root target can write any pid it sees to its
				 * cgroup.procs: never cmc's own) */
				if (pid > 0 && pid != self && kill(pid, SIGKILL) == 0)
					n++;
				p = nl + 1;
			}
			keep = len - (size_t)(p - buf); /* a pid cut at the buffer's end */
			memmove(buf, p, keep);
		}
		if (!n)
			return;
	}
}

static void kill_members(const char *dir, bool v2)
{
	if (v2 && put_path(dir, "cgroup.kill", "1") == 0)
		return;
	char p[600];
	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		kill_listed(fd);
		close(fd);
	}
}

/* kill_members() for a jail, through its open files. */
static void jail_kill(struct proc_jail *j, int h)
{
	int fd = jfd(j, h, JF_PROCS);
	if (h == V2) {
		/* Ask first.  Writing cgroup.kill marks the cgroup for good
		 * (Linux 6.x: its kill sequence moves on), and a child later
		 * started in it, or from it, with CLONE_INTO_CGROUP is killed
		 * at birth (measured: every one); so only a jail with someone
		 * left in it is killed that way, and it is not reused. */
		char c;
		if (fd >= 0 && pread(fd, &c, 1, 0) == 0)
			return;
		j->killed = true;
		if (jput(j, h, JF_KILL, "1") == 0)
			return;
	}
	if (fd >= 0)
		kill_listed(fd);
	else
		kill_members(j->dir[h], h == V2);
}

#define EXIT_WAIT_S 0.2

/* Wait until every process in the cgroup at `dir` has exited or the
 * deadline passes.  False when there was nobody to wait for (or pidfds
 * are not available): waiting more cannot help then. */
static bool wait_members(const char *dir, double deadline)
{
	char p[600];
	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	FILE *f = fopen(p, "re");
	if (!f)
		return true;
	struct pollfd fds[64];
	int n = 0, pid;
	bool usable = true;
	while (n < 64 && fscanf(f, "%d", &pid) == 1) {
		int fd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (fd >= 0)
			fds[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
		else if (errno == ENOSYS)
			usable = false;
	}
	fclose(f);
	for (int left = n; left > 0;) {
		int ms = (int)((deadline - eng_now()) * 1000) + 1;
		if (ms <= 0 || poll(fds, (nfds_t)n, ms) <= 0)
			break;
		for (int i = 0; i < n; i++)
			if (fds[i].fd >= 0 && fds[i].revents) {
				close(fds[i].fd);
				fds[i].fd = -1; /* poll ignores negative fds */
				left--;
			}
	}
	for (int i = 0; i < n; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	return usable && n > 0;
}

/* rmdir now, or queue it (called with lock held). */
static void remove_dir(const char *dir)
{
	if (rmdir(dir) == 0 || errno == ENOENT)
		return;
	pending = eng_xrealloc(pending, (npending + 1) * sizeof *pending);
	pending[npending++] = eng_xstrdup(dir);
}

static void retry_pending(void)
{
	size_t k = 0;
	for (size_t i = 0; i < npending; i++) {
		if (rmdir(pending[i]) == 0 || errno == ENOENT)
			free(pending[i]);
		else
			pending[k++] = pending[i];
	}
	npending = k;
}

static void remove_all(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < npool; i++) {
		for (int h = 0; h < NHIER; h++)
			if (pool[i]->dir[h][0])
				jail_kill(pool[i], h);
		jail_close(pool[i]);
		for (int h = 0; h < NHIER; h++)
			if (pool[i]->dir[h][0])
				remove_dir(pool[i]->dir[h]);
		free(pool[i]);
	}
	free(pool);
	pool = NULL;
	npool = pool_size = 0;
	retry_pending();
	/* Still busy: a process killed a moment ago has not finished exiting.
	 * Wait for exactly that — each member's pidfd turns readable when it
	 * has exited, and so has left its cgroup — bounded in case one is
	 * stuck in the kernel; what remains is left for the next sweep. */
	double deadline = eng_now() + EXIT_WAIT_S;
	while (npending && eng_now() < deadline) {
		for (size_t j = 0; j < npending; j++) {
			bool v2 = parent[V2][0] && !strncmp(pending[j], parent[V2], strlen(parent[V2]));
			kill_members(pending[j], v2);
			if (!wait_members(pending[j], deadline))
				deadline = 0; /* nothing to wait on: do not spin */
		}
		retry_pending();
	}
	for (int h = 0; h < NHIER; h++)
		if (parent[h][0])
			rmdir(parent[h]);
	pthread_mutex_unlock(&lock);
}

/* Empty on every hierarchy it has (v2: cgroup.events populated 0; v1:
 * pids.current 0)? */
static bool jail_empty(struct proc_jail *j)
{
	char buf[256];
	if (j->dir[V2][0] && (!jget(j, V2, JF_STATE, buf, sizeof buf) || !strstr(buf, "populated 0")))
		return false;
	if (j->dir[V1PIDS][0] &&
	    (!jget(j, V1PIDS, JF_STATE, buf, sizeof buf) || strtoull(buf, NULL, 10) != 0))
		return false;
	return true;
}

/* pids.max as sc asks, written only when it changes. */
static void set_pids_max(struct proc_jail *j, const struct proc_scenario *sc, bool fresh)
{
	if (!j->dir[V1PIDS][0] || (!fresh && j->pids_max == sc->limit_procs))
		return;
	char v[32];
	if (sc->limit_procs)
		snprintf(v, sizeof v, "%llu", (unsigned long long)sc->limit_procs);
	else
		snprintf(v, sizeof v, "max");
	if (put_path(j->dir[V1PIDS], "pids.max", v) == 0)
		j->pids_max = sc->limit_procs;
}

/* A pooled jail that is empty, reset for sc; NULL when none.  Each
 * candidate is taken out of the pool under the lock and looked at outside
 * it: the cgroup reads can wait on the kernel's own locks, and a worker
 * that waited holding ours stalled every other.  The newest first (its
 * process was reaped before it was freed); one not empty yet goes back
 * last in line. */
static struct proc_jail *reuse(const struct proc_scenario *sc)
{
	for (int tries = 0; tries < 8; tries++) {
		pthread_mutex_lock(&lock);
		struct proc_jail *j = npool ? pool[--npool] : NULL;
		pthread_mutex_unlock(&lock);
		if (!j)
			return NULL;
		if (!jail_empty(j)) {
			pthread_mutex_lock(&lock);
			if (npool == pool_size) { /* another thread took its room */
				pool_size *= 2;
				pool = eng_xrealloc(pool, pool_size * sizeof *pool);
			}
			memmove(pool + 1, pool, npool * sizeof *pool);
			pool[0] = j;
			npool++;
			pthread_mutex_unlock(&lock);
			continue;
		}
		char buf[128];
		unsigned long long n = 0;
		set_pids_max(j, sc, false);
		if (j->dir[V1PIDS][0] && sc->limit_procs && jget(j, V1PIDS, JF_PIDS_EVENTS, buf, sizeof buf))
			sscanf(buf, "max %llu", &n);
		j->pids_max_events = n;
		return j;
	}
	return NULL;
}

struct proc_jail *proc_jail_new(const struct proc_scenario *sc)
{
	armed = NULL;
	pthread_mutex_lock(&lock);
	if (!probed)
		probe();
	retry_pending();
	bool usable = parent[V2][0] || parent[V1PIDS][0]; /* set once, by probe() */
	pthread_mutex_unlock(&lock);
	if (!usable)
		return NULL;
	struct proc_jail *j = reuse(sc);
	if (j)
		goto arm;
	pthread_mutex_lock(&lock);
	unsigned long id = next_id++;
	pthread_mutex_unlock(&lock);
	j = jail_alloc();
	for (int h = 0; h < NHIER; h++) {
		if (!parent[h][0])
			continue;
		if (snprintf(j->dir[h], sizeof j->dir[h], "%.*s/t%lu", 400, parent[h], id) >= (int)sizeof j->dir[h] ||
		    mkdir(j->dir[h], 0755) < 0) {
			j->dir[h][0] = 0;
			continue;
		}
		/* the child enters through this fd, between fork and exec
		 * (v1: through `tasks`, proc_limits_child()) */
		jfd(j, h, JF_PROCS);
		jfd(j, h, JF_TASKS);
	}
	if (sc->limit_procs)
		set_pids_max(j, sc, true);
	if (!j->dir[V2][0] && !j->dir[V1PIDS][0]) {
		free(j);
		return NULL;
	}
arm:
	for (int h = 0; h < NHIER; h++)
		j->in[h] = j->dir[h][0] != 0; /* the armed child enters them all */
	armed = j;
	return j;
}

struct proc_jail *proc_jail_ready(const struct proc_scenario *sc, int *cgroup, int *tasks)
{
	struct proc_jail *j = proc_jail_new(sc);
	armed = NULL;
	*cgroup = *tasks = -1;
	if (!j)
		return NULL;
	for (int h = 0; h < NHIER; h++)
		j->in[h] = false;
	if (j->dir[V2][0]) {
		*cgroup = jfd(j, V2, JF_DIR);
		/* a child may be started there even when its FORKED reply is
		 * lost: the jail is then looked into when it is freed */
		j->in[V2] = *cgroup >= 0;
	}
	/* v1: the child moves itself in (cheaper, preload/snap.c), where it
	 * must be in (proc_jail_enter()) */
	if (j->dir[V1PIDS][0]) {
		*tasks = jfd(j, V1PIDS, JF_TASKS);
		j->in[V1PIDS] = *tasks >= 0; /* (as for v2 above) */
	}
	return j;
}

void proc_jail_enter(struct proc_jail *j, pid_t pid, bool born_v2, bool moved_v1)
{
	if (!j)
		return;
	char s[24];
	snprintf(s, sizeof s, "%d\n", (int)pid);
	for (int h = 0; h < NHIER; h++) {
		if (!j->dir[h][0])
			continue;
		if ((h == V2 && born_v2) || (h == V1PIDS && moved_v1)) {
			j->in[h] = true;
			continue;
		}
		if (jput(j, h, JF_PROCS, s) == 0) {
			j->in[h] = true;
			continue;
		}
		jail_close_h(j, h);
		rmdir(j->dir[h]);
		j->dir[h][0] = 0;
	}
}

int proc_limits_child(const struct proc_scenario *sc)
{
	struct rlimit r;
	uint64_t as = sc->limit_as;
	if (as) {
		r.rlim_cur = r.rlim_max = as;
		if (setrlimit(RLIMIT_AS, &r) < 0)
			return -1;
	}
	if (sc->limit_fsize) {
		r.rlim_cur = r.rlim_max = sc->limit_fsize;
		if (setrlimit(RLIMIT_FSIZE, &r) < 0)
			return -1;
	}
	if (sc->limit_cpu) {
		/* SIGXCPU at the soft limit, SIGKILL a second later */
		r.rlim_cur = sc->limit_cpu;
		r.rlim_max = sc->limit_cpu + 1;
		if (setrlimit(RLIMIT_CPU, &r) < 0)
			return -1;
	}
	struct proc_jail *j = armed;
	if (!j)
		return 0;
	char pid[24];
	snprintf(pid, sizeof pid, "%d\n", (int)getpid());
	/* Best effort: the parent made the directories, so as root this
	 * works; a refusal (a user namespace) must not keep the target from
	 * starting — it then runs with the process group as its only scope. */
	/* v1: the child is one thread until it execs, and a thread that
	 * moves itself ("0" to `tasks`) is spared the lock over every thread
	 * group on the machine that a write to cgroup.procs takes: that lock
	 * waits for an RCU grace period (measured: 11-25 ms per target
	 * started, the target idle meanwhile, against microseconds). */
	for (int h = 0; h < NHIER; h++) /* through the fds proc_jail_new() opened */
		if (j->dir[h][0] &&
		    !(j->fd[h][JF_TASKS] >= 0 && write(j->fd[h][JF_TASKS], "0", 1) == 1) &&
		    (j->fd[h][JF_PROCS] < 0 || write(j->fd[h][JF_PROCS], pid, strlen(pid)) < 0))
			put_path(j->dir[h], "cgroup.procs", pid);
	return 0;
}

void proc_jail_free(struct proc_jail *j)
{
	if (!j)
		return;
	if (armed == j)
		armed = NULL;
	for (int h = 0; h < NHIER; h++)
		if (j->in[h])
			jail_kill(j, h);
	pthread_mutex_lock(&lock);
	if (!j->killed && npool == pool_size && pool_size < POOL_CAP) {
		pool_size = pool_size ? 2 * pool_size : 64;
		pool = eng_xrealloc(pool, pool_size * sizeof *pool);
	}
	if (!j->killed && npool < pool_size) {
		pool[npool++] = j;
		pthread_mutex_unlock(&lock);
		return;
	}
	jail_close(j);
	for (int h = 0; h < NHIER; h++)
		if (j->dir[h][0])
			remove_dir(j->dir[h]);
	pthread_mutex_unlock(&lock);
	free(j);
}

void proc_jail_observe(struct proc_jail *j, const struct proc_scenario *sc, struct proc_obs *obs)
{
	/* Without `limit procs` pids.max is "max": no fork is refused here */
	if (!j || !j->dir[V1PIDS][0] || !sc->limit_procs || obs->fault != PROC_FAULT_NONE)
		return;
	char buf[128];
	unsigned long long n;
	if (!jget(j, V1PIDS, JF_PIDS_EVENTS, buf, sizeof buf) || sscanf(buf, "max %llu", &n) != 1)
		return;
	if (n > j->pids_max_events) {
		j->pids_max_events = n;
		obs->fault = PROC_FAULT_LIMIT;
		snprintf(obs->fault_msg, sizeof obs->fault_msg,
			 "the target tried to run more than %llu processes at once (limit procs; "
			 "%llu fork%s refused)", (unsigned long long)sc->limit_procs, n, n == 1 ? "" : "s");
	}
}

bool proc_limits_signal(int sig, const struct proc_scenario *sc, const char *after, char *msg,
			size_t msglen)
{
	if (sig == SIGXCPU && sc->limit_cpu)
		snprintf(msg, msglen, "target used more than %llu s of CPU time (limit cpu) after %s",
			 (unsigned long long)sc->limit_cpu, after);
	else if (sig == SIGXFSZ && sc->limit_fsize)
		snprintf(msg, msglen, "target wrote a file beyond %llu bytes (limit fsize) after %s",
			 (unsigned long long)sc->limit_fsize, after);
	else
		return false;
	return true;
}

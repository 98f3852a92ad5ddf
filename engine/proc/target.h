/*
 * target.h — one live target process and what cmc holds of it: its
 * pipes, its connection, the decoders for the canonical and control
 * channels, and the bounded capture of its output.  Private to engine/proc/.
 *
 *   spawn.c    start it (environment, fds, ASLR off) and reach start-up
 *              quiescence (for tcp: listening, then connected);
 *   quiesce.c  send an operation, drain output, decide "done" exactly;
 *   observe.c  read the heap region/segments/symbols and build a proc_obs;
 *   elf.c      the executable's writable segments and symbols.
 *
 * Ownership: proc_target_kill() kills the whole process group, reaps the
 * target and closes every fd; it is safe on a target that already exited.
 */
#ifndef CMC_PROC_TARGET_H
#define CMC_PROC_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

#include "exec.h"
#include "scenario.h"

/* fd numbers inside the target besides 0, 1, 2 and the canonical fd. */
#define PROC_CTL_FD 4

/* A raw range to hash: [addr, addr + len) in the target. */
struct proc_range {
	uint64_t addr, len;
	const char *what;       /* "segment", symbol name; for messages */
};

/*
 * Everything cmc reads about the executable before running it: the writable
 * PT_LOAD segments and the named symbols, as offsets from the load base
 * (ET_DYN) or absolute (ET_EXEC).  Parsed once per run.
 */
struct proc_image {
	bool pie;               /* ET_DYN: add the load base */
	uint64_t first_vaddr;   /* lowest PT_LOAD p_vaddr, page aligned down */
	struct proc_range *ranges;
	size_t nranges;
	/* The heap-graph walk's roots (heapgraph.h): every writable PT_LOAD
	 * segment, whatever `raw` covers; none when the executable is not a
	 * readable ELF64 file. */
	struct proc_range *roots;
	size_t nroots;
};

int proc_elf_load(const struct proc_scenario *sc, struct proc_image *img, char *err, size_t errlen);
void proc_image_free(struct proc_image *img);

/* Record kinds of a channel kept apart from the rest (proc_chan.sticky). */
#define PROC_STICKY 2
#define PROC_STICKY_LIMIT 0  /* the control channel's CMC_CTL_LIMIT */
#define PROC_STICKY_SIGNAL 1 /* ... and CMC_CTL_SIGNAL */

/* Incremental decoder of one record channel (canonical or control). */
struct proc_chan {
	int fd;                 /* cmc's read end, non-blocking; -1 when closed */
	uint32_t magic, max;
	uint8_t hdr[8];
	size_t hdr_got;
	struct proc_buf cur;    /* record in progress (payload) */
	uint32_t want;          /* payload length of the record in progress */
	struct proc_buf last;   /* last complete payload */
	uint64_t complete;      /* complete records seen */
	bool bad;               /* malformed: a protocol fault */
	/* Records whose first LE32 is sticky_kind[i] (non-zero; the control
	 * channel's CMC_CTL_LIMIT and CMC_CTL_SIGNAL) are also kept, the
	 * first of each kind in an operation, in sticky[i], so a later record
	 * cannot hide them; sticky_seen[i] stays set until the owner clears
	 * it (at each operation). */
	uint32_t sticky_kind[PROC_STICKY];
	struct proc_buf sticky[PROC_STICKY];
	bool sticky_seen[PROC_STICKY];
};

/*
 * Invariants: pid > 0 until reaped (then exited || signaled is set);
 * reply.len <= reply_cap (more sets flood); in_fd is cmc's end of the input
 * channel (pipe write end for stdin, connected socket for tcp).
 */
struct proc_target {
	pid_t pid;              /* 0 once reaped */
	pid_t pgid;             /* the target's own process group */
	int in_fd, out_fd, mem_fd, sys_fd, stat_fd;
	struct proc_chan canon, ctl;
	struct proc_buf reply;
	uint64_t reply_cap;
	bool flood;
	bool exited, signaled;
	int status;             /* waitpid status once reaped */
	uint16_t port, client_port; /* tcp: the target's port and ours */
	uint32_t foreign_inode; /* tcp: non-zero once another program was seen listening
				   on port: its socket's inode (quiesce.c) */
	uint64_t load_base;     /* for PIE ranges */
	bool base_known;
	bool connected;         /* tcp: cmc has connected (in_fd may close later) */
	bool input_closed;      /* an eof operation closed the input: stdin's pipe
	                           (in_fd -1), or tcp's sending side (shutdown) */
	bool peer_closed;       /* tcp: the target closed the connection (cmc's
	                           end read its end of file, or a reset) */
	bool eof_unseen;        /* ... and the target has not run since: it cannot
	                           have seen the end yet (quiesce.c) */
	uint64_t eof_switches;  /* its context switches when the input closed */
	bool preload_on;        /* the preload was put in LD_PRELOAD */
	enum proc_transport transport;
	const struct proc_scenario *sc;
	int snap_fd;            /* cmc's end of the snapshot socket (either executor;
				   only the fork executor sends on it), or -1 */
	unsigned snap_readies;  /* READYs read from it: one per image that loaded the
				   preload and found the socket (snapmsg.h) */
	int32_t snap_ready_pid; /* the last one's pid */
	char snap_fault[64];    /* the first message there that broke the protocol,
				   reported by proc_observe(); "": none */
	uint16_t config_port;   /* the real port the CONFIG on its socket says
				   (cmc_region.h section 5), or 0: none sent */
	size_t present;         /* bytes of the next operation already in the input
	                           channel (written before the child existed):
	                           proc_target_step() sends only the rest */
	struct proc_jail *jail; /* limits.h; NULL: no cgroup of its own (owned) */
	struct proc_scratch *scratch; /* its working directory's own layer, shared with
	                           its snapshots (scratch.h); NULL: none */
	struct proc_pages *pages; /* a reference (pages.h): the heap window's page
				   hashes when this process was last observed
				   (pages_own), or, until its first observation,
				   those of the snapshot it was forked from; NULL:
				   none (a fresh process, a new image) */
	bool pages_own;
	bool pages_cache;       /* keep `pages` (with the kept raw copy's bytes) for
				   snapshots forked from it: the fork executor's */
};

/*
 * Start the target and wait until it is quiescent at start-up (for tcp:
 * listening, connected, and quiescent again).  Returns the target; on a
 * start-up failure returns NULL and fills obs->fault/fault_msg (and its
 * exit status or signal) — the target is then already reaped.
 */
struct proc_target *proc_target_start(const struct proc_scenario *sc, const char *preload,
				      struct proc_obs *obs, double *spawn_s);
void proc_target_kill(struct proc_target *t);
/* tcp, not yet connected: does another program listen on the target's
 * port (sets foreign_inode)?  Asked when the start-up failed: a target
 * that could not bind may have ended before any look saw the other one. */
bool proc_port_taken(struct proc_target *t);
/* The same in the working directory `in` (a reference is taken), not a
 * fresh copy: a target started again after a crash (durable.c). */
struct proc_scratch;
struct proc_target *proc_target_start_in(const struct proc_scenario *sc, const char *preload,
					 struct proc_scratch *in, struct proc_obs *obs, double *spawn_s);
/* The same, with the preload's snapshot server enabled (CMC_SNAP_FD): cmc's
 * end of the snapshot socket is t->snap_fd (fork_request.c). */
struct proc_target *proc_target_start_snap(const struct proc_scenario *sc, const char *preload,
					   struct proc_obs *obs, double *spawn_s);

enum proc_wait {
	PROC_QUIESCENT,
	PROC_GONE,              /* exited or killed by a signal (reaped) */
	PROC_TIMEOUT,
	PROC_FLOOD,
	PROC_BADCHAN,           /* malformed record on canonical/control fd */
	PROC_STOPPED,
	PROC_INTERRUPTED,       /* proc_interrupt() was called: cmc is ending */
};

/* cmc's RLIMIT_NOFILE soft limit before the fork executor raised it for
 * its snapshots' fds (0: not raised); targets start with this one, as they
 * would under the replay executor. */
extern unsigned long proc_nofile_orig;

/* Set by proc_interrupt() (proc.h); every wait returns PROC_INTERRUPTED. */
extern volatile sig_atomic_t proc_interrupted;

/* Send bytes (may be 0 for start-up) and wait for quiescence.  The reply
 * buffer is reset first. */
enum proc_wait proc_target_step(struct proc_target *t, const uint8_t *bytes, size_t len,
				unsigned timeout_ms, double *elapsed_s);

/* Little-endian fields of the records targets write (cmc_region.h). */
static inline uint32_t proc_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t proc_le64(const uint8_t *p)
{
	return proc_le32(p) | (uint64_t)proc_le32(p + 4) << 32;
}

/*
 * pids.c: the pids cmc owns and the run's PID namespace.
 *   proc_pid_own       a child cmc made itself (its fork() returned pid)
 *   proc_pid_adopt     a child the kernel says a snapshot made: true, and
 *                      owned from now on, only if pid is a child of cmc,
 *                      not reaped, and not owned yet (fork_request.c)
 *   proc_pid_forget    reaped: the pid is no longer cmc's
 *   proc_pids_enter    before a fork that starts a target: this thread's
 *                      children go into the run's PID namespace (made on
 *                      first use; without one, says once why on stderr);
 *   proc_pids_leave    ... and after it, with what enter returned
 *   proc_pids_lost     NULL when targets are contained by a namespace, else
 *                      why not ("not root"); NULL before the first target
 *   proc_pids_close    the run is over: kill the namespace (everything a
 *                      target left behind) and reap its init
 * Only owned pids are ever signalled or reaped, each by its own pid: an
 * owned pid names the same process until it is forgotten.
 */
void proc_pid_own(pid_t pid);
bool proc_pid_adopt(pid_t pid);
void proc_pid_forget(pid_t pid);
bool proc_pids_enter(void);
void proc_pids_leave(bool entered);
const char *proc_pids_lost(void);
void proc_pids_close(void);

/* sigwall.c: in a target's child before exec, where it shares cmc's pid
 * numbers (no PID namespace): a seccomp filter that stops every call that
 * would signal cmc (pid cmc, its group cmc_pgrp).  0, or -1 with errno
 * where the kernel refused (the target then runs unfiltered).
 * Async-signal-safe. */
int proc_sigwall_child(pid_t cmc, pid_t cmc_pgrp);

/* Ask the kernel to attach the sender's pid (SCM_CREDENTIALS, in cmc's
 * namespace) to every message on cmc's end of a snapshot socket; set before
 * the target can send (fork_request.c reads it). */
void proc_snap_passcred(int fd);

/* Apply one scenario operation: send its bytes, or for an eof operation
 * close the input (end of file on stdin, the sending side of the tcp
 * connection), or for a timeout operation end the timed wait the target
 * sleeps in (none: nothing happens), then wait as proc_target_step does. */
enum proc_wait proc_target_op(struct proc_target *t, const struct proc_op *op, unsigned timeout_ms,
			      double *elapsed_s);

/* Drain whatever the target wrote, without waiting.  Returns false when a
 * channel is malformed or the reply overflowed. */
bool proc_target_drain(struct proc_target *t);

/* Reap without waiting; true when the target is gone. */
bool proc_target_reap(struct proc_target *t);

/* open("/proc/PID/what", O_RDONLY | O_CLOEXEC). */
int proc_open_pid(pid_t pid, const char *what);

/* The set-up every target shares, whichever way it was started (spawn.c,
 * or a snapshot's child, fork_request.c): a zeroed target of scenario sc,
 * every fd -1, its canonical and control decoders ready for their fds. */
struct proc_target *proc_target_alloc(const struct proc_scenario *sc);

/* How the ended target t ended, in obs: exited with its status, or
 * killed by its signal (observe.c). */
void proc_obs_set_end(struct proc_obs *obs, const struct proc_target *t);

/* Open the target's /proc/PID/{mem,syscall,stat}; false when one did not
 * open (errno says why; the others stay open, proc_target_kill closes them). */
bool proc_target_open_proc(struct proc_target *t);

/* A TCP connection to 127.0.0.1:port, TCP_NODELAY and non-blocking: the
 * socket, or -1 (errno); *client_port is its own port. */
int proc_tcp_connect(uint16_t port, uint16_t *client_port);

/* O_NONBLOCK on cmc's end of a fresh pipe or socket.  Fresh means no
 * status flag is set yet (F_SETFL changes only O_APPEND, O_ASYNC,
 * O_DIRECT, O_NOATIME and O_NONBLOCK), so there is no F_GETFL first: one
 * system call per fd, several per transition in fork mode. */
void proc_set_nonblock(int fd);

/* Wait up to timeout_ms for a parked target, interrupted by a fork
 * request, to be asleep in a waiting call again; false when it ended or
 * did not settle (quiesce.c says why this matters). */
bool proc_target_settles(struct proc_target *t, unsigned timeout_ms);

/* Read the target's region header (at the scenario's heap base) and check
 * its invariants: NULL when usable, else why not ("not mapped", ...). */
struct cmc_region_hdr;
const char *proc_region_hdr(const struct proc_target *t, struct cmc_region_hdr *h);

/* Observations of quiescent targets so far, and the time spent reading and
 * hashing their raw windows, segments and symbols (the heap-graph walk's
 * own time left out: heapgraph.h), for CMC_PROC_STATS. */
void proc_observe_stats(uint64_t *n, uint64_t *ns);
/* Threads of process pid (its /proc/PID/task entries), or -1. */
int proc_threads(pid_t pid);
/* The first of kinds (names of anonymous inodes: "timerfd", "eventfd")
 * that process pid holds a descriptor of, its number in fd; NULL: none. */
const char *proc_anon_fd(pid_t pid, const char *const *kinds, size_t n, char fd[16]);
/* A timer of process pid that runs on real time, which cmc's virtual
 * clock does not drive: "a timerfd", "a POSIX timer" (timer_create), or
 * NULL when it holds none. */
const char *proc_real_timer(pid_t pid);

/* Fill obs from the live (quiescent or gone) target after a wait result. */
void proc_observe(struct proc_target *t, const struct proc_image *img, enum proc_wait w,
		  struct proc_obs *obs);

/* The scenario's declared state files (state-file, state-dir), read from
 * the target's working directory: obs->e.files, their fingerprint, and
 * obs->files, their summary (files.c).  Nothing when none are declared;
 * more than state-cap is a `limit` fault. */
void proc_files_observe(const struct proc_target *t, struct proc_obs *obs);

/* A signal this target (or a process of its own) sent cmc during the
 * operation just observed becomes obs's fault (`signal`), unless it has
 * one already; it is consumed either way (sigsrc.c). */
void proc_signal_take(const struct proc_target *t, struct proc_obs *obs);

/* Record decoder: feed bytes read from the channel. */
void proc_chan_feed(struct proc_chan *c, const uint8_t *p, size_t n);

#endif

/*
 * cmc_region.h — the contract between the preload (libcmc-preload.so, inside
 * the target) and the process executor (engine/proc*.c, in cmc).
 *
 * It owns four things and nothing else:
 *   1. the environment variables the preload reads (cmc sets them);
 *   2. struct cmc_region_hdr, the header at the base of the heap region, which
 *      cmc reads read-only through /proc/PID/mem;
 *   3. the wire format of records: canonical records (written by
 *      share/include/cmc_emit.h on the canonical fd) and control records
 *      (written by the preload on the control fd);
 *   4. the fault convention: what the preload does when it cannot go on.
 *
 * Plain C, nothing beyond <stdint.h>, so both sides (and tests) include it.
 * Stable: later versions add fields and constants, they never move or
 * reshape what is here.  All multi-byte integers in the region and on the
 * wire are little-endian (x86_64 native; the region is read in place).
 */
#ifndef CMC_REGION_H
#define CMC_REGION_H

#include <stdint.h>
#include <stdbool.h>

/* ---- 1. Environment ---------------------------------------------------- */

/*
 * CMC_HEAP_BASE  hex address ("0x600000000000" or without 0x) where the region
 *                is mapped; page aligned.  Unset: CMC_HEAP_BASE_DEFAULT.
 * CMC_HEAP_SIZE  region size in bytes, decimal or 0x-hex, with an optional
 *                K/M/G suffix (binary units); rounded up to a page; at least
 *                CMC_HEAP_SIZE_MIN.  Unset: CMC_HEAP_SIZE_DEFAULT.  The region
 *                is reserved with MAP_NORESERVE, so only touched pages cost.
 * CMC_CTL_FD     decimal fd the preload writes control records to (faults
 *                today; the fork-snapshot protocol later).  Unset: no control
 *                channel, faults go to stderr and the exit status only.
 * CMC_CANON_FD   decimal fd that cmc_emit.h writes canonical records to.
 *                The hook is active ONLY when this variable is set (so a
 *                program run by hand never writes to a stray fd 3); cmc sets
 *                it, conventionally to CMC_CANON_FD_DEFAULT.
 * CMC_LINEBUF    "1": the preload makes the target's stdout line buffered
 *                (from a constructor) so each reply arrives per operation.
 * CMC_EXIT_LIVE  "1": when the target exits normally (exit() or a return
 *                from main), the preload reports the blocks still live as a
 *                CMC_CTL_EXIT_LIVE record (INVARIANTS.md INV-23; cmc sets it
 *                for `property leak`).  Unset or "0": no report.
 * A malformed value is a fault (CMC_FAULT_BAD_ENV), never silently ignored.
 */
#define CMC_ENV_HEAP_BASE "CMC_HEAP_BASE"
#define CMC_ENV_HEAP_SIZE "CMC_HEAP_SIZE"
#define CMC_ENV_CTL_FD "CMC_CTL_FD"
#define CMC_ENV_CANON_FD "CMC_CANON_FD"
#define CMC_ENV_LINEBUF "CMC_LINEBUF"
#define CMC_ENV_EXIT_LIVE "CMC_EXIT_LIVE"

#define CMC_HEAP_BASE_DEFAULT 0x600000000000ULL
#define CMC_HEAP_SIZE_DEFAULT (1ULL << 30) /* 1 GiB reserved, not committed */
#define CMC_HEAP_SIZE_MIN (64ULL * 1024)
#define CMC_CANON_FD_DEFAULT 3

/* ---- 2. The region header --------------------------------------------- */

#define CMC_REGION_MAGIC 0x3150414548434d43ULL /* "CMCHEAP1" in memory order */
#define CMC_REGION_VERSION 1u

/* alloc_kind */
#define CMC_ALLOC_BUMP 1u /* a bump arena, free a no-op (no longer built; the value stays taken) */
#define CMC_ALLOC_POOL 2u /* the size-class pool allocator (pool.h) */

/*
 * The first bytes of the region, at address `base`.  The preload writes it;
 * cmc only reads it.  Invariants (checked by cmc_region_hdr_invalid() below, in the preload
 * and by the executor whenever it reads a header):
 *   magic == CMC_REGION_MAGIC, version == CMC_REGION_VERSION,
 *   hdr_size == sizeof(struct cmc_region_hdr) (a newer preload may report a
 *     larger hdr_size: read the prefix you know),
 *   base == the address this header lives at, base % 4096 == 0,
 *   size % 4096 == 0,
 *   hdr_size <= data_off <= used <= size, data_off % 16 == 0,
 *   every byte the allocator ever handed out lies in [base+data_off, base+used),
 *   fault == CMC_FAULT_NONE while the target runs normally.
 * Raw hashing covers [base + data_off, base + used): the header itself holds
 * counters that differ between histories reaching the same heap, so it is
 * never part of the raw state.  Allocator metadata that belongs to the state
 * (the pool's chunk headers and bitmaps) lives inside that window.
 */
struct cmc_region_hdr {
	uint64_t magic;       /* CMC_REGION_MAGIC once the region is initialised */
	uint32_t version;     /* CMC_REGION_VERSION */
	uint32_t hdr_size;    /* sizeof(struct cmc_region_hdr) of the writer */
	uint64_t base;        /* address of the region (== of this header) */
	uint64_t size;        /* bytes reserved for the region */
	uint64_t data_off;    /* offset of the allocator's data (first allocation) */
	uint64_t used;        /* high-water mark: offset one past the last byte used */
	uint32_t alloc_kind;  /* CMC_ALLOC_* */
	uint32_t fault;       /* CMC_FAULT_* set just before the preload exits */
	uint64_t n_malloc;    /* successful allocations (every entry point) */
	uint64_t n_free;      /* free() calls with a non-NULL pointer */
	uint64_t n_realloc;   /* realloc/reallocarray calls with a non-NULL pointer */
	uint64_t live_bytes;  /* usable bytes handed out and not freed (bump: never
	                         decreases, free is a no-op) */
	uint64_t n_foreign;   /* free/realloc/usable_size of pointers outside the
	                         region (ignored by free; a fault for realloc) */
	uint64_t pid;         /* getpid() of the process that mapped the region
	                         (a fork child keeps its parent's value) */
	uint32_t wait_ms;     /* detwait.c: the timeout (ms) of the wait the target
	                         sleeps in, which the deterministic environment
	                         made endless; 0: not in such a wait */
	uint32_t timeouts;    /* detwait.c: timeouts delivered (CMC_TICK_SIG) */
	uint32_t advances;    /* detwait.c: advances of the clock delivered
	                         (CMC_TICK_SIG with a value: `op LABEL advance`) */
	uint32_t alarm_ms;    /* detalarm.c: the time (ms, rounded up) the armed
	                         ITIMER_REAL timer had left when it was last armed
	                         or the clock last advanced; 0: none armed */
	uint32_t alarm_every_ms; /* detalarm.c: that timer's interval; 0: one shot */
	uint32_t reserved32;  /* zero */
	uint64_t reserved[5]; /* zero; room for the pool allocator (unit size, table
	                         offset, ...) and the snapshot server, taken from
	                         the front with the version kept at 1 */
};

/*
 * The header invariants above as one check both sides share: NULL when `h`
 * (a copy read from the region at `at`) is a valid header, else a short
 * reason naming the field that is wrong.
 */
static inline const char *cmc_region_hdr_invalid(const struct cmc_region_hdr *h, uint64_t at)
{
	if (h->magic != CMC_REGION_MAGIC)
		return "bad magic";
	if (h->version != CMC_REGION_VERSION)
		return "unknown version";
	if (h->hdr_size < sizeof(struct cmc_region_hdr))
		return "hdr_size too small";
	if (h->base != at || h->base % 4096 != 0)
		return "base does not match the header's address";
	if (h->size % 4096 != 0)
		return "size not page aligned";
	if (h->data_off < h->hdr_size || h->data_off % 16 != 0)
		return "data_off inside the header or misaligned";
	if (h->used < h->data_off || h->used > h->size)
		return "used outside [data_off, size]";
	if (h->alloc_kind != CMC_ALLOC_BUMP && h->alloc_kind != CMC_ALLOC_POOL)
		return "unknown alloc_kind";
	return 0;
}

/* ---- 3. Records on the canonical and control fds ---------------------- */

/*
 * Every record is an 8-byte header followed by `len` payload bytes:
 *     uint32 magic (LE), uint32 len (LE), payload[len]
 * A record is complete only when all 8 + len bytes have arrived; a reader
 * rejects a wrong magic or len > the channel's maximum as a protocol error of
 * the target (it is untrusted) and never allocates more than the maximum.
 * Canonical: the payload is the target's own encoding of its logical state
 * (cmc_emit.h offers u64/bytes/str helpers; cmc treats it as opaque bytes).
 * The executor takes the LAST complete record that arrived before the
 * operation became quiescent; it must keep draining the fd, since a target
 * blocked in write() on a full pipe is not quiescent.  A zero-length record
 * is valid (the empty state).
 * CMC_CANON_MAGIC and CMC_CANON_MAX are also defined, identically, in
 * share/include/cmc_emit.h (which ships alone); tests include both.
 */
#define CMC_CANON_MAGIC 0x52434d43u /* bytes "CMCR" */
#define CMC_CANON_MAX (1u << 20)    /* payload bound: 1 MiB */

#define CMC_CTL_MAGIC 0x43434d43u   /* bytes "CMCC" */
#define CMC_CTL_MAX 512u            /* control payload bound */

/*
 * Control payload: uint32 kind (LE), then kind-specific bytes.
 *   CMC_CTL_FAULT: uint32 fault code (CMC_FAULT_*), then a human-readable
 *   ASCII message (no NUL, no newline, at most CMC_CTL_MAX - 8 bytes), e.g.
 *   "heap exhausted: request 4096 bytes, 100 of 65536 left".
 */
#define CMC_CTL_FAULT 1u

/*
 *   CMC_CTL_EXIT_LIVE (only with CMC_EXIT_LIVE=1): sent once, from the
 *   preload's destructor while the target runs exit(), after the target's
 *   atexit handlers and destructors; the last record of a normal exit.
 *   Fixed part, all LE (CMC_EXIT_LIVE_FIXED bytes including the kind):
 *     uint32 kind, uint32 flags (CMC_EXIT_LIVE_*),
 *     uint64 n_blocks, bytes     the target's blocks still live: live blocks
 *                                not reachable from the C library's roots
 *                                (bytes: their requested sizes)
 *     uint64 n_lost, lost_bytes  of those, reachable from no root at all
 *     uint64 n_libc, libc_bytes  live blocks left as the C library's
 *     uint32 n_listed, uint32 0
 *   then n_listed (<= CMC_EXIT_LIVE_LIST) entries of CMC_EXIT_LIVE_ENTRY
 *   bytes, the target's first live blocks in address order:
 *     uint64 address, uint64 requested size, uint64 flags (bit 0: lost).
 *   A record of another length is a protocol fault.  Roots and reachability
 *   are defined in preload/INVARIANTS.md INV-23 (preload/leak.c scans).
 */
#define CMC_CTL_EXIT_LIVE 2u
#define CMC_EXIT_LIVE_FIXED 64u
#define CMC_EXIT_LIVE_ENTRY 24u
#define CMC_EXIT_LIVE_LIST 8u
#define CMC_EXIT_LIVE_COMPLETE 1u   /* every chunk was readable: the counts are exact */
#define CMC_EXIT_LIVE_LOST 1u       /* entry flag: reachable from no root */

/*
 *   CMC_CTL_LIMIT: the kernel refused the target a mapping because of its
 *   address-space limit (RLIMIT_AS, cmc's `limit as`): sent from the
 *   preload's mmap/mmap64/mremap when the call fails with ENOMEM and what is
 *   mapped plus the request exceeds the limit.  The call still fails as
 *   the target asked for; cmc reports a `limit` fault for the operation.
 *   Exactly CMC_CTL_LIMIT_LEN bytes, all LE:
 *     uint32 kind, uint32 resource (CMC_LIMIT_AS),
 *     uint64 limit, uint64 requested, uint64 mapped (bytes, at the call)
 *   Another length is a protocol fault.  Mappings glibc makes for itself
 *   (thread stacks, dlopen) do not pass through the preload.
 */
#define CMC_CTL_LIMIT 3u
#define CMC_CTL_LIMIT_LEN 32u
#define CMC_LIMIT_AS 1u

/*
 *   CMC_CTL_SIGNAL: a process of the target's asked the kernel to signal
 *   cmc (kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo naming
 *   cmc's pid; kill of cmc's process group or of -1) and was stopped.
 *   Without a PID namespace (engine/proc/pids.c) cmc puts a seccomp filter
 *   on the target (engine/proc/sigwall.c) that turns such a call into
 *   SIGSYS with si_errno CMC_WALL_DATA; the preload's handler
 *   (preload/sigwall.c) makes the call fail with ESRCH, as it does from a
 *   namespace where cmc cannot be named, and sends this record when the
 *   signal was not 0.  Exactly CMC_CTL_SIGNAL_LEN bytes, all LE:
 *     uint32 kind, uint32 signal (1..64), uint32 flags, uint32 0
 *   flags: CMC_SIGNAL_OTHER when the caller was not the process cmc runs
 *   (a child the program made).  Another length or a bad field is a
 *   protocol fault; cmc reports a `signal` fault for the operation.
 */
#define CMC_CTL_SIGNAL 4u
#define CMC_CTL_SIGNAL_LEN 16u
#define CMC_SIGNAL_OTHER 1u
#define CMC_WALL_DATA 0x0c3cu /* SECCOMP_RET_DATA of the filter's trap */

/* ---- 4. Faults --------------------------------------------------------- */

/*
 * When the preload cannot continue it (a) sets hdr->fault if the header is
 * mapped, (b) writes a CMC_CTL_FAULT record on CMC_CTL_FD if set, (c) writes
 * "cmc-preload: <message>\n" to stderr, and (d) calls
 * _exit(CMC_FAULT_EXIT_BASE + code).  Never a silent crash, never a NULL
 * return the target did not ask for.  A request that overflows size_t in
 * calloc/reallocarray is not a fault: it returns NULL with errno ENOMEM, as
 * C requires.  The exit status alone identifies the fault, so cmc can report
 * it even without a control fd.
 */
#define CMC_FAULT_NONE 0u
#define CMC_FAULT_HEAP_EXHAUSTED 1u /* request fits the region, not what is left */
#define CMC_FAULT_BASE_TAKEN 2u     /* something is already mapped at the base */
#define CMC_FAULT_BAD_ENV 3u        /* a CMC_* variable could not be parsed */
#define CMC_FAULT_MAP_FAILED 4u     /* mmap failed for another reason (errno in text) */
#define CMC_FAULT_TOO_LARGE 5u      /* one request larger than the whole region */
#define CMC_FAULT_FOREIGN_PTR 6u    /* realloc of a pointer the allocator never returned */
#define CMC_FAULT_MAX 6u

#define CMC_FAULT_EXIT_BASE 112 /* exit status = 112 + code: 113 .. 118 */

/* ---- 5. Snapshots (the fork executor) ---------------------------------- */

/*
 * CMC_SNAP_FD        decimal fd of the snapshot socket: one end of an
 *                    AF_UNIX SOCK_SEQPACKET pair whose other end cmc holds.
 *                    Set, to CMC_SNAP_FD_DEFAULT (far above the fds a target
 *                    opens), and the socket made, under either executor, so
 *                    the target's environment, stack and descriptors are the
 *                    same whichever runs it; only the fork executor ever
 *                    sends on it.  Only the process whose parent made the
 *                    pair (SO_PEERCRED: cmc) serves snapshots; a program the
 *                    target starts inherits the socket and the environment,
 *                    and closes the socket instead.  Unset: no server.
 * CMC_DETERMINISTIC  "1": preload/detenv.c makes time, randomness and the
 *                    pid the target sees deterministic (cmc sets it unless the
 *                    scenario sets it otherwise); unset or "0": off.
 */
#define CMC_ENV_SNAP_FD "CMC_SNAP_FD"
#define CMC_ENV_DETERMINISTIC "CMC_DETERMINISTIC"

/*
 * The real port: the loopback port a tcp target listens on changes with
 * every process cmc starts.  With CMC_DETERMINISTIC=1 the target is told
 * CMC_NET_PORT ({port}) instead, and cmc puts a CONFIG message (section
 * 5; a = the real port R) on the snapshot socket before the target runs,
 * under either executor: not in the environment, which programs copy into
 * their heap (nginx does).  preload/detnet.c binds R when it binds
 * CMC_NET_PORT, reports CMC_NET_PORT for R, and reports CMC_NET_PEER_PORT
 * as the port of the peer of every connection accepted on it (cmc's, an
 * ephemeral port), so the addresses a server keeps are the same on every
 * run, in every worker and every snapshot.
 */
#define CMC_NET_PORT 7070u
#define CMC_NET_PEER_PORT 40000u
#define CMC_SNAP_FD_DEFAULT 1000

/*
 * The signal cmc sends (kill(2), from cmc only: the server ignores any other
 * sender) to make a quiescent target serve the next message waiting on its
 * snapshot socket.  A realtime signal, so requests queue and do not collide
 * with SIGUSR1/2 that programs use themselves.
 */
#define CMC_SNAP_SIG 62 /* SIGRTMAX - 2 on Linux/glibc */

/*
 * The signal of an `op LABEL timeout` (kill(2), from cmc only): the wait the
 * header's wait_ms names returns as timed out (0 ready), after the virtual
 * clock advanced by wait_ms; `timeouts` counts each one delivered.  Sent
 * with sigqueue(3) and a positive value, it is an `op LABEL advance`: the
 * virtual clock moves on by that many milliseconds, a wait whose deadline
 * it reaches times out, one it does not goes on waiting for the rest, and
 * `advances` counts each one taken.
 */
#define CMC_TICK_SIG 61

/*
 * Messages on the snapshot socket, one per datagram, native-endian (both
 * ends are on one machine).  Descriptors travel as SCM_RIGHTS.
 *   READY  target -> cmc, from the preload's constructor of each image
 *          that found the socket (the start, and any exec of the target):
 *          the server is installed (a = getpid()).
 *   FORK   cmc -> target, with nfds descriptors attached: fork a child that
 *          puts attached fd i at to[i] (or, when to[i] is CMC_SNAP_TO_CONN, at
 *          the fd of the target's connected socket whose local/peer ports
 *          are lport/pport, or at fd `a` when a >= 0); fds the target has
 *          closed stay closed.  An fd sent for CMC_SNAP_TO_CGROUP is a cgroup
 *          v2 directory, not installed: the child is started in that cgroup
 *          (clone3 CLONE_INTO_CGROUP), where the kernel allows it; one sent
 *          for CMC_SNAP_TO_TASKS is a v1 cgroup's `tasks` file, into which
 *          the child moves itself before anything else.  The child's parent is cmc (CLONE_PARENT), it
 *          dies with cmc (PR_SET_PDEATHSIG), and it returns into the call the
 *          target was blocked in, now on the new descriptors.
 *   FORKED child -> cmc, on its origin's socket before it takes its own: a =
 *          its pid, b = the connection's fd (or -1); flags has
 *          CMC_SNAP_IN_CGROUP when it started in the v2 cgroup sent, and
 *          CMC_SNAP_IN_TASKS when it moved itself into the v1 one (what it
 *          is not in, cmc moves it into).  The child answers, not the
 *          snapshot: only it knows where it got.
 *   GO     cmc -> child, on the child's own new socket, only when it was
 *          sent a cgroup it did not get into: cmc has moved it there.  The
 *          child waits for it before it returns into the target's call:
 *          its first operation's input may be in its channel already, and
 *          the operation must run inside the jail.
 *          When cwd_src is not empty it is the child's own working
 *          directory (a copy of its origin's, engine/proc/scratch.c): the
 *          child, in a mount namespace of its own, mounts it on cwd_at
 *          (where its origin's is mounted) and, if its working directory
 *          was there, goes into it again; FORKED's flags then have
 *          CMC_SNAP_OWN_CWD (without it, it shares its origin's).  Paths,
 *          not an fd: a mount is made from a path in the child's own
 *          namespace, which an fd of cmc's is not.  An fd sent for
 *          CMC_SNAP_TO_MNTNS is such a namespace made ahead by cmc, the
 *          copy already mounted at cwd_at (engine/proc/scratchns.c),
 *          not installed: the child enters it (setns) instead of making
 *          its own, and mounts cwd_src itself only if that fails.
 *   ERROR  target -> cmc: a = errno of what failed (no child then).
 *   CONFIG cmc -> target, first on the socket, before the target runs:
 *          a = the real port of a tcp target (section 4's end), or 0.
 *          Read with MSG_PEEK, so a program the target execs reads it
 *          too; the server passes over it, and cmc puts one first again
 *          after every answer, and on every child's new socket (before
 *          the FORK, and after GO), so that it is always there.
 * Every message from the target's end is checked by cmc against the
 * state of the exchange (engine/proc/snapmsg.c: whole, magic, a kind
 * allowed then, unused fields zero, no descriptors), and read after
 * every operation under either executor: anything but READY between
 * fork requests is a protocol fault of the state reached.  The program
 * cannot clobber the socket through libc (preload/snapfd.c): to[i] ==
 * CMC_SNAP_TO_SOCKET installs the child's socket wherever the preload
 * keeps it.
 * The parent, the snapshot, keeps its own descriptors and goes back to
 * sleep in the call it was interrupted in.
 */
#define CMC_SNAP_MAGIC 0x50534d43u /* bytes "CMSP" */
#define CMC_SNAP_READY 1u
#define CMC_SNAP_FORK 2u
#define CMC_SNAP_FORKED 3u
#define CMC_SNAP_ERROR 4u
#define CMC_SNAP_GO 5u
#define CMC_SNAP_CONFIG 6u
#define CMC_SNAP_MAXFDS 9
#define CMC_SNAP_TO_CONN (-2)
#define CMC_SNAP_TO_CGROUP (-3)
#define CMC_SNAP_TO_TASKS (-4)
#define CMC_SNAP_TO_SOCKET (-5) /* the child's own snapshot socket: where the
				 * preload keeps it (CMC_SNAP_FD, unless the
				 * program put a file there: preload/snapfd.c) */
#define CMC_SNAP_TO_MNTNS (-6) /* the mount namespace with cwd_src at cwd_at */
#define CMC_SNAP_CWD_MAX 256
#define CMC_SNAP_IN_CGROUP 1u
#define CMC_SNAP_IN_TASKS 2u
#define CMC_SNAP_OWN_CWD 4u

struct cmc_snap_msg {
	uint32_t magic;       /* CMC_SNAP_MAGIC */
	uint32_t kind;        /* CMC_SNAP_* */
	int32_t a, b;         /* per kind, see above */
	uint16_t lport, pport; /* FORK: the connection to replace, by ports */
	uint32_t nfds;        /* FORK: descriptors attached, <= CMC_SNAP_MAXFDS */
	int32_t to[CMC_SNAP_MAXFDS];
	uint32_t flags;       /* FORKED: CMC_SNAP_IN_CGROUP, ... */
	char cwd_at[CMC_SNAP_CWD_MAX];  /* FORK: where the origin's directory is mounted, */
	char cwd_src[CMC_SNAP_CWD_MAX]; /* and the child's own copy ("": none) */
};
/* share/examples/hostile/hostile.c forges a whole one (t6400): a change of
 * size is a change there too. */
_Static_assert(sizeof(struct cmc_snap_msg) == 576, "struct cmc_snap_msg: update hostile.c's forgery");

/* Does a child wait for GO: it was sent a v2 cgroup (sent_cgroup) or a v1
 * `tasks` file (sent_tasks) and its FORKED flags say it did not get in.
 * Both ends decide by this one test, or one would wait for nothing. */
static inline bool cmc_snap_needs_go(bool sent_cgroup, bool sent_tasks, uint32_t flags)
{
	return (sent_cgroup && !(flags & CMC_SNAP_IN_CGROUP)) || (sent_tasks && !(flags & CMC_SNAP_IN_TASKS));
}

#endif

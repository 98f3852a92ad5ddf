/*
 * pl.h — the preload's private shared declarations: environment lookup,
 * the region, and fault reporting.  Nothing here is exported from the .so
 * (built with -fvisibility=hidden); only the interposed entry points are,
 * each marked PL_EXPORT in the file that owns its concern (malloc.c the
 * allocation calls, detenv.c time, randomness and open, detpid.c/detwait.c
 * the pid calls, ...).  The allocator proper has its own interface,
 * pl_alloc.h.
 *
 * Rule for every file in preload/: never call malloc or anything that may
 * (stdio, getenv before libc is up, strerror, ...); only raw syscalls and
 * allocation-free libc (memcpy, memset, strlen).
 */
#ifndef PL_H
#define PL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "layout/cmc_region.h"

#define PL_EXPORT __attribute__((visibility("default")))

/*
 * env.c: copy the value of environment variable `name` into out (NUL
 * terminated).  Works before libc has set `environ` (falls back to
 * /proc/self/environ).  Returns 1 found, 0 absent, -1 value too long.
 */
int pl_env(const char *name, char *out, size_t outlen);

/* detenv.c: is the deterministic environment on (CMC_DETERMINISTIC=1)?
 * pl_det_advance: move its virtual clock on (a timeout that expired, an
 * advance operation); pl_det_now_ns: where it stands (virtual ns since
 * its epoch), without moving it as a read by the program does. */
int pl_det_on(void);
/* detpid.c: path itself, or, for /proc/<the pid the target is shown>[/...],
 * the same under /proc/self, written to buf. */
const char *pl_det_proc_path(const char *path, char *buf, size_t n);
void pl_det_advance(uint32_t ms);
int64_t pl_det_now_ns(void);
void pl_det_set_ns(int64_t ns);
/* detalarm.c: after an advance or a timeout moved the clock, send the
 * program the SIGALRM of a timer it armed whose deadline the clock
 * reached (async-signal-safe). */
void pl_det_timers(void);

/*
 * region.c: map the region at the configured base and write its header
 * (calling pl_alloc_init).  Faults rather than returning on any failure.
 * pl_region is NULL until then; afterwards it is the header at the base.
 */
struct cmc_region_hdr *pl_region_map(void);
extern struct cmc_region_hdr *pl_region;

/*
 * fault.c: a fault message built without malloc, then reported by
 * pl_fault() as described in cmc_region.h section 4.  Messages longer than
 * the control bound are cut (the bound is part of the contract).
 */
struct pl_msg {
	char text[CMC_CTL_MAX - 8];
	size_t len;
};
void pl_msg_str(struct pl_msg *m, const char *s);
void pl_msg_u64(struct pl_msg *m, uint64_t v);
void pl_msg_hex(struct pl_msg *m, uint64_t v);
_Noreturn void pl_fault(uint32_t code, const struct pl_msg *m);
/* epoll.c: the program's epoll instances, made anew in a snapshot's child
 * once its descriptors are in place (async-signal-safe); overflowed: more
 * of them than the table holds, so a child's could not be made. */
void pl_epoll_rebuild(void);
bool pl_epoll_overflowed(void);
/* epoll.c: fd was closed or replaced (close, dup2, dup3: snapfd.c
 * interposes them): it leaves every epoll list. */
void pl_epoll_closed(int fd);

/* sigstack.c: put cmc's signal handlers on the preload's own alternate
 * stack (idempotent); pl_sig_handle installs one of the preload's own
 * handlers there (SA_SIGINFO | SA_RESTART | SA_ONSTACK, every signal
 * blocked while it runs), as sigaction() returns. */
void pl_sigstack_install(void);
int pl_sig_handle(int sig, void (*fn)(int, siginfo_t *, void *));

/* snap.c: how many fork requests this process has served; a wait that
 * returns EINTR while it moved was interrupted by one, and is resumed
 * (detwait.c), as a replayed process never sees it. */
unsigned pl_snap_requests(void);

/* snap.c: the snapshot socket's fd (-1: no server), and its new number
 * once snapfd.c moved it out of the program's way (-1: lost).  Callers
 * block CMC_SNAP_SIG around a move. */
int pl_snap_fd(void);
void pl_snap_set_fd(int fd);

/* snap.c: cmc's pid, the peer of the snapshot socket (0: no socket);
 * kept after a program the target started closed it. */
pid_t pl_snap_cmc(void);

/* snapcwd.c: in a fork child, mount its own copy of the working directory
 * (src) where its origin's is (at), in a mount namespace of its own, and
 * move the program's shared mappings there onto it (its open files:
 * pl_snap_own_files); false when the kernel refused (it then shares its
 * origin's). */
bool pl_snap_own_cwd(char *src, char *at, int mntns);

/* procfd.c (async-signal-safe): pl_put_dec writes v in decimal at out,
 * NUL-terminated, and returns the NUL's address; pl_fd_link writes
 * "/proc/self/fd/N" (out: 32 bytes); pl_list_fds fills fds with up to max
 * of the open descriptors below PL_FD_SCAN, in order, but for skip, and
 * returns how many. */
#define PL_FD_SCAN 1024
char *pl_put_dec(char *out, long v);
void pl_fd_link(char *out, int fd);
int pl_list_fds(int *fds, int max, int skip);

/* snapfiles.c: in a fork child, after pl_snap_own_cwd (at: the copy's
 * mount, NULL when none): each regular file the program holds open gets a
 * file description of its own (offset; under at, on the copy), and an
 * unnamed one (tmpfile, a memfd) a copy of its contents.  The nrecv fds
 * in recv are cmc's, just received with the FORK (not the program's:
 * passed over).  Async-signal-safe. */
void pl_snap_own_files(const char *at, int snap_fd, const int *recv, unsigned nrecv);

/* snap.c: the real port of a tcp target, from cmc's CONFIG message on the
 * snapshot socket (cmc_region.h); 0 when there is none. */
uint16_t pl_snap_config_port(void);

/* Little-endian fields of the records the preload writes (cmc_region.h). */
static inline void pl_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void pl_put_le64(uint8_t *p, uint64_t v)
{
	pl_put_le32(p, (uint32_t)v);
	pl_put_le32(p + 4, (uint32_t)(v >> 32));
}

/* fault.c: one control record (cmc_region.h section 3) on CMC_CTL_FD:
 * `payload` is kind + body, len <= CMC_CTL_MAX.  -1 when there is no
 * control fd (or len is too long), else 0 (write errors are not reported:
 * cmc sees the record or not). */
int pl_ctl_send(const void *payload, size_t len);

#endif

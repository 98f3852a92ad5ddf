/*
 * cmc_emit.h — the opt-in hook a target uses to tell cmc its logical state.
 *
 * Under cmc, a target built for checking writes a canonical record (its own
 * encoding of the logical state, e.g. a set's keys in sorted order) after
 * each change; cmc fingerprints the last record written before the operation
 * finished, so states that differ only in heap layout merge.  Without cmc
 * (CMC_CANON_FD unset) every call does nothing.  Header-only, no malloc,
 * plain C99 with POSIX write().
 *
 * A handful of lines in the target, e.g. for a sorted linked list:
 *
 *     #include "cmc_emit.h"
 *     unsigned char space[8 * 64];
 *     struct cmc_emit_buf b;
 *     cmc_emit_begin(&b, space, sizeof space);
 *     for (struct node *n = head; n; n = n->next)
 *         cmc_emit_u64(&b, (uint64_t)n->key);
 *     cmc_emit_end(&b);                  // or: cmc_emit(bytes, len);
 *
 * Wire format (defined with the preload in preload/layout/cmc_region.h;
 * the values here are the same and must stay so): uint32 CMC_CANON_MAGIC,
 * uint32 length, then `length` payload bytes, little-endian,
 * length <= CMC_CANON_MAX.
 * Integers added with cmc_emit_u64 are 8 bytes little-endian.
 * Return values: 0 written or inactive, -1 on a write error or a record over
 * the bound (the record is then not written; cmc falls back to raw hashing).
 */
#ifndef CMC_EMIT_H
#define CMC_EMIT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#define CMC_ENV_CANON_FD "CMC_CANON_FD"
#define CMC_CANON_MAGIC 0x52434d43u /* bytes "CMCR" */
#define CMC_CANON_MAX (1u << 20)    /* payload bound: 1 MiB */

/* The canonical fd, or -1 when not under cmc (looked up once). */
static inline int cmc_emit_fd(void)
{
	static int fd = -2;
	if (fd == -2) {
		const char *v = getenv(CMC_ENV_CANON_FD);
		char *end;
		long n = v && *v ? strtol(v, &end, 10) : -1;
		fd = (v && *v && !*end && n >= 0 && n < 1 << 20) ? (int)n : -1;
	}
	return fd;
}

/* Write one canonical record of `len` bytes. */
static inline int cmc_emit(const void *buf, size_t len)
{
	int fd = cmc_emit_fd();
	if (fd < 0)
		return 0;
	if (len > CMC_CANON_MAX)
		return -1;
	unsigned char hdr[8];
	uint32_t m = CMC_CANON_MAGIC, l = (uint32_t)len;
	for (int i = 0; i < 4; i++) {
		hdr[i] = (unsigned char)(m >> (8 * i));
		hdr[4 + i] = (unsigned char)(l >> (8 * i));
	}
	struct iovec iov[2] = { { hdr, 8 }, { (void *)buf, len } };
	size_t left = 8 + len;
	int n = 2;
	struct iovec *v = iov;
	while (left) {
		ssize_t w = writev(fd, v, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		left -= (size_t)w;
		while (n && (size_t)w >= v->iov_len) {
			w -= (ssize_t)v->iov_len;
			v++, n--;
		}
		if (n) {
			v->iov_base = (char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* A record built in caller-provided storage (no malloc).  Overflowing the
 * storage marks the record bad; cmc_emit_end then writes nothing, returns -1. */
struct cmc_emit_buf {
	unsigned char *p;
	size_t len, cap;
	int overflow;
};

static inline void cmc_emit_begin(struct cmc_emit_buf *b, void *space, size_t cap)
{
	b->p = (unsigned char *)space;
	b->len = 0;
	b->cap = cap;
	b->overflow = 0;
}

static inline void cmc_emit_bytes(struct cmc_emit_buf *b, const void *data, size_t n)
{
	if (b->overflow || n > b->cap - b->len) {
		b->overflow = 1;
		return;
	}
	const unsigned char *s = (const unsigned char *)data;
	for (size_t i = 0; i < n; i++)
		b->p[b->len + i] = s[i];
	b->len += n;
}

static inline void cmc_emit_u64(struct cmc_emit_buf *b, uint64_t v)
{
	unsigned char le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	cmc_emit_bytes(b, le, 8);
}

/* A string as its length (u64) then its bytes, so concatenations are unambiguous. */
static inline void cmc_emit_str(struct cmc_emit_buf *b, const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	cmc_emit_u64(b, n);
	cmc_emit_bytes(b, s, n);
}

static inline int cmc_emit_end(struct cmc_emit_buf *b)
{
	if (b->overflow)
		return -1;
	return cmc_emit(b->p, b->len);
}

#endif

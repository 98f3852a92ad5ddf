/*
 * malloc.c — the interposed allocation entry points (the preload's other
 * exports live with their own concerns: detenv.c, detpid.c, ...).  Owns
 * the C-level semantics (argument checks, size_t overflow, errno, NULL,
 * foreign pointers) and the lock; the allocator behind pl_alloc.h only
 * ever sees clean requests.
 *
 * Initialisation is lazy: the first call can come from the dynamic loader or
 * libc before any constructor has run, so every entry point maps the region
 * on first use (region.c does not allocate, so there is no recursion).  A
 * constructor maps it too, so a target that never allocates still has a
 * header for cmc to read.
 *
 * The lock is a spin lock, not a pthread mutex (which could itself be
 * uninitialised this early); targets are single-threaded for now, the lock
 * keeps a stray helper thread from corrupting the arena.
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pl.h"
#include "pl_alloc.h"

#define PAGE 4096

static volatile int lock_word;

static struct cmc_region_hdr *lock(void)
{
	while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&lock_word, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
	return pl_region ? pl_region : pl_region_map();
}

static void unlock(void)
{
	__atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
}

static int pow2(size_t a)
{
	return a && !(a & (a - 1));
}

static void *alloc_aligned(size_t size, size_t align, int zero)
{
	struct cmc_region_hdr *h = lock();
	void *p = pl_alloc(h, size, align < 16 ? 16 : align, zero);
	unlock();
	return p;
}

PL_EXPORT void *malloc(size_t size)
{
	return alloc_aligned(size, 16, 0);
}

PL_EXPORT void free(void *p)
{
	if (!p)
		return;
	struct cmc_region_hdr *h = lock();
	if (pl_owns(h, p))
		pl_free(h, p);
	else
		h->n_foreign++; /* e.g. memory from before the preload: not ours to free */
	unlock();
}

PL_EXPORT void *calloc(size_t n, size_t size)
{
	size_t total;
	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = alloc_aligned(total, 16, 1);
	memset(p, 0, total); /* the allocator's zero flag is a hint; C requires it */
	return p;
}

PL_EXPORT void *realloc(void *p, size_t size)
{
	if (!p)
		return malloc(size);
	if (size == 0) { /* glibc's behaviour: free and return NULL */
		free(p);
		return NULL;
	}
	struct cmc_region_hdr *h = lock();
	h->n_realloc++;
	if (!pl_owns(h, p)) {
		h->n_foreign++;
		unlock();
		struct pl_msg m = { .len = 0 };
		pl_msg_str(&m, "realloc of a pointer the allocator never returned: ");
		pl_msg_hex(&m, (uintptr_t)p);
		pl_fault(CMC_FAULT_FOREIGN_PTR, &m);
	}
	void *q = pl_realloc(h, p, size);
	unlock();
	return q;
}

PL_EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	size_t total;
	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

PL_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	if (!pow2(align) || align % sizeof(void *))
		return EINVAL;
	*out = alloc_aligned(size, align, 0);
	return 0;
}

PL_EXPORT void *aligned_alloc(size_t align, size_t size)
{
	if (!pow2(align)) { /* glibc 2.36 accepts any power of two, any size */
		errno = EINVAL;
		return NULL;
	}
	return alloc_aligned(size, align, 0);
}

PL_EXPORT void *memalign(size_t align, size_t size)
{
	if (align > (SIZE_MAX >> 1) + 1) {
		errno = EINVAL;
		return NULL;
	}
	size_t a = 16;
	while (a < align) /* glibc rounds a non-power-of-two up */
		a <<= 1;
	return alloc_aligned(size, a, 0);
}

PL_EXPORT void *valloc(size_t size)
{
	return alloc_aligned(size, PAGE, 0);
}

PL_EXPORT void *pvalloc(size_t size)
{
	if (size > SIZE_MAX - PAGE) {
		errno = ENOMEM;
		return NULL;
	}
	return alloc_aligned((size + PAGE - 1) & ~(size_t)(PAGE - 1), PAGE, 0);
}

PL_EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	struct cmc_region_hdr *h = lock();
	size_t n = 0;
	if (pl_owns(h, p))
		n = pl_usable(h, p);
	else
		h->n_foreign++;
	unlock();
	return n;
}

/* glibc tuning calls would otherwise wake glibc's own arena: answer them. */
PL_EXPORT int mallopt(int param, int value)
{
	return 1;
}

PL_EXPORT int malloc_trim(size_t pad)
{
	return 0;
}

__attribute__((constructor)) static void map_early(void)
{
	lock();
	unlock();
}

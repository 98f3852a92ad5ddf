/*
 * pltest.c — test helper for the t1 (preload) tests: a target that runs
 * under libcmc-preload.so and reports what the allocator did, plus a tiny
 * line client for the TCP examples.  Modes:
 *   addrs       a fixed mix of allocations through every entry point; prints
 *               each address, checks alignment/contents, exit 1 on a mismatch
 *   hdr         the region header as key=value lines (read in place) and
 *               whether cmc_region_hdr_invalid() accepts it
 *   exhaust N   malloc(N) until the preload faults (it must not return NULL)
 *   linebuf     prints whether stdout is line buffered
 *   freeport    a currently free loopback TCP port
 *   client PORT connect (retrying while the server starts, bounded), send
 *               each stdin line, print each one-line reply
 * Built -no-pie so that 0x400000 (its own text) is a known-taken base.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cmc_region.h"

static int bad;

/* p is passed as a number: gcc would otherwise warn that a const pointer
 * to fresh (uninitialised) memory is read. */
#define check(cond, what, p) check_((cond), (what), (uintptr_t)(p))
static void check_(int cond, const char *what, uintptr_t p)
{
	if (!cond) {
		fprintf(stderr, "pltest: %s (0x%llx)\n", what, (unsigned long long)p);
		bad = 1;
	}
}

static uint64_t heap_base(void)
{
	const char *v = getenv(CMC_ENV_HEAP_BASE);
	return v ? strtoull(v, NULL, 16) : CMC_HEAP_BASE_DEFAULT;
}

static int all(const unsigned char *p, size_t n, unsigned char c)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

static int addrs(void)
{
	void *p[16] = { 0 };
	int n = 0;
	volatile size_t huge = SIZE_MAX / 2; /* opaque to the compiler's size checks */
	p[n] = malloc(1);
	check((uintptr_t)p[n] % 16 == 0, "malloc(1) not 16-aligned", p[n]);
	check(malloc_usable_size(p[n]) >= 1, "usable size < 1", p[n]);
	n++;
	p[n] = malloc(0);
	check(p[n] && p[n] != p[n - 1], "malloc(0) not unique", p[n]);
	n++;
	unsigned char *c = calloc(100, 7);
	check(c && all(c, 700, 0), "calloc not zeroed", c);
	memset(c, 0xab, 700);
	p[n++] = c;
	unsigned char *r = realloc(c, 5000);
	check(r && all(r, 700, 0xab), "realloc lost contents", r);
	p[n++] = r;
	r = reallocarray(r, 3, 4000);
	check(r && all(r, 700, 0xab), "reallocarray lost contents", r);
	p[n++] = r;
	void *q;
	check(posix_memalign(&q, 256, 10) == 0 && (uintptr_t)q % 256 == 0, "posix_memalign 256", q);
	p[n++] = q;
	check(posix_memalign(&q, 24, 10) == EINVAL, "posix_memalign(24) not EINVAL", NULL);
	q = aligned_alloc(4096, 3);
	check((uintptr_t)q % 4096 == 0, "aligned_alloc 4096", q);
	p[n++] = q;
	q = memalign(64, 100);
	check((uintptr_t)q % 64 == 0, "memalign 64", q);
	p[n++] = q;
	q = memalign(48, 100); /* glibc rounds 48 up to 64 */
	check((uintptr_t)q % 64 == 0, "memalign 48", q);
	p[n++] = q;
	q = valloc(10);
	check((uintptr_t)q % 4096 == 0, "valloc", q);
	p[n++] = q;
	q = pvalloc(10);
	check((uintptr_t)q % 4096 == 0 && malloc_usable_size(q) >= 4096, "pvalloc", q);
	p[n++] = q;
	errno = 0;
	check(calloc(huge, 4) == NULL && errno == ENOMEM, "calloc overflow not ENOMEM", NULL);
	errno = 0;
	check(reallocarray(NULL, huge, 4) == NULL && errno == ENOMEM,
	      "reallocarray overflow not ENOMEM", NULL);
	char *s = strdup("through libc's own malloc call");
	check(s && strcmp(s, "through libc's own malloc call") == 0, "strdup", s);
	p[n++] = s;
	free(p[0]);
	free(NULL);
	check(realloc(p[1], 0) == NULL, "realloc(p, 0) not NULL", NULL);
	for (int i = 0; i < n; i++)
		printf("%p\n", p[i]);
	return bad;
}

static int hdr(void)
{
	uint64_t base = heap_base();
	void *volatile one = malloc(40); /* volatile: gcc would drop the pair */
	free(one);
	const struct cmc_region_hdr *h = (const void *)(uintptr_t)base;
	const char *why = cmc_region_hdr_invalid(h, base);
	printf("valid=%s\n", why ? why : "yes");
	printf("base=0x%llx\nsize=%llu\ndata_off=%llu\nused=%llu\nalloc_kind=%u\nfault=%u\n",
	       (unsigned long long)h->base, (unsigned long long)h->size,
	       (unsigned long long)h->data_off, (unsigned long long)h->used, h->alloc_kind, h->fault);
	printf("n_malloc_ge1=%d\nn_free_ge1=%d\npid_is_me=%d\n", h->n_malloc >= 1, h->n_free >= 1,
	       h->pid == (uint64_t)getpid());
	return 0;
}

static int exhaust(size_t n)
{
	for (;;)
		if (!malloc(n)) {
			printf("malloc returned NULL\n");
			return 3;
		}
}

static int client(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = -1;
	/* The server is starting in parallel: retry a refused connect, bounded
	 * (about 10 s in all), not a fixed sleep. */
	for (int i = 0; i < 1000; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
			break;
		close(fd);
		fd = -1;
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	if (fd < 0) {
		fprintf(stderr, "pltest: nothing listens on 127.0.0.1:%d\n", port);
		return 1;
	}
	FILE *in = fdopen(fd, "r");
	char line[4096];
	while (fgets(line, sizeof line, stdin)) {
		if (write(fd, line, strlen(line)) < 0)
			return 1;
		if (!fgets(line, sizeof line, in))
			return 1;
		fputs(line, stdout);
	}
	return 0;
}

static int freeport(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return 1;
	printf("%d\n", ntohs(a.sin_port));
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "addrs"))
		return addrs();
	if (!strcmp(mode, "hdr"))
		return hdr();
	if (!strcmp(mode, "exhaust") && argc > 2)
		return exhaust(strtoul(argv[2], NULL, 10));
	if (!strcmp(mode, "linebuf")) {
		printf("%s\n", __flbf(stdout) ? "line" : "full");
		return 0;
	}
	if (!strcmp(mode, "freeport"))
		return freeport();
	if (!strcmp(mode, "client") && argc > 2)
		return client(atoi(argv[2]));
	fprintf(stderr, "usage: pltest addrs|hdr|exhaust N|linebuf|freeport|client PORT\n");
	return 2;
}

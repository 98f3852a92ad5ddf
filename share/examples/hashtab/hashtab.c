/*
 * hashtab.c — a one-connection TCP server keeping a set of integer keys in
 * a chained hash table: a fixed array of buckets in .bss, each a singly
 * linked list of malloc'd entries kept sorted by key, so the table's shape
 * is a function of the set alone, whatever the order of inserts and
 * deletes.  A target for `hash heap-graph` (share/scenario.md), written
 * like the list server (share/examples/list): it knows nothing about cmc
 * except one build flag:
 *
 *   -DCMC_EMIT  after every command, write the keys bucket by bucket as a
 *               canonical record (share/include/cmc_emit.h)
 *
 * Usage: hashtab [PORT]   (else $PORT; listens on 127.0.0.1, serves one
 * connection, exits 0 when the client closes it).
 * Protocol, one line each way:
 *   INS k  -> OK | EXISTS        DEL k -> OK | MISSING
 *   HAS k  -> YES | NO           LIST  -> the keys bucket by bucket, space separated
 *   anything else -> ERR <reason>
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef CMC_EMIT
#include "cmc_emit.h"
#endif

#define NBUCKETS 4u /* small on purpose: keys collide, chains have several entries */

struct entry {
	long key;
	struct entry *next;
};

/* Invariant: every entry of bucket[b] has key % NBUCKETS == b (keys taken
 * as unsigned), and keys strictly increase along each chain. */
static struct entry *bucket[NBUCKETS];

static struct entry **chain(long key)
{
	return &bucket[(unsigned long)key % NBUCKETS];
}

static int insert(long key)
{
	struct entry **pp = chain(key);
	while (*pp && (*pp)->key < key)
		pp = &(*pp)->next;
	if (*pp && (*pp)->key == key)
		return 0;
	struct entry *e = malloc(sizeof *e);
	if (!e) {
		perror("hashtab: malloc");
		exit(1);
	}
	e->key = key;
	e->next = *pp;
	*pp = e;
	return 1;
}

static int delete(long key)
{
	for (struct entry **pp = chain(key); *pp; pp = &(*pp)->next) {
		if ((*pp)->key == key) {
			struct entry *dead = *pp;
			*pp = dead->next;
			free(dead);
			return 1;
		}
	}
	return 0;
}

static int has(long key)
{
	for (struct entry *e = *chain(key); e; e = e->next)
		if (e->key == key)
			return 1;
	return 0;
}

#ifdef CMC_EMIT
static void emit_state(void)
{
	unsigned char space[8 * 256];
	struct cmc_emit_buf b;
	cmc_emit_begin(&b, space, sizeof space);
	for (unsigned i = 0; i < NBUCKETS; i++)
		for (struct entry *e = bucket[i]; e; e = e->next)
			cmc_emit_u64(&b, (uint64_t)e->key);
	cmc_emit_end(&b);
}
#else
static void emit_state(void) {}
#endif

static void reply(int fd, const char *s)
{
	size_t len = strlen(s);
	while (len) {
		ssize_t w = write(fd, s, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* the client went away; the read loop will see it */
		s += w;
		len -= (size_t)w;
	}
}

/* Parse "CMD k" into key; 0 on success. */
static int key_arg(const char *line, size_t cmdlen, long *key)
{
	char *end;
	if (line[cmdlen] != ' ')
		return -1;
	errno = 0;
	*key = strtol(line + cmdlen + 1, &end, 10);
	return (errno || end == line + cmdlen + 1 || *end) ? -1 : 0;
}

static void command(int fd, const char *line)
{
	long key;
	char out[4096];
	if (strncmp(line, "INS", 3) == 0 && key_arg(line, 3, &key) == 0) {
		reply(fd, insert(key) ? "OK\n" : "EXISTS\n");
	} else if (strncmp(line, "DEL", 3) == 0 && key_arg(line, 3, &key) == 0) {
		reply(fd, delete(key) ? "OK\n" : "MISSING\n");
	} else if (strncmp(line, "HAS", 3) == 0 && key_arg(line, 3, &key) == 0) {
		reply(fd, has(key) ? "YES\n" : "NO\n");
	} else if (strcmp(line, "LIST") == 0) {
		size_t n = 0;
		out[0] = '\0';
		for (unsigned i = 0; i < NBUCKETS; i++)
			for (struct entry *e = bucket[i]; e && n < sizeof out - 32; e = e->next)
				n += (size_t)snprintf(out + n, sizeof out - n, n ? " %ld" : "%ld", e->key);
		snprintf(out + n, sizeof out - n, "\n");
		reply(fd, out);
	} else {
		reply(fd, "ERR expected INS k, DEL k, HAS k or LIST\n");
	}
	emit_state();
}

int main(int argc, char **argv)
{
	const char *port_s = argc > 1 ? argv[1] : getenv("PORT");
	char *end;
	long port = port_s ? strtol(port_s, &end, 10) : -1;
	if (!port_s || *end || port <= 0 || port > 65535) {
		fprintf(stderr, "usage: hashtab PORT (or set PORT): a TCP port 1-65535\n");
		return 2;
	}
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 1) < 0) {
		fprintf(stderr, "hashtab: cannot listen on 127.0.0.1:%ld: %s\n", port, strerror(errno));
		return 1;
	}
	emit_state(); /* the empty set, before any operation */
	int fd = accept(ls, NULL, NULL);
	if (fd < 0) {
		perror("hashtab: accept");
		return 1;
	}
	close(ls);

	/* Lines are assembled in a fixed buffer, so the heap holds nothing but
	 * the table's entries. */
	char buf[1024];
	size_t have = 0;
	for (;;) {
		ssize_t r = read(fd, buf + have, sizeof buf - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		char *start = buf, *nl;
		while ((nl = memchr(start, '\n', have - (size_t)(start - buf)))) {
			*nl = '\0';
			if (nl > start && nl[-1] == '\r')
				nl[-1] = '\0';
			command(fd, start);
			start = nl + 1;
		}
		have -= (size_t)(start - buf);
		memmove(buf, start, have);
		if (have == sizeof buf) { /* a line longer than the buffer: refuse it */
			reply(fd, "ERR line too long\n");
			have = 0;
		}
	}
	close(fd);
	return 0;
}

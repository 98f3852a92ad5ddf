/*
 * bst.c — a one-connection TCP server keeping a set of integer keys in an
 * unbalanced binary search tree of malloc'd nodes: a target whose heap
 * shape depends on the order of its inserts, for `hash heap-graph`
 * (share/scenario.md).  Written like the list server (share/examples/list):
 * it knows nothing about cmc except one build flag:
 *
 *   -DCMC_EMIT  after every command, write the keys in order as a
 *               canonical record (share/include/cmc_emit.h): the set, not
 *               the shape, so insert orders of one set merge
 *
 * Usage: bst [PORT]   (else $PORT; listens on 127.0.0.1, serves one
 * connection, exits 0 when the client closes it).
 * Protocol, one line each way:
 *   INS k  -> OK | EXISTS        DEL k -> OK | MISSING
 *   HAS k  -> YES | NO           LIST  -> the keys in order, space separated
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

struct node {
	long key;
	struct node *left, *right;
};

/* Invariant: every key in a node's left subtree is smaller than its key,
 * every key in its right subtree larger (no duplicates). */
static struct node *root;

static int insert(long key)
{
	struct node **pp = &root;
	while (*pp && (*pp)->key != key)
		pp = key < (*pp)->key ? &(*pp)->left : &(*pp)->right;
	if (*pp)
		return 0;
	struct node *n = calloc(1, sizeof *n);
	if (!n) {
		perror("bst: calloc");
		exit(1);
	}
	n->key = key;
	*pp = n;
	return 1;
}

/* Delete by the textbook rule: a node with two children takes its
 * in-order successor's key, and the successor's node goes. */
static int delete(long key)
{
	struct node **pp = &root;
	while (*pp && (*pp)->key != key)
		pp = key < (*pp)->key ? &(*pp)->left : &(*pp)->right;
	struct node *n = *pp;
	if (!n)
		return 0;
	if (n->left && n->right) {
		struct node **sp = &n->right;
		while ((*sp)->left)
			sp = &(*sp)->left;
		struct node *s = *sp;
		n->key = s->key;
		*sp = s->right;
		free(s);
	} else {
		*pp = n->left ? n->left : n->right;
		free(n);
	}
	return 1;
}

static int has(long key)
{
	for (struct node *n = root; n; n = key < n->key ? n->left : n->right)
		if (n->key == key)
			return 1;
	return 0;
}

/* In order into out (at most cap bytes), depth-bounded by the tree. */
static size_t list(const struct node *n, char *out, size_t len, size_t cap)
{
	if (!n || len + 32 > cap)
		return len;
	len = list(n->left, out, len, cap);
	if (len + 32 <= cap)
		len += (size_t)snprintf(out + len, cap - len, len ? " %ld" : "%ld", n->key);
	return list(n->right, out, len, cap);
}

#ifdef CMC_EMIT
static void emit_keys(struct cmc_emit_buf *b, const struct node *n)
{
	if (!n)
		return;
	emit_keys(b, n->left);
	cmc_emit_u64(b, (uint64_t)n->key);
	emit_keys(b, n->right);
}

static void emit_state(void)
{
	unsigned char space[8 * 256];
	struct cmc_emit_buf b;
	cmc_emit_begin(&b, space, sizeof space);
	emit_keys(&b, root);
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
		size_t n = list(root, out, 0, sizeof out - 2);
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
		fprintf(stderr, "usage: bst PORT (or set PORT): a TCP port 1-65535\n");
		return 2;
	}
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 1) < 0) {
		fprintf(stderr, "bst: cannot listen on 127.0.0.1:%ld: %s\n", port, strerror(errno));
		return 1;
	}
	emit_state(); /* the empty set, before any operation */
	int fd = accept(ls, NULL, NULL);
	if (fd < 0) {
		perror("bst: accept");
		return 1;
	}
	close(ls);

	/* Lines are assembled in a fixed buffer, so the heap holds nothing but
	 * the tree's nodes. */
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

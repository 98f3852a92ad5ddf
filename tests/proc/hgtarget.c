/*
 * hgtarget.c — a stdin target whose heap is hard to walk, for the
 * heap-graph tests (t5380): each line is a command, answered with one line
 * on stdout (write(2), no stdio buffering).
 *
 *   cycle     two nodes pointing at each other, held by a global  -> OK
 *   self      a node pointing at itself, held by a global         -> OK
 *   dangle    a global pointing at a block freed at once          -> OK
 *   int       a global integer equal to the address 8 bytes into a
 *             live block held by nothing else (a false positive)  -> OK
 *   scribble  overwrite the slot bitmap and requested sizes of the
 *             chunk holding a live block (corrupt pool metadata)  -> OK
 *   anything else                                                 -> ERR
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct node {
	struct node *next;
	long v;
};

/* Not static: globals only ever written would be optimised away. */
struct node *ring, *me, *gone;
uintptr_t looks_like_a_pointer;
void *hidden;

static void say(const char *s)
{
	(void)!write(1, s, strlen(s));
}

static struct node *node(long v)
{
	struct node *n = calloc(1, sizeof *n);
	if (!n)
		exit(1);
	n->v = v;
	return n;
}

int main(void)
{
	char line[128];
	size_t have = 0;
	for (;;) {
		ssize_t r = read(0, line + have, 1);
		if (r <= 0)
			return 0;
		if (line[have] != '\n') {
			if (have < sizeof line - 1)
				have++;
			continue;
		}
		line[have] = 0;
		have = 0;
		if (!strcmp(line, "cycle")) {
			struct node *a = node(1), *b = node(2);
			a->next = b;
			b->next = a;
			ring = a;
		} else if (!strcmp(line, "self")) {
			me = node(3);
			me->next = me;
		} else if (!strcmp(line, "dangle")) {
			gone = node(4);
			free(gone);
		} else if (!strcmp(line, "int")) {
			hidden = node(5);
			looks_like_a_pointer = (uintptr_t)hidden + 8;
			hidden = (void *)((uintptr_t)hidden ^ 1); /* no longer a pointer to it */
		} else if (!strcmp(line, "scribble")) {
			/* The pool's chunks start at 16 KiB unit boundaries: their
			 * header is 64 bytes, then the slot bitmap and sizes. */
			struct node *n = node(6);
			uint8_t *chunk = (uint8_t *)((uintptr_t)n & ~(uintptr_t)0x3fff);
			memset(chunk + 64, 0xff, 64);
		} else {
			say("ERR\n");
			continue;
		}
		say("OK\n");
	}
}

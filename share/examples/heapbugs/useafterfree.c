/*
 * useafterfree.c — write to a freed block, only in some orders.  OPEN
 * allocates a counter, CLOSE frees it without clearing the pointer, HIT
 * increments the counter.  OPEN, CLOSE, HIT writes into a freed slot, whose
 * poison (INV-12) shows it.  A session block of the same class keeps the
 * chunk alive.  Shortest: OPEN, CLOSE, HIT.
 */
#include "lines.h"

struct counter {
	long hits;
	long pad;
};

struct counter *session; /* global: the compiler may not drop its calloc */
static struct counter *ctr;

static void command(const char *line)
{
	if (!strcmp(line, "OPEN")) {
		ctr = calloc(1, sizeof *ctr);
	} else if (!strcmp(line, "CLOSE")) {
		free(ctr); /* the bug: ctr still points at the freed block */
	} else if (!strcmp(line, "HIT")) {
		if (ctr)
			ctr->hits++;
	} else {
		reply("ERR expected OPEN, CLOSE or HIT\n");
		return;
	}
	reply("OK\n");
}

int main(void)
{
	session = calloc(1, sizeof *session);
	return serve();
}

/*
 * underflow.c — a write before a block, into the allocator's chunk header,
 * only in some orders.  OPEN allocates a 32 KiB document (a request that
 * large gets a chunk of its own, whose header sits right before the block)
 * with the cursor at 0; LEFT moves the cursor left, without the bounds
 * check it needs; PUT writes a character at the cursor.  OPEN, LEFT, PUT
 * writes doc[-1], the last byte of the chunk header (INV-3: the header's
 * checksum no longer matches).  PUT before LEFT writes doc[0], harmlessly.
 * Shortest: OPEN, LEFT, PUT.
 */
#include "lines.h"

#define DOC_SIZE (32 * 1024)

char *doc; /* global: the compiler may not drop its malloc */
static long cursor;

static void command(const char *line)
{
	if (!strcmp(line, "OPEN")) {
		if (!doc)
			doc = malloc(DOC_SIZE);
		cursor = 0;
	} else if (!strcmp(line, "LEFT")) {
		cursor--; /* the bug: no check against 0 */
	} else if (!strcmp(line, "PUT")) {
		if (doc && cursor < DOC_SIZE)
			doc[cursor] = 'x';
	} else {
		reply("ERR expected OPEN, LEFT or PUT\n");
		return;
	}
	reply("OK\n");
}

int main(void)
{
	return serve();
}

/*
 * uafreuse.c — a write through a dangling pointer that the next malloc
 * would hide, the common shape of a use after free in real programs: the
 * freed slot is handed out again with the stray write in it, so by the
 * time anyone looks the slot is live and the write looks legitimate.
 *
 *   OPEN     ctr = calloc(16 bytes): a class-32 slot beside the session
 *            block, which keeps that chunk alive; name = malloc(100): the
 *            only block of its class.
 *   CLOSE    free(ctr), the pointer kept (the bug).
 *   TOUCH    ctr->hits++ (through the dangling pointer after CLOSE), then
 *            note = calloc(16 bytes), the class of the freed counter.
 *   RECYCLE  free(name); name[0] = 'x' (the bug: a write after the free in
 *            the same operation); name = malloc(100) again.
 *
 * Across operations (uafreuse.scn: OPEN, CLOSE, TOUCH): the freed counter
 * waits in the allocator's quarantine, so TOUCH's calloc gets another slot
 * and the written free slot is seen by INV-12 in TOUCH's state.  Before
 * the quarantine the calloc got the written slot back: no violation.
 * In one operation (uafreuse-op.scn: OPEN, RECYCLE): name's chunk held
 * nothing else and is released by the free, the write lands in the
 * released unit, and the malloc builds a new chunk there and hands out the
 * written slot: the allocator verifies a slot's poison as it hands it out
 * and records the mismatch, INV-12 in RECYCLE's state.
 */
#include "lines.h"

struct counter {
	long hits;
	long pad;
};

struct counter *session; /* globals: the compiler may not drop the allocations */
struct counter *note;
static struct counter *ctr;
char *name;

static void command(const char *line)
{
	if (!strcmp(line, "OPEN")) {
		ctr = calloc(1, sizeof *ctr);
		name = malloc(100);
		if (name)
			strcpy(name, "counter");
	} else if (!strcmp(line, "CLOSE")) {
		free(ctr); /* the bug: ctr still points at the freed block */
	} else if (!strcmp(line, "TOUCH")) {
		if (ctr)
			ctr->hits++;
		free(note);
		note = calloc(1, sizeof *note);
	} else if (!strcmp(line, "RECYCLE")) {
		if (name) {
			free(name);
			name[0] = 'x'; /* the bug: written after its free */
			name = malloc(100);
		}
	} else {
		reply("ERR expected OPEN, CLOSE, TOUCH or RECYCLE\n");
		return;
	}
	reply("OK\n");
}

int main(void)
{
	session = calloc(1, sizeof *session);
	return serve();
}

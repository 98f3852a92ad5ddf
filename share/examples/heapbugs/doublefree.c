/*
 * doublefree.c — double free, only in some orders.  ADD allocates an entry,
 * DROP frees it but forgets to clear the pointer, FLUSH frees whatever the
 * pointer holds.  ADD, DROP, FLUSH frees the entry twice (INV-15).  A
 * session block of the same size class stays live, so the entry's chunk is
 * not released between the two frees.  Shortest: ADD, DROP, FLUSH.
 */
#include "lines.h"

char *session; /* global: the compiler may not drop its malloc */
static char *entry;

static void command(const char *line)
{
	if (!strcmp(line, "ADD")) {
		if (!entry)
			entry = malloc(40);
	} else if (!strcmp(line, "DROP")) {
		free(entry); /* the bug: entry still points at the freed block */
	} else if (!strcmp(line, "FLUSH")) {
		free(entry);
		entry = NULL;
	} else {
		reply("ERR expected ADD, DROP or FLUSH\n");
		return;
	}
	reply("OK\n");
}

int main(void)
{
	session = malloc(40);
	return serve();
}

/*
 * foreignfree.c — free of a pointer malloc never returned, only in some
 * orders.  DEFAULT points the name at a static default string, SET at a
 * heap copy, CLEAR frees the name.  DEFAULT then CLEAR frees the static
 * string (INV-16).  Shortest: DEFAULT, CLEAR.
 */
#include "lines.h"

static char default_name[16] = "anonymous";
static char *name;

static void command(const char *line)
{
	if (!strcmp(line, "DEFAULT")) {
		name = default_name;
	} else if (!strcmp(line, "SET")) {
		name = malloc(8);
		if (name)
			memcpy(name, "alice", 6);
	} else if (!strcmp(line, "CLEAR")) {
		free(name); /* the bug: the default was never malloc'd */
		name = NULL;
	} else {
		reply("ERR expected DEFAULT, SET or CLEAR\n");
		return;
	}
	reply("OK\n");
}

int main(void)
{
	return serve();
}

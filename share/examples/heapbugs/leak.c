/*
 * leak.c — a lost block, only in some orders.  OPEN allocates a connection
 * buffer into `conn`; the bug: a second OPEN overwrites the pointer without
 * freeing the first buffer, which is then reachable from nowhere.  CLOSE
 * frees it properly; QUIT closes what is open and exits.  The `log` block
 * from start-up is never freed but stays reachable from its global until
 * exit, which `property leak` accepts and `property leak reachable` does
 * not.  Shortest leak: OPEN 1, OPEN 2, QUIT (INV-23).
 */
#include "lines.h"

char *log_buf;  /* global: live, reachable, never freed */
static char *conn;

static void command(const char *line)
{
	if (!strcmp(line, "OPEN")) {
		conn = malloc(64); /* the bug: an open conn is dropped, not freed */
		memcpy(conn, "open", 5);
	} else if (!strcmp(line, "CLOSE")) {
		free(conn);
		conn = NULL;
	} else if (!strcmp(line, "QUIT")) {
		free(conn);
		reply("BYE\n");
		exit(0);
	} else {
		reply("ERR expected OPEN, CLOSE or QUIT\n");
		return;
	}
	reply("OK\n");
}

int main(void)
{
	log_buf = malloc(32);
	return serve();
}

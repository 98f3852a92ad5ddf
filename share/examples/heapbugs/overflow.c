/*
 * overflow.c — heap overflow, only in some orders.  NEW allocates a 16-byte
 * record; WIDE switches the copy length to 24; COPY copies that many bytes
 * of a fixed pattern into the record.  Only NEW and WIDE before COPY write
 * past the block: the pool's redzone after it (INV-13) catches the state.
 * Shortest: NEW, WIDE, COPY.
 */
#include "lines.h"

static char *rec;
static size_t copy_len = 16;

static void command(const char *line)
{
	static const char pattern[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	if (!strcmp(line, "NEW")) {
		rec = malloc(16);
	} else if (!strcmp(line, "WIDE")) {
		copy_len = 24; /* the bug: no check against the record's size */
	} else if (!strcmp(line, "COPY")) {
		if (rec)
			memcpy(rec, pattern, copy_len);
	} else {
		reply("ERR expected NEW, WIDE or COPY\n");
		return;
	}
	reply("OK\n");
}

int main(void)
{
	return serve();
}

/*
 * crashkv.c — a stdin key-value store that must keep every acknowledged
 * PUT across a crash (t5410, `op LABEL crash`).  One command a line:
 *     PUT K V   set K to V, then "OK" once it is committed
 *     LIST      the keys, sorted, comma-separated, on one line
 * It keeps every pair in data.txt ("K=V" lines), read at start-up.  A PUT
 * writes the whole store to data.tmp and renames it over data.txt, so a
 * reader never sees half a file.
 *
 * Built with -DCRASHKV_BUG it has the classic durability bug: data.tmp is
 * not fsync'd before the rename (only the directory is, after it), so
 * after a power loss data.txt can name a file whose data never reached
 * the disk: every key is gone.  The correct order: fsync data.tmp, rename,
 * fsync the directory.  `crashkv osync` opens data.tmp with O_SYNC instead
 * of syncing it (just as durable).  Nothing is malloc'd, stdin is read with read(2).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXKEYS 64

static char keys[MAXKEYS][32], vals[MAXKEYS][32];
static int nkeys;
static int osync; /* `crashkv osync`: O_SYNC writes instead of an fsync */

static void say(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		_exit(3);
}

static void load(void)
{
	char buf[4096];
	int fd = open("data.txt", O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	for (char *l = strtok(buf, "\n"); l && nkeys < MAXKEYS; l = strtok(NULL, "\n")) {
		char *eq = strchr(l, '=');
		if (!eq || eq - l >= 32 || strlen(eq + 1) >= 32)
			continue;
		*eq = 0;
		strcpy(keys[nkeys], l);
		strcpy(vals[nkeys++], eq + 1);
	}
}

static void commit(void)
{
	char out[4096];
	size_t o = 0;
	for (int i = 0; i < nkeys; i++)
		o += (size_t)snprintf(out + o, sizeof out - o, "%s=%s\n", keys[i], vals[i]);
	int fd = open("data.tmp", O_WRONLY | O_CREAT | O_TRUNC | (osync ? O_SYNC : 0), 0644);
	if (fd < 0 || write(fd, out, o) != (ssize_t)o)
		_exit(4);
#ifndef CRASHKV_BUG
	if (!osync && fsync(fd) < 0)
		_exit(4);
#endif
	close(fd);
	if (rename("data.tmp", "data.txt") < 0)
		_exit(4);
	int dir = open(".", O_RDONLY | O_DIRECTORY);
	if (dir < 0 || fsync(dir) < 0)
		_exit(4);
	close(dir);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void command(char *line)
{
	char *cmd = strtok(line, " "), *k = strtok(NULL, " "), *v = strtok(NULL, " ");
	if (cmd && !strcmp(cmd, "PUT") && k && v && strlen(k) < 32 && strlen(v) < 32) {
		int i = 0;
		while (i < nkeys && strcmp(keys[i], k))
			i++;
		if (i == MAXKEYS) {
			say("FULL\n");
			return;
		}
		strcpy(keys[i], k);
		strcpy(vals[i], v);
		nkeys += i == nkeys;
		commit();
		say("OK\n");
	} else if (cmd && !strcmp(cmd, "LIST")) {
		char sorted[MAXKEYS][32], out[MAXKEYS * 33 + 2] = "";
		memcpy(sorted, keys, sizeof sorted);
		qsort(sorted, (size_t)nkeys, sizeof sorted[0], cmp);
		for (int i = 0; i < nkeys; i++) {
			strcat(out, i ? "," : "");
			strcat(out, sorted[i]);
		}
		strcat(out, "\n");
		say(out);
	} else
		say("ERR\n");
}

int main(int argc, char **argv)
{
	osync = argc > 1 && !strcmp(argv[1], "osync");
	load();
	char line[256];
	size_t len = 0;
	char c;
	while (read(0, &c, 1) == 1) {
		if (c != '\n') {
			if (len < sizeof line - 1)
				line[len++] = c;
			continue;
		}
		line[len] = 0;
		len = 0;
		command(line);
	}
	return 0;
}

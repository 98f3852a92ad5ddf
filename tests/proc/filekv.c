/*
 * filekv.c — a stdin key-value store that keeps its data on disk, not in
 * its heap (t5396, tests/bench/files.sh).  One command a line:
 *     PUT K V   set K to V          DEL K   remove K       GET K   print V
 * `filekv` keeps every pair in data.txt ("K=V" lines, rewritten whole on
 * each change; DEL of the last pair leaves it empty, and creates it when
 * missing); `filekv dir` keeps one file per key in db/ (made at start):
 * PUT writes db/K, DEL unlinks it.  `filekv pad N` first writes N bytes to
 * db/pad (the bench's large directory).  Nothing is malloc'd and stdin is
 * read with read(2), so every state has the same heap: only the files
 * tell states apart.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int dir_mode;

static void say(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		_exit(3);
}

static size_t load(char *buf, size_t cap)
{
	int fd = open("data.txt", O_RDONLY);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n > 0 ? (size_t)n : 0;
}

/* data.txt without key k's line, then "k=v" when v is not NULL. */
static void store(const char *k, const char *v)
{
	char old[4096], out[4096];
	size_t o = 0, kl = strlen(k);
	load(old, sizeof old);
	for (char *line = old, *nl; *line; line = nl) {
		nl = strchr(line, '\n');
		nl = nl ? nl + 1 : line + strlen(line);
		if (!(strncmp(line, k, kl) == 0 && line[kl] == '=') && o + (size_t)(nl - line) < sizeof out) {
			memcpy(out + o, line, (size_t)(nl - line));
			o += (size_t)(nl - line);
		}
	}
	if (v)
		o += (size_t)snprintf(out + o, sizeof out - o, "%s=%s\n", k, v);
	int fd = open("data.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, out, o) != (ssize_t)o)
		_exit(4);
	close(fd);
}

static void command(char *line)
{
	char *cmd = strtok(line, " "), *k = strtok(NULL, " "), *v = strtok(NULL, " ");
	char path[300], buf[4096];
	if (!cmd || !k) {
		say("ERR\n");
	} else if (!strcmp(cmd, "PUT") && v) {
		if (dir_mode) {
			snprintf(path, sizeof path, "db/%s", k);
			int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || write(fd, v, strlen(v)) < 0)
				_exit(4);
			close(fd);
		} else
			store(k, v);
		say("OK\n");
	} else if (!strcmp(cmd, "DEL")) {
		if (dir_mode) {
			snprintf(path, sizeof path, "db/%s", k);
			unlink(path);
		} else
			store(k, NULL);
		say("OK\n");
	} else if (!strcmp(cmd, "GET")) {
		size_t kl = strlen(k);
		load(buf, sizeof buf);
		for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
			if (!strncmp(l, k, kl) && l[kl] == '=') {
				say(l + kl + 1);
				say("\n");
				return;
			}
		say("NONE\n");
	} else
		say("ERR\n");
}

int main(int argc, char **argv)
{
	dir_mode = argc > 1 && (!strcmp(argv[1], "dir") || !strcmp(argv[1], "pad"));
	if (dir_mode)
		mkdir("db", 0755);
	if (argc > 2 && !strcmp(argv[1], "pad")) {
		static char zero[65536];
		long n = atol(argv[2]);
		int fd = open("db/pad", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		for (long i = 0; fd >= 0 && i < n; i += (long)sizeof zero)
			if (write(fd, zero, n - i < (long)sizeof zero ? (size_t)(n - i) : sizeof zero) < 0)
				_exit(4);
		close(fd);
	}
	char line[512];
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

/*
 * quittarget.c — a TCP server that closes a connection when asked, as
 * IRC, SMTP and memcached servers do on QUIT (tests/t5390-closed.sh).
 * One client at a time; its lines:
 *   ADD k   adds k to a heap record's sum; answers "SUM n"
 *   QUIT    answers "BYE" and closes the connection, then waits in
 *           accept() for the next client (the server runs on)
 *   DIE     answers "BYE" and exits 0 (the server ends)
 *   SILENT  closes the connection without a word
 * A new connection answers nothing until its first line.
 *
 *   quittarget PORT
 */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct rec {
	long sum;
	unsigned clients;
};

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1])),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 4) != 0)
		return 1;
	struct rec *r = calloc(1, sizeof *r);
	for (;;) {
		int c = accept(ls, NULL, NULL);
		if (c < 0)
			continue;
		r->clients++;
		FILE *in = fdopen(c, "r");
		char line[256];
		while (in && fgets(line, sizeof line, in)) {
			char out[64];
			int n = 0;
			if (!strncmp(line, "ADD ", 4)) {
				r->sum += atol(line + 4);
				n = snprintf(out, sizeof out, "SUM %ld\n", r->sum);
			} else if (!strncmp(line, "QUIT", 4) || !strncmp(line, "DIE", 3)) {
				n = snprintf(out, sizeof out, "BYE\n");
			} else if (strncmp(line, "SILENT", 6)) {
				n = snprintf(out, sizeof out, "ERR\n");
			}
			if (n > 0 && write(c, out, (size_t)n) != n)
				break;
			if (!strncmp(line, "DIE", 3))
				return 0;
			if (!strncmp(line, "QUIT", 4) || !strncmp(line, "SILENT", 6))
				break;
		}
		if (in)
			fclose(in);
		else
			close(c);
	}
}

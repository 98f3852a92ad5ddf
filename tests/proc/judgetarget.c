/*
 * judgetarget.c — a target for t5500: two operations that leave the same
 * heap, one of them with a bad reply (as a shell given `x=1` and
 * `x=1; f 1`).  Lines come through read(2) into a static buffer and
 * replies go out through write(2): stdio's buffers live on the heap and
 * would tell the two operations apart.  Commands:
 *   set      *x = 1   -> OK
 *   setbad   *x = 1   -> f: not found
 *   inc      *x += 1  -> OK
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char line[128];

/* One line from stdin without its newline; 0 at end of input. */
static int read_line(void)
{
	size_t n = 0;
	while (n + 1 < sizeof line) {
		ssize_t r = read(0, line + n, 1);
		if (r <= 0)
			return 0;
		if (line[n] == '\n')
			break;
		n++;
	}
	line[n] = 0;
	return 1;
}

static void say(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		exit(1);
}

int main(void)
{
	int *x = malloc(sizeof *x);
	if (!x)
		return 1;
	*x = 0;
	while (read_line()) {
		if (!strcmp(line, "set")) {
			*x = 1;
			say("OK\n");
		} else if (!strcmp(line, "setbad")) {
			*x = 1;
			say("f: not found\n");
		} else if (!strcmp(line, "inc")) {
			*x += 1;
			say("OK\n");
		} else {
			say("ERR\n");
		}
	}
	free(x);
	return 0;
}

/*
 * aborts.h — for unit tests that break a structure on purpose: run a
 * function in a child process and check that cmc's own checks
 * (engine/check.h) stop it with SIGABRT, naming the broken rule.
 * Header-only, like tap.h (include that first).
 */
#ifndef CMC_TEST_ABORTS_H
#define CMC_TEST_ABORTS_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run fn(arg) in a child with stderr captured: its wait status, and the
 * first bytes of its stderr in err. */
static int in_child(void (*fn)(void *), void *arg, char *err, size_t errlen)
{
	int pfd[2];
	if (pipe(pfd) < 0)
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		dup2(pfd[1], 2);
		signal(SIGABRT, SIG_DFL);
		fn(arg);
		_exit(0);
	}
	close(pfd[1]);
	size_t n = 0;
	ssize_t k;
	while (n + 1 < errlen && (k = read(pfd[0], err + n, errlen - 1 - n)) > 0)
		n += (size_t)k;
	err[n] = 0;
	close(pfd[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	return status;
}

/* One TAP line: fn(arg) aborts with cmc's check message naming `rule`. */
static void aborts(void (*fn)(void *), void *arg, const char *rule, const char *what)
{
	char err[2048];
	int status = in_child(fn, arg, err, sizeof err);
	bool aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
	ok(aborted && strstr(err, "cmc: internal check failed: ") && strstr(err, rule),
	   "%s: aborts naming \"%s\"", what, rule);
	if (!aborted || !strstr(err, rule))
		printf("# status %#x, stderr: %s\n", status, err);
}

#endif

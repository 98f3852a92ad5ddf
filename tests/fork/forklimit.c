/*
 * forklimit.c — the machine's own floor for one fork-snapshot transition,
 * for tests/bench/process.sh: fork a child that waits on a fresh pipe,
 * send it one byte, wait for its one-byte answer, kill and reap it.  Prints
 * the median microseconds of N rounds.  Usage: forklimit N [HEAP]: with
 * HEAP (bytes, default 1 MiB) of heap written once, of which the child
 * changes one page (tests/bench/heapsize.sh: the floor as the heap grows).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	if (n < 1)
		n = 1;
	double *t = malloc((size_t)n * sizeof *t);
	/* a little heap, like a small target */
	size_t hsize = argc > 2 ? strtoul(argv[2], NULL, 0) : 1 << 20;
	if (hsize < 4096)
		hsize = 4096;
	char *heap = malloc(hsize);
	if (!heap)
		return 1;
	for (size_t i = 0; i < hsize; i += 4096)
		heap[i] = (char)i;
	for (int i = 0; i < n; i++) {
		int in[2], out[2];
		char c = 'x';
		if (pipe(in) < 0 || pipe(out) < 0)
			return 1;
		double t0 = now();
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			heap[hsize / 2] = c; /* one page changed, as by an operation */
			if (read(in[0], &c, 1) == 1 && write(out[1], &c, 1) == 1)
				pause();
			_exit(0);
		}
		if (write(in[1], &c, 1) != 1 || read(out[0], &c, 1) != 1)
			return 1;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		t[i] = now() - t0;
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
	}
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	printf("%.1f\n", t[n / 2] * 1e6);
	free(heap);
	free(t);
	return 0;
}

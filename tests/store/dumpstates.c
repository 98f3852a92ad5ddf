/*
 * dumpstates.c — every state of a stored run, one line each, in id order,
 * for comparing two runs state by state (tests/t5500-reach.sh compares
 * the fork executor's run with the replay executor's):
 *
 *   id  trace  status  fingerprint  raw  canonical  fault  successors
 *
 * (status: ok, violation or fault, and "exit N" or "signal N" when the
 * target ended there)
 * separated by tabs; trace is "/label@state/..." from the initial state,
 * successors " label>state ..." in the order stored; a zero fingerprint
 * prints as "-".  Usage: store-dump DB [RUN] (default: the latest run).
 * Exit 0, or 2 when the database or run cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

static void fp(eng_fp f)
{
	char buf[33];
	if (f.hi == 0 && f.lo == 0)
		fputs("-", stdout);
	else
		fputs(eng_fp_hex(f, buf), stdout);
}

/* a label or fault on one line: control bytes print as '?' */
static void text(const char *t)
{
	for (; *t; t++)
		putchar((unsigned char)*t < 0x20 || *t == 0x7f ? '?' : *t);
}

/* "/label@id" for each step from the initial state to id */
static void trace(store *st, int64_t run, uint32_t id, int depth)
{
	store_state s;
	if (depth > 100000 || store_state_get(st, run, id, &s) != 0)
		return;
	if (s.label != NULL) {
		trace(st, run, s.parent, depth + 1);
		putchar('/');
		text(s.label);
		printf("@%u", s.id);
	}
	store_state_clear(&s);
}

int main(int argc, char **argv)
{
	char err[512];
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: store-dump DB [RUN]\n");
		return 2;
	}
	store_opts o = {.readonly = true};
	store *st = store_open(argv[1], &o, err, sizeof err);
	if (st == NULL) {
		fprintf(stderr, "store-dump: %s\n", err);
		return 2;
	}
	int64_t run = argc == 3 ? strtoll(argv[2], NULL, 10) : store_latest_run(st);
	store_run r;
	if (run <= 0 || store_run_get(st, run, &r) != 0) {
		fprintf(stderr, "store-dump: %s: no such run\n", argv[1]);
		store_close(st);
		return 2;
	}
	store_run_clear(&r);
	for (uint32_t id = 0;; id++) {
		store_state s;
		if (store_state_get(st, run, id, &s) != 0)
			break;
		printf("%u\t", id);
		trace(st, run, id, 0);
		printf("\t%s", s.status == STORE_OK ? "ok" : s.status == STORE_VIOLATION ? "violation" : "fault");
		if (s.obs_flags & ENG_OBS_EXITED)
			printf(" exit %d", s.exit_status);
		if (s.obs_flags & ENG_OBS_SIGNALED)
			printf(" signal %d", s.term_signal);
		putchar('\t');
		fp(s.fp);
		putchar('\t');
		fp(s.raw_fp);
		putchar('\t');
		fp(s.canon_fp);
		putchar('\t');
		text(s.fault != NULL ? s.fault : "-");
		putchar('\t');
		store_edge *e = NULL;
		size_t n = 0;
		if (store_successors(st, run, id, &e, &n) == 0) {
			for (size_t i = 0; i < n; i++)
			{
				putchar(' ');
				text(e[i].label);
				printf(">%u", e[i].to);
			}
			store_edges_free(e, n);
		}
		putchar('\n');
		store_state_clear(&s);
	}
	store_close(st);
	return 0;
}

/*
 * replay-verdict.c — what a replay came to, said in one line, and the exit
 * status `cmc replay` gives it.  The workbench's replay view says the same
 * line, so the command and the screen never disagree about a proof.
 *
 * Precedence: a frontend error; a property failing (the expected one, or
 * any when nothing was expected); a step that diverged or could not be
 * taken; an expected violation that never came; else nothing violated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "engine/util.h"

/* "step N (LABEL)", the label escaped; step 0 is the initial state. */
static void where(FILE *m, const eng_trace *t, size_t step)
{
	if (step == 0 || step > t->len) {
		fputs("the initial state", m);
		return;
	}
	fprintf(m, "step %zu (", step);
	tui_escape(m, t->labels[step - 1], strlen(t->labels[step - 1]), 64);
	fputc(')', m);
}

void tui_say_not_repeated(FILE *m, size_t step)
{
	fputs("the target did not repeat itself: run again with the same operations, ", m);
	if (step == SIZE_MAX)
		fputs("it did not reach the states it reached the first time", m);
	else if (step == 0)
		fputs("it started in another initial state than the first time", m);
	else
		fprintf(m, "it reached another state at step %zu than the first time", step);
	fputs(".  Something outside cmc's control differs between runs (threads, a timer or "
	      "the real clock, a file outside its working directory, another process): see "
	      "\"A deterministic environment\" in share/scenario.md", m);
}

int tui_replay_verdict(const eng_trace *t, size_t steps, const eng_replay_result *r,
		       const char *expect, char *buf, size_t len)
{
	char *text = NULL;
	size_t tlen = 0;
	FILE *m = open_memstream(&text, &tlen);
	if (!m)
		eng_die("out of memory");
	int code;
	char a[33], b[33];
	if (r->error) {
		code = TUI_EXIT_USAGE;
		fputs("replay failed: ", m);
		tui_escape(m, r->why, strlen(r->why), 400);
	} else if (r->violated != SIZE_MAX && expect && strcmp(r->property, expect) != 0) {
		code = TUI_EXIT_NOT_REPRODUCED;
		fputs("did not reproduce: expected ", m);
		tui_escape(m, expect, strlen(expect), 128);
		fputs(", but ", m);
		tui_escape(m, r->property, strlen(r->property), 128);
		fputs(" fails at ", m);
		where(m, t, r->violated);
		fputs(": ", m);
		tui_escape(m, r->message, strlen(r->message), 300);
	} else if (r->violated != SIZE_MAX) {
		code = TUI_EXIT_VIOLATION;
		fputs("violation reproduced: ", m);
		tui_escape(m, r->property, strlen(r->property), 128);
		fputs(r->violated ? " at " : " in ", m);
		where(m, t, r->violated);
		fputs(": ", m);
		tui_escape(m, r->message, strlen(r->message), 300);
		if (r->fault)
			fputs(" (the target faulted)", m);
		if (r->diverged != SIZE_MAX && r->diverged <= r->violated) {
			fputs("; but the target did not repeat itself: ", m);
			tui_escape(m, r->why, strlen(r->why), 400);
		}
		if (r->violated < steps)
			fprintf(m, "; the %zu step%s after it %s not replayed", steps - r->violated,
				steps - r->violated == 1 ? "" : "s", steps - r->violated == 1 ? "was" : "were");
	} else if (r->diverged != SIZE_MAX) {
		code = TUI_EXIT_NOT_REPRODUCED;
		fputs("did not reproduce: ", m);
		tui_escape(m, r->why, strlen(r->why), 400);
		if (r->how == ENG_STEP_DIVERGED)
			fprintf(m, " (expected %s, actual %s)", eng_fp_hex(r->expected, a),
				eng_fp_hex(r->actual, b));
	} else if (expect) {
		code = TUI_EXIT_NOT_REPRODUCED;
		fprintf(m, "did not reproduce: no property fails at %s%zu step%s (expected ",
			steps == 1 ? "its " : "any of the ", steps, tui_s(steps));
		tui_escape(m, expect, strlen(expect), 128);
		fputc(')', m);
	} else {
		code = TUI_EXIT_OK;
		if (steps)
			fprintf(m, "no violation at %s%zu step%s", steps == 1 ? "its " : "any of the ", steps,
				tui_s(steps));
		else
			fputs("no violation in the initial state (no step to replay)", m);
	}
	fclose(m);
	snprintf(buf, len, "%s", text ? text : "");
	free(text);
	return code;
}

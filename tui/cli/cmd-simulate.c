/*
 * cmd-simulate.c — `cmc simulate`: seeded random walks, for state spaces too
 * large to exhaust.  The same seed gives the same walks.  Nothing is
 * stored.  Exit 0, 1 on a violation, 2 on an error, 128 + the signal when
 * the user's SIGINT, SIGTERM or SIGHUP stopped it (the targets are killed
 * and what was found is reported).
 */
#include <getopt.h>
#include <string.h>

#include "cmd.h"
#include "opts.h"

extern const struct tui_cmd tui_cmd_simulate;

struct sim_args {
	eng_sim_opts so;
	uint64_t depth;
	bool json;
};

#define A struct sim_args
static const struct tui_option sim_options[] = {
	TUI_OPT_COUNT(0, "walks", A, so.walks, "N", 0, 0, "a count", -1, "number of walks (default 100)"),
	TUI_OPT_COUNT(0, "depth", A, depth, "N", 1, UINT32_MAX, "a positive count", -1,
		      "steps per walk, initial state included (default 100)"),
	TUI_OPT_COUNT(0, "seed", A, so.seed, "S", 0, 0, "a number", -1,
		      "seed; the same seed gives the same walks (default 1)"),
	TUI_OPT_BOOL(0, "keep-going", A, so.keep_going,
		     "report every violation instead of stopping at the first"),
	TUI_OPT_BOOL(0, "json", A, json, "print one JSON object"),
	TUI_OPT_END(),
};
#undef A

static int sim_exec(int argc, char **argv)
{
	struct sim_args a = {.so = {.walks = 100, .depth = 100, .seed = 1}, .depth = 100};
	int rc = tui_options_parse(&tui_cmd_simulate, argc, argv, &a);
	if (rc)
		return rc;
	eng_sim_opts so = a.so;
	so.depth = (uint32_t)a.depth;
	bool json = a.json;
	if (optind != argc - 1)
		return tui_usage_error(&tui_cmd_simulate, "name one model or scenario");
	const char *target = argv[optind];

	eng_opts o;
	eng_opts_default(&o);
	char err[1024];
	eng_frontend *fe = tui_open_target(target, &o, err, sizeof err);
	if (!fe) {
		fprintf(stderr, "cmc simulate: %s\n", err);
		return TUI_EXIT_USAGE;
	}
	tui_report *rep = tui_report_new(fe);
	tui_report_walks(rep, so.walks, so.depth);
	eng_listener ls[2] = {tui_report_listener(rep), tui_progress_listener()};
	eng_stats st;
	/* SIGINT, SIGTERM, SIGHUP: the walks stop after the step in progress
	 * (a process target's wait returns at once); a target's own signal
	 * is its fault (tui/cli/signals.c). */
	tui_signals_stop(NULL);
	so.stop = tui_signals_flag();
	rc = eng_simulate(fe, &so, ls, 2, &st);
	int sig = tui_signals_which();
	const char *error = NULL;
	if (rc < 0 && !sig) /* an interrupted target's op fails: not an error */
		error = fe->ops->last_error ? fe->ops->last_error(fe) : "the frontend failed";
	tui_report_interrupted(rep, sig);
	tui_report_print(rep, &st, target, json, error, stdout);
	rc = error ? TUI_EXIT_USAGE : sig ? TUI_EXIT_SIGNAL(sig)
	   : tui_report_violations(rep) ? TUI_EXIT_VIOLATION : TUI_EXIT_OK;
	if (sig)
		fprintf(stderr, "cmc simulate: interrupted by %s after %llu step%s, %llu state%s (nothing is stored)\n",
			tui_signal_name(sig), (unsigned long long)st.transitions, tui_s(st.transitions),
			(unsigned long long)st.distinct, tui_s(st.distinct));
	tui_report_free(rep);
	fe->ops->destroy(fe);
	return rc;
}

const struct tui_cmd tui_cmd_simulate = {
	.name = "simulate",
	.usage = "simulate [--walks N] [--depth N] [--seed S] [--json] [--keep-going] MODEL|SCENARIO",
	.summary = "check random walks (reproducible by seed) instead of every state",
	.options = sim_options,
	.help_col = 18,
	.exec = sim_exec,
};

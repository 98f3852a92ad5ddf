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

enum { O_JSON = 256, O_WALKS, O_DEPTH, O_SEED, O_KEEPGOING };

static const struct option sim_longopts[] = {
	{"json", no_argument, NULL, O_JSON},
	{"walks", required_argument, NULL, O_WALKS},
	{"depth", required_argument, NULL, O_DEPTH},
	{"seed", required_argument, NULL, O_SEED},
	{"keep-going", no_argument, NULL, O_KEEPGOING},
	{0, 0, 0, 0},
};

static int sim_exec(int argc, char **argv)
{
	eng_sim_opts so = {.walks = 100, .depth = 100, .seed = 1};
	bool json = false;
	uint64_t v;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", sim_longopts, NULL)) != -1) {
		switch (c) {
		case O_JSON: json = true; break;
		case O_KEEPGOING: so.keep_going = true; break;
		case O_WALKS:
			if (!tui_parse_u64(optarg, &so.walks))
				return tui_usage_error(&tui_cmd_simulate, "--walks: expected a count, got '%s'", optarg);
			break;
		case O_DEPTH:
			if (!tui_parse_u64(optarg, &v) || v == 0 || v > UINT32_MAX)
				return tui_usage_error(&tui_cmd_simulate, "--depth: expected a positive count, got '%s'", optarg);
			so.depth = (uint32_t)v;
			break;
		case O_SEED:
			if (!tui_parse_u64(optarg, &so.seed))
				return tui_usage_error(&tui_cmd_simulate, "--seed: expected a number, got '%s'", optarg);
			break;
		default:
			return tui_usage_error(&tui_cmd_simulate, "unknown option '%s'", argv[optind - 1]);
		}
	}
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
	eng_listener ls[2] = {tui_report_listener(rep), tui_progress_listener()};
	eng_stats st;
	/* SIGINT, SIGTERM, SIGHUP: the walks stop after the step in progress
	 * (a process target's wait returns at once); a target's own signal
	 * is its fault (tui/cli/signals.c). */
	tui_signals_stop(NULL);
	so.stop = tui_signals_flag();
	int rc = eng_simulate(fe, &so, ls, 2, &st);
	int sig = tui_signals_which();
	const char *error = NULL;
	if (rc < 0 && !sig) /* an interrupted target's op fails: not an error */
		error = fe->ops->last_error ? fe->ops->last_error(fe) : "the frontend failed";
	tui_report_interrupted(rep, sig);
	tui_report_print(rep, &st, target, json, error, stdout);
	rc = error ? TUI_EXIT_USAGE : sig ? TUI_EXIT_SIGNAL(sig)
	   : tui_report_violations(rep) ? TUI_EXIT_VIOLATION : TUI_EXIT_OK;
	if (sig)
		fprintf(stderr, "cmc simulate: interrupted by %s after %llu steps, %llu states (nothing is stored)\n",
			tui_signal_name(sig), (unsigned long long)st.transitions, (unsigned long long)st.distinct);
	tui_report_free(rep);
	fe->ops->destroy(fe);
	return rc;
}

const struct tui_cmd tui_cmd_simulate = {
	.name = "simulate",
	.usage = "simulate [--walks N] [--depth N] [--seed S] [--json] [--keep-going] MODEL|SCENARIO",
	.summary = "check random walks (reproducible by seed) instead of every state",
	.help = "  --walks N       number of walks (default 100)\n"
		"  --depth N       steps per walk, initial state included (default 100)\n"
		"  --seed S        seed; the same seed gives the same walks (default 1)\n"
		"  --keep-going    report every violation instead of stopping at the first\n"
		"  --json          print one JSON object\n",
	.exec = sim_exec,
};

/*
 * cmd-tui.c — `cmc tui [SCENARIO | MODEL | DATABASE]`: the ncurses
 * workbench.  A scenario or model starts a live session (a search with the
 * store writer attached, to ./cmc.db or --db); a database is browsed from
 * its latest run (or --run).  The workbench itself is tui/wb/.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "opts.h"
#include "wb/wb.h"

extern const struct tui_cmd tui_cmd_tui;

struct tui_args {
	const char *db;
	uint64_t run, max_depth, max_states;
	bool dfs, keep_going, no_deadlock;
	/* --hash and --set, in order: key, value */
	const char *ov_key[16], *ov_val[16];
	int nov;
};

static int add_override(const struct tui_cmd *c, struct tui_args *a, const char *key, const char *val)
{
	if (a->nov == 16)
		return tui_usage_error(c, "too many --hash/--set overrides");
	a->ov_key[a->nov] = key;
	a->ov_val[a->nov++] = val;
	return 0;
}

static int ov_hash(const struct tui_cmd *c, void *args, const char *v) { return add_override(c, args, "hash", v); }

static int ov_set(const struct tui_cmd *c, void *args, const char *arg)
{
	struct tui_args *a = args;
	if (a->nov == 16)
		return tui_usage_error(c, "too many --hash/--set overrides");
	char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return tui_usage_error(c, "--set: expected KEY=VALUE, got '%s'", arg);
	*eq = 0; /* argv's own storage: the key and the value stay in place */
	return add_override(c, a, arg, eq + 1);
}

#define A struct tui_args
static const struct tui_option tui_options[] = {
	TUI_OPT_STRING(0, "db", A, db, "FILE", "the database to write a live session to (default ./cmc.db)"),
	TUI_OPT_COUNT(0, "run", A, run, "N", 1, 0, "a run id", -1,
		      "browse run N of a database (default: the latest)"),
	TUI_OPT_BOOL(0, "dfs", A, dfs, "search depth-first (default: as the scenario says, else BFS)"),
	TUI_OPT_COUNT(0, "max-depth", A, max_depth, "N", 0, UINT32_MAX, "a count", -1,
		      "bound searches to N levels"),
	TUI_OPT_COUNT(0, "max-states", A, max_states, "N", 0, 0, "a count", -1,
		      "bound searches to N distinct states"),
	TUI_OPT_BOOL(0, "keep-going", A, keep_going, "do not stop a search at the first violation"),
	TUI_OPT_BOOL(0, "no-deadlock", A, no_deadlock, "states without successors are not violations"),
	{.type = TUI_OPT_CALLBACK_, .long_name = "hash", .arg = "raw|canonical|both|heap-graph|raw+heap-graph", .cb = ov_hash,
	 .seen = -1, .left = "--hash raw|canonical|both|heap-graph, --set KEY=VALUE",
	 .help = "scenario settings, as for `cmc check`"},
	TUI_OPT_CALLBACK(0, "set", "KEY=VALUE", ov_set, NULL),
	TUI_OPT_TEXT("Press ? in the workbench for every key.\n"),
	TUI_OPT_END(),
};
#undef A

/* A SQLite database file starts with this header. */
static bool is_database(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false; /* a FIFO would block the read */
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char h[16] = {0};
	size_t n = fread(h, 1, sizeof h, f);
	fclose(f);
	return n == 16 && memcmp(h, "SQLite format 3", 16) == 0;
}

static int tui_exec(int argc, char **argv)
{
	static struct tui_args a; /* the overrides stay pointed to by wb */
	memset(&a, 0, sizeof a);
	int rc = tui_options_parse(&tui_cmd_tui, argc, argv, &a);
	if (rc)
		return rc;
	const char *db = a.db, *arg = NULL;
	uint64_t run = a.run;
	eng_opts o;
	eng_opts_default(&o);
	bool dfs = a.dfs, kg = a.keep_going, nodl = a.no_deadlock;
	uint64_t md = a.max_depth, ms = a.max_states;
	if (argc - optind > 1)
		return tui_usage_error(&tui_cmd_tui, "one scenario, model or database at a time");
	if (optind < argc)
		arg = argv[optind];
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "cmc tui: the workbench needs a terminal: %s is not one "
				"(use `cmc check`, `cmc show` or `cmc runs` in scripts)\n",
			!isatty(STDOUT_FILENO) ? "standard output" : "standard input");
		return TUI_EXIT_USAGE;
	}
	const char *target = NULL;
	if (arg && is_database(arg)) {
		if (db)
			return tui_usage_error(&tui_cmd_tui, "'%s' is a database; --db names another", arg);
		db = arg;
	} else if (arg) {
		target = arg;
	} else if (!db) {
		if (access(STORE_DEFAULT_PATH, R_OK) != 0)
			return tui_usage_error(&tui_cmd_tui, "what to open? name a scenario, a model or a "
							     "database (no ./%s here)", STORE_DEFAULT_PATH);
	}
	if (!db)
		db = STORE_DEFAULT_PATH;
	if (target && run)
		return tui_usage_error(&tui_cmd_tui, "--run picks a run of a database, not of a scenario");

	if (dfs)
		o.order = ENG_DFS;
	o.max_depth = (uint32_t)md;
	o.max_states = ms;
	o.keep_going = kg;
	if (nodl)
		o.check_deadlock = false;

	static struct wb wb; /* large; one per process */
	memset(&wb, 0, sizeof wb);
	for (int i = 0; i < a.nov; i++) {
		wb.ov_key[i] = a.ov_key[i];
		wb.ov_val[i] = a.ov_val[i];
	}
	wb.nov = a.nov;
	char err[1024];
	if (wb_session_open(&wb, target, db, (int64_t)run, &o, err, sizeof err) < 0) {
		fprintf(stderr, "cmc tui: %s\n", err);
		return TUI_EXIT_USAGE;
	}
	tui_signals_stop(wb.search); /* Ctrl-C: stop the search, then leave */
	wb_main(&wb);
	wb_session_close(&wb);
	return TUI_EXIT_OK;
}

const struct tui_cmd tui_cmd_tui = {
	.name = "tui",
	.usage = "tui [OPTIONS] [SCENARIO | MODEL | DATABASE]",
	.summary = "the workbench: step through schedules, browse states, replay counterexamples",
	.options = tui_options,
	.help_col = 20,
	.options_first = true,
	.exec = tui_exec,
	.terminal = true,
};

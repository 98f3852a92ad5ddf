/*
 * cmd-tui.c — `cmc tui [SCENARIO | MODEL | DATABASE]`: the ncurses
 * workbench.  A scenario or model starts a live session (a search with the
 * store writer attached, to ./cmc.db or --db); a database is browsed from
 * its latest run (or --run).  The workbench itself is tui/wb-*.c and
 * tui/view-*.c.
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

enum { O_DB = 256, O_RUN, O_DFS, O_MAXDEPTH, O_MAXSTATES, O_KEEPGOING, O_NODEADLOCK, O_HASH,
       O_SET };

static const struct option tui_longopts[] = {
	{"db", required_argument, NULL, O_DB},
	{"run", required_argument, NULL, O_RUN},
	{"dfs", no_argument, NULL, O_DFS},
	{"max-depth", required_argument, NULL, O_MAXDEPTH},
	{"max-states", required_argument, NULL, O_MAXSTATES},
	{"keep-going", no_argument, NULL, O_KEEPGOING},
	{"no-deadlock", no_argument, NULL, O_NODEADLOCK},
	{"hash", required_argument, NULL, O_HASH},
	{"set", required_argument, NULL, O_SET},
	{0, 0, 0, 0},
};

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
	const char *db = NULL, *arg = NULL;
	uint64_t run = 0, v;
	eng_opts o;
	eng_opts_default(&o);
	bool dfs = false, kg = false, nodl = false;
	uint64_t md = 0, ms = 0;
	const char *ov_key[16], *ov_val[16];
	int nov = 0;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", tui_longopts, NULL)) != -1) {
		switch (c) {
		case O_DB: db = optarg; break;
		case O_RUN:
			if (!tui_parse_u64(optarg, &run) || run == 0)
				return tui_usage_error(&tui_cmd_tui, "--run: expected a run id, got '%s'", optarg);
			break;
		case O_DFS: dfs = true; break;
		case O_MAXDEPTH:
			if (!tui_parse_u64(optarg, &v) || v > UINT32_MAX)
				return tui_usage_error(&tui_cmd_tui, "--max-depth: expected a count, got '%s'", optarg);
			md = v;
			break;
		case O_MAXSTATES:
			if (!tui_parse_u64(optarg, &v))
				return tui_usage_error(&tui_cmd_tui, "--max-states: expected a count, got '%s'", optarg);
			ms = v;
			break;
		case O_KEEPGOING: kg = true; break;
		case O_NODEADLOCK: nodl = true; break;
		case O_HASH:
		case O_SET: {
			if (nov == 16)
				return tui_usage_error(&tui_cmd_tui, "too many --hash/--set overrides");
			char *eq = c == O_SET ? strchr(optarg, '=') : NULL;
			if (c == O_SET && (!eq || eq == optarg))
				return tui_usage_error(&tui_cmd_tui, "--set: expected KEY=VALUE, got '%s'", optarg);
			if (eq)
				*eq = 0;
			ov_key[nov] = c == O_SET ? optarg : "hash";
			ov_val[nov++] = c == O_SET ? eq + 1 : optarg;
			break;
		}
		default:
			return tui_usage_error(&tui_cmd_tui, "unknown option '%s'", argv[optind - 1]);
		}
	}
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
	for (int i = 0; i < nov; i++) {
		wb.ov_key[i] = ov_key[i];
		wb.ov_val[i] = ov_val[i];
	}
	wb.nov = nov;
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
	.help = "  --db FILE         the database to write a live session to (default ./cmc.db)\n"
		"  --run N           browse run N of a database (default: the latest)\n"
		"  --dfs             search depth-first (default: as the scenario says, else BFS)\n"
		"  --max-depth N     bound searches to N levels\n"
		"  --max-states N    bound searches to N distinct states\n"
		"  --keep-going      do not stop a search at the first violation\n"
		"  --no-deadlock     states without successors are not violations\n"
		"  --hash raw|canonical|both, --set KEY=VALUE\n"
		"                    scenario settings, as for `cmc check`\n"
		"Press ? in the workbench for every key.\n",
	.exec = tui_exec,
	.terminal = true,
};

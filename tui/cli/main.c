/*
 * main.c — the `cmc` command: dispatch to a subcommand from the table,
 * --help, --version and `cmc help CMD`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

extern const struct tui_cmd tui_cmd_check, tui_cmd_simulate, tui_cmd_replay, tui_cmd_models,
	tui_cmd_help;
extern const struct tui_cmd tui_cmd_runs, tui_cmd_show, tui_cmd_trace, tui_cmd_compare, tui_cmd_diff;
extern const struct tui_cmd tui_cmd_graph, tui_cmd_heap;
extern const struct tui_cmd tui_cmd_invariants;
extern const struct tui_cmd tui_cmd_tui;

const struct tui_cmd *const tui_cmd_table[] = {
	&tui_cmd_check,
	&tui_cmd_simulate,
	&tui_cmd_replay,
	&tui_cmd_models,
	&tui_cmd_runs,
	&tui_cmd_show,
	&tui_cmd_trace,
	&tui_cmd_compare,
	&tui_cmd_diff,
	&tui_cmd_graph,
	&tui_cmd_heap,
	&tui_cmd_invariants,
	&tui_cmd_tui,
	&tui_cmd_help,
	NULL,
};

const struct tui_cmd *tui_cmd_find(const char *name)
{
	for (size_t i = 0; tui_cmd_table[i]; i++)
		if (strcmp(tui_cmd_table[i]->name, name) == 0)
			return tui_cmd_table[i];
	return NULL;
}

int tui_usage_error(const struct tui_cmd *c, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "cmc %s: ", c->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: cmc %s\n", c->usage);
	return TUI_EXIT_USAGE;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: cmc COMMAND [OPTIONS] [ARGS]\n\n"
		     "cmc model-checks C programs and C step-function models.\n\n"
		     "Commands:\n");
	for (size_t i = 0; tui_cmd_table[i]; i++)
		fprintf(out, "  %-10s %s\n", tui_cmd_table[i]->name, tui_cmd_table[i]->summary);
	fprintf(out, "\n`cmc help COMMAND` shows a command's options; `man cmc` has the rest.\n"
		     "Exit status: 0 nothing violated, 1 a property is violated, 2 usage or input error.\n");
}

static int help_exec(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	const struct tui_cmd *c = tui_cmd_find(argv[1]);
	if (!c) {
		fprintf(stderr, "cmc help: no command '%s'\n", argv[1]);
		return TUI_EXIT_USAGE;
	}
	printf("usage: cmc %s\n\n%s\n", c->usage, c->summary);
	if (c->options && c->options[0].type != TUI_OPT_END_) {
		putchar('\n');
		tui_options_help(c, stdout);
	}
	return 0;
}

const struct tui_cmd tui_cmd_help = {
	.name = "help",
	.usage = "help [COMMAND]",
	.summary = "show the commands, or one command's options",
	.exec = help_exec,
};

int main(int argc, char **argv)
{
	tui_signals_init(); /* before any thread: they all inherit its mask */
	const struct tui_cmd *c = argc >= 2 ? tui_cmd_find(argv[1]) : NULL;
	tui_escape_streams(!c || !c->terminal);
	if (argc < 2) {
		usage(stderr);
		return TUI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("cmc %s\n", CMC_VERSION);
		return 0;
	}
	if (!c) {
		fprintf(stderr, "cmc: '%s' is not a command; see cmc --help\n", argv[1]);
		return TUI_EXIT_USAGE;
	}
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			char *hv[] = {"help", (char *)c->name, NULL};
			return help_exec(2, hv);
		}
	return c->exec(argc - 1, argv + 1);
}

/*
 * storeopts.c — the options the store-reading commands share (runs, show,
 * trace, compare, diff): --db FILE, --json, and where the command takes
 * them, --run R, --bytes and --file PATH.  One parser, so they spell and reject options
 * the same way.
 */
#include <getopt.h>

#include "storeargs.h"

int tui_store_opts_parse(const struct tui_cmd *c, int argc, char **argv, unsigned accept,
			 struct tui_store_opts *o)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'j'},
		{"run", required_argument, NULL, 'r'},
		{"bytes", no_argument, NULL, 'b'},
		{"file", required_argument, NULL, 'f'},
		{0, 0, 0, 0},
	};
	*o = (struct tui_store_opts){0};
	int ch;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (ch == 'd')
			o->db = optarg;
		else if (ch == 'j')
			o->json = true;
		else if (ch == 'r' && (accept & TUI_SO_RUN))
			o->run = optarg;
		else if (ch == 'b' && (accept & TUI_SO_BYTES))
			o->bytes = true;
		else if (ch == 'f' && (accept & TUI_SO_FILE))
			o->file = optarg;
		else
			return tui_usage_error(c, "unknown option '%s'", argv[optind - 1]);
	}
	return 0;
}

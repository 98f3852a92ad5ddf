/*
 * storeopts.c — the options of the store-reading commands (runs, show,
 * trace, compare, diff) land in one struct, tui_store_opts; each command's
 * table (opts.h) says which of them it takes and how its help puts them.
 */
#include "storeargs.h"

int tui_store_opts_parse(const struct tui_cmd *c, int argc, char **argv, struct tui_store_opts *o)
{
	*o = (struct tui_store_opts){0};
	return tui_options_parse(c, argc, argv, o);
}

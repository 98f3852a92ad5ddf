/*
 * opts.h — parsing of the option values shared by the subcommands.
 */
#ifndef CMC_TUI_OPTS_H
#define CMC_TUI_OPTS_H

#include <stdbool.h>
#include <stdint.h>

/* A count with an optional k/M/G (x1000) or, for sizes, K/M/G (x1024)
 * suffix; false when `s` is not one. */
bool tui_parse_u64(const char *s, uint64_t *out);
bool tui_parse_size(const char *s, uint64_t *out);

#endif

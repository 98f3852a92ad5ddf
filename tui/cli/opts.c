/*
 * opts.c — numbers on the command line: digits with an optional suffix,
 * nothing else (no sign, no trailing junk, no overflow).
 */
#include <errno.h>
#include <stdlib.h>

#include "opts.h"

static bool parse(const char *s, uint64_t *out, uint64_t unit)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return false;
	uint64_t mul = 1;
	switch (*end) {
	case 0: break;
	case 'k': case 'K': mul = unit; end++; break;
	case 'm': case 'M': mul = unit * unit; end++; break;
	case 'g': case 'G': mul = unit * unit * unit; end++; break;
	default: return false;
	}
	if (*end)
		return false;
	if (v && mul > UINT64_MAX / v)
		return false;
	*out = v * mul;
	return true;
}

bool tui_parse_u64(const char *s, uint64_t *out) { return parse(s, out, 1000); }
bool tui_parse_size(const char *s, uint64_t *out) { return parse(s, out, 1024); }

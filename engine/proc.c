/* proc.c — placeholder until the process executor lands. */
#include <stdio.h>

#include "proc.h"

eng_frontend *proc_open(const char *path, eng_opts *opts, char *err, size_t errlen)
{
	(void)opts;
	snprintf(err, errlen, "%s: process mode is not built yet", path);
	return NULL;
}

int proc_override(eng_frontend *fe, const char *key, const char *value, char *err,
		  size_t errlen)
{
	(void)fe; (void)value;
	snprintf(err, errlen, "%s: process mode is not built yet", key);
	return -1;
}

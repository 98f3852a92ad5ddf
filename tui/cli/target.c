/*
 * target.c — what `cmc check X` checks: X is a built-in model name, a model
 * shared object (*.so), or a scenario file (process mode).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/cmc_model.h"
#include "cmd.h"
#include "proc/proc.h"
#include "engine/util.h"

static const struct cmc_model *builtin(const char *name)
{
	for (size_t i = 0; cmc_builtin_models[i]; i++)
		if (strcmp(cmc_builtin_models[i]->name, name) == 0)
			return cmc_builtin_models[i];
	return NULL;
}

static bool is_so(const char *arg)
{
	size_t n = strlen(arg);
	return n > 3 && strcmp(arg + n - 3, ".so") == 0;
}

bool tui_target_is_model(const char *arg)
{
	return builtin(arg) || is_so(arg);
}

eng_frontend *tui_open_target(const char *arg, eng_opts *opts, char *err, size_t errlen)
{
	const struct cmc_model *m = builtin(arg);
	if (m) {
		if (eng_model_validate(m, err, errlen) < 0)
			return NULL;
		return eng_model_frontend(m);
	}
	if (is_so(arg)) {
		m = eng_model_load(arg, err, errlen);
		return m ? eng_model_frontend(m) : NULL;
	}
	/* A scenario: say why it cannot be one (a missing file may also be a
	 * mistyped model name).  Only a regular file: opening a FIFO would wait
	 * for a writer forever.  The name is printed as is; the stream escapes
	 * it (escape.c). */
	struct stat st;
	if (stat(arg, &st) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot open scenario: %s%s", arg, strerror(e),
			 e == ENOENT ? " (and no built-in model has that name; see `cmc models`)" : "");
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (expected a scenario file, a model .so "
			 "or a built-in model)", arg);
		return NULL;
	}
	return proc_open(arg, opts, err, errlen);
}

char *tui_target_text(const char *arg)
{
	if (builtin(arg)) {
		size_t n = strlen(arg) + 32;
		char *s = eng_xmalloc(n);
		snprintf(s, n, "built-in model %s", arg);
		return s;
	}
	struct stat st;
	if (stat(arg, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL; /* never wait on a FIFO */
	FILE *f = fopen(arg, "rb");
	if (!f)
		return NULL;
	if (is_so(arg)) { /* binary: record only its name */
		fclose(f);
		return eng_xstrdup(arg);
	}
	size_t cap = 4096, len = 0;
	char *s = eng_xmalloc(cap);
	size_t k;
	while ((k = fread(s + len, 1, cap - len - 1, f)) > 0) {
		len += k;
		if (cap - len < 2) {
			if (cap >= (1u << 24))
				break; /* scenarios are small; keep at most 16 MiB */
			s = eng_xrealloc(s, cap *= 2);
		}
	}
	fclose(f);
	s[len] = 0;
	return s;
}

/*
 * cmd-invariants.c — `cmc invariants`: the pool allocator's invariant
 * catalogue (preload/INVARIANTS.md) with each entry's verification status
 * DERIVED, not copied from the catalogue:
 *   runtime-checked  a validator with that id is compiled into cmc
 *                    (pool_invariants[], preload/layout/pool_check.c);
 *   model-checked    a built-in self-check model (alloc, alloc-small; not the
 *                    planted-bug one) has an invariant named by that id;
 *   tested           a test file under tests/ carries an `@inv INV-N` marker;
 *   comment-only     none of these.
 * It then compares with the "Verification:" line each catalogue entry
 * claims and exits 1 on any difference (or a validator the catalogue does
 * not list), so the document cannot drift from the code.
 */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/cmc_model.h"
#include "cmd.h"
#include "layout/pool.h"

#define INV_MAX 64

enum { ST_RUNTIME = 1, ST_TESTED = 2, ST_MODEL = 4 };

struct entry {
	char title[128];
	unsigned claimed;  /* from the catalogue's Verification line */
	bool listed;       /* present in the catalogue */
};

/* "INV-12..." -> 12, or 0 when s does not start with an id. */
static unsigned inv_num(const char *s)
{
	if (strncmp(s, "INV-", 4) != 0)
		return 0;
	char *end;
	unsigned long n = strtoul(s + 4, &end, 10);
	return end != s + 4 && n > 0 && n < INV_MAX ? (unsigned)n : 0;
}

static unsigned parse_status(const char *s)
{
	unsigned st = 0;
	if (strstr(s, "runtime-checked"))
		st |= ST_RUNTIME;
	if (strstr(s, "tested"))
		st |= ST_TESTED;
	if (strstr(s, "model-checked"))
		st |= ST_MODEL;
	return st;
}

static void status_text(unsigned st, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s%s", st & ST_RUNTIME ? "runtime-checked " : "",
		 st & ST_TESTED ? "tested " : "", st & ST_MODEL ? "model-checked " : "",
		 st ? "" : "comment-only ");
	buf[strlen(buf) - 1] = 0;
}

static int read_catalogue(const char *path, struct entry *e)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char line[1024];
	unsigned cur = 0;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "### ", 4) && (cur = inv_num(line + 4))) {
			const char *t = strstr(line, "\xe2\x80\x94 "); /* em dash */
			snprintf(e[cur].title, sizeof e[cur].title, "%.120s", t ? t + 4 : line + 4);
			e[cur].listed = true;
		} else if (cur && !strncmp(line, "Verification:", 13)) {
			e[cur].claimed = parse_status(line + 13);
			cur = 0;
		}
	}
	fclose(f);
	return 0;
}

/* Every `@inv INV-a INV-b ...` marker in one file. */
static void scan_file(const char *path, unsigned *st)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[4096];
	while (fgets(line, sizeof line, f)) {
		const char *p = strstr(line, "@inv ");
		if (!p)
			continue;
		for (p += 5; (p = strstr(p, "INV-")); p += 4) {
			unsigned n = inv_num(p);
			if (n)
				st[n] |= ST_TESTED;
		}
	}
	fclose(f);
}

static void scan_dir(const char *dir, const char *suffix, unsigned *st)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	size_t sl = strlen(suffix);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l <= sl || strcmp(de->d_name + l - sl, suffix) || de->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		scan_file(path, st);
	}
	closedir(d);
}

/* The source tree: --src, else $CMC_SRC, else the parent of the directory
 * the cmc binary lives in (build/cmc in a checkout). */
static bool find_src(const char *opt, char *out, size_t n)
{
	char probe[PATH_MAX + 32];
	if (opt || getenv("CMC_SRC")) {
		snprintf(out, n, "%s", opt ? opt : getenv("CMC_SRC"));
	} else {
		char exe[PATH_MAX];
		ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (l <= 0)
			return false;
		exe[l] = 0;
		for (int up = 0; up < 2; up++) {
			char *slash = strrchr(exe, '/');
			if (!slash)
				return false;
			*slash = 0;
		}
		snprintf(out, n, "%s", exe[0] ? exe : "/");
	}
	snprintf(probe, sizeof probe, "%s/preload/INVARIANTS.md", out);
	return access(probe, R_OK) == 0;
}

static int invariants_exec(int argc, char **argv);

struct invariants_args {
	const char *src; /* NULL: $CMC_SRC, else the parent of cmc's directory */
};

static const struct tui_option invariants_options[] = {
	TUI_OPT_STRING(0, "src", struct invariants_args, src, "DIR",
		       "source tree holding preload/INVARIANTS.md and tests/\n"
		       "(default: $CMC_SRC, else the parent of cmc's directory)"),
	TUI_OPT_TEXT("Exits 1 when the catalogue's Verification lines differ from what the\n"
		     "code and tests show."),
	TUI_OPT_END(),
};

const struct tui_cmd tui_cmd_invariants = {
	.name = "invariants",
	.usage = "invariants [--src DIR]",
	.summary = "the allocator's invariant catalogue and how each is verified",
	.options = invariants_options,
	.help_col = 14,
	.exec = invariants_exec,
};

static int invariants_exec(int argc, char **argv)
{
	struct invariants_args a = {NULL};
	int rc = tui_options_parse(&tui_cmd_invariants, argc, argv, &a);
	if (rc)
		return rc;
	const char *src_opt = a.src;
	if (optind < argc)
		return tui_usage_error(&tui_cmd_invariants, "unexpected argument '%s'", argv[optind]);

	char src[PATH_MAX], path[PATH_MAX + 64];
	if (!find_src(src_opt, src, sizeof src)) {
		fprintf(stderr, "cmc invariants: cannot find preload/INVARIANTS.md under '%s' "
			"(expected a cmc source tree: pass --src DIR or set CMC_SRC)\n", src);
		return TUI_EXIT_USAGE;
	}
	static struct entry e[INV_MAX];
	memset(e, 0, sizeof e);
	snprintf(path, sizeof path, "%s/preload/INVARIANTS.md", src);
	if (read_catalogue(path, e) < 0) {
		fprintf(stderr, "cmc invariants: cannot read '%s'\n", path);
		return TUI_EXIT_USAGE;
	}

	unsigned st[INV_MAX] = {0};
	for (unsigned i = 0; i < pool_n_invariants; i++)
		st[inv_num(pool_invariants[i].id)] |= ST_RUNTIME;
	for (size_t m = 0; cmc_builtin_models[m]; m++) {
		const struct cmc_model *md = cmc_builtin_models[m];
		size_t nl = strlen(md->name);
		if (strncmp(md->name, "alloc", 5) || (md->name[5] && md->name[5] != '-') ||
		    (nl >= 4 && !strcmp(md->name + nl - 4, "-bug")))
			continue;
		for (unsigned i = 0; i < md->n_invariants; i++)
			st[inv_num(md->invariants[i].name)] |= ST_MODEL;
	}
	snprintf(path, sizeof path, "%s/tests", src);
	scan_dir(path, ".sh", st);
	snprintf(path, sizeof path, "%s/tests/unit", src);
	scan_dir(path, ".c", st);

	int bad = 0;
	for (unsigned n = 1; n < INV_MAX; n++) {
		if (!e[n].listed) {
			if (st[n] & (ST_RUNTIME | ST_MODEL)) {
				fprintf(stderr, "cmc invariants: INV-%u is checked by the code but missing "
					"from the catalogue\n", n);
				bad = 1;
			}
			continue;
		}
		char got[64], claimed[64];
		status_text(st[n], got, sizeof got);
		status_text(e[n].claimed, claimed, sizeof claimed);
		char id[16];
		snprintf(id, sizeof id, "INV-%u", n);
		printf("%-7s %-56s %s\n", id, e[n].title, got);
		if (st[n] != e[n].claimed) {
			fprintf(stderr, "cmc invariants: %s: the catalogue says '%s', the code and tests "
				"show '%s'\n", id, claimed, got);
			bad = 1;
		}
	}
	return bad ? TUI_EXIT_VIOLATION : TUI_EXIT_OK;
}

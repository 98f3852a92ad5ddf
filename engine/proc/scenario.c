/*
 * scenario.c — the scenario file parser.  Owns the line format
 * (share/scenario.md is its reference): `key value...` lines, words or
 * "quoted strings with C escapes", # comments, blank lines.  Every error
 * names file:line and what was expected; nothing here runs the target.
 *
 * The scenario is user input (not target input) but is still parsed with
 * bounds: a line is at most PROC_LINE_MAX bytes, a string at most that too.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout/cmc_region.h"
#include "scenario.h"
#include "scratch.h"
#include "util.h"

#define PROC_LINE_MAX 65536
#define PROC_MAX_WORDS 256

/* One token: bytes (NUL-terminated too, for convenience) and its length. */
struct tok {
	char *s;
	size_t len;
	bool quoted;
};

struct parse {
	struct proc_scenario *sc;
	const char *file;
	int line;
	char *err;
	size_t errlen;
	bool raw_seen;      /* the first `raw` line replaces the default (heap) */
};

static int perr(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parse *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (p->line > 0)
		snprintf(p->err, p->errlen, "%s:%d: %s", p->file, p->line, msg);
	else
		snprintf(p->err, p->errlen, "%s: %s", p->file, msg);
	return -1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/*
 * Split a line into tokens.  Quoted strings take C escapes (\n \t \r \0 \\
 * \" \a \b \f \v \e \xHH \ooo) and may hold any byte.  Returns the number of
 * tokens or -1 (error in p).
 */
static int tokenize_at(struct parse *p, const char *line, struct tok *toks, int max, int *np)
{
	int n = 0;
	const char *c = line;
	*np = 0;
	for (;;) {
		while (*c == ' ' || *c == '\t' || *c == '\r')
			c++;
		if (*c == 0 || *c == '#' || *c == '\n')
			return n;
		if (n == max)
			return perr(p, "expected at most %d words on a line", max);
		char *buf = eng_xmalloc(strlen(c) + 1);
		size_t len = 0;
		bool quoted = false;
		if (*c == '"') {
			quoted = true;
			c++;
			for (;;) {
				if (*c == 0 || *c == '\n') {
					free(buf);
					return perr(p, "expected a closing '\"'");
				}
				if (*c == '"') {
					c++;
					break;
				}
				if (*c != '\\') {
					buf[len++] = *c++;
					continue;
				}
				c++;
				int e = *c++, v;
				switch (e) {
				case 'n': buf[len++] = '\n'; break;
				case 't': buf[len++] = '\t'; break;
				case 'r': buf[len++] = '\r'; break;
				case 'a': buf[len++] = '\a'; break;
				case 'b': buf[len++] = '\b'; break;
				case 'f': buf[len++] = '\f'; break;
				case 'v': buf[len++] = '\v'; break;
				case 'e': buf[len++] = 0x1b; break;
				case '\\': buf[len++] = '\\'; break;
				case '"': buf[len++] = '"'; break;
				case '\'': buf[len++] = '\''; break;
				case 'x':
					if (hexval(c[0]) < 0) {
						free(buf);
						return perr(p, "expected hex digits after \\x");
					}
					v = hexval(*c++);
					if (hexval(*c) >= 0)
						v = v * 16 + hexval(*c++);
					buf[len++] = (char)v;
					break;
				default:
					if (e >= '0' && e <= '7') {
						v = e - '0';
						for (int k = 0; k < 2 && *c >= '0' && *c <= '7'; k++)
							v = v * 8 + (*c++ - '0');
						if (v > 255) {
							free(buf);
							return perr(p, "expected an octal escape up to \\377");
						}
						buf[len++] = (char)v;
						break;
					}
					free(buf);
					if (e == 0 || e == '\n')
						return perr(p, "expected a closing '\"'");
					return perr(p, "expected a C escape, got '\\%c'", e);
				}
			}
			if (*c && *c != ' ' && *c != '\t' && *c != '\r' && *c != '\n' && *c != '#') {
				free(buf);
				return perr(p, "expected a space after a quoted string");
			}
		} else {
			while (*c && *c != ' ' && *c != '\t' && *c != '\r' && *c != '\n')
				buf[len++] = *c++;
		}
		buf[len] = 0;
		toks[n].s = buf;
		toks[n].len = len;
		toks[n].quoted = quoted;
		*np = ++n;
	}
}

static void free_toks(struct tok *t, int n)
{
	for (int i = 0; i < n; i++)
		free(t[i].s);
}

/* Tokens of one line; on error (-1) none are left allocated. */
static int tokenize(struct parse *p, const char *line, struct tok *toks, int max)
{
	int n;
	int r = tokenize_at(p, line, toks, max, &n);
	if (r < 0)
		free_toks(toks, n);
	return r;
}

int proc_parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k') shift = 10, end++;
	else if (*end == 'M' || *end == 'm') shift = 20, end++;
	else if (*end == 'G' || *end == 'g') shift = 30, end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -1;
	if (shift && v > (ULLONG_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * ${NAME} in target words, plugin and cwd paths: cmc's environment, and
 * ${CMC_BIN}, the directory of the running cmc program (so a scenario can
 * name the examples built beside it: ${CMC_BIN}/examples/list).  Returns a
 * new string, or NULL with the error in p.
 */
static char *expand_vars(struct parse *p, const char *w)
{
	size_t cap = strlen(w) + 1, len = 0;
	char *o = eng_xmalloc(cap);
	for (const char *q = w; *q;) {
		if (q[0] != '$' || q[1] != '{') {
			o[len++] = *q++;
			continue;
		}
		const char *end = strchr(q, '}');
		if (!end) {
			free(o);
			perr(p, "expected '}' closing '${' in '%s'", w);
			return NULL;
		}
		char name[128], self[4096];
		size_t nl = (size_t)(end - q - 2);
		if (nl == 0 || nl >= sizeof name) {
			free(o);
			perr(p, "expected a variable name inside ${} in '%s'", w);
			return NULL;
		}
		memcpy(name, q + 2, nl);
		name[nl] = 0;
		const char *val = getenv(name);
		if (!val && !strcmp(name, "CMC_BIN")) {
			ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
			self[k > 0 ? k : 0] = 0;
			char *slash = strrchr(self, '/');
			if (slash)
				*slash = 0;
			val = self;
		}
		if (!val) {
			free(o);
			perr(p, "expected environment variable %s to be set (used in '%s')", name, w);
			return NULL;
		}
		size_t vl = strlen(val);
		cap += vl;
		o = eng_xrealloc(o, cap);
		memcpy(o + len, val, vl);
		len += vl;
		q = end + 1;
	}
	o[len] = 0;
	return o;
}

/* A path relative to the scenario's directory, unless absolute. */
static char *resolve_rel(const struct proc_scenario *sc, const char *path)
{
	if (path[0] == '/')
		return eng_xstrdup(path);
	size_t n = strlen(sc->dir) + strlen(path) + 2;
	char *r = eng_xmalloc(n);
	snprintf(r, n, "%s/%s", sc->dir, path);
	return r;
}

/*
 * argv[0]: a word with a '/' is a path relative to the scenario file; a bare
 * name is looked up in PATH, as a shell would.  NULL when not found.
 */
static char *resolve_exe(const struct proc_scenario *sc, const char *word)
{
	if (strchr(word, '/')) {
		char *r = resolve_rel(sc, word);
		if (access(r, X_OK) == 0)
			return r;
		free(r);
		return NULL;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *copy = eng_xstrdup(path), *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		size_t n = strlen(d) + strlen(word) + 2;
		char *r = eng_xmalloc(n);
		snprintf(r, n, "%s/%s", d, word);
		if (access(r, X_OK) == 0) {
			free(copy);
			return r;
		}
		free(r);
	}
	free(copy);
	return NULL;
}

static bool only_word(struct parse *p, int n, int want, const char *what)
{
	if (n == want)
		return true;
	perr(p, "expected %s", what);
	return false;
}

static int set_ident(struct parse *p, const char *key, const char *v)
{
	struct proc_scenario *sc = p->sc;
	if (!strcmp(v, "raw")) sc->ident = PROC_ID_RAW;
	else if (!strcmp(v, "canonical") || !strcmp(v, "canon")) sc->ident = PROC_ID_CANON;
	else if (!strcmp(v, "both")) sc->ident = PROC_ID_BOTH;
	else if (!strcmp(v, "heap-graph")) sc->ident = PROC_ID_GRAPH;
	else if (!strcmp(v, "raw+heap-graph")) sc->ident = PROC_ID_GRAPH_BOTH;
	else if (!strcmp(v, "auto") && !strcmp(key, "merge")) sc->ident = PROC_ID_AUTO;
	else
		return perr(p, "expected '%s raw|canonical|both|heap-graph|raw+heap-graph%s', got '%s'", key,
			    strcmp(key, "merge") ? "" : "|auto", v);
	sc->ident_set = sc->ident != PROC_ID_AUTO;
	return 0;
}

static int add_prop(struct parse *p, struct tok *t, int n)
{
	struct proc_scenario *sc = p->sc;
	struct proc_prop pr = {.line = p->line};
	if (n < 2)
		return perr(p, "expected 'property crash|exit STATUS|reply LABEL PATTERN|alloc|leak [reachable]|open|closed LABEL'");
	const char *k = t[1].s;
	if (!strcmp(k, "crash")) {
		if (!only_word(p, n, 2, "'property crash'"))
			return -1;
		pr.kind = PROC_PROP_CRASH;
		pr.name = eng_xstrdup("crash");
	} else if (!strcmp(k, "exit")) {
		uint64_t v;
		if (n != 3 || parse_uint(t[2].s, 255, &v))
			return perr(p, "expected 'property exit STATUS' with STATUS 0..255");
		pr.kind = PROC_PROP_EXIT;
		pr.status = (int)v;
		pr.name = eng_xstrdup("exit");
	} else if (!strcmp(k, "reply")) {
		if (n != 4)
			return perr(p, "expected 'property reply LABEL PATTERN' (LABEL * for any op)");
		pr.kind = PROC_PROP_REPLY;
		pr.label = strcmp(t[2].s, "*") || t[2].quoted ? eng_xstrdup(t[2].s) : NULL;
		pr.pattern = eng_xstrdup(t[3].s);
		size_t nl = strlen(t[2].s) + 8;
		pr.name = eng_xmalloc(nl);
		snprintf(pr.name, nl, "reply:%s", t[2].s);
	} else if (!strcmp(k, "alloc")) {
		if (!only_word(p, n, 2, "'property alloc'"))
			return -1;
		pr.kind = PROC_PROP_ALLOC;
		pr.name = eng_xstrdup("alloc");
	} else if (!strcmp(k, "leak")) {
		if (n > 3 || (n == 3 && (t[2].quoted || strcmp(t[2].s, "reachable"))))
			return perr(p, "expected 'property leak' or 'property leak reachable'");
		pr.kind = PROC_PROP_LEAK;
		pr.reachable = n == 3;
		pr.name = eng_xstrdup("leak");
		sc->exit_live = true;
	} else if (!strcmp(k, "open")) {
		if (!only_word(p, n, 2, "'property open'"))
			return -1;
		pr.kind = PROC_PROP_OPEN;
		pr.name = eng_xstrdup("open");
	} else if (!strcmp(k, "closed")) {
		if (n != 3)
			return perr(p, "expected 'property closed LABEL': the op after which the target has closed the connection");
		pr.kind = PROC_PROP_CLOSED;
		pr.label = eng_xstrdup(t[2].s);
		size_t nl = strlen(t[2].s) + 8;
		pr.name = eng_xmalloc(nl);
		snprintf(pr.name, nl, "closed:%s", t[2].s);
	} else {
		return perr(p, "expected 'property crash|exit STATUS|reply LABEL PATTERN|alloc|leak [reachable]|open|closed LABEL', got '%s'", k);
	}
	sc->props = eng_xrealloc(sc->props, (sc->nprops + 1) * sizeof *sc->props);
	sc->props[sc->nprops++] = pr;
	return 0;
}

static int add_plugin(struct parse *p, struct tok *t, int n)
{
	struct proc_scenario *sc = p->sc;
	if (n < 2 || n > 3)
		return perr(p, "expected 'plugin PATH.so [ARGUMENT]'");
	struct proc_prop pr = {.kind = PROC_PROP_PLUGIN, .line = p->line};
	char *x = expand_vars(p, t[1].s);
	if (!x)
		return -1;
	pr.path = resolve_rel(sc, x);
	free(x);
	if (access(pr.path, R_OK) != 0) {
		int r = perr(p, "expected a readable plugin, cannot read '%s'", pr.path);
		free(pr.path);
		return r;
	}
	pr.arg = n == 3 ? eng_xstrdup(t[2].s) : NULL;
	/* The name is filled in from the plugin when it is loaded. */
	const char *base = strrchr(t[1].s, '/');
	base = base ? base + 1 : t[1].s;
	pr.name = eng_xstrdup(base);
	char *dot = strstr(pr.name, ".so");
	if (dot && dot != pr.name)
		*dot = 0;
	sc->props = eng_xrealloc(sc->props, (sc->nprops + 1) * sizeof *sc->props);
	sc->props[sc->nprops++] = pr;
	return 0;
}

/* A duration: digits and a unit, ms, s, m or h ("500ms", "30s"), as
 * milliseconds in 1..INT32_MAX; -1 on anything else. */
static int64_t parse_duration(const char *s)
{
	uint64_t v = 0;
	const char *q = s;
	for (; *q >= '0' && *q <= '9'; q++) {
		v = v * 10 + (uint64_t)(*q - '0');
		if (v > INT32_MAX)
			return -1;
	}
	if (q == s)
		return -1;
	uint64_t unit = !strcmp(q, "ms") ? 1 : !strcmp(q, "s") ? 1000 : !strcmp(q, "m") ? 60000
		      : !strcmp(q, "h") ? 3600000 : 0;
	if (!unit || v == 0 || v > INT32_MAX / unit)
		return -1;
	return (int64_t)(v * unit);
}

/* The label of a crash op's power-loss twin: LABEL and this. */
#define CRASH_LOST_SUFFIX " (power loss)"

static int add_op(struct parse *p, struct tok *t, int n)
{
	struct proc_scenario *sc = p->sc;
	/* An unquoted advance: the virtual clock moves on by a duration, the
	 * word after it (so the optional once|repeat comes one word later). */
	bool advance = n >= 3 && !t[2].quoted && !strcmp(t[2].s, "advance");
	int64_t adv_ms = 0;
	int mode = advance ? 4 : 3; /* the index of once|repeat */
	if (advance && (n < 4 || n > 5 || (adv_ms = parse_duration(t[3].s)) < 0))
		return perr(p, "expected 'op LABEL advance DURATION [once|repeat]' with DURATION a whole "
			    "number and ms, s, m or h (\"30s\"), at most 24 days");
	if (n < 3 || n > mode + 1)
		return perr(p, "expected 'op LABEL \"BYTES\" [once|repeat]', 'op LABEL eof', "
			    "'op LABEL timeout [once|repeat]', 'op LABEL advance DURATION [once|repeat]', "
			    "'op LABEL crash [once|repeat]' or 'op LABEL reconnect [once|repeat]'");
	/* An unquoted eof for the bytes: close the target's input; an
	 * unquoted timeout: let the target's timed wait expire; an unquoted
	 * crash: kill and restart it (two ops, see below); an unquoted
	 * reconnect: hang up and connect again (tcp). */
	bool eof = !advance && !t[2].quoted && !strcmp(t[2].s, "eof");
	bool timeout = !advance && !t[2].quoted && !strcmp(t[2].s, "timeout");
	bool crash = !advance && !t[2].quoted && !strcmp(t[2].s, "crash");
	bool reconnect = !advance && !t[2].quoted && !strcmp(t[2].s, "reconnect");
	bool once = eof;
	if (n == mode + 1) {
		if (!strcmp(t[mode].s, "once")) once = true;
		else if (strcmp(t[mode].s, "repeat"))
			return perr(p, "expected 'once' or 'repeat', got '%s'", t[mode].s);
		else if (eof)
			return perr(p, "expected an eof operation without 'repeat' (the input closes once)");
	}
	if (t[1].len == 0 || strlen(t[1].s) != t[1].len)
		return perr(p, "expected a non-empty op label without NUL bytes");
	/* A crash is two operations: LABEL (the process dies, its unsynced
	 * writes stay in the page cache) and LABEL (power loss) (they are
	 * lost): the two successors of one crash, each its own label. */
	char lost[sizeof CRASH_LOST_SUFFIX + 4096];
	if (crash && snprintf(lost, sizeof lost, "%s" CRASH_LOST_SUFFIX, t[1].s) >= (int)sizeof lost)
		return perr(p, "expected a crash op label of at most 4096 bytes");
	for (size_t i = 0; i < sc->nops; i++)
		if (!strcmp(sc->ops[i].label, t[1].s) || (crash && !strcmp(sc->ops[i].label, lost)))
			return perr(p, "expected a new op label, '%s' is already defined", sc->ops[i].label);
	if (sc->nops + crash >= PROC_MAX_OPS)
		return perr(p, "expected at most %u ops", PROC_MAX_OPS);
	if (t[2].len == 0)
		return perr(p, "expected op bytes, got an empty string");
	if (crash) {
		sc->ops = eng_xrealloc(sc->ops, (sc->nops + 2) * sizeof *sc->ops);
		for (int k = 0; k < 2; k++)
			sc->ops[sc->nops++] = (struct proc_op){
				.label = eng_xstrdup(k ? lost : t[1].s), .bytes = (uint8_t *)eng_xstrdup(""),
				.once = once, .crash = k ? PROC_CRASH_LOST : PROC_CRASH_KEPT};
		sc->durable = true;
		return 0;
	}
	sc->ops = eng_xrealloc(sc->ops, (sc->nops + 1) * sizeof *sc->ops);
	struct proc_op *op = &sc->ops[sc->nops++];
	*op = (struct proc_op){.crash = PROC_CRASH_NONE}; /* every field set below, or zero */
	bool sends = !eof && !timeout && !advance && !reconnect;
	op->label = eng_xstrdup(t[1].s);
	op->eof = eof;
	op->timeout = timeout;
	op->reconnect = reconnect;
	if (reconnect && !sc->reconnect_line)
		sc->reconnect_line = p->line;
	op->advance_ms = (uint32_t)adv_ms;
	op->bytes = sends ? eng_xmemdup(t[2].s, t[2].len) : eng_xstrdup("");
	op->len = sends ? t[2].len : 0;
	op->once = once;
	return 0;
}

static int set_raw(struct parse *p, struct tok *t, int n)
{
	struct proc_scenario *sc = p->sc;
	if (!p->raw_seen) {
		/* An explicit coverage list replaces the default (heap only). */
		p->raw_seen = true;
		sc->raw_heap = false;
	}
	if (n == 2 && !strcmp(t[1].s, "heap")) sc->raw_heap = true;
	else if (n == 2 && !strcmp(t[1].s, "segments")) sc->raw_segments = true;
	else if (n == 2 && !strcmp(t[1].s, "none")) {
		sc->raw_heap = sc->raw_segments = false;
	} else if (n == 3 && !strcmp(t[1].s, "symbol")) {
		if (sc->nsymbols == PROC_MAX_SYMBOLS)
			return perr(p, "expected at most %u raw symbols", PROC_MAX_SYMBOLS);
		sc->raw_symbols = eng_xrealloc(sc->raw_symbols, (sc->nsymbols + 1) * sizeof(char *));
		sc->raw_symbols[sc->nsymbols++] = eng_xstrdup(t[2].s);
	} else
		return perr(p, "expected 'raw heap|segments|symbol NAME|none'");
	return 0;
}

/* `limit as|fsize BYTES`, `limit cpu SECONDS`, `limit procs N`; `none` (or
 * 0) lifts one.  Enforced by limits.c. */
static int set_limit(struct parse *p, struct tok *t, int n)
{
	struct proc_scenario *sc = p->sc;
	static const struct {
		const char *kind;
		size_t off;
		bool size;
		uint64_t min, max;
		const char *what;
	} kinds[] = {
		{"as", offsetof(struct proc_scenario, limit_as), true, 16ULL << 20, UINT64_MAX / 2, "BYTES (at least 16M)"},
		{"fsize", offsetof(struct proc_scenario, limit_fsize), true, 1, UINT64_MAX / 2, "BYTES"},
		{"cpu", offsetof(struct proc_scenario, limit_cpu), false, 1, 1000000, "SECONDS (1..1000000)"},
		{"procs", offsetof(struct proc_scenario, limit_procs), false, 1, 1000000, "N (1..1000000)"},
	};
	if (n != 3)
		return perr(p, "expected 'limit as|fsize|cpu|procs VALUE|none'");
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if (strcmp(t[1].s, kinds[i].kind))
			continue;
		uint64_t v = 0;
		if (strcmp(t[2].s, "none") &&
		    (kinds[i].size ? proc_parse_size(t[2].s, &v) : parse_uint(t[2].s, kinds[i].max, &v)))
			return perr(p, "expected 'limit %s %s' or 'none', got '%s'", kinds[i].kind,
				    kinds[i].what, t[2].s);
		if (v && (v < kinds[i].min || v > kinds[i].max))
			return perr(p, "expected 'limit %s %s' or 'none', got '%s'", kinds[i].kind,
				    kinds[i].what, t[2].s);
		*(uint64_t *)((char *)sc + kinds[i].off) = v;
		return 0;
	}
	return perr(p, "expected 'limit as|fsize|cpu|procs VALUE|none', got 'limit %s'", t[1].s);
}

/* One line's tokens; t[0] is the key. */
static int apply_line(struct parse *p, struct tok *t, int n)
{
	struct proc_scenario *sc = p->sc;
	const char *k = t[0].s;
	uint64_t v;
	if (!strcmp(k, "target")) {
		if (n < 2)
			return perr(p, "expected 'target PROGRAM [ARG...]'");
		for (size_t i = 0; i < sc->argc; i++)
			free(sc->argv[i]);
		free(sc->argv);
		sc->argc = (size_t)n - 1;
		sc->argv = eng_xcalloc(sc->argc + 1, sizeof(char *));
		for (int i = 1; i < n; i++)
			if (!(sc->argv[i - 1] = expand_vars(p, t[i].s)))
				return -1;
		free(sc->exe);
		sc->exe = resolve_exe(sc, sc->argv[0]);
		if (!sc->exe) {
			const char *where = sc->argv[0][0] == '/' ? ""
					    : strchr(sc->argv[0], '/') ? " (relative to the scenario's directory)"
								       : " in PATH";
			return perr(p, "expected an executable target, '%s' was not found%s", sc->argv[0],
				    where);
		}
		return 0;
	}
	if (!strcmp(k, "transport")) {
		if (n == 2 && !strcmp(t[1].s, "stdin")) sc->transport = PROC_STDIN;
		else if (n == 2 && !strcmp(t[1].s, "tcp")) sc->transport = PROC_TCP;
		else
			return perr(p, "expected 'transport stdin|tcp'");
		return 0;
	}
	if (!strcmp(k, "op"))
		return add_op(p, t, n);
	if (!strcmp(k, "property"))
		return add_prop(p, t, n);
	if (!strcmp(k, "plugin"))
		return add_plugin(p, t, n);
	if (!strcmp(k, "raw"))
		return set_raw(p, t, n);
	if (!strcmp(k, "limit"))
		return set_limit(p, t, n);
	if (!strcmp(k, "env")) {
		if (n != 2 || !strchr(t[1].s, '=') || t[1].s[0] == '=')
			return perr(p, "expected 'env NAME=VALUE'");
		if (!strncmp(t[1].s, "LD_PRELOAD=", 11))
			sc->env_preload_line = p->line;
		sc->env = eng_xrealloc(sc->env, (sc->nenv + 1) * sizeof(char *));
		sc->env[sc->nenv++] = eng_xstrdup(t[1].s);
		return 0;
	}
	if (!strcmp(k, "cwd")) {
		if (n != 2)
			return perr(p, "expected 'cwd DIRECTORY'");
		char *x = expand_vars(p, t[1].s);
		if (!x)
			return -1;
		free(sc->cwd);
		sc->cwd = resolve_rel(sc, x);
		free(x);
		return 0;
	}
	if (!strcmp(k, "state-file") || !strcmp(k, "state-dir")) {
		if (n != 2 || !t[1].s[0])
			return perr(p, "expected '%s PATH' (inside the target's working directory)", k);
		sc->statefiles = eng_xrealloc(sc->statefiles, (sc->nstatefiles + 1) * sizeof *sc->statefiles);
		sc->statefiles[sc->nstatefiles++] = (struct proc_statefile){
			.path = eng_xstrdup(t[1].s), .dir = !strcmp(k, "state-dir"), .line = p->line};
		return 0; /* checked once `cwd` is known: check_statefiles() */
	}
	if (!strcmp(k, "state-cap")) {
		uint64_t files = PROC_STATE_CAP_FILES_DEFAULT;
		if ((n != 2 && n != 3) || proc_parse_size(t[1].s, &v) || v == 0 ||
		    (n == 3 && (parse_uint(t[2].s, 1000000, &files) || files == 0)))
			return perr(p, "expected 'state-cap BYTES [FILES]' (e.g. 64M 10000)");
		sc->state_cap = v;
		sc->state_cap_files = (uint32_t)files;
		return 0;
	}
	/* The rest take exactly one value. */
	if (n != 2)
		return perr(p, "expected '%s VALUE' (one value)", k);
	const char *val = t[1].s;
	if (!strcmp(k, "depth")) {
		if (parse_uint(val, UINT32_MAX - 1, &v))
			return perr(p, "expected 'depth N' (operations per trace), got '%s'", val);
		/* Scenario depth counts operations; engine levels count the initial
		 * state as level 1. */
		sc->depth = (uint32_t)v + 1;
	} else if (!strcmp(k, "states")) {
		if (parse_uint(val, UINT64_MAX, &v))
			return perr(p, "expected 'states N', got '%s'", val);
		sc->states = v;
	} else if (!strcmp(k, "hash") || !strcmp(k, "merge")) {
		return set_ident(p, k, val);
	} else if (!strcmp(k, "raw-cap")) {
		if (proc_parse_size(val, &v) || v == 0)
			return perr(p, "expected 'raw-cap BYTES' (e.g. 1M), got '%s'", val);
		sc->raw_cap = v;
	} else if (!strcmp(k, "timeout")) {
		if (parse_uint(val, 3600000, &v) || v == 0)
			return perr(p, "expected 'timeout MS' (1..3600000), got '%s'", val);
		sc->timeout_ms = (unsigned)v;
	} else if (!strcmp(k, "heap-base")) {
		if (proc_parse_size(val, &v) || v == 0 || v % 4096)
			return perr(p, "expected 'heap-base ADDRESS' (page aligned, e.g. 0x600000000000), got '%s'", val);
		sc->heap_base = v;
	} else if (!strcmp(k, "heap-size")) {
		if (proc_parse_size(val, &v) || v < 65536)
			return perr(p, "expected 'heap-size BYTES' (at least 64K), got '%s'", val);
		sc->heap_size = v;
	} else if (!strcmp(k, "reply-cap")) {
		if (proc_parse_size(val, &v) || v == 0 || v > (1u << 30))
			return perr(p, "expected 'reply-cap BYTES' (1..1G), got '%s'", val);
		sc->reply_cap = v;
	} else if (!strcmp(k, "canonical-fd")) {
		/* Not an fd cmc gives the target for something else: 0-2 its
		 * stdio, 4 the control channel (PROC_CTL_FD) and 5, and the
		 * snapshot socket (CMC_SNAP_FD_DEFAULT). */
		if (parse_uint(val, CMC_SNAP_FD_DEFAULT - 1, &v) || v < 3 || v == 4 || v == 5)
			return perr(p, "expected 'canonical-fd N' (3, or 6..%d; 0-2, 4, 5 and %d are "
				    "cmc's), got '%s'", CMC_SNAP_FD_DEFAULT - 1, CMC_SNAP_FD_DEFAULT, val);
		sc->canon_fd = (int)v;
	} else if (!strcmp(k, "line-buffer")) {
		if (!strcmp(val, "on") || !strcmp(val, "yes")) sc->line_buffer = true;
		else if (!strcmp(val, "off") || !strcmp(val, "no")) sc->line_buffer = false;
		else
			return perr(p, "expected 'line-buffer on|off', got '%s'", val);
	} else {
		return perr(p, "expected a setting (target, transport, op, depth, states, hash, merge, "
			    "raw, raw-cap, timeout, heap-base, heap-size, reply-cap, canonical-fd, "
			    "line-buffer, env, cwd, state-file, state-dir, state-cap, property, plugin, limit), "
			    "got '%s'", k);
	}
	return 0;
}

/* `property reply LABEL` names an op declared anywhere in the file (ops may
 * follow the property): checked once the whole file is read, reported at
 * the property's line. */
static int check_reply_labels(struct parse *p)
{
	const struct proc_scenario *sc = p->sc;
	if (sc->reconnect_line && sc->transport != PROC_TCP) {
		p->line = sc->reconnect_line;
		return perr(p, "expected 'transport tcp' for 'op LABEL reconnect': only a connection can be "
			    "made again");
	}
	for (size_t i = 0; i < sc->nprops; i++) {
		const struct proc_prop *pr = &sc->props[i];
		if (pr->kind == PROC_PROP_OPEN || pr->kind == PROC_PROP_CLOSED) {
			if (sc->transport != PROC_TCP) {
				p->line = pr->line;
				return perr(p, "expected 'transport tcp' for 'property %s': only a connection can "
					    "be closed", pr->kind == PROC_PROP_OPEN ? "open" : "closed");
			}
		}
		if ((pr->kind != PROC_PROP_REPLY && pr->kind != PROC_PROP_CLOSED) || !pr->label)
			continue;
		size_t k = 0;
		while (k < sc->nops && strcmp(sc->ops[k].label, pr->label))
			k++;
		if (k == sc->nops) {
			p->line = pr->line;
			if (pr->kind == PROC_PROP_CLOSED)
				return perr(p, "expected 'property closed LABEL' with the LABEL of an op, no op "
					    "named '%s'", pr->label);
			return perr(p, "expected 'property reply LABEL PATTERN' with the LABEL of an op "
				    "(or *), no op named '%s'", pr->label);
		}
	}
	return 0;
}

/* `state-file`/`state-dir` PATHs, once `cwd` is known: relative to the
 * target's working directory, or absolute under the path the target sees
 * it at (scratch.c: the scenario's cwd, else PROC_SCRATCH_AT); never out
 * of it ("..").  Each becomes its normalised relative path. */
static int check_statefiles(struct parse *p)
{
	struct proc_scenario *sc = p->sc;
	char at[PATH_MAX];
	if (!sc->cwd || !realpath(sc->cwd, at))
		snprintf(at, sizeof at, "%s", sc->cwd ? sc->cwd : PROC_SCRATCH_AT);
	size_t atlen = strlen(at);
	while (atlen > 1 && at[atlen - 1] == '/')
		at[--atlen] = 0;
	for (size_t i = 0; i < sc->nstatefiles; i++) {
		struct proc_statefile *f = &sc->statefiles[i];
		const char *kw = f->dir ? "state-dir" : "state-file";
		p->line = f->line;
		const char *rest = f->path;
		if (rest[0] == '/') {
			if (strncmp(rest, at, atlen) || (rest[atlen] && rest[atlen] != '/'))
				return perr(p, "expected '%s PATH' inside the target's working directory "
					    "(%s), got '%s'", kw, at, f->path);
			rest += atlen;
		}
		size_t len = strlen(rest);
		char *rel = eng_xmalloc(len + 2), *w = rel;
		for (const char *c = rest; *c;) {
			size_t k = strcspn(c, "/");
			if (k == 2 && !strncmp(c, "..", 2)) {
				free(rel);
				return perr(p, "expected '%s PATH' inside the target's working directory, "
					    "got '%s' ('..' leads out of it)", kw, f->path);
			}
			if (k && !(k == 1 && c[0] == '.')) {
				if (w != rel)
					*w++ = '/';
				memcpy(w, c, k);
				w += k;
			}
			c += k + (c[k] == '/');
		}
		*w = 0;
		if (!*rel) {
			if (!f->dir) {
				free(rel);
				return perr(p, "expected 'state-file PATH' naming a file, got '%s' (the "
					    "working directory itself: 'state-dir .')", f->path);
			}
			strcpy(rel, ".");
		}
		f->rel = rel;
	}
	return 0;
}

static struct proc_scenario *scenario_new(const char *path)
{
	struct proc_scenario *sc = eng_xcalloc(1, sizeof *sc);
	sc->path = eng_xstrdup(path);
	const char *slash = strrchr(path, '/');
	if (!slash)
		sc->dir = eng_xstrdup(".");
	else if (slash == path)
		sc->dir = eng_xstrdup("/");
	else {
		sc->dir = eng_xstrdup(path);
		sc->dir[slash - path] = 0;
	}
	sc->transport = PROC_STDIN;
	sc->ident = PROC_ID_AUTO;
	sc->raw_heap = true;
	sc->raw_cap = 1u << 20;
	sc->state_cap = PROC_STATE_CAP_DEFAULT;
	sc->state_cap_files = PROC_STATE_CAP_FILES_DEFAULT;
	sc->timeout_ms = 5000;
	sc->heap_base = 0x600000000000ULL;
	sc->heap_size = 64ULL << 20;
	sc->reply_cap = 1u << 20;
	sc->canon_fd = 3;
	sc->line_buffer = true;
	sc->limit_as = PROC_LIMIT_AS_DEFAULT;
	sc->limit_fsize = 1ULL << 30;
	sc->limit_cpu = 600;
	sc->limit_procs = 256;
	return sc;
}

struct proc_scenario *proc_scenario_load(const char *path, char *err, size_t errlen)
{
	struct parse p = {.file = path, .err = err, .errlen = errlen};
	/* Non-blocking open, then only a regular file: a FIFO would wait for
	 * a writer forever. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: cannot open scenario: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (expected a scenario file)", path);
		close(fd);
		return NULL;
	}
	FILE *f = fcntl(fd, F_SETFL, O_RDONLY) < 0 ? NULL : fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "%s: cannot open scenario: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	p.sc = scenario_new(path);
	char *line = eng_xmalloc(PROC_LINE_MAX + 2);
	struct tok toks[PROC_MAX_WORDS];
	int rc = 0;
	while (fgets(line, PROC_LINE_MAX + 2, f)) {
		p.line++;
		size_t ll = strlen(line);
		if (ll > PROC_LINE_MAX) {
			rc = perr(&p, "expected a line shorter than %d bytes", PROC_LINE_MAX);
			break;
		}
		int n = tokenize(&p, line, toks, PROC_MAX_WORDS);
		if (n < 0) {
			rc = -1;
			break;
		}
		if (n == 0)
			continue;
		rc = apply_line(&p, toks, n);
		free_toks(toks, n);
		if (rc)
			break;
	}
	if (!rc && ferror(f))
		rc = perr(&p, "read error: %s", strerror(errno));
	fclose(f);
	free(line);
	if (!rc)
		rc = check_reply_labels(&p);
	if (!rc)
		rc = check_statefiles(&p);
	if (!rc && p.sc->durable) {
		/* What a crash would leave is part of a state: two states with
		 * the same files but other unsynced writes crash differently. */
		struct proc_scenario *sc = p.sc;
		sc->statefiles = eng_xrealloc(sc->statefiles, (sc->nstatefiles + 1) * sizeof *sc->statefiles);
		sc->statefiles[sc->nstatefiles++] = (struct proc_statefile){
			.path = eng_xstrdup(PROC_DURABLE_DIR), .rel = eng_xstrdup(PROC_DURABLE_DIR), .dir = true};
	}
	if (!rc) {
		p.line = 0;
		if (!p.sc->argc)
			rc = perr(&p, "expected a 'target PROGRAM [ARG...]' line");
		else if (!p.sc->nops)
			rc = perr(&p, "expected at least one 'op LABEL \"BYTES\"' line");
		else if (p.sc->limit_as == PROC_LIMIT_AS_DEFAULT && p.sc->heap_size >= p.sc->limit_as / 2)
			p.sc->limit_as = 2 * p.sc->heap_size; /* the default grows with the heap */
		else if (p.sc->limit_as && p.sc->limit_as <= p.sc->heap_size + (16ULL << 20))
			rc = perr(&p, "expected 'limit as' above heap-size + 16M (the preload maps the "
				  "whole heap region), got %llu bytes", (unsigned long long)p.sc->limit_as);
		else if (!p.sc->raw_heap && !p.sc->raw_segments && !p.sc->nsymbols &&
			 (p.sc->ident == PROC_ID_RAW || p.sc->ident == PROC_ID_BOTH ||
			  p.sc->ident == PROC_ID_GRAPH_BOTH))
			rc = perr(&p, "expected some raw coverage ('raw heap|segments|symbol NAME') "
				  "for raw hashing");
	}
	if (rc) {
		proc_scenario_free(p.sc);
		return NULL;
	}
	return p.sc;
}

int proc_scenario_set(struct proc_scenario *sc, const char *key, const char *value,
		      char *err, size_t errlen)
{
	struct parse p = {.sc = sc, .file = "--option", .err = err, .errlen = errlen, .raw_seen = true};
	struct tok t[2] = {{(char *)key, strlen(key), false}, {(char *)value, strlen(value), true}};
	if (!strcmp(key, "depth") || !strcmp(key, "states") || !strcmp(key, "hash") ||
	    !strcmp(key, "merge") || !strcmp(key, "timeout") || !strcmp(key, "raw-cap") ||
	    !strcmp(key, "reply-cap") || !strcmp(key, "heap-base") || !strcmp(key, "heap-size") ||
	    !strcmp(key, "line-buffer"))
		return apply_line(&p, t, 2);
	snprintf(err, errlen, "--%s: not a setting that can be overridden", key);
	return -1;
}

void proc_scenario_free(struct proc_scenario *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->argc; i++)
		free(sc->argv[i]);
	free(sc->argv);
	for (size_t i = 0; i < sc->nenv; i++)
		free(sc->env[i]);
	free(sc->env);
	for (size_t i = 0; i < sc->nops; i++) {
		free(sc->ops[i].label);
		free(sc->ops[i].bytes);
	}
	free(sc->ops);
	for (size_t i = 0; i < sc->nsymbols; i++)
		free(sc->raw_symbols[i]);
	free(sc->raw_symbols);
	for (size_t i = 0; i < sc->nprops; i++) {
		free(sc->props[i].label);
		free(sc->props[i].pattern);
		free(sc->props[i].path);
		free(sc->props[i].arg);
		free(sc->props[i].name);
	}
	free(sc->props);
	for (size_t i = 0; i < sc->nstatefiles; i++) {
		free(sc->statefiles[i].path);
		free(sc->statefiles[i].rel);
	}
	free(sc->statefiles);
	free(sc->exe);
	free(sc->cwd);
	free(sc->path);
	free(sc->dir);
	free(sc);
}

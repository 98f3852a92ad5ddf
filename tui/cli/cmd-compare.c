/*
 * cmd-compare.c — `cmc compare [RUN]`: raw against canonical.  The counts
 * under each identity and the merge factor, then every canonical state
 * with its raw variants and the shortest trace reaching each; with
 * `--bytes A B`, the offsets where two states' raw snapshots differ, as a
 * hex listing (16 bytes a row; only rows holding a difference); with
 * `--files A B`, which of their declared files differ (`state-file`,
 * `state-dir`), by the summaries stored with each state.
 */
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "hgtable.h"
#include "statefiles.h"
#include "storeargs.h"
#include "engine/util.h"

extern const struct tui_cmd tui_cmd_compare;

static const struct tui_option compare_options[] = {
	TUI_OPT_STRING(0, "db", struct tui_store_opts, db, "FILE", "the database (default ./cmc.db)"),
	TUI_OPT_BOOL(0, "json", struct tui_store_opts, json, "one JSON object"),
	{.type = TUI_OPT_BOOL_, .long_name = "bytes", .off = offsetof(struct tui_store_opts, bytes), .seen = -1,
	 .left = "--bytes A B", .help = "hex listing of where states A and B's raw snapshots differ"},
	{.type = TUI_OPT_BOOL_, .long_name = "heap-graph", .off = offsetof(struct tui_store_opts, heap_graph),
	 .seen = -1, .left = "--heap-graph STATE",
	 .help = "STATE's heap graph beside raw: block, size, pointers out as (block, offset);\n"
		 "its trace is replayed on the run's scenario and the live heap walked"},
	{.type = TUI_OPT_BOOL_, .long_name = "files", .off = offsetof(struct tui_store_opts, files), .seen = -1,
	 .left = "--files A B", .help = "which of states A and B's declared files differ, and how"},
	TUI_OPT_STRING(0, "run", struct tui_store_opts, run, "R",
		       "the run for --bytes, --files or --heap-graph (default: the latest)"),
	TUI_OPT_END(),
};

#define ROW 16

static void trace_inline_json(struct tui_json *j, const store_trace *t)
{
	tui_json_array(j);
	for (size_t i = 0; i < t->len; i++)
		tui_json_string(j, t->labels[i]);
	tui_json_end(j);
}

static void trace_inline(FILE *out, const store_trace *t)
{
	if (t->len == 0)
		fputs("(initial)", out);
	for (size_t i = 0; i < t->len; i++) {
		if (i)
			fputs(" ; ", out);
		tui_escape(out, t->labels[i], strlen(t->labels[i]), 64);
	}
}

/* idn: the run's identity (tui_run_identity), NULL when unknown; kind:
 * what its canonical side counts, "canonical" or "heap-graph". */
static int compare_groups_json(store *st, int64_t run, const store_compare *c, const char *idn,
			       const char *kind)
{
	char buf[33];
	struct tui_json j;
	tui_json_begin(&j, stdout);
	tui_json_object(&j);
	tui_json_i64(tui_json_key(&j, "run"), run);
	tui_json_key(&j, "identity");
	if (idn)
		tui_json_string(&j, idn);
	else
		tui_json_null(&j);
	tui_json_string(tui_json_key(&j, "canon_kind"), kind);
	tui_json_u64(tui_json_key(&j, "states"), c->states);
	tui_json_u64(tui_json_key(&j, "raw_distinct"), c->raw_distinct);
	tui_json_u64(tui_json_key(&j, "canon_distinct"), c->canon_distinct);
	tui_json_number(tui_json_key(&j, "merge_factor"), "%.4f", c->merge_factor);
	/* one canonical state a line */
	tui_json_array_lines(tui_json_key(&j, "canonical"));
	for (size_t g = 0; g < c->n_groups; g++) {
		const store_canon_group *grp = &c->groups[g];
		store_state rep;
		bool have = store_state_get(st, run, grp->states[0], &rep) == 0;
		tui_json_object(&j);
		tui_json_string(tui_json_key(&j, "canon"), eng_fp_hex(grp->canon, buf));
		tui_json_u64(tui_json_key(&j, "states"), grp->n_states);
		tui_blob_json(tui_json_key(&j, "record"), st, have ? rep.canon_blob : (eng_fp){0, 0}, 256);
		if (have)
			store_state_clear(&rep);
		tui_json_array(tui_json_key(&j, "raw"));
		for (size_t i = 0; i < grp->n_raw; i++) {
			store_trace t;
			bool ht = store_trace_to(st, run, grp->states[i], &t) == 0;
			tui_json_object(&j);
			tui_json_string(tui_json_key(&j, "raw"), eng_fp_hex(grp->raw[i], buf));
			tui_json_u64(tui_json_key(&j, "state"), grp->states[i]);
			tui_json_key(&j, "trace");
			if (ht) {
				trace_inline_json(&j, &t);
				store_trace_clear(&t);
			} else {
				tui_json_null(&j);
			}
			tui_json_end(&j);
		}
		tui_json_end(&j);
		tui_json_end(&j);
	}
	tui_json_end(&j);
	tui_json_end(&j);
	tui_json_finish(&j);
	return 0;
}

static int compare_groups(store *st, int64_t run, bool json)
{
	store_compare c;
	if (store_compare_run(st, run, &c) < 0) {
		fprintf(stderr, "cmc compare: %s\n", store_error(st));
		return TUI_EXIT_USAGE;
	}
	char ib[64];
	const char *idn = tui_run_identity(st, run, ib, sizeof ib), *kind = tui_identity_canon(idn);
	if (json) {
		compare_groups_json(st, run, &c, idn, kind);
		store_compare_clear(&c);
		return 0;
	}
	char buf[33];
	printf("run %lld: %llu state%s, %llu distinct raw, %llu distinct %s,"
	       " merge factor %.2f\n",
	       (long long)run, (unsigned long long)c.states, tui_s(c.states),
	       (unsigned long long)c.raw_distinct, (unsigned long long)c.canon_distinct, kind,
	       c.merge_factor);
	for (size_t g = 0; g < c.n_groups; g++) {
		store_canon_group *grp = &c.groups[g];
		store_state rep;
		bool have = store_state_get(st, run, grp->states[0], &rep) == 0;
		printf("\n%s %s: %zu raw variant%s", kind, eng_fp_hex(grp->canon, buf),
		       grp->n_raw, grp->n_raw == 1 ? "" : "s");
		if (have && !eng_fp_zero(rep.canon_blob)) {
			fputs(", record ", stdout);
			tui_blob_print(stdout, st, rep.canon_blob, 256);
		}
		putchar('\n');
		if (have)
			store_state_clear(&rep);
		for (size_t i = 0; i < grp->n_raw; i++) {
			store_trace t;
			bool ht = store_trace_to(st, run, grp->states[i], &t) == 0;
			printf("  raw %s  state %-6u ", eng_fp_hex(grp->raw[i], buf),
			       grp->states[i]);
			if (ht)
				trace_inline(stdout, &t);
			putchar('\n');
			if (ht)
				store_trace_clear(&t);
		}
	}
	store_compare_clear(&c);
	return 0;
}

static int raw_of(store *st, int64_t run, int64_t id, uint8_t **d, size_t *len, size_t *full)
{
	store_state s;
	if (id >= ENG_NO_STATE || store_state_get(st, run, (uint32_t)id, &s) != 0) {
		fprintf(stderr, "cmc compare: run %lld has no state %lld\n", (long long)run,
			(long long)id);
		return -1;
	}
	int rc = eng_fp_zero(s.raw_blob) ? 1 : store_blob(st, s.raw_blob, d, len, full);
	store_state_clear(&s);
	if (rc != 0)
		fprintf(stderr, "cmc compare: state %lld has no raw snapshot stored\n",
			(long long)id);
	return rc ? -1 : 0;
}

static void hex_row(const uint8_t *d, size_t len, size_t off, const uint8_t *other, size_t olen)
{
	for (size_t k = off; k < off + ROW; k++) {
		if (k >= len) {
			fputs("   ", stdout);
			continue;
		}
		bool differ = k >= olen || d[k] != other[k];
		printf("%02x%c", d[k], differ ? '*' : ' ');
	}
}

/* Bytes [from, to) of p (len of them held) as a JSON string of hex. */
static void hex_json(struct tui_json *j, const uint8_t *p, size_t len, size_t from, size_t to)
{
	size_t end = to < len ? to : len;
	char *hex = eng_xmalloc(2 * (end > from ? end - from : 0) + 1), *h = hex;
	for (size_t i = from; i < end; i++)
		h += sprintf(h, "%02x", p[i]);
	*h = 0;
	tui_json_string(j, hex);
	free(hex);
}

static int compare_bytes(store *st, int64_t run, int64_t a, int64_t b, bool json)
{
	uint8_t *da, *db;
	size_t la, lb, fa, fb;
	if (raw_of(st, run, a, &da, &la, &fa) < 0)
		return TUI_EXIT_USAGE;
	if (raw_of(st, run, b, &db, &lb, &fb) < 0) {
		free(da);
		return TUI_EXIT_USAGE;
	}
	size_t n = la > lb ? la : lb, ndiff = 0;
	for (size_t k = 0; k < n; k++)
		ndiff += k >= la || k >= lb || da[k] != db[k];
	if (json) {
		struct tui_json j;
		tui_json_begin(&j, stdout);
		tui_json_object(&j);
		tui_json_i64(tui_json_key(&j, "run"), run);
		tui_json_i64(tui_json_key(&j, "a"), a);
		tui_json_i64(tui_json_key(&j, "b"), b);
		tui_json_u64(tui_json_key(&j, "len_a"), la);
		tui_json_u64(tui_json_key(&j, "len_b"), lb);
		tui_json_u64(tui_json_key(&j, "full_len_a"), fa);
		tui_json_u64(tui_json_key(&j, "full_len_b"), fb);
		tui_json_u64(tui_json_key(&j, "bytes_differ"), ndiff);
		tui_json_array(tui_json_key(&j, "ranges"));
		for (size_t k = 0; k < n;) {
			if (k < la && k < lb && da[k] == db[k]) {
				k++;
				continue;
			}
			size_t e = k;
			while (e < n && !(e < la && e < lb && da[e] == db[e]))
				e++;
			tui_json_object(&j);
			tui_json_u64(tui_json_key(&j, "offset"), k);
			tui_json_u64(tui_json_key(&j, "len"), e - k);
			hex_json(tui_json_key(&j, "a"), da, la, k, e);
			hex_json(tui_json_key(&j, "b"), db, lb, k, e);
			tui_json_end(&j);
			k = e;
		}
		tui_json_end(&j);
		tui_json_end(&j);
		tui_json_finish(&j);
	} else {
		printf("run %lld: raw snapshots of states %lld (%zu byte%s) and %lld (%zu byte%s):"
		       " %zu byte%s differ%s%s\n",
		       (long long)run, (long long)a, la, tui_s(la), (long long)b, lb, tui_s(lb), ndiff,
		       tui_s(ndiff), ndiff == 1 ? "s" : "",
		       fa > la || fb > lb ? " (within the kept prefix)" : "");
		if (ndiff)
			printf("%-10s %-*s  %s\n", "offset", ROW * 3, "A (* differs)", "B");
		for (size_t off = 0; off < n; off += ROW) {
			bool any = false;
			for (size_t k = off; k < off + ROW && k < n; k++)
				any |= k >= la || k >= lb || da[k] != db[k];
			if (!any)
				continue;
			printf("0x%08zx ", off);
			hex_row(da, la, off, db, lb);
			fputs("  ", stdout);
			hex_row(db, lb, off, da, la);
			putchar('\n');
		}
	}
	free(da);
	free(db);
	return 0;
}

/* One region's pointers out, "(block, offset)" each; "-" for none. */
static void out_text(const proc_hg_table *t, uint32_t num, uint32_t root)
{
	size_t f, n = tui_hg_out(t, num, root, &f);
	if (!n)
		fputs("-", stdout);
	for (size_t i = 0; i < n; i++) {
		const proc_hg_edge *e = &t->edges[f + i];
		printf("%s+%llu:(%u, %llu)", i ? " " : "", (unsigned long long)e->off, e->to,
		       (unsigned long long)e->to_off);
	}
}

static void out_json(struct tui_json *j, const proc_hg_table *t, uint32_t num, uint32_t root)
{
	size_t f, n = tui_hg_out(t, num, root, &f);
	tui_json_array(tui_json_key(j, "out"));
	for (size_t i = 0; i < n; i++) {
		const proc_hg_edge *e = &t->edges[f + i];
		tui_json_object(j);
		tui_json_u64(tui_json_key(j, "off"), e->off);
		tui_json_u64(tui_json_key(j, "block"), e->to);
		tui_json_u64(tui_json_key(j, "offset"), e->to_off);
		tui_json_end(j);
	}
	tui_json_end(j);
}

/* --heap-graph STATE: the state's raw fingerprint beside its heap graph,
 * one row a reached block in walk order (hgtable.h: computed by replay). */
static int compare_heap_graph(store *st, int64_t run, int64_t id, bool json)
{
	store_state s;
	if (id >= ENG_NO_STATE || store_state_get(st, run, (uint32_t)id, &s) != 0) {
		fprintf(stderr, "cmc compare: run %lld has no state %lld\n", (long long)run,
			(long long)id);
		return TUI_EXIT_USAGE;
	}
	eng_fp raw = s.raw_fp;
	store_state_clear(&s);
	proc_hg_table t;
	store_trace tr;
	char err[1200], buf[33];
	if (tui_hg_replay(st, run, (uint32_t)id, &t, &tr, err, sizeof err) < 0) {
		fprintf(stderr, "cmc compare: --heap-graph: %s\n", err);
		proc_hg_table_clear(&t);
		store_trace_clear(&tr);
		return TUI_EXIT_USAGE;
	}
	if (json) {
		struct tui_json j;
		tui_json_begin(&j, stdout);
		tui_json_object(&j);
		tui_json_i64(tui_json_key(&j, "run"), run);
		tui_json_i64(tui_json_key(&j, "state"), id);
		tui_json_string(tui_json_key(&j, "raw"), eng_fp_hex(raw, buf));
		tui_json_key(&j, "trace");
		trace_inline_json(&j, &tr);
		tui_json_u64(tui_json_key(&j, "live"), t.live);
		tui_json_array_lines(tui_json_key(&j, "roots"));
		for (size_t r = 0; r < t.n_roots; r++) {
			tui_json_object(&j);
			tui_json_u64(tui_json_key(&j, "root"), r + 1);
			tui_json_u64(tui_json_key(&j, "addr"), t.roots[r].addr);
			tui_json_u64(tui_json_key(&j, "size"), t.roots[r].len);
			out_json(&j, &t, 0, (uint32_t)r);
			tui_json_end(&j);
		}
		tui_json_end(&j);
		tui_json_array_lines(tui_json_key(&j, "blocks"));
		for (size_t k = 0; k < t.n_blocks; k++) {
			tui_json_object(&j);
			tui_json_u64(tui_json_key(&j, "block"), k + 1);
			tui_json_u64(tui_json_key(&j, "size"), t.blocks[k].len);
			tui_json_u64(tui_json_key(&j, "addr"), t.blocks[k].addr);
			out_json(&j, &t, (uint32_t)(k + 1), 0);
			tui_json_end(&j);
		}
		tui_json_end(&j);
		tui_json_end(&j);
		tui_json_finish(&j);
	} else {
		printf("run %lld, state %lld: raw %s; trace ", (long long)run, (long long)id,
		       eng_fp_hex(raw, buf));
		trace_inline(stdout, &tr);
		printf("\nheap graph (replayed): %zu block%s reached of %llu live, %zu pointer%s\n",
		       t.n_blocks, tui_s(t.n_blocks), (unsigned long long)t.live, t.n_edges,
		       tui_s(t.n_edges));
		printf("%-7s %-18s %10s  %s\n", "block", "address", "size",
		       "pointers out: +offset:(block, offset)");
		for (size_t r = 0; r < t.n_roots; r++) {
			size_t f;
			if (!tui_hg_out(&t, 0, (uint32_t)r, &f))
				continue; /* a root pointing at nothing says nothing */
			printf("root %-2zu 0x%-16llx %10llu  ", r + 1, (unsigned long long)t.roots[r].addr,
			       (unsigned long long)t.roots[r].len);
			out_text(&t, 0, (uint32_t)r);
			putchar('\n');
		}
		for (size_t k = 0; k < t.n_blocks; k++) {
			printf("%-7zu 0x%-16llx %10llu  ", k + 1, (unsigned long long)t.blocks[k].addr,
			       (unsigned long long)t.blocks[k].len);
			out_text(&t, (uint32_t)(k + 1), 0);
			putchar('\n');
		}
	}
	proc_hg_table_clear(&t);
	store_trace_clear(&tr);
	return 0;
}

/* A state's declared files, sorted by path for the merge below. */
static int files_of(store *st, int64_t run, int64_t id, struct tui_state_files *fs)
{
	store_state s;
	if (id >= ENG_NO_STATE || store_state_get(st, run, (uint32_t)id, &s) != 0) {
		fprintf(stderr, "cmc compare: run %lld has no state %lld\n", (long long)run,
			(long long)id);
		return -1;
	}
	if (!tui_state_files_load(st, s.files_blob, fs) && !eng_fp_zero(s.files_blob)) {
		store_state_clear(&s);
		fprintf(stderr, "cmc compare: state %lld's file summary cannot be read\n", (long long)id);
		return -1;
	}
	store_state_clear(&s);
	return 0;
}

static int path_cmp(const struct tui_state_file *a, const struct tui_state_file *b)
{
	size_t n = a->path_len < b->path_len ? a->path_len : b->path_len;
	int c = memcmp(a->path, b->path, n);
	return c ? c : (a->path_len > b->path_len) - (a->path_len < b->path_len);
}

static int path_qcmp(const void *a, const void *b) { return path_cmp(a, b); }

static bool same_file(const struct tui_state_file *a, const struct tui_state_file *b)
{
	return !strcmp(a->kind, b->kind) && a->size == b->size && !strcmp(a->hash, b->hash);
}

static void side_text(const struct tui_state_file *f)
{
	if (!f)
		fputs("absent", stdout);
	else if (!strcmp(f->kind, "file") || !strcmp(f->kind, "symlink"))
		printf("%s%llu byte%s, xxh3 %s", strcmp(f->kind, "file") ? "symlink, " : "", f->size,
		       f->size == 1 ? "" : "s", f->hash);
	else
		fputs(!strcmp(f->kind, "dir") ? "directory" : f->kind, stdout);
}

static void side_json_file(struct tui_json *j, const struct tui_state_file *f)
{
	if (f)
		tui_state_file_json(j, f);
	else
		tui_json_null(j);
}

/*
 * --files A B: the two summaries merged by path.  A path in one only was
 * not there in the other (a file a state-dir walk did not meet); a path in
 * both differs when its kind, size or content hash does.  The bytes
 * themselves are not stored: the hashes say that they differ, `cmc show`
 * and a replay of each trace say how.
 */
static int compare_files(store *st, int64_t run, int64_t a, int64_t b, bool json)
{
	struct tui_state_files fa, fb;
	if (files_of(st, run, a, &fa) < 0)
		return TUI_EXIT_USAGE;
	if (files_of(st, run, b, &fb) < 0) {
		tui_state_files_free(&fa);
		return TUI_EXIT_USAGE;
	}
	if (fa.n)
		qsort(fa.f, fa.n, sizeof *fa.f, path_qcmp);
	if (fb.n)
		qsort(fb.f, fb.n, sizeof *fb.f, path_qcmp);
	struct tui_json j;
	size_t same = 0, differ = 0;
	for (int pass = 0; pass < 2; pass++) { /* count, then print */
		if (pass && json) {
			tui_json_begin(&j, stdout);
			tui_json_object(&j);
			tui_json_i64(tui_json_key(&j, "run"), run);
			tui_json_i64(tui_json_key(&j, "a"), a);
			tui_json_i64(tui_json_key(&j, "b"), b);
			tui_json_u64(tui_json_key(&j, "same"), same);
			tui_json_u64(tui_json_key(&j, "differ_count"), differ);
			tui_json_array(tui_json_key(&j, "differ"));
		} else if (pass) {
			printf("run %lld: declared files of states %lld and %lld: %zu differ, %zu the same\n",
			       (long long)run, (long long)a, (long long)b, differ, same);
		}
		for (size_t i = 0, k = 0; i < fa.n || k < fb.n;) {
			int c = i == fa.n ? 1 : k == fb.n ? -1 : path_cmp(&fa.f[i], &fb.f[k]);
			const struct tui_state_file *x = c <= 0 ? &fa.f[i] : NULL, *y = c >= 0 ? &fb.f[k] : NULL;
			i += c <= 0;
			k += c >= 0;
			if (x && y && same_file(x, y)) {
				same += !pass;
				continue;
			}
			if (!pass) {
				differ++;
				continue;
			}
			const struct tui_state_file *f = x ? x : y;
			if (json) {
				tui_json_object(&j);
				tui_json_bytes(tui_json_key(&j, "path"), f->path, f->path_len);
				side_json_file(tui_json_key(&j, "in_a"), x);
				side_json_file(tui_json_key(&j, "in_b"), y);
				tui_json_end(&j);
			} else {
				fputs("  ", stdout);
				tui_escape(stdout, f->path, f->path_len, 256);
				fputs("\n    A: ", stdout);
				side_text(x);
				fputs("\n    B: ", stdout);
				side_text(y);
				putchar('\n');
			}
		}
	}
	if (json) {
		tui_json_end(&j);
		tui_json_end(&j);
		tui_json_finish(&j);
	}
	tui_state_files_free(&fa);
	tui_state_files_free(&fb);
	return 0;
}

static int compare_exec(int argc, char **argv)
{
	struct tui_store_opts so;
	if (tui_store_opts_parse(&tui_cmd_compare, argc, argv, &so))
		return TUI_EXIT_USAGE;
	const char *db = so.db;
	const char *runarg = so.run;
	bool json = so.json, bytes = so.bytes, hg = so.heap_graph, files = so.files;
	int64_t a = 0, b = 0;
	if (bytes + hg + files > 1)
		return tui_usage_error(&tui_cmd_compare, "one of --bytes, --files and --heap-graph");
	if (hg) {
		if (argc - optind != 1 || !tui_parse_id(argv[optind], &a))
			return tui_usage_error(&tui_cmd_compare, "--heap-graph takes one state id");
	} else if (bytes || files) {
		if (argc - optind != 2 || !tui_parse_id(argv[optind], &a) ||
		    !tui_parse_id(argv[optind + 1], &b))
			return tui_usage_error(&tui_cmd_compare,
					       bytes ? "--bytes takes two state ids" : "--files takes two state ids");
	} else if (argc - optind == 1) {
		if (runarg)
			return tui_usage_error(&tui_cmd_compare, "name the run once");
		runarg = argv[optind];
	} else if (argc - optind > 1) {
		return tui_usage_error(&tui_cmd_compare, "expected at most one run");
	}
	store *st = tui_store_open(&tui_cmd_compare, db);
	if (!st)
		return TUI_EXIT_USAGE;
	int64_t run;
	int rc = tui_store_run(&tui_cmd_compare, st, runarg, &run);
	if (rc == 0)
		rc = hg ? compare_heap_graph(st, run, a, json)
		     : bytes ? compare_bytes(st, run, a, b, json)
		     : files ? compare_files(st, run, a, b, json) : compare_groups(st, run, json);
	store_close(st);
	return rc;
}

const struct tui_cmd tui_cmd_compare = {
	.name = "compare",
	.usage = "compare [--db FILE] [--json] [RUN | [--run R] --bytes A B | [--run R] --files A B |\n"
		 "        [--run R] --heap-graph STATE]",
	.summary = "raw against canonical: counts, merge factor, variants, byte and file differences",
	.options = compare_options,
	.exec = compare_exec,
};

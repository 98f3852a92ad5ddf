/*
 * view-hex.c — two raw snapshots side by side in hex, the differing bytes
 * highlighted; n / N jump to the next / previous row that differs.  It
 * opens on the first differing row, and a jump lands on its row, in the
 * middle of the window, with the rows around it on both sides.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "wb.h"

#define PER_ROW 8

static struct {
	struct wb_list l;
	uint32_t a, b;
	uint8_t *da, *db;
	size_t na, nb, fa, fb;
	size_t ndiff, first;
	bool centre;        /* the next draw puts the selected row mid-window */
	char why[160];
} V = {.a = ENG_NO_STATE, .b = ENG_NO_STATE};

static int load_raw(struct wb *wb, uint32_t id, uint8_t **d, size_t *n, size_t *full)
{
	store_state s;
	*d = NULL;
	*n = *full = 0;
	wb_lock(wb);
	int rc = store_state_get(wb->st, wb->run, id, &s);
	if (rc == 0) {
		if (!eng_fp_zero(s.raw_blob))
			rc = store_blob(wb->st, s.raw_blob, d, n, full);
		else
			rc = 1;
		store_state_clear(&s);
	}
	wb_unlock(wb);
	return rc;
}

static void hex_load(struct wb *wb)
{
	if (V.a == wb->cmp_a && V.b == wb->cmp_b && (V.da || V.db || V.why[0]))
		return;
	free(V.da);
	free(V.db);
	V.da = V.db = NULL;
	V.why[0] = 0;
	V.a = wb->cmp_a;
	V.b = wb->cmp_b;
	int ra = load_raw(wb, V.a, &V.da, &V.na, &V.fa);
	int rb = load_raw(wb, V.b, &V.db, &V.nb, &V.fb);
	if (ra || rb)
		snprintf(V.why, sizeof V.why, "state %u has no stored raw snapshot (models have none)",
			 ra ? V.a : V.b);
	size_t n = V.na > V.nb ? V.na : V.nb;
	V.ndiff = 0;
	V.first = SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		if (i >= V.na || i >= V.nb || V.da[i] != V.db[i]) {
			V.ndiff++;
			if (V.first == SIZE_MAX)
				V.first = i;
		}
	V.l = (struct wb_list){(n + PER_ROW - 1) / PER_ROW, 0, 0};
	if (V.first != SIZE_MAX)
		V.l.cur = V.first / PER_ROW;
	V.centre = true;
}

static bool row_differs(size_t r)
{
	for (size_t i = r * PER_ROW; i < (r + 1) * PER_ROW; i++) {
		bool ia = i < V.na, ib = i < V.nb;
		if (ia != ib || (ia && V.da[i] != V.db[i]))
			return true;
	}
	return false;
}

static void hex_key(struct wb *wb, int key)
{
	if (key == 'n') {
		for (size_t r = V.l.cur + 1; r < V.l.n; r++)
			if (row_differs(r)) {
				V.l.cur = r;
				V.centre = true;
				break;
			}
	} else {
		for (size_t r = V.l.cur; r-- > 0;)
			if (row_differs(r)) {
				V.l.cur = r;
				V.centre = true;
				break;
			}
	}
	wb->dirty = true;
}

static void hex_side(struct wb *wb, WINDOW *w, int y, int x, const uint8_t *d, size_t n,
		     const uint8_t *o, size_t on, size_t off)
{
	for (size_t i = off; i < off + PER_ROW; i++, x += 3) {
		if (i >= n) {
			mvwaddstr(w, y, x, "  ");
			continue;
		}
		bool diff = i >= on || d[i] != o[i];
		char h[4];
		snprintf(h, sizeof h, "%02x", d[i]);
		if (diff)
			wattrset(w, wb_attr(wb, WB_C_DIFF));
		mvwaddstr(w, y, x, h);
		wattrset(w, A_NORMAL);
	}
}

static void hex_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	wb_row(w, 0, cols, A_BOLD, "raw snapshot of state %u (A) against state %u (B)", V.a, V.b);
	if (V.why[0]) {
		wb_row(w, 1, cols, A_NORMAL, "%s", V.why);
		return;
	}
	char first[40] = "";
	if (V.first != SIZE_MAX)
		snprintf(first, sizeof first, ", first at offset 0x%zx", V.first);
	wb_row(w, 1, cols, A_NORMAL, "A %zu bytes%s, B %zu bytes%s: %zu %s%s", V.na,
	       V.fa > V.na ? " (capped)" : "", V.nb, V.fb > V.nb ? " (capped)" : "", V.ndiff,
	       V.ndiff == 1 ? "byte differs" : "bytes differ", first);
	wb_row(w, 2, cols, A_BOLD, "%-8s  %-24s| %-24s", "offset", "A", "B");
	size_t body = rows > 3 ? (size_t)rows - 3 : 1;
	if (V.centre) {
		V.l.top = V.l.cur > body / 2 ? V.l.cur - body / 2 : 0;
		V.centre = false;
	}
	wb_list_clamp(&V.l, body);
	for (size_t r = V.l.top, y = 3; r < V.l.n && y < (size_t)rows; r++, y++) {
		wb_row(w, (int)y, cols, r == V.l.cur ? (int)A_BOLD : (int)A_NORMAL, "%08zx%s", r * PER_ROW,
		       r == V.l.cur ? "<" : " ");
		hex_side(wb, w, (int)y, 10, V.da, V.na, V.db, V.nb, r * PER_ROW);
		mvwaddstr(w, (int)y, 10 + 3 * PER_ROW, "| ");
		hex_side(wb, w, (int)y, 12 + 3 * PER_ROW, V.db, V.nb, V.da, V.na, r * PER_ROW);
	}
}

static struct wb_list *hex_list(struct wb *wb) { return &V.l; }

/* This view's own keys (wb.h: struct wb_binding). */
static const struct wb_binding hex_keys[] = {
	WB_KEY('n', "n", "next differing row (hex)", hex_key),
	WB_KEY('N', "N", "previous differing row (hex)", hex_key),
	{0},
};

const struct wb_view wb_view_hex = {
	.name = "hex diff",
	.hint = "n/N:next/prev difference Esc:back",
	.load = hex_load,
	.draw = hex_draw,
	.list = hex_list,
	.keys = hex_keys,
};

/*
 * view-alloc.c — the allocator at the current state: each invariant the
 * run checked with pass or fail (a failing one names the chunk, slot and
 * window byte involved and the validator's message), and the chunk map:
 * one row per chunk ("*" marks one a failing invariant points at), its
 * slots drawn with viz_slot_char (# live, . free, x free but written,
 * ! live with its redzone written), as viz_heap_load() decodes them.
 */
#include <stdio.h>
#include <string.h>

#include "viz/viz.h"
#include "wb.h"

static struct {
	struct wb_list l;
	uint32_t id;
	viz_heap h;
	bool have;
	char err[256];
} V = {.id = ENG_NO_STATE};

static void alloc_load(struct wb *wb)
{
	if (V.have)
		viz_heap_clear(&V.h);
	V.have = false;
	V.err[0] = 0;
	V.id = wb->cur;
	if (V.id == ENG_NO_STATE)
		return;
	char err[256] = "";
	wb_lock(wb);
	int rc = viz_heap_load(wb->st, wb->run, V.id, &V.h, err, sizeof err);
	wb_unlock(wb);
	if (rc != 0)
		wb_escape(V.err, sizeof V.err, err, strlen(err));
	V.have = rc == 0;
	V.l.n = V.have ? V.h.n_inv + V.h.n_chunks : 0;
}

static void alloc_draw(struct wb *wb, WINDOW *w, int rows, int cols)
{
	if (V.id != wb->cur)
		alloc_load(wb);
	if (!V.have) {
		wb_row(w, 0, cols, A_NORMAL, "allocator at state %u: %s", V.id, V.err[0] ? V.err : "unknown");
		return;
	}
	unsigned fails = 0;
	for (unsigned i = 0; i < V.h.n_inv; i++)
		fails += V.h.inv[i].failed;
	wb_row(w, 0, cols, A_BOLD, "allocator at state %u: %s", V.id,
	       !V.h.has_alloc ? "no allocator status recorded (models and runs without the preload)"
	       : fails ? "INVARIANTS FAIL" : "every checked invariant holds");
	/* The selected invariant (else the first failing one) whole at the
	 * bottom, wrapped: a failing one's message does not fit its row. */
	char whole[600] = "";
	size_t pick = V.l.cur < V.h.n_inv && V.h.inv[V.l.cur].failed ? V.l.cur : SIZE_MAX;
	for (unsigned i = 0; pick == SIZE_MAX && i < V.h.n_inv; i++)
		if (V.h.inv[i].failed)
			pick = i;
	if (pick != SIZE_MAX) {
		viz_invariant *v = &V.h.inv[pick];
		char name[80], detail[400];
		wb_escape(name, sizeof name, v->name ? v->name : "?", v->name ? strlen(v->name) : 1);
		wb_escape(detail, sizeof detail, v->detail, strlen(v->detail));
		snprintf(whole, sizeof whole, "%s %s%s%s", v->failed ? "FAIL" : "ok", name, detail[0] ? ": " : "",
			 detail);
	}
	int quarter = rows / 4 > 1 ? rows / 4 : 1;
	int detail = whole[0] ? wb_wrap_count(quarter, cols, "", whole) : 0;
	size_t body = rows > 1 + detail ? (size_t)(rows - 1 - detail) : 1;
	if (rows <= 1 + detail + 1)
		detail = 0, body = rows > 1 ? (size_t)rows - 1 : 1;
	wb_list_clamp(&V.l, body);
	if (detail)
		wb_wrap_rows(w, rows - detail, detail, cols,
			     pick < V.h.n_inv && V.h.inv[pick].failed ? wb_attr(wb, WB_C_BAD) : (int)A_NORMAL, "",
			     whole);
	for (size_t i = V.l.top, y = 1; i < V.l.n && y <= body; i++, y++) {
		int sel = i == V.l.cur ? (int)A_REVERSE : 0;
		if (i < V.h.n_inv) {
			viz_invariant *v = &V.h.inv[i];
			char name[80], detail[160], where[64] = "";
			wb_escape(name, sizeof name, v->name ? v->name : "?", v->name ? strlen(v->name) : 1);
			wb_escape(detail, sizeof detail, v->detail, strlen(v->detail));
			if (v->failed && v->chunk >= 0) {
				if (v->slot != UINT32_MAX)
					snprintf(where, sizeof where, " -> chunk %lld slot %u, byte +0x%llx",
						 (long long)v->chunk, v->slot, (unsigned long long)v->byte_off);
				else
					snprintf(where, sizeof where, " -> chunk %lld, byte +0x%llx",
						 (long long)v->chunk, (unsigned long long)v->byte_off);
			}
			wb_row(w, (int)y, cols, sel | (v->failed ? wb_attr(wb, WB_C_BAD) : wb_attr(wb, WB_C_GOOD)),
			       "%c %-4s %s%s%s%s", v->failed ? WB_MARK_VIOLATION : ' ', v->failed ? "FAIL" : "ok", name, where,
			       v->failed && detail[0] ? ": " : "", v->failed ? detail : "");
		} else {
			size_t k = i - V.h.n_inv;
			viz_chunk *c = &V.h.chunks[k];
			char map[72];
			size_t n = 0;
			for (; n < c->n_slots && n < sizeof map - 4; n++)
				map[n] = viz_slot_char(c->slot[n]);
			if (n < c->n_slots) {
				memcpy(map + n, "...", 3);
				n += 3;
			}
			map[n] = 0;
			unsigned live = 0;
			for (uint32_t j = 0; j < c->n_slots; j++)
				live += c->slot[j] == VIZ_SLOT_LIVE || c->slot[j] == VIZ_SLOT_OVERRUN;
			bool bad = c->header_bad || c->bad_slot != UINT32_MAX;
			if (c->kind == VIZ_CHUNK_CLASS)
				wb_row(w, (int)y, cols, sel | (bad ? wb_attr(wb, WB_C_BAD) : 0),
				       "  %c%-3zu unit %-4u class %5u B live %3u/%-3u %s", bad ? '*' : 'k', k,
				       c->unit, c->size_class, live, c->n_slots, map);
			else
				wb_row(w, (int)y, cols, sel | (bad ? wb_attr(wb, WB_C_BAD) : 0),
				       "  %c%-3zu unit %-4u %-5s %3u units, block %llu B %s", bad ? '*' : 'k', k,
				       c->unit, c->kind == VIZ_CHUNK_HUGE ? "huge" : "large", c->units,
				       (unsigned long long)c->req, map);
		}
	}
	if (V.h.n_chunks == 0 && V.l.n + 1 < (size_t)rows && V.h.why_no_chunks[0]) {
		char why[200];
		wb_escape(why, sizeof why, V.h.why_no_chunks, strlen(V.h.why_no_chunks));
		wb_row(w, (int)V.l.n + 1, cols, A_NORMAL, "  chunk map: %s", why);
	}
}

static struct wb_list *alloc_list(struct wb *wb) { return &V.l; }

const struct wb_view wb_view_alloc = {
	.name = "allocator",
	.hint = "w:render SVG s:state Esc:back",
	.load = alloc_load,
	.draw = alloc_draw,
	.list = alloc_list,
};

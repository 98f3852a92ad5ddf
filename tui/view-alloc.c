/*
 * view-alloc.c — the allocator at the current state: each invariant the
 * run checked with pass or fail, and the chunk map (one row per chunk, its
 * slots drawn as . free, # live, x poisoned), as viz_heap_load() decodes
 * them from the store.
 */
#include <string.h>

#include "viz.h"
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
	size_t body = rows > 1 ? (size_t)rows - 1 : 1;
	wb_list_clamp(&V.l, body);
	for (size_t i = V.l.top, y = 1; i < V.l.n && y < (size_t)rows; i++, y++) {
		int sel = i == V.l.cur ? (int)A_REVERSE : 0;
		if (i < V.h.n_inv) {
			viz_invariant *v = &V.h.inv[i];
			char name[48];
			wb_escape(name, sizeof name, v->name ? v->name : "?", v->name ? strlen(v->name) : 1);
			wb_row(w, (int)y, cols, sel | (v->failed ? wb_attr(wb, WB_C_BAD) : wb_attr(wb, WB_C_GOOD)),
			       "  %-4s %s%s", v->failed ? "FAIL" : "ok", name,
			       v->failed && v->chunk >= 0 ? " (chunk involved, see map)" : "");
		} else {
			viz_chunk *c = &V.h.chunks[i - V.h.n_inv];
			char map[64];
			size_t k = 0;
			for (; k < c->n_slots && k < sizeof map - 4; k++)
				map[k] = c->slot[k] == VIZ_SLOT_LIVE ? '#' : c->slot[k] == VIZ_SLOT_POISONED ? 'x' : '.';
			if (k < c->n_slots) {
				memcpy(map + k, "...", 3);
				k += 3;
			}
			map[k] = 0;
			wb_row(w, (int)y, cols, sel | (c->header_bad ? wb_attr(wb, WB_C_BAD) : 0),
			       "  chunk @%06llx class %4u live %3u/%-3u %s", (unsigned long long)c->offset,
			       c->size_class, c->n_live, c->n_slots, map);
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

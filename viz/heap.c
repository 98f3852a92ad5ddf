/*
 * heap.c — the allocator picture of one state (`cmc heap STATE`): a table
 * of the invariants with pass/fail (failing entries naming the chunk and
 * byte offset involved), one node per chunk showing its header fields and
 * its slots (live, free, poisoned), the legend, and a caption saying
 * plainly when the run recorded no allocator data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/util.h"

#include "internal.h"

#define SLOTS_PER_ROW 32

static const char *kind_name(int kind)
{
	return kind == VIZ_CHUNK_CLASS ? "class" : kind == VIZ_CHUNK_LARGE ? "large" : kind == VIZ_CHUNK_HUGE ? "huge" : "?";
}

/* Each invariant row has a port ("iN") so a failing one's edge leaves it. */
static void invariants_node(Agraph_t *g, const viz_heap *h)
{
	viz_buf b = {0};
	viz_buf_add(&b, "<TABLE BORDER=\"1\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\">"
			"<TR><TD COLSPAN=\"2\"><B>allocator invariants</B></TD></TR>");
	if (!h->has_alloc)
		viz_buf_add(&b, "<TR><TD COLSPAN=\"2\">no allocator status recorded for this state</TD></TR>");
	else if (!h->n_inv)
		viz_buf_add(&b, "<TR><TD COLSPAN=\"2\">no invariant was evaluated here</TD></TR>");
	for (unsigned i = 0; i < h->n_inv; i++) {
		const viz_invariant *in = &h->inv[i];
		viz_buf_add(&b, "<TR><TD ALIGN=\"LEFT\">");
		viz_html_str(&b, in->name, 80);
		if (in->failed) {
			viz_buf_addf(&b, "</TD><TD ALIGN=\"LEFT\" PORT=\"i%u\" BGCOLOR=\"" VIZ_C_VIOLATION "\">FAIL", i);
			if (in->chunk >= 0) {
				viz_buf_addf(&b, ": chunk k%lld", (long long)in->chunk);
				if (in->slot != UINT32_MAX)
					viz_buf_addf(&b, " slot %u", in->slot);
				viz_buf_addf(&b, ", window byte +0x%llx", (unsigned long long)in->byte_off);
			}
			if (in->detail[0]) {
				viz_buf_add(&b, "<BR ALIGN=\"LEFT\"/>");
				viz_html_str(&b, in->detail, sizeof in->detail);
			}
			viz_buf_add(&b, "</TD></TR>");
		} else {
			viz_buf_add(&b, "</TD><TD BGCOLOR=\"" VIZ_C_LIVE "\">pass</TD></TR>");
		}
	}
	viz_buf_addf(&b, "<TR><TD ALIGN=\"LEFT\">raw window</TD><TD>%zu bytes", h->raw_len);
	if (h->raw_full > h->raw_len)
		viz_buf_addf(&b, " of %zu (cut)", h->raw_full);
	viz_buf_add(&b, "</TD></TR></TABLE>");
	Agnode_t *n = agnode(g, "invariants", 1);
	viz_set(n, "shape", "plaintext", "");
	viz_set_html(g, n, "label", viz_buf_str(&b));
	viz_buf_free(&b);
}

static const char *slot_colour(uint8_t st)
{
	switch (st) {
	case VIZ_SLOT_LIVE: return VIZ_C_LIVE;
	case VIZ_SLOT_POISONED: return VIZ_C_POISON;
	case VIZ_SLOT_BROKEN: return VIZ_C_BROKEN;
	case VIZ_SLOT_OVERRUN: return VIZ_C_OVERRUN;
	case VIZ_SLOT_UNKNOWN: return VIZ_C_UNKNOWN;
	default: return VIZ_C_FREE;
	}
}

/*
 * A chunk: its header fields, then its slots (a cell each, coloured and
 * marked with viz_slot_char).  Readable back from the DOT: node "kK" with
 * attributes cmc_unit, cmc_kind, cmc_live (live slots drawn, overruns
 * included) and cmc_slots (the strip), and cmc_bad when a failing
 * invariant points at it.
 */
static void chunk_node(Agraph_t *g, const viz_heap *h, size_t k)
{
	const viz_chunk *c = &h->chunks[k];
	viz_buf b = {0};
	unsigned cols = c->n_slots < SLOTS_PER_ROW ? (c->n_slots ? c->n_slots : 1) : SLOTS_PER_ROW;
	unsigned live = 0;
	for (uint32_t i = 0; i < c->n_slots; i++)
		live += c->slot[i] == VIZ_SLOT_LIVE || c->slot[i] == VIZ_SLOT_OVERRUN;
	/* What a user asks of a chunk: what sizes it holds, how much is in
	 * use, whose it is.  The header's internals (magic, claim word) are
	 * shown only when the header is broken, and are in the tooltip. */
	viz_buf_add(&b, "<TABLE BORDER=\"1\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"2\">");
	viz_buf_addf(&b, "<TR><TD COLSPAN=\"%u\"%s>chunk k%zu at window +0x%llx (unit %u)", cols,
		     c->header_bad ? " BGCOLOR=\"" VIZ_C_VIOLATION "\"" : "", k, (unsigned long long)c->offset,
		     c->unit);
	if (c->kind == VIZ_CHUNK_CLASS) {
		viz_buf_addf(&b, "<BR/>blocks of up to %u B: %u of %u slots live", c->size_class, live, c->n_slots);
		if (c->req_known)
			viz_buf_addf(&b, ", %llu B asked for", (unsigned long long)c->req_live);
		if (c->geometry_guessed)
			viz_buf_add(&b, "<BR/>header unusable: slots laid out by the unit table's class");
	} else {
		viz_buf_addf(&b, "<BR/>one %s block of %llu B (%u units)", kind_name(c->kind),
			     (unsigned long long)c->req, c->units);
	}
	if (c->owner == 1)
		viz_buf_add(&b, "<BR/>owner: the main thread");
	else
		viz_buf_addf(&b, "<BR/>owner: thread %u", c->owner);
	if (c->header_bad)
		viz_buf_addf(&b, "<BR/>header BROKEN: magic 0x%llx, claim 0x%x, checksum %s",
			     (unsigned long long)c->magic, c->claim, c->sum_ok ? "ok" : "BAD");
	viz_buf_add(&b, "</TD></TR>");
	char *strip = eng_xmalloc((size_t)c->n_slots + 1);
	for (uint32_t i = 0; i < c->n_slots; i++) {
		if (i % SLOTS_PER_ROW == 0)
			viz_buf_add(&b, "<TR>");
		uint8_t st = c->slot[i];
		strip[i] = viz_slot_char(st);
		const char *mark = st == VIZ_SLOT_BROKEN ? "x" : st == VIZ_SLOT_OVERRUN ? "!" : " ";
		viz_buf_addf(&b, "<TD BGCOLOR=\"%s\"%s WIDTH=\"10\" HEIGHT=\"10\">%s</TD>", slot_colour(st),
			     i == c->bad_slot ? " BORDER=\"3\" COLOR=\"" VIZ_C_VIOLATION_EDGE "\"" : "", mark);
		if (i % SLOTS_PER_ROW == SLOTS_PER_ROW - 1 || i + 1 == c->n_slots)
			viz_buf_add(&b, "</TR>");
	}
	strip[c->n_slots] = 0;
	viz_buf_add(&b, "</TABLE>");
	char name[32], num[32];
	snprintf(name, sizeof name, "k%zu", k);
	Agnode_t *n = agnode(g, name, 1);
	viz_set(n, "shape", "plaintext", "");
	viz_set_html(g, n, "label", viz_buf_str(&b));
	snprintf(num, sizeof num, "%u", c->unit);
	viz_set(n, "cmc_unit", num, "");
	viz_set(n, "cmc_kind", kind_name(c->kind), "");
	snprintf(num, sizeof num, "%u", live);
	viz_set(n, "cmc_live", num, "");
	viz_set(n, "cmc_slots", strip, "");
	viz_buf_reset(&b);
	viz_buf_addf(&b, "chunk k%zu: unit %u, %s, magic 0x%llx, owner %u, claim 0x%x, checksum %s, header: %u live",
		     k, c->unit, kind_name(c->kind), (unsigned long long)c->magic, c->owner, c->claim,
		     c->sum_ok ? "ok" : "BAD", c->n_live);
	viz_set(n, "tooltip", viz_buf_str(&b), "");
	viz_buf_free(&b);
	free(strip);
}

/* Failing invariants that name a chunk: an edge from their row to it, and
 * the chunk's cmc_bad lists them. */
static void pointers(Agraph_t *g, const viz_heap *h)
{
	Agnode_t *inv = agnode(g, "invariants", 0);
	for (size_t k = 0; k < h->n_chunks; k++) {
		viz_buf bad = {0};
		for (unsigned i = 0; i < h->n_inv; i++) {
			const viz_invariant *in = &h->inv[i];
			if (!in->failed || in->chunk != (int64_t)k)
				continue;
			char name[32], port[16];
			snprintf(name, sizeof name, "k%zu", k);
			snprintf(port, sizeof port, "i%u", i);
			Agedge_t *e = agedge(g, inv, agnode(g, name, 0), port, 1);
			viz_set(e, "tailport", port, "");
			viz_set(e, "color", VIZ_C_VIOLATION_EDGE, "");
			viz_set(e, "penwidth", "2", "");
			char id[16];
			snprintf(id, sizeof id, "%.15s", in->name);
			char *sp = strchr(id, ' ');
			if (sp)
				*sp = 0;
			viz_buf_addf(&bad, "%s%s", bad.len ? " " : "", id);
		}
		if (bad.len) {
			char name[32];
			snprintf(name, sizeof name, "k%zu", k);
			viz_set(agnode(g, name, 0), "cmc_bad", viz_buf_str(&bad), "");
		}
		viz_buf_free(&bad);
	}
}

int viz_heap_render(viz *v, const viz_heap *h, const char *path, char *err, size_t errlen)
{
	if (!viz_format_of(path)) {
		snprintf(err, errlen, "%s: expected a file name ending in .svg, .png, .pdf or .dot", path);
		return -1;
	}
	Agraph_t *g = agopen("heap", Agdirected, NULL);
	viz_set(g, "rankdir", "LR", "");
	viz_fonts(g);
	invariants_node(g, h);
	Agnode_t *prev = agnode(g, "invariants", 0);
	for (size_t k = 0; k < h->n_chunks; k++) {
		chunk_node(g, h, k);
		char name[32];
		snprintf(name, sizeof name, "k%zu", k);
		Agnode_t *n = agnode(g, name, 0);
		Agedge_t *e = agedge(g, prev, n, NULL, 1); /* keeps chunks in address order */
		viz_set(e, "style", "invis", "");
		prev = n;
	}
	pointers(g, h);
	viz_legend(g, VIZ_LEG_HEAP);

	viz_buf cap = {0};
	viz_buf_addf(&cap, "cmc run %lld, state %u: the allocator", (long long)h->run, h->state);
	unsigned failed = 0;
	for (unsigned i = 0; i < h->n_inv; i++)
		failed += h->inv[i].failed;
	if (!h->has_alloc)
		viz_buf_add(&cap, "\nthis run has no allocator data for the state");
	else
		viz_buf_addf(&cap, "\n%u invariants checked, %u failing", h->n_inv, failed);
	if (!h->n_chunks)
		viz_buf_addf(&cap, "\n%s", h->why_no_chunks);
	viz_caption(g, viz_buf_str(&cap));
	viz_buf_free(&cap);
	int rc = viz_render(v, g, "dot", path, err, errlen);
	agclose(g);
	return rc;
}

/*
 * heap.c — the allocator picture of one state (`cmc heap STATE`): a table
 * of the invariants with pass/fail (failing entries naming the chunk and
 * byte offset involved), one node per chunk showing its header fields and
 * its slots (live, free, poisoned), the legend, and a caption saying
 * plainly when the run recorded no allocator data.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define SLOTS_PER_ROW 32

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
		viz_html_str(&b, in->name, 64);
		if (in->failed) {
			viz_buf_add(&b, "</TD><TD BGCOLOR=\"" VIZ_C_VIOLATION "\">FAIL");
			if (in->chunk >= 0)
				viz_buf_addf(&b, ": chunk k%lld, byte +%llu", (long long)in->chunk,
					     (unsigned long long)in->byte_off);
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

static void chunk_node(Agraph_t *g, const viz_heap *h, size_t k)
{
	const viz_chunk *c = &h->chunks[k];
	viz_buf b = {0};
	unsigned cols = c->n_slots < SLOTS_PER_ROW ? (c->n_slots ? c->n_slots : 1) : SLOTS_PER_ROW;
	viz_buf_add(&b, "<TABLE BORDER=\"1\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"2\">");
	viz_buf_addf(&b, "<TR><TD COLSPAN=\"%u\"%s>chunk k%zu at +0x%llx<BR/>magic 0x%llx, class %u B, "
			 "%u slots, %u live</TD></TR>",
		     cols, c->header_bad ? " BGCOLOR=\"" VIZ_C_VIOLATION "\"" : "", k,
		     (unsigned long long)c->offset, (unsigned long long)c->magic, c->size_class, c->n_slots,
		     c->n_live);
	for (uint32_t i = 0; i < c->n_slots; i++) {
		if (i % SLOTS_PER_ROW == 0)
			viz_buf_add(&b, "<TR>");
		const char *col = c->slot[i] == VIZ_SLOT_LIVE ? VIZ_C_LIVE
				  : c->slot[i] == VIZ_SLOT_POISONED ? VIZ_C_POISON
								    : VIZ_C_FREE;
		if (i == c->bad_slot)
			col = VIZ_C_VIOLATION;
		viz_buf_addf(&b, "<TD BGCOLOR=\"%s\" WIDTH=\"10\" HEIGHT=\"10\"> </TD>", col);
		if (i % SLOTS_PER_ROW == SLOTS_PER_ROW - 1 || i + 1 == c->n_slots)
			viz_buf_add(&b, "</TR>");
	}
	viz_buf_add(&b, "</TABLE>");
	char name[32];
	snprintf(name, sizeof name, "k%zu", k);
	Agnode_t *n = agnode(g, name, 1);
	viz_set(n, "shape", "plaintext", "");
	viz_set_html(g, n, "label", viz_buf_str(&b));
	viz_buf_free(&b);
}

int viz_heap_render(viz *v, const viz_heap *h, const char *path, char *err, size_t errlen)
{
	if (!viz_format_of(path)) {
		snprintf(err, errlen, "%s: expected a file name ending in .svg, .png, .pdf or .dot", path);
		return -1;
	}
	Agraph_t *g = agopen("heap", Agdirected, NULL);
	viz_set(g, "rankdir", "LR", "");
	viz_set(g, "fontname", "Helvetica", "");
	agattr(g, AGNODE, "fontname", "Helvetica");
	agattr(g, AGNODE, "fontsize", "10");
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

/*
 * hgraph.c — the heap graph of one state (viz.h, viz_heap_graph): blocks
 * as nodes, pointers as edges, the roots as a cluster.  Bounded: at most
 * `cap` blocks, the first the walk reached (a breadth-first prefix, so
 * what is drawn is what lies nearest the roots).  Nothing the target
 * wrote reaches a label but through viz_caption() (which escapes): node
 * and edge labels are numbers.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

int viz_heap_graph(viz *v, const viz_hgraph *h, const char *path, viz_hg_result *res, char *err,
		   size_t errlen)
{
	memset(res, 0, sizeof *res);
	if (!viz_format_of(path)) {
		snprintf(err, errlen, "%s: expected a file name ending in .svg, .png, .pdf or .dot", path);
		return -1;
	}
	size_t cap = h->cap ? h->cap : VIZ_DEFAULT_BUDGET;
	size_t nb = h->n_blocks < cap ? h->n_blocks : cap;
	Agraph_t *g = agopen("heapgraph", Agdirected, NULL);
	viz_fonts(g);
	viz_set(g, "rankdir", "LR", "");
	char name[32], label[96];
	Agraph_t *rc = agsubg(g, "cluster_roots", 1);
	viz_set(rc, "label", "roots (writable segments)", "");
	viz_set(rc, "style", "dashed", "");
	for (size_t r = 0; r < h->n_roots; r++) {
		bool any = false;
		for (size_t i = 0; i < h->n_edges && !any; i++)
			any = !h->edges[i].from && h->edges[i].root == r && h->edges[i].to <= nb;
		if (!any)
			continue; /* a root that points at no drawn block */
		snprintf(name, sizeof name, "r%zu", r + 1);
		Agnode_t *n = agnode(rc, name, 1);
		snprintf(label, sizeof label, "root %zu\\n%llu B", r + 1,
			 (unsigned long long)h->roots[r].len);
		viz_set(n, "label", label, "");
		viz_set(n, "shape", "folder", "");
		snprintf(label, sizeof label, "0x%llx", (unsigned long long)h->roots[r].addr);
		viz_set(n, "tooltip", label, "");
		res->roots++;
	}
	for (size_t k = 0; k < nb; k++) {
		snprintf(name, sizeof name, "b%zu", k + 1);
		Agnode_t *n = agnode(g, name, 1);
		snprintf(label, sizeof label, "%zu\\n%llu B", k + 1, (unsigned long long)h->blocks[k].len);
		viz_set(n, "label", label, "");
		viz_set(n, "shape", "box", "");
		snprintf(label, sizeof label, "block %zu at 0x%llx", k + 1,
			 (unsigned long long)h->blocks[k].addr);
		viz_set(n, "tooltip", label, "");
		res->blocks++;
	}
	for (size_t i = 0; i < h->n_edges; i++) {
		const viz_hg_edge *e = &h->edges[i];
		if (e->to > nb || e->from > nb) {
			res->cut_edges++;
			continue;
		}
		char from[32];
		snprintf(from, sizeof from, e->from ? "b%u" : "r%u", e->from ? e->from : e->root + 1);
		snprintf(name, sizeof name, "b%u", e->to);
		Agedge_t *ed = agedge(g, agnode(g, from, 0), agnode(g, name, 0), NULL, 1);
		snprintf(label, sizeof label, "+%llu \xe2\x86\x92 +%llu", (unsigned long long)e->off,
			 (unsigned long long)e->to_off);
		viz_set(ed, "label", label, "");
		res->edges++;
	}
	res->cut_blocks = h->n_blocks - nb;
	viz_buf cap_text = {0};
	viz_buf_add(&cap_text, h->caption ? h->caption : "heap graph");
	viz_buf_addf(&cap_text, "\n%zu block%s, %zu pointer%s", h->n_blocks, h->n_blocks == 1 ? "" : "s",
		     h->n_edges, h->n_edges == 1 ? "" : "s");
	if (res->cut_blocks)
		viz_buf_addf(&cap_text, "\ncut: the first %zu blocks drawn; %zu more and %zu pointers"
			     " left out (--budget)", nb, res->cut_blocks, res->cut_edges);
	viz_caption(g, viz_buf_str(&cap_text));
	viz_buf_free(&cap_text);
	int r = viz_render(v, g, "dot", path, err, errlen);
	agclose(g);
	return r;
}

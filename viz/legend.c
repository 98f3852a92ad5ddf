/*
 * legend.c — the legend every picture carries (one HTML-like table node
 * named "legend", so it survives every layout engine) and the caption that
 * says what the picture shows and what was left out.
 */
#include <string.h>

#include "internal.h"

/* text: HTML, escaped by the caller */
static void row(viz_buf *b, const char *swatch, const char *text)
{
	viz_buf_addf(b, "<TR><TD %s WIDTH=\"28\"> </TD><TD ALIGN=\"LEFT\">%s</TD></TR>", swatch, text);
}

void viz_legend(Agraph_t *g, unsigned what)
{
	viz_buf b = {0};
	viz_buf_add(&b, "<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"2\" CELLPADDING=\"2\">"
			"<TR><TD COLSPAN=\"2\"><B>legend</B></TD></TR>");
	if (what & (VIZ_LEG_STATES | VIZ_LEG_MARKS)) {
		row(&b, "BGCOLOR=\"" VIZ_C_INIT "\"", "initial state (double border)");
		row(&b, "BGCOLOR=\"" VIZ_C_VIOLATION "\"", "a property is violated here");
		/* the store's fault status: a crash (signal) or an ENG_OBS_FAULT;
		 * an exit is a state, or a violation of `property exit` */
		row(&b, "BGCOLOR=\"" VIZ_C_FAULT "\"", "fault (crash, hang, flood, stop, protocol)");
	}
	if (what & VIZ_LEG_STATES) {
		row(&b, "", "#id d=depth, then the canonical record or the fingerprint");
		row(&b, "", "solid edge: first reached this way (BFS tree)");
		row(&b, "", "dashed grey edge: into an already-seen state");
		row(&b, "BGCOLOR=\"" VIZ_C_BACK "\"", "dashed blue edge: back edge (to no deeper a state)");
	}
	if (what & VIZ_LEG_TRACE)
		row(&b, "BGCOLOR=\"" VIZ_C_TRACE "\"", "bold red: the counterexample trace");
	if (what & VIZ_LEG_CLUSTERS)
	{
		row(&b, "", "box around states: one canonical state, its raw variants inside;");
		row(&b, "", "its first state names it (canonical cN: how many variants, the record)");
		row(&b, "", "raw vs #N: +OFF: where a variant&#39;s raw bytes first differ from #N&#39;s,");
		row(&b, "", "the bytes there (#N&#39;s -&gt; its own) and how many bytes differ");
	}
	if (what & VIZ_LEG_COLLAPSED)
		row(&b, "", "one node per canonical state (raw variants counted)");
	if (what & VIZ_LEG_LEVELS) {
		row(&b, "", "one node per BFS level with its number of states");
		row(&b, "BGCOLOR=\"" VIZ_C_VIOLATION "\"", "a level holding a violation");
	}
	if (what & VIZ_LEG_HEAP) {
		row(&b, "BGCOLOR=\"" VIZ_C_LIVE "\"", "live slot");
		row(&b, "BGCOLOR=\"" VIZ_C_FREE "\"", "free slot");
		row(&b, "BGCOLOR=\"" VIZ_C_POISON "\"", "freed slot, poisoned");
		row(&b, "BGCOLOR=\"" VIZ_C_BROKEN "\"", "x: free slot written (poison broken)");
		row(&b, "BGCOLOR=\"" VIZ_C_OVERRUN "\"", "!: live slot, redzone written (overflow)");
		row(&b, "BGCOLOR=\"" VIZ_C_UNKNOWN "\"", "slot unknown: the stored raw window is cut (--raw-cap)");
		row(&b, "BGCOLOR=\"" VIZ_C_VIOLATION "\"", "failing invariant points here");
	}
	viz_buf_add(&b, "</TABLE>");
	Agnode_t *n = agnode(g, "legend", 1);
	viz_set(n, "shape", "plaintext", "");
	viz_set(n, "margin", "0", "");
	viz_set_html(g, n, "label", viz_buf_str(&b));
	viz_buf_free(&b);
}

void viz_caption(Agraph_t *g, const char *text)
{
	/* one escaped line per line of text, each left-aligned */
	viz_buf b = {0};
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		viz_html_bytes(&b, text, len, 2000);
		viz_buf_add(&b, "<BR ALIGN=\"LEFT\"/>");
		text += len + (nl != NULL);
	}
	viz_buf s = {0};
	viz_buf_addf(&s, "<FONT POINT-SIZE=\"12\">%s</FONT>", viz_buf_str(&b));
	viz_set_html(g, g, "label", viz_buf_str(&s));
	viz_set(g, "labelloc", "t", "");
	viz_set(g, "labeljust", "l", "");
	viz_buf_free(&b);
	viz_buf_free(&s);
}

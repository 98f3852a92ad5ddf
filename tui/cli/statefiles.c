/*
 * statefiles.c — a state's declared files from the store's summary
 * (statefiles.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "engine/util.h"
#include "json.h"
#include "statefiles.h"

static const char *kind_of(char k)
{
	static const char *const kinds[][2] = {{"f", "file"}, {"l", "symlink"}, {"o", "other"},
					       {"d", "dir"}, {"m", "missing"}};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (k == kinds[i][0][0])
			return kinds[i][1];
	return "?";
}

bool tui_state_files_load(store *st, eng_fp blob, struct tui_state_files *out)
{
	size_t len, full;
	memset(out, 0, sizeof *out);
	if (eng_fp_zero(blob) || store_blob(st, blob, &out->blob, &len, &full) != 0)
		return false;
	size_t cap = 0;
	for (char *line = (char *)out->blob, *end = (char *)out->blob + len; line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		struct tui_state_file f = {kind_of(line[0]), 0, "", NULL, 0};
		char *p = line + 2, *q;
		if (p < nl) {
			f.size = strtoull(p, &q, 10);
			p = q + (q < nl);
			if ((q = memchr(p, ' ', (size_t)(nl - p)))) {
				if (q - p == 16)
					memcpy(f.hash, p, 16);
				f.path = q + 1;
				f.path_len = (size_t)(nl - q - 1);
			}
		}
		if (f.path) {
			if (out->n == cap) {
				cap = cap * 2 + 8;
				out->f = eng_xrealloc(out->f, cap * sizeof *out->f);
			}
			out->f[out->n++] = f;
		}
		line = nl + 1;
	}
	return true;
}

void tui_state_files_free(struct tui_state_files *fs)
{
	free(fs->blob);
	free(fs->f);
	memset(fs, 0, sizeof *fs);
}

void tui_state_file_text(const struct tui_state_file *f)
{
	tui_escape(stdout, f->path, f->path_len, 256);
	if (!strcmp(f->kind, "file") || !strcmp(f->kind, "symlink"))
		printf("  %s%llu byte%s, xxh3 %s\n", strcmp(f->kind, "file") ? "symlink, " : "", f->size,
		       f->size == 1 ? "" : "s", f->hash);
	else
		printf("  %s\n", !strcmp(f->kind, "dir") ? "directory" : f->kind);
}

void tui_state_file_json(struct tui_json *j, const struct tui_state_file *f)
{
	tui_json_object(j);
	tui_json_bytes(tui_json_key(j, "path"), f->path, f->path_len);
	tui_json_string(tui_json_key(j, "kind"), f->kind);
	tui_json_u64(tui_json_key(j, "size"), f->size);
	tui_json_string(tui_json_key(j, "hash"), f->hash[0] ? f->hash : NULL);
	tui_json_end(j);
}

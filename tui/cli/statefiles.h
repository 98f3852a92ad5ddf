/*
 * statefiles.h — a state's declared files (`state-file`, `state-dir`) as
 * the store keeps them: a summary blob of "KIND SIZE HASH PATH" lines
 * (engine/proc/files.c writes it, the path already escaped there), parsed
 * for `cmc show` and compared for `cmc compare --files`.
 */
#ifndef CMC_TUI_STATEFILES_H
#define CMC_TUI_STATEFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "store/store.h"

struct tui_state_file {
	const char *kind;       /* "file", "symlink", "other", "dir", "missing" */
	unsigned long long size;
	char hash[17];          /* XXH3-64 in hex; "" when none */
	const char *path;       /* not NUL-terminated: path_len bytes */
	size_t path_len;
};

/* The files of one state's summary, in its order (the walk's: declaration
 * order, then strcmp order within a directory); the paths point into
 * blob. */
struct tui_state_files {
	uint8_t *blob;
	struct tui_state_file *f;
	size_t n;
};

/* Load the summary stored as blob; false (and nothing to free) when the
 * state has none or the store cannot give it. */
bool tui_state_files_load(store *st, eng_fp blob, struct tui_state_files *out);
void tui_state_files_free(struct tui_state_files *fs);

/* f as `cmc show` lists it: its path (escaped), then its kind, size and
 * hash, and a newline. */
void tui_state_file_text(const struct tui_state_file *f);
struct tui_json;
/* f as one JSON object: path, kind, size, hash (null when none). */
void tui_state_file_json(struct tui_json *j, const struct tui_state_file *f);

#endif

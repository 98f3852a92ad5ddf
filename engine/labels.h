/*
 * labels.h — interned action labels.  A frontend's label is usually one of
 * a few texts (a model's action names, a scenario's operations) handed over
 * again and again, often from a buffer it reuses.  The search keeps one
 * copy of each text and gives listeners that copy: a label pointer a
 * listener sees stays valid, with the same text, until the search is freed,
 * so a listener can key what it knows about a label by the pointer alone.
 * Public to the libraries above (not installed) on purpose: the store keys
 * labels by these pointers and interns its own texts the same way.  A
 * table is one thread's (not locked).
 */
#ifndef CMC_LABELS_H
#define CMC_LABELS_H

typedef struct eng_labels eng_labels;

eng_labels *eng_labels_new(void);
void eng_labels_free(eng_labels *t);
/* The table's copy of text (NULL stays NULL). */
const char *eng_labels_intern(eng_labels *t, const char *text);

#endif

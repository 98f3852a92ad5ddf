/*
 * plural.c — the one rule for counted nouns in cmc's messages: "1 step",
 * "2 steps", "0 states".  Every message that prints a count with a noun
 * goes through tui_s(), so none says "all 1 steps".
 */
#include "cmd.h"

const char *tui_s(uint64_t n) { return n == 1 ? "" : "s"; }

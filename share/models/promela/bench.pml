/*
 * bench.pml — the benchmark models of share/models/bench.c in Promela:
 * five int counters 0..K-1 that advance while below K-1, one d_step per
 * counter.  Same shape as diehard.pml (one process, one control location,
 * end label for the all-top state), so "states, stored" is K^5 and
 * stored + matched is 1 + 5 * (K-1) * K^4.  K defaults to 29
 * (bench-counters); `spin -DK=22 -a` gives bench-counters-small.  Keep in
 * step with bench.c.
 */
#ifndef K
#define K 29
#endif

int x[5];

active proctype bench()
{
end:
	do
	:: d_step { x[0] < K - 1 -> x[0]++ }
	:: d_step { x[1] < K - 1 -> x[1]++ }
	:: d_step { x[2] < K - 1 -> x[2]++ }
	:: d_step { x[3] < K - 1 -> x[3]++ }
	:: d_step { x[4] < K - 1 -> x[4]++ }
	od
}

/*
 * t5-proc.c — unit tests of process mode's parsers, the parts that take
 * outside input: the scenario file (engine/proc/scenario.c), the record decoder of
 * the canonical and control channels (engine/proc/quiesce.c) and the ELF reader
 * (engine/proc/elf.c), including malformed and mutated inputs that must be
 * rejected without reading out of bounds (run under ASan in the SANITIZE
 * build).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmc_region.h"
#include "proc/scenario.h"
#include "proc/target.h"
#include "tap.h"

/* A global the ELF test looks up in this very executable. */
unsigned char t5_probe_array[48] = {1};

static const char *write_tmp(const char *dir, const char *name, const void *p, size_t n)
{
	static char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	fwrite(p, 1, n, f);
	fclose(f);
	return path;
}

static void test_sizes(void)
{
	uint64_t v;
	ok(proc_parse_size("4096", &v) == 0 && v == 4096, "size 4096");
	ok(proc_parse_size("64K", &v) == 0 && v == 65536, "size 64K");
	ok(proc_parse_size("1M", &v) == 0 && v == 1048576, "size 1M");
	ok(proc_parse_size("0x1000", &v) == 0 && v == 4096, "size 0x1000");
	ok(proc_parse_size("12Q", &v) < 0, "size 12Q rejected");
	ok(proc_parse_size("-1", &v) < 0, "size -1 rejected");
	ok(proc_parse_size("99999999999999999999G", &v) < 0, "overflowing size rejected");
}

static void test_scenario(const char *dir)
{
	char err[1024];
	const char *good =
		"# comment\n"
		"target /bin/cat -u   # trailing comment\n"
		"\n"
		"op \"INS 1\" \"INS 1\\n\" once\n"
		"op nul \"a\\0b\\x41\\101\\\\\\\"\"\n"
		"op plain word repeat\n"
		"depth 7\n"
		"states 100\n"
		"hash both\n"
		"raw segments\n"
		"raw symbol foo\n"
		"timeout 250\n"
		"property reply * \"OK*\"\n"
		"property exit 3\n";
	const char *path = write_tmp(dir, "good.scn", good, strlen(good));
	struct proc_scenario *sc = proc_scenario_load(path, err, sizeof err);
	ok(sc != NULL, "a good scenario loads (%s)", sc ? "" : err);
	if (!sc)
		return;
	ok(sc->argc == 2 && !strcmp(sc->argv[1], "-u") && !strcmp(sc->exe, "/bin/cat"), "target words");
	ok(sc->nops == 3, "three ops");
	ok(!strcmp(sc->ops[0].label, "INS 1") && sc->ops[0].len == 6 && !memcmp(sc->ops[0].bytes, "INS 1\n", 6) &&
		   sc->ops[0].once, "quoted label and bytes, once");
	ok(sc->ops[1].len == 7 && !memcmp(sc->ops[1].bytes, "a\0bAA\\\"", 7), "escapes: \\0 \\x41 \\101 \\\\ \\\"");
	ok(!sc->ops[2].once && sc->ops[2].len == 4, "bare word bytes, repeat");
	ok(sc->depth == 8, "depth 7 ops = 8 engine levels");
	ok(sc->states == 100 && sc->timeout_ms == 250, "states, timeout");
	ok(sc->ident == PROC_ID_BOTH, "hash both");
	ok(!sc->raw_heap && sc->raw_segments && sc->nsymbols == 1, "explicit raw lines replace the heap default");
	ok(sc->nprops == 2 && sc->props[0].label == NULL && !strcmp(sc->props[0].pattern, "OK*"),
	   "reply property for any op");
	ok(sc->props[1].kind == PROC_PROP_EXIT && sc->props[1].status == 3, "exit property");
	ok(proc_scenario_set(sc, "hash", "raw", err, sizeof err) == 0 && sc->ident == PROC_ID_RAW, "override hash");
	ok(proc_scenario_set(sc, "target", "x", err, sizeof err) < 0, "target cannot be overridden");
	proc_scenario_free(sc);

	static const struct {
		const char *text, *want;
	} bad[] = {
		{"op a \"x\"\n", "expected a 'target"},
		{"target /bin/cat\n", "expected at least one 'op"},
		{"target /bin/cat\nop a \"x\n", ":2: expected a closing"},
		{"target /bin/cat\nop a \"\\z\"\n", ":2: expected a C escape"},
		{"target /bin/cat\nop a \"\\x\"\n", ":2: expected hex digits"},
		{"target /bin/cat\nop a \"\\777\"\n", ":2: expected an octal escape"},
		{"target /bin/cat\nop a \"x\"y\n", ":2: expected a space after"},
		{"target /bin/cat\nop a \"\"\n", ":2: expected op bytes"},
		{"target /bin/cat\nop a x\nop a y\n", ":3: expected a new op label"},
		{"target /bin/cat\nop a x\ndepth -1\n", ":3: expected 'depth N'"},
		{"target /bin/cat\nop a x\nheap-base 0x1001\n", ":3: expected 'heap-base"},
		{"target /bin/cat\nop a x\ncanonical-fd 4\n", ":3: expected 'canonical-fd"},
		{"target /bin/cat\nop a x\nraw none\nhash raw\n", "expected some raw coverage"},
		{"target /bin/cat\nop a x\nproperty exit 300\n", ":3: expected 'property exit STATUS'"},
		{"target /nonexistent/prog\nop a x\n", ":1: expected an executable target"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		path = write_tmp(dir, "bad.scn", bad[i].text, strlen(bad[i].text));
		err[0] = 0;
		sc = proc_scenario_load(path, err, sizeof err);
		ok(!sc && strstr(err, bad[i].want) && strstr(err, "bad.scn"), "bad scenario %zu: %s", i, err);
		proc_scenario_free(sc);
	}
	/* Every prefix of the good scenario, and bytes mutated: never a crash. */
	size_t n = strlen(good);
	char *mut = malloc(n);
	unsigned seed = 1;
	int survived = 1;
	for (int round = 0; round < 300; round++) {
		memcpy(mut, good, n);
		for (int k = 0; k < 3; k++) {
			seed = seed * 1103515245u + 12345u;
			mut[(seed >> 8) % n] = (char)(seed >> 16);
		}
		path = write_tmp(dir, "mut.scn", mut, (size_t)(round % 2 ? n : (seed >> 4) % n));
		sc = proc_scenario_load(path, err, sizeof err);
		if (!sc && !strstr(err, "mut.scn"))
			survived = 0;
		proc_scenario_free(sc);
	}
	free(mut);
	ok(survived, "300 mutated scenarios: loaded or rejected with file:line");
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void test_chan(void)
{
	struct proc_chan c = {.fd = -1, .magic = CMC_CANON_MAGIC, .max = 16};
	uint8_t rec[8 + 5];
	put32(rec, CMC_CANON_MAGIC);
	put32(rec + 4, 5);
	memcpy(rec + 8, "hello", 5);
	for (size_t i = 0; i < sizeof rec; i++)
		proc_chan_feed(&c, rec + i, 1);
	ok(c.complete == 1 && c.last.len == 5 && !memcmp(c.last.p, "hello", 5), "record fed byte by byte");
	uint8_t two[8 + 8];
	put32(two, CMC_CANON_MAGIC);
	put32(two + 4, 0);
	put32(two + 8, CMC_CANON_MAGIC);
	put32(two + 12, 0);
	proc_chan_feed(&c, two, sizeof two);
	ok(c.complete == 3 && c.last.len == 0 && !c.bad, "two empty records in one read");
	proc_chan_feed(&c, rec, 6);
	ok(c.complete == 3, "a partial record is not complete");
	proc_chan_feed(&c, rec + 6, sizeof rec - 6);
	ok(c.complete == 4 && c.last.len == 5, "completed later");
	uint8_t big[8];
	put32(big, CMC_CANON_MAGIC);
	put32(big + 4, 17);
	proc_chan_feed(&c, big, 8);
	ok(c.bad && c.last.len == 5, "a length over the channel's bound is malformed; last stays");
	proc_buf_free(&c.cur);
	proc_buf_free(&c.last);
	struct proc_chan d = {.fd = -1, .magic = CMC_CANON_MAGIC, .max = 16};
	uint8_t wrong[8] = {'X', 'X', 'X', 'X', 0, 0, 0, 0};
	proc_chan_feed(&d, wrong, 8);
	ok(d.bad && d.complete == 0, "a wrong magic is malformed");
	proc_buf_free(&d.cur);
	proc_buf_free(&d.last);
}

static void test_elf(const char *dir)
{
	char err[1024], self[4096];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	self[k > 0 ? k : 0] = 0;
	struct proc_scenario sc = {0};
	char *syms[] = {"t5_probe_array"};
	sc.exe = self;
	sc.raw_segments = true;
	sc.raw_symbols = syms;
	sc.nsymbols = 1;
	struct proc_image img;
	ok(proc_elf_load(&sc, &img, err, sizeof err) == 0, "this test's own ELF loads (%s)", err);
	size_t nseg = img.nranges ? img.nranges - 1 : 0;
	ok(nseg >= 1, "at least one writable segment (%zu)", nseg);
	ok(img.nranges && img.ranges[img.nranges - 1].len == sizeof t5_probe_array, "symbol size 48");
	uint64_t want = (uint64_t)(uintptr_t)t5_probe_array;
	uint64_t got = img.ranges[img.nranges - 1].addr;
	/* PIE: the symbol's offset plus this process's load base. */
	ok(img.pie ? (want - got) % 4096 == 0 : want == got, "symbol address matches (pie %d)", img.pie);
	proc_image_free(&img);

	/* Mutated copies of this ELF: rejected or parsed, never a bad read. */
	FILE *f = fopen(self, "rb");
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	uint8_t *orig = malloc((size_t)n);
	ok(fread(orig, 1, (size_t)n, f) == (size_t)n, "read own ELF");
	fclose(f);
	uint8_t *mut = malloc((size_t)n);
	unsigned seed = 7;
	int parsed = 0, rejected = 0;
	char path[4200];
	snprintf(path, sizeof path, "%s/mut.elf", dir);
	sc.exe = path;
	for (int round = 0; round < 200; round++) {
		memcpy(mut, orig, (size_t)n);
		for (int j = 0; j < 4; j++) {
			seed = seed * 1103515245u + 12345u;
			/* mostly the headers, where the offsets live */
			size_t at = round % 3 ? (seed >> 8) % 128 : (seed >> 8) % (size_t)n;
			mut[at] = (uint8_t)(seed >> 20);
		}
		size_t len = round % 5 ? (size_t)n : (seed >> 4) % (size_t)n + 1;
		write_tmp(dir, "mut.elf", mut, len);
		if (proc_elf_load(&sc, &img, err, sizeof err) == 0)
			parsed++;
		else
			rejected++;
		proc_image_free(&img);
	}
	ok(parsed + rejected == 200, "200 mutated ELFs: %d parsed, %d rejected, no crash", parsed, rejected);
	free(orig);
	free(mut);
}

int main(void)
{
	char dir[] = "/tmp/cmc-t5-proc.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	test_sizes();
	test_scenario(dir);
	test_chan();
	test_elf(dir);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		ok(0, "clean up %s", dir);
	return tap_done();
}

/*
 * elf.c — what raw hashing covers besides the heap: the target
 * executable's writable PT_LOAD segments (`raw segments`) and named global
 * symbols (`raw symbol NAME`), read from its ELF64 file; and the same
 * segments as the heap-graph walk's roots (heapgraph.h), read whenever the
 * file is an ELF64 executable, quietly left out when it is not.
 *
 * The executable is untrusted input too: every offset, size and index is
 * checked against the file before use; anything out of bounds is an error
 * naming the file, never a read past the mapping.  Only little-endian
 * x86-64-style ELF64 is accepted.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target.h"
#include "util.h"

struct elf {
	const uint8_t *p;
	size_t n;
};

/* Is [off, off + len) inside the file? */
static bool in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->n && len <= e->n - off;
}

static void add_range(struct proc_image *img, uint64_t addr, uint64_t len, const char *what)
{
	img->ranges = eng_xrealloc(img->ranges, (img->nranges + 1) * sizeof *img->ranges);
	img->ranges[img->nranges++] = (struct proc_range){addr, len, what};
}

static void add_root(struct proc_image *img, uint64_t addr, uint64_t len)
{
	img->roots = eng_xrealloc(img->roots, (img->nroots + 1) * sizeof *img->roots);
	img->roots[img->nroots++] = (struct proc_range){addr, len, "writable segment"};
}

/* Find `name` in one symbol table section; 1 found, 0 not, -1 malformed. */
static int find_sym(const struct elf *e, const Elf64_Ehdr *eh, const Elf64_Shdr *sh,
		    const char *name, uint64_t *addr, uint64_t *size)
{
	if (sh->sh_entsize != sizeof(Elf64_Sym) || !in_file(e, sh->sh_offset, sh->sh_size) ||
	    sh->sh_link >= eh->e_shnum)
		return -1;
	const Elf64_Shdr *strs = (const Elf64_Shdr *)(e->p + eh->e_shoff) + sh->sh_link;
	if (!in_file(e, strs->sh_offset, strs->sh_size))
		return -1;
	const char *str = (const char *)e->p + strs->sh_offset;
	size_t nsym = sh->sh_size / sizeof(Elf64_Sym);
	size_t want = strlen(name);
	for (size_t i = 0; i < nsym; i++) {
		Elf64_Sym s;
		memcpy(&s, e->p + sh->sh_offset + i * sizeof s, sizeof s);
		if (s.st_name >= strs->sh_size || s.st_shndx == SHN_UNDEF)
			continue;
		/* The name must end inside the string table. */
		if (strs->sh_size - s.st_name <= want || str[s.st_name + want] != 0 ||
		    memcmp(str + s.st_name, name, want) != 0)
			continue;
		if (ELF64_ST_TYPE(s.st_info) != STT_OBJECT && ELF64_ST_TYPE(s.st_info) != STT_NOTYPE)
			continue;
		*addr = s.st_value;
		*size = s.st_size;
		return 1;
	}
	return 0;
}

static int parse(const struct elf *e, const struct proc_scenario *sc, struct proc_image *img,
		 char *err, size_t errlen)
{
	const char *f = sc->exe;
	Elf64_Ehdr eh;
	if (!in_file(e, 0, sizeof eh) || memcmp(e->p, ELFMAG, SELFMAG) != 0) {
		snprintf(err, errlen, "%s: not an ELF file (raw segments/symbols need one)", f);
		return -1;
	}
	memcpy(&eh, e->p, sizeof eh);
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		snprintf(err, errlen, "%s: expected a 64-bit little-endian ELF executable", f);
		return -1;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		snprintf(err, errlen, "%s: expected an ELF executable, not type %u", f, eh.e_type);
		return -1;
	}
	img->pie = eh.e_type == ET_DYN;
	if (eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !in_file(e, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr))) {
		snprintf(err, errlen, "%s: malformed ELF program headers", f);
		return -1;
	}
	bool first = true;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, e->p + eh.e_phoff + i * sizeof ph, sizeof ph);
		if (ph.p_type != PT_LOAD)
			continue;
		if (first || ph.p_vaddr < img->first_vaddr)
			img->first_vaddr = ph.p_vaddr & ~(uint64_t)4095;
		first = false;
		if (sc->raw_segments && (ph.p_flags & PF_W) && ph.p_memsz)
			add_range(img, ph.p_vaddr, ph.p_memsz, "writable segment");
		if ((ph.p_flags & PF_W) && ph.p_memsz)
			add_root(img, ph.p_vaddr, ph.p_memsz);
	}
	if (!sc->nsymbols)
		return 0;
	if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(e, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr))) {
		snprintf(err, errlen, "%s: malformed ELF section headers", f);
		return -1;
	}
	for (size_t k = 0; k < sc->nsymbols; k++) {
		int found = 0;
		uint64_t addr = 0, size = 0;
		/* .symtab first (all globals and statics), then .dynsym. */
		for (int pass = 0; pass < 2 && !found; pass++)
			for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
				Elf64_Shdr sh;
				memcpy(&sh, e->p + eh.e_shoff + i * sizeof sh, sizeof sh);
				if (sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB))
					continue;
				int r = find_sym(e, &eh, &sh, sc->raw_symbols[k], &addr, &size);
				if (r < 0) {
					snprintf(err, errlen, "%s: malformed ELF symbol table", f);
					return -1;
				}
				found = r;
			}
		if (!found) {
			snprintf(err, errlen, "%s: raw symbol '%s' not found in the executable's symbol "
				 "table (is it stripped, or the name static in C++?)", f, sc->raw_symbols[k]);
			return -1;
		}
		if (size == 0) {
			snprintf(err, errlen, "%s: raw symbol '%s' has size 0 (expected a data object)",
				 f, sc->raw_symbols[k]);
			return -1;
		}
		add_range(img, addr, size, sc->raw_symbols[k]);
	}
	return 0;
}

int proc_elf_load(const struct proc_scenario *sc, struct proc_image *img, char *err, size_t errlen)
{
	memset(img, 0, sizeof *img);
	/* Without raw segments or symbols the file is read for the roots
	 * alone, and anything wrong with it only leaves them out. */
	bool needed = sc->raw_segments || sc->nsymbols;
	int fd = open(sc->exe, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (!needed && (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0) {
		snprintf(err, errlen, "%s: cannot read the executable: %s", sc->exe, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		if (!needed)
			return 0;
		snprintf(err, errlen, "%s: cannot map the executable: %s", sc->exe, strerror(errno));
		return -1;
	}
	struct elf e = {p, (size_t)st.st_size};
	int r = parse(&e, sc, img, err, errlen);
	munmap(p, (size_t)st.st_size);
	if (r < 0) {
		proc_image_free(img);
		if (!needed) {
			err[0] = 0;
			return 0;
		}
	}
	return r;
}

void proc_image_free(struct proc_image *img)
{
	free(img->ranges);
	img->ranges = NULL;
	img->nranges = 0;
	free(img->roots);
	img->roots = NULL;
	img->nroots = 0;
}

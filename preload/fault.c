/*
 * fault.c — how the preload dies when it cannot go on: the fault convention
 * of cmc_region.h section 4 (header field, control record, stderr line,
 * _exit with 112 + code).  Also the tiny malloc-free message builder the
 * rest of the preload formats its messages with.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "pl.h"

void pl_msg_str(struct pl_msg *m, const char *s)
{
	while (*s && m->len < sizeof m->text)
		m->text[m->len++] = *s++;
}

void pl_msg_u64(struct pl_msg *m, uint64_t v)
{
	char d[24];
	int n = 0;
	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && m->len < sizeof m->text)
		m->text[m->len++] = d[--n];
}

void pl_msg_hex(struct pl_msg *m, uint64_t v)
{
	char d[20];
	int n = 0;
	do {
		d[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	pl_msg_str(m, "0x");
	while (n && m->len < sizeof m->text)
		m->text[m->len++] = d[--n];
}

/* Write all of buf, retrying on EINTR and short writes; give up silently on
 * any other error (we are dying and have nobody to tell). */
static void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		len -= (size_t)w;
	}
}

static int ctl_fd(void)
{
	char v[24];
	int fd = 0;
	if (pl_env(CMC_ENV_CTL_FD, v, sizeof v) != 1 || !v[0])
		return -1;
	for (const char *p = v; *p; p++) {
		if (*p < '0' || *p > '9' || fd > 100000)
			return -1; /* malformed: we are already faulting; stderr still works */
		fd = fd * 10 + (*p - '0');
	}
	return fd;
}

int pl_ctl_send(const void *payload, size_t len)
{
	int fd = ctl_fd();
	if (fd < 0 || len > CMC_CTL_MAX)
		return -1;
	unsigned char rec[8 + CMC_CTL_MAX];
	pl_put_le32(rec, CMC_CTL_MAGIC);
	pl_put_le32(rec + 4, (uint32_t)len);
	memcpy(rec + 8, payload, len);
	write_all(fd, rec, 8 + len); /* one write: a pipe keeps <= PIPE_BUF whole */
	return 0;
}

_Noreturn void pl_fault(uint32_t code, const struct pl_msg *m)
{
	if (pl_region)
		pl_region->fault = code;

	unsigned char rec[8 + sizeof m->text];
	pl_put_le32(rec, CMC_CTL_FAULT);
	pl_put_le32(rec + 4, code);
	memcpy(rec + 8, m->text, m->len);
	pl_ctl_send(rec, 8 + m->len);
	write_all(2, "cmc-preload: ", 13);
	write_all(2, m->text, m->len);
	write_all(2, "\n", 1);
	_exit(CMC_FAULT_EXIT_BASE + (int)code);
}

/*
 * env.c — reading the CMC_* settings without malloc and without depending
 * on libc being initialised: the first malloc can come from the dynamic
 * loader or libc before `environ` is set, so when it is still NULL the
 * initial environment is streamed from /proc/self/environ instead (the
 * environment cmc started the target with, which is what we want).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "pl.h"

extern char **environ;

static int copy_value(const char *v, char *out, size_t outlen)
{
	size_t n = strlen(v);
	if (n >= outlen)
		return -1;
	memcpy(out, v, n + 1);
	return 1;
}

/* Stream /proc/self/environ (NUL-separated NAME=value entries) looking for
 * `name`; entries of any length are skipped without buffering them. */
static int env_from_proc(const char *name, char *out, size_t outlen)
{
	int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t nlen = strlen(name);
	size_t pos = 0;  /* position within the current entry */
	int state = 0;   /* 0 matching name, 1 copying value, 2 skipping entry */
	size_t vlen = 0;
	int result = 0;
	char buf[512];
	ssize_t r;
	while (result == 0 && ((r = read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))) {
		for (ssize_t i = 0; i < r && result == 0; i++) {
			char c = buf[i];
			if (c == '\0') {
				if (state == 1) {
					out[vlen] = '\0';
					result = 1;
				}
				state = 0, pos = 0;
				continue;
			}
			if (state == 0) {
				if (pos < nlen && c == name[pos])
					pos++;
				else if (pos == nlen && c == '=')
					state = 1, vlen = 0;
				else
					state = 2;
			} else if (state == 1) {
				if (vlen + 1 >= outlen)
					result = -1;
				else
					out[vlen++] = c;
			}
		}
	}
	close(fd);
	return result;
}

int pl_env(const char *name, char *out, size_t outlen)
{
	if (!environ)
		return env_from_proc(name, out, outlen);
	size_t nlen = strlen(name);
	for (char **e = environ; *e; e++)
		if (strncmp(*e, name, nlen) == 0 && (*e)[nlen] == '=')
			return copy_value(*e + nlen + 1, out, outlen);
	return 0;
}

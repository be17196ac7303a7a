/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RTLTUNE_FUZZ_H
#define RTLTUNE_FUZZ_H
/*
 * Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c, docs/security.md "Fuzzing").
 * The parsers under test read files, so each target writes its input into a private
 * directory on tmpfs (/dev/shm) and hands the parser that path: the same entry point the
 * programs use, no test-only API. The directory goes away when the fuzzer exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_dir_path[PATH_MAX];

static inline int fuzz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static inline void fuzz_dir_remove(void)
{
	if (fuzz_dir_path[0])
		nftw(fuzz_dir_path, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The private directory, made on first use; aborts (a harness bug, not a finding) on error. */
static inline const char *fuzz_dir(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	if (fuzz_dir_path[0])
		return fuzz_dir_path;
	snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%s/rtltune-fuzz-XXXXXX", base);
	if (!mkdtemp(fuzz_dir_path)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(fuzz_dir_remove);
	return fuzz_dir_path;
}

/* "DIR/name" in a static buffer (one per call site is enough for the targets). */
static inline const char *fuzz_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", fuzz_dir(), name);
	return buf;
}

/* Replace the file at path with exactly data (no partial state left from the last input). */
static inline void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t off = 0;

	if (fd < 0) {
		perror(path);
		abort();
	}
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0) {
			perror(path);
			abort();
		}
		off += (size_t)n;
	}
	close(fd);
}

/* The bytes as a NUL-terminated string (inputs may hold NULs: the string then ends early). */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A string field of a parsed struct must be NUL-terminated inside its array. */
#define FUZZ_ASSERT_STR(arr)                                                                 \
	do {                                                                                 \
		if (!memchr((arr), '\0', sizeof(arr))) {                                     \
			fprintf(stderr, "fuzz: %s not NUL-terminated\n", #arr);              \
			abort();                                                             \
		}                                                                            \
	} while (0)

#define FUZZ_CHECK(cond)                                                                     \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "fuzz: %s:%d: check failed: %s\n", __FILE__, __LINE__,  \
				#cond);                                                      \
			abort();                                                             \
		}                                                                            \
	} while (0)

/*
 * An error that starts "PATH:LINE:" (the INI reader's line, lib/base/inifile.c) names a
 * line the input has: from 1 to its count of lines (1 for an empty input).
 */
static inline void fuzz_check_error_line(const char *msg, const char *path, const uint8_t *data,
					 size_t size)
{
	size_t plen = strlen(path), i;
	unsigned long line, lines = 0;
	char *end;

	if (strncmp(msg, path, plen) || msg[plen] != ':' || msg[plen + 1] < '0' ||
	    msg[plen + 1] > '9')
		return;
	line = strtoul(msg + plen + 1, &end, 10);
	FUZZ_CHECK(*end == ':');
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (size && data[size - 1] != '\n')
		lines++;
	FUZZ_CHECK(line >= 1 && line <= (lines ? lines : 1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif

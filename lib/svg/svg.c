// SPDX-License-Identifier: GPL-2.0-only
/*
 * SVG building blocks: the document buffer, locale-independent numbers, XML escaping,
 * 1/2/5 x 10^n ticks, SI prefixes, atomic file writes. The two charts are lib/svg/svg_chart.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtltune/paths.h"
#include "svg_priv.h"

/* ---- the document buffer -------------------------------------------------------------- */

static void sb_reserve(struct svg_buf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->oom || b->len + more + 1 <= b->cap)
		return;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return;
	}
	b->p = p;
	b->cap = cap;
}

static void sb_append(struct svg_buf *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void sb_raw(struct svg_buf *b, const char *s)
{
	sb_append(b, s, strlen(s));
}

void sb_printf(struct svg_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	sb_reserve(b, (size_t)n);
	if (b->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sb_num(struct svg_buf *b, double v, int decimals)
{
	char tmp[48];

	svg_format_number(v, decimals, tmp, sizeof(tmp));
	sb_raw(b, tmp);
}

void sb_text(struct svg_buf *b, const char *s)
{
	size_t n = svg_escape(s, NULL, 0);

	sb_reserve(b, n);
	if (b->oom)
		return;
	svg_escape(s, b->p + b->len, n + 1);
	b->len += n;
}

/* ---- numbers ---------------------------------------------------------------------------- */

/* printf("%.*f") follows LC_NUMERIC (a decimal comma would break every coordinate), so
 * numbers are built from integers: round to the decimals, then print the two halves. */
size_t svg_format_number(double v, int decimals, char *out, size_t len)
{
	static const int64_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
	int64_t scaled, ip, fp;
	char frac[16];
	double s;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	if (!isfinite(v))
		return (size_t)snprintf(out, len, "0");
	s = v * (double)pow10[decimals];
	if (s > 9e17 || s < -9e17) /* beyond int64: no chart coordinate or tick is this big */
		return (size_t)snprintf(out, len, "%s", v < 0 ? "-9e17" : "9e17");
	scaled = llround(s);
	ip = (scaled < 0 ? -scaled : scaled) / pow10[decimals];
	fp = (scaled < 0 ? -scaled : scaled) % pow10[decimals];
	if (decimals == 0)
		return (size_t)snprintf(out, len, "%s%lld", scaled < 0 ? "-" : "", (long long)ip);
	snprintf(frac, sizeof(frac), "%0*lld", decimals, (long long)fp);
	return (size_t)snprintf(out, len, "%s%lld.%s", scaled < 0 ? "-" : "", (long long)ip, frac);
}

/* ---- text --------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1..4), 0 when invalid or a character XML 1.0
 * does not allow (C0 controls other than tab/LF/CR, U+FFFE/U+FFFF, surrogates). */
static size_t utf8_ok(const unsigned char *s)
{
	unsigned int c, n, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' ? 1 : 0;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, c = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, c = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || c == 0xfffe || c == 0xffff)
		return 0;
	return n;
}

size_t svg_escape(const char *text, char *out, size_t len)
{
	const unsigned char *s = (const unsigned char *)(text ? text : "");
	size_t need = 0, written = 0, n, k;
	int full = !out || !len;
	const char *rep;
	char one[5];

	while (*s) {
		n = 1;
		switch (*s) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&apos;";
			break;
		default:
			n = utf8_ok(s);
			if (n) {
				memcpy(one, s, n);
				one[n] = '\0';
				rep = one;
			} else {
				rep = "?";
				n = 1;
			}
		}
		k = strlen(rep);
		/* Whole entities and characters only: a cut never leaves half of one. */
		if (!full && written + k < len) {
			memcpy(out + written, rep, k);
			written += k;
		} else {
			full = 1;
		}
		need += k;
		s += n;
	}
	if (out && len)
		out[written] = '\0';
	return need;
}

double svg_text_width(const char *s, double px)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t chars = 0;

	for (; *p; p++)
		chars += (*p & 0xc0) != 0x80;
	return (double)chars * px * 0.6;
}

void svg_axis_title(const struct svg_axis *a, const char *prefix, char *out, size_t len)
{
	const char *label = a->label && *a->label ? a->label : "";

	if (a->unit && *a->unit)
		snprintf(out, len, "%s%s(%s%s)", label, *label ? " " : "", prefix ? prefix : "",
			 a->unit);
	else
		snprintf(out, len, "%s", label);
}

/* ---- ticks and prefixes ------------------------------------------------------------------ */

int svg_nice_ticks(double min, double max, int target, struct svg_ticks *out, struct rterr *err)
{
	double rough, mag, step, lo, hi;
	long long i0, i1, i, best_n = 0;
	int d;

	memset(out, 0, sizeof(*out));
	if (!isfinite(min) || !isfinite(max) || min > max)
		return rterr_input(err, "chart range: expected finite min <= max");
	if (target < 2)
		target = 2;
	if (target > SVG_MAX_TICKS - 1)
		target = SVG_MAX_TICKS - 1;
	if (max - min < 1e-12 * (fabs(max) + fabs(min)) || max == min) {
		double pad = fabs(min) > 0 ? fabs(min) * 0.1 : 1;

		min -= pad;
		max += pad;
	}
	/* Of the 1/2/5 x 10^n steps near the rough one, the one whose tick count (after
	 * rounding the ends out) is closest to the target; a tie takes the smaller step. */
	rough = (max - min) / (target - 1);
	mag = pow(10, floor(log10(rough)));
	step = 0;
	for (int k = 0; k < 5; k++) {
		static const double mult[] = {0.5, 1, 2, 5, 10};
		double s = mult[k] * mag;
		long long n;

		i0 = (long long)floor(min / s + 1e-9);
		i1 = (long long)ceil(max / s - 1e-9);
		n = i1 - i0 + 1;
		if (n > SVG_MAX_TICKS)
			continue;
		if (step == 0 || llabs(n - target) < llabs(best_n - target)) {
			step = s;
			best_n = n;
		}
	}
	if (step == 0)
		step = 10 * mag;
	/* Still too many ticks (a huge target range): widen. */
	for (;;) {
		i0 = (long long)floor(min / step + 1e-9);
		i1 = (long long)ceil(max / step - 1e-9);
		if (i1 - i0 + 1 <= SVG_MAX_TICKS)
			break;
		step *= 2;
	}
	lo = (double)i0 * step;
	hi = (double)i1 * step;
	out->lo = lo;
	out->hi = hi;
	out->step = step;
	for (i = i0; i <= i1; i++) {
		double v = (double)i * step;

		out->v[out->n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	/* Enough digits that two neighbouring ticks never print the same. */
	d = (int)ceil(-log10(step) - 1e-9);
	out->decimals = d < 0 ? 0 : d > 6 ? 6 : d;
	return 0;
}

const char *svg_si_prefix(double max_abs, double *divisor)
{
	static const struct {
		double div;
		const char *prefix;
	} si[] = {{1e12, "T"}, {1e9, "G"},  {1e6, "M"},	       {1e3, "k"},
		  {1, ""},     {1e-3, "m"}, {1e-6, "\xc2\xb5"}};
	size_t i;

	max_abs = fabs(max_abs);
	*divisor = 1;
	if (!(max_abs > 0) || !isfinite(max_abs))
		return "";
	for (i = 0; i < sizeof(si) / sizeof(si[0]); i++)
		if (max_abs >= si[i].div * 0.9995) {
			*divisor = si[i].div;
			return si[i].prefix;
		}
	*divisor = 1e-6;
	return "\xc2\xb5";
}

/* ---- files ----------------------------------------------------------------------------- */

int svg_check_writable(const char *path, struct rterr *err)
{
	char tmp[PATH_MAX];
	struct stat st;
	int fd;

	if (!*path)
		return rterr_input(err, "--svg: an empty file name");
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return rterr_input(err, "--svg %s: a directory, not a file to write", path);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return rterr_input(err, "--svg %s: path too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		rterr_sys(err, errno, "--svg %s: cannot write a file there", path);
		err->kind = RTERR_INPUT;
		return -err->errnum;
	}
	close(fd);
	unlink(tmp);
	return 0;
}

int svg_write_file(const char *path, const char *svg, size_t len, struct rterr *err)
{
	char tmp[PATH_MAX];
	int fd, e;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return rterr_input(err, "%s: path too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return rterr_sys(err, errno, "%s: cannot create", tmp);
	e = write_full(fd, svg, len);
	if (e < 0) {
		close(fd);
		unlink(tmp);
		return rterr_sys(err, -e, "%s: write", tmp);
	}
	if (fsync(fd) < 0) {
		e = errno;
		close(fd);
		unlink(tmp);
		return rterr_sys(err, e, "%s: fsync", tmp);
	}
	if (close(fd) < 0) {
		e = errno;
		unlink(tmp);
		return rterr_sys(err, e, "%s: close", tmp);
	}
	if (rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		return rterr_sys(err, e, "%s: rename to %s", tmp, path);
	}
	return 0;
}

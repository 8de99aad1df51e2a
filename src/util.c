#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

void
fatal(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("ludus: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		fatal("out of memory (%zu bytes)", n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		fatal("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		fatal("out of memory (%zu bytes)", n);
	return q;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		fatal("allocation overflow (%zu x %zu)", n, size);
	return xrealloc(p, n * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p;
	size_t len = strnlen(s, n);

	p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	struct buf b = { 0 };
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return buf_steal(&b);
}

static void
buf_grow(struct buf *b, size_t extra)
{
	size_t want;

	if (extra > SIZE_MAX - b->len - 1)
		fatal("buffer overflow");
	want = b->len + extra + 1;
	if (want <= b->cap)
		return;
	if (b->cap == 0)
		b->cap = 64;
	while (b->cap < want)
		b->cap = b->cap > SIZE_MAX / 2 ? want : b->cap * 2;
	b->s = xrealloc(b->s, b->cap);
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->cap - b->len <= n)	/* room for n and the NUL? */
		buf_grow(b, n);
	if (n)
		memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_addc(struct buf *b, char c)
{
	if (b->cap - b->len <= 1)
		buf_grow(b, 1);
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

void
buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	size_t room;
	int n;

	/* Most texts fit in the room there is: written once, not measured
	 * first. */
	if (b->cap == 0)
		buf_grow(b, 0);
	room = b->cap - b->len;
	va_copy(aq, ap);
	n = vsnprintf(b->s + b->len, room, fmt, aq);
	va_end(aq);
	if (n < 0)
		fatal("vsnprintf failed");
	if ((size_t)n >= room) {
		buf_grow(b, (size_t)n);
		vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	}
	b->len += (size_t)n;
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void
buf_free(struct buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

char *
buf_steal(struct buf *b)
{
	char *s = b->s ? b->s : xstrdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void
strv_add(struct strv *sv, const char *s)
{
	sv->v = xreallocarray(sv->v, (size_t)sv->n + 2, sizeof(*sv->v));
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

void
strv_free(struct strv *sv)
{
	int i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

const char *
buf_str(const struct buf *b)
{
	return b->s ? b->s : "";
}

size_t
util_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

void
util_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

char *
util_trim(char *s)
{
	size_t n;

	while (*s && isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int
util_strcaseeq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
	return *a == *b;
}

int
util_strncaseeq(const char *a, const char *b, size_t n)
{
	for (; n > 0; a++, b++, n--) {
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
		if (*a == '\0')
			return 1;
	}
	return 1;
}

int
util_parse_int(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

void
util_lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

void
util_json_str(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, (char)c);
		} else if (c == '\n')
			buf_adds(b, "\\n");
		else if (c == '\t')
			buf_adds(b, "\\t");
		else if (c < 0x20)
			buf_printf(b, "\\u%04x", c);
		else
			buf_addc(b, (char)c);
	}
	buf_addc(b, '"');
}

void
util_hex(const unsigned char *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
util_unhex(const char *s, unsigned char *out, size_t n)
{
	size_t i;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		int hi = hexval((unsigned char)s[2 * i]);
		int lo = hexval((unsigned char)s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

char *
util_read_stream(FILE *f, size_t max, size_t *len, int *truncated)
{
	struct buf b = { 0 };
	char chunk[65536];
	size_t n;

	*truncated = 0;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b.len + n > max) {
			buf_add(&b, chunk, max - b.len);
			*truncated = 1;
			continue;
		}
		buf_add(&b, chunk, n);
	}
	*len = b.len;
	return buf_steal(&b);
}

char *
util_read_file(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data;
	int truncated;

	if (f == NULL)
		return NULL;
	data = util_read_stream(f, max, len, &truncated);
	fclose(f);
	return data;
}

/* The resolved directory of path and its last name, as one string; NULL
 * when the directory cannot be resolved. */
static char *
resolved_place(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *real, *out;

	dir = slash == NULL ? xstrdup(".") : slash == path ? xstrdup("/") :
	    xstrndup(path, (size_t)(slash - path));
	real = realpath(dir, NULL);
	free(dir);
	if (real == NULL)
		return NULL;
	out = xasprintf("%s/%s", real, slash ? slash + 1 : path);
	free(real);
	return out;
}

int
util_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ra, *rb;
	int same;

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	ra = resolved_place(a);
	rb = resolved_place(b);
	same = ra != NULL && rb != NULL && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

void
util_utf8_put(struct buf *b, unsigned int cp)
{
	if (cp < 0x80)
		buf_addc(b, (char)cp);
	else if (cp < 0x800) {
		buf_addc(b, (char)(0xc0 | cp >> 6));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addc(b, (char)(0xe0 | cp >> 12));
		buf_addc(b, (char)(0x80 | (cp >> 6 & 0x3f)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		buf_addc(b, (char)(0xf0 | cp >> 18));
		buf_addc(b, (char)(0x80 | (cp >> 12 & 0x3f)));
		buf_addc(b, (char)(0x80 | (cp >> 6 & 0x3f)));
		buf_addc(b, (char)(0x80 | (cp & 0x3f)));
	}
}

void
util_utf8_mend(char *s)
{
	unsigned char *r = (unsigned char *)s, *w = r;
	size_t need, k;

	while (*r != '\0') {
		if (*r < 0x80 || (*r & 0xc0) == 0x80) {
			/* ASCII; a stray continuation byte is left as it is
			 * (only cut sequences are mended). */
			*w++ = *r++;
			continue;
		}
		need = (*r & 0xe0) == 0xc0 ? 1 : (*r & 0xf0) == 0xe0 ? 2 :
		    (*r & 0xf8) == 0xf0 ? 3 : 0;
		for (k = 0; k < need && (r[1 + k] & 0xc0) == 0x80; k++)
			;
		if (need == 0 || k < need) {
			r += 1 + k;	/* the piece of a cut character */
			continue;
		}
		memmove(w, r, need + 1);
		w += need + 1;
		r += need + 1;
	}
	*w = '\0';
}

/* util: allocation that cannot fail silently, growable buffers, strings. */
#ifndef LUDUS_UTIL_H
#define LUDUS_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define nitems(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define PRINTFLIKE(f, a) __attribute__((format(printf, f, a)))
#define NORETURN __attribute__((noreturn))
#else
#define PRINTFLIKE(f, a)
#define NORETURN
#endif

/* These abort with a message on failure; every result is the caller's to free. */
void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xrealloc(void *, size_t);
void *xreallocarray(void *, size_t, size_t);
char *xstrdup(const char *);
char *xstrndup(const char *, size_t);
char *xasprintf(const char *, ...) PRINTFLIKE(1, 2);
void fatal(const char *, ...) PRINTFLIKE(1, 2) NORETURN;

/* A growable, always NUL-terminated byte buffer.  Zero-initialise to start;
 * buf_free releases it.  buf_steal hands the string to the caller (owned). */
struct buf {
	char	*s;
	size_t	 len;
	size_t	 cap;
};
void	 buf_add(struct buf *, const void *, size_t);
void	 buf_adds(struct buf *, const char *);
void	 buf_addc(struct buf *, char);
void	 buf_printf(struct buf *, const char *, ...) PRINTFLIKE(2, 3);
void	 buf_vprintf(struct buf *, const char *, va_list);
void	 buf_reset(struct buf *);
void	 buf_free(struct buf *);
char	*buf_steal(struct buf *);

/* A list of owned strings, NULL-terminated in v once one is added.
 * Zero-initialise to start; strv_free releases it. */
struct strv {
	char	**v;
	int	  n;
};
void	 strv_add(struct strv *, const char *);	/* copies */
void	 strv_free(struct strv *);
const char *buf_str(const struct buf *); /* never NULL; don't free */

/* Copies like strlcpy: always terminates, returns strlen(src). */
size_t	 util_strlcpy(char *, const char *, size_t);
/* snprintf into a fixed error buffer; a NULL or zero-length buffer is ignored. */
void	 util_err(char *, size_t, const char *, ...) PRINTFLIKE(3, 4);
/* Trim ASCII whitespace in place; returns its argument moved past leading space. */
char	*util_trim(char *);
/* ASCII case-insensitive comparisons. */
int	 util_strcaseeq(const char *, const char *);
int	 util_strncaseeq(const char *, const char *, size_t);
/* Parse a decimal integer in [min, max]; 0 on success, -1 otherwise. */
int	 util_parse_int(const char *, long long, long long, long long *);
/* Lower-case ASCII in place. */
void	 util_lower(char *);
/* Append s to out as a JSON string literal (quotes included). */
void	 util_json_str(struct buf *, const char *);
/* Hex of n bytes into out (2n+1 bytes). */
void	 util_hex(const unsigned char *, size_t, char *);
int	 util_unhex(const char *, unsigned char *, size_t);
/* Append the code point cp to b in UTF-8. */
void	 util_utf8_put(struct buf *, unsigned int cp);
/* Drop, in place, every UTF-8 sequence left incomplete (a text cut at a
 * byte count, `%.80s`, in the middle of a character). */
void	 util_utf8_mend(char *);

/* Read a whole stream (or file) into an owned, NUL-terminated buffer.
 * At most max bytes are kept; the rest is read and dropped (so a pipe's
 * writer never blocks) and *truncated set.  util_read_file returns NULL
 * when the file cannot be opened. */
char	*util_read_stream(FILE *, size_t max, size_t *len, int *truncated);
char	*util_read_file(const char *path, size_t max, size_t *len);

/* 1 when a and b name one file: the same inode when both exist, else the
 * same place once their directories are resolved (a file not made yet,
 * or one that a rename is about to put there). */
int	 util_same_file(const char *a, const char *b);


#endif

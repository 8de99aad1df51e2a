/*
 * i18n: per-mail language switching over glibc's gettext.
 *
 * How glibc (2.36, Debian 12) picks a catalogue for dgettext(domain, id),
 * and what we do with each rule:
 *
 * 1. The category is LC_MESSAGES; its locale name is the calling thread's
 *    (uselocale), else the global one (setlocale).  A daemon that never
 *    calls setlocale runs in "C".
 * 2. The C locale exception: when that name is "C" (or "POSIX"), gettext
 *    returns the msgid and ignores $LANGUAGE altogether.  So a name other
 *    than "C" is needed, but a real one such as ru_RU.UTF-8 exists only
 *    where an admin generated it (locale-gen), which we must not require.
 *    C.UTF-8 is built into glibc since 2.35: newlocale() finds it on every
 *    Debian 12 system with no locale files at all, and it is not "C".
 * 3. With a name other than "C", a non-empty $LANGUAGE (a colon-separated
 *    list of language codes) overrides the locale's own name in choosing
 *    DIR/LANG/LC_MESSAGES/DOMAIN.mo.  $LANGUAGE is read with getenv() on
 *    every lookup, so setenv() switches the language at once; the locale
 *    never has to name the language, and one thread locale serves all.
 * 4. Translations once found are cached, keyed by domain, category,
 *    locale name and msgid: not by $LANGUAGE.  Incrementing the exported
 *    counter _nl_msg_cat_cntr invalidates that cache (it is what glibc's
 *    own textdomain() and bindtextdomain() do), so after switching
 *    $LANGUAGE the next lookup reads the new catalogue instead of
 *    returning the previous language's string.
 * 5. Output is converted to the locale's codeset unless the domain's
 *    codeset is bound: bind_textdomain_codeset(domain, "UTF-8") makes it
 *    UTF-8 whatever LC_CTYPE is, so only LC_MESSAGES is changed and the
 *    rest of the program keeps the C locale (ctype, number formats).
 *
 * So: one locale_t with LC_MESSAGES from C.UTF-8 (the other categories
 * "C") installed with uselocale() for the calling thread, and i18n_set()
 * = setenv("LANGUAGE") plus ++_nl_msg_cat_cntr.  English needs no
 * catalogue: "en" has no .mo, so the msgid itself is returned.  The
 * referee is one thread; the environment is process-wide, so a threaded
 * caller would have to serialise i18n_set with its lookups.
 */
#include "config.h"

#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "i18n.h"
#include "log.h"
#include "util.h"

#ifndef LUDUS_LOCALEDIR
#define LUDUS_LOCALEDIR "/usr/share/locale"
#endif

extern int _nl_msg_cat_cntr;	/* glibc's catalogue generation */

static int	 bound;
static char	 cur[16] = "en";
static char	*dir;
static locale_t	 msgloc;

static void
i18n_bind(void)
{
	const char *env = getenv("LUDUS_LOCALE_DIR");

	if (bound)
		return;
	bound = 1;
	dir = xstrdup(env && *env ? env : LUDUS_LOCALEDIR);
	bindtextdomain(I18N_DOMAIN, dir);
	bind_textdomain_codeset(I18N_DOMAIN, "UTF-8");
	msgloc = newlocale(LC_MESSAGES_MASK, "C.UTF-8", (locale_t)0);
	if (msgloc == (locale_t)0) {
		/* glibc before 2.35 without a generated C.UTF-8: any
		 * installed UTF-8 locale will do, since $LANGUAGE decides. */
		msgloc = newlocale(LC_MESSAGES_MASK, "en_US.UTF-8",
		    (locale_t)0);
	}
	if (msgloc == (locale_t)0)
		log_warn("no C.UTF-8 locale: mails stay in English");
	else
		uselocale(msgloc);
	/* A $LANGUAGE of the caller's shell must not choose for readers. */
	setenv("LANGUAGE", cur, 1);
	++_nl_msg_cat_cntr;
}

const char *
i18n_dir(void)
{
	i18n_bind();
	return dir;
}

void
i18n_set(const char *lang)
{
	if (lang == NULL || *lang == '\0')
		lang = "en";
	i18n_bind();
	if (strcmp(cur, lang) == 0)
		return;
	util_strlcpy(cur, lang, sizeof(cur));
	setenv("LANGUAGE", cur, 1);
	++_nl_msg_cat_cntr;
}

const char *
i18n_lang(void)
{
	return cur;
}

int
i18n_known(const char *lang)
{
	struct stat sb;
	char *path;
	int ok;

	if (strcmp(lang, "en") == 0)
		return 1;
	path = xasprintf("%s/%s/LC_MESSAGES/%s.mo", i18n_dir(), lang,
	    I18N_DOMAIN);
	ok = stat(path, &sb) == 0;
	free(path);
	return ok;
}

int
i18n_rtl(const char *lang)
{
	static const char *const rtl[] = { "ar", "fa", "he", "ur", NULL };
	int i;

	for (i = 0; rtl[i] != NULL; i++)
		if (strncmp(lang, rtl[i], 2) == 0 &&
		    (lang[2] == '\0' || lang[2] == '-'))
			return 1;
	return 0;
}

char *
i18n_defer(const char *msgid, ...)
{
	struct buf b = { 0 };
	const char *a;
	va_list ap;

	buf_adds(&b, msgid);
	va_start(ap, msgid);
	while ((a = va_arg(ap, const char *)) != NULL) {
		buf_addc(&b, I18N_SEP);
		buf_adds(&b, a);
	}
	va_end(ap);
	return buf_steal(&b);
}

/* Argument i (0-based) of a deferred text into b, translated when marked. */
static void
defer_arg(const char *stored, int i, struct buf *b)
{
	const char *p = strchr(stored, I18N_SEP), *e;
	char *s;

	while (p != NULL && i-- > 0)
		p = strchr(p + 1, I18N_SEP);
	if (p == NULL)
		return;
	p++;
	e = strchr(p, I18N_SEP);
	s = e ? xstrndup(p, (size_t)(e - p)) : xstrdup(p);
	if (s[0] == I18N_TR[0])
		buf_adds(b, _(s + 1));
	else
		buf_adds(b, s);
	free(s);
}

char *
i18n_keep(const char *deferred)
{
	struct buf b = { 0 };
	char lang[sizeof(cur)];

	util_strlcpy(lang, cur, sizeof(lang));
	i18n_set("en");
	i18n_expand(deferred, &b);
	i18n_set(lang);
	buf_addc(&b, I18N_KEEP);
	buf_adds(&b, deferred);
	return buf_steal(&b);
}

size_t
i18n_english_len(const char *stored)
{
	return strcspn(stored, "\x1d");
}

void
i18n_expand(const char *stored, struct buf *b)
{
	const char *sep, *p;
	char *id;
	int arg = 0;

	if ((p = strchr(stored, I18N_KEEP)) != NULL)
		stored = p + 1;
	sep = strchr(stored, I18N_SEP);
	if (sep == NULL) {
		/* Stored before texts were deferred, or with no arguments. */
		buf_adds(b, *stored ? _(stored) : stored);
		return;
	}
	id = xstrndup(stored, (size_t)(sep - stored));
	/* Only %s (%1$s in translations) and %% occur in deferred
	 * msgids; msgfmt -c checks translations against them. */
	for (p = _(id); *p; p++) {
		if (p[0] == '%' && p[1] == 's') {
			defer_arg(stored, arg++, b);
			p++;
		} else if (p[0] == '%' && p[1] >= '1' && p[1] <= '9' &&
		    p[2] == '$' && p[3] == 's') {
			defer_arg(stored, p[1] - '1', b);
			p += 3;
		} else if (p[0] == '%' && p[1] == '%') {
			buf_addc(b, '%');
			p++;
		} else
			buf_addc(b, *p);
	}
	free(id);
}

char *
i18n_expand_str(const char *stored)
{
	struct buf b = { 0 };

	i18n_expand(stored, &b);
	buf_adds(&b, "");
	return buf_steal(&b);
}

/* The code point at s (UTF-8, already checked by the template), its
 * length in *n. */
static unsigned
utf8_at(const unsigned char *s, size_t *n)
{
	if (s[0] < 0x80 || (s[1] & 0xc0) != 0x80) {
		*n = 1;
		return s[0];
	}
	if (s[0] < 0xe0) {
		*n = 2;
		return (unsigned)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
	}
	if ((s[2] & 0xc0) != 0x80) {
		*n = 1;
		return s[0];
	}
	if (s[0] < 0xf0) {
		*n = 3;
		return (unsigned)(s[0] & 0x0f) << 12 |
		    (unsigned)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
	}
	if ((s[3] & 0xc0) != 0x80) {
		*n = 1;
		return s[0];
	}
	*n = 4;
	return (unsigned)(s[0] & 0x07) << 18 | (unsigned)(s[1] & 0x3f) << 12 |
	    (unsigned)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
}

/* Hebrew, Arabic, Syriac, Thaana, NKo, ... and their presentation forms. */
static int
is_rtl(unsigned c)
{
	return (c >= 0x0590 && c <= 0x08ff) || (c >= 0xfb1d && c <= 0xfdff) ||
	    (c >= 0xfe70 && c <= 0xfefe);
}

static int
is_ltr_word(unsigned c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c >= 0xc0 && c <= 0x24f) ||
	    (c >= 0x370 && c <= 0x52f);
}

/* Spaces and punctuation left outside an isolate (mirrored brackets
 * and sentence punctuation belong to the surrounding text). */
static int
is_edge(unsigned c)
{
	return c == ' ' || c == '\t' || (c < 0x80 && strchr(".,;:!?()[]{}\"'-",
	    (int)c) != NULL && c != 0) || c == 0xab || c == 0xbb ||
	    c == 0x2013 || c == 0x2014;
}

int
i18n_next_ltr(const char *s, size_t len, size_t *ra, size_t *rb)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n, start, end, a, b, k;
	int ltr, depth;
	unsigned c;

	while (i < len) {
		c = utf8_at(u + i, &n);
		if (is_rtl(c)) {
			i += n;
			continue;
		}
		/* A run of anything but right-to-left letters. */
		start = i;
		ltr = 0;
		while (i < len) {
			c = utf8_at(u + i, &n);
			if (is_rtl(c))
				break;
			ltr |= is_ltr_word(c);
			i += n;
		}
		end = i;
		if (!ltr)
			continue;
		for (a = start; a < end; a += n) {
			c = utf8_at(u + a, &n);
			if (!is_edge(c))
				break;
		}
		/* A closing bracket that closes nothing in the run belongs
		 * to the text around it: "(default pass): pass: ..." is two
		 * runs. */
		for (k = a, depth = 0; k < end; k++) {
			depth += (u[k] == '(' || u[k] == '[') -
			    (u[k] == ')' || u[k] == ']');
			if (depth < 0) {
				end = k;
				break;
			}
		}
		for (b = end; b > a; b--) {
			if ((u[b - 1] & 0xc0) == 0x80)
				continue;	/* inside a character */
			c = utf8_at(u + b - 1, &n);
			if (!is_edge(c)) {
				b = b - 1 + n;
				break;
			}
		}
		/* A closing bracket whose opener is inside stays inside:
		 * `help [GAME]`. */
		for (k = a, depth = 0; k < b; k++)
			depth += (u[k] == '(' || u[k] == '[') -
			    (u[k] == ')' || u[k] == ']');
		while (depth > 0 && b < end && (u[b] == ')' || u[b] == ']')) {
			b++;
			depth--;
		}
		*ra = a;
		*rb = b;
		return 1;
	}
	return 0;
}

/*
 * A board's row with a translated word in it (an Almakleh card row,
 * "heron     panther (not now)"): it starts, after its indentation, with
 * a Latin letter before any right-to-left one, and lines up columns with
 * runs of blanks.  It is laid out left to right as a whole.
 */
static int
board_row(const char *line, size_t len)
{
	const unsigned char *u = (const unsigned char *)line;
	size_t i = 0, n;
	unsigned c;

	while (i < len && line[i] == ' ')
		i++;
	if (i < 2)
		return 0;
	for (; i < len; i += n) {
		c = utf8_at(u + i, &n);
		if (is_rtl(c))
			return 0;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
			break;
	}
	for (; i + 1 < len; i++)
		if (line[i] == ' ' && line[i + 1] == ' ')
			return 1;
	return 0;
}

static void
bidi_line(const char *line, size_t len, struct buf *out)
{
	const unsigned char *u = (const unsigned char *)line;
	size_t i, n, a, b;
	int rtl = 0, ink = 0;
	unsigned c;

	for (i = 0; i < len; i += n) {
		c = utf8_at(u + i, &n);
		rtl |= is_rtl(c);
		ink |= c != ' ' && c != '\t';
	}
	if (!ink || (len == 3 && memcmp(line, "-- ", 3) == 0)) {
		buf_add(out, line, len);
		return;
	}
	if (rtl && board_row(line, len))
		rtl = 0;
	if (!rtl) {
		/* LRM, then the line isolated: left to right in any
		 * paragraph direction. */
		buf_adds(out, "\xe2\x80\x8e\xe2\x81\xa6");
		buf_add(out, line, len);
		buf_adds(out, "\xe2\x81\xa9");
		return;
	}
	for (i = 0; i < len;) {
		if (!i18n_next_ltr(line + i, len - i, &a, &b)) {
			buf_add(out, line + i, len - i);
			break;
		}
		buf_add(out, line + i, a);
		buf_adds(out, "\xe2\x81\xa6");
		buf_add(out, line + i + a, b - a);
		buf_adds(out, "\xe2\x81\xa9");
		i += b;
	}
}

void
i18n_bidi_text(const char *in, struct buf *out)
{
	const char *nl;

	while (*in) {
		nl = strchr(in, '\n');
		bidi_line(in, nl ? (size_t)(nl - in) : strlen(in), out);
		if (nl == NULL)
			break;
		buf_addc(out, '\n');
		in = nl + 1;
	}
	buf_adds(out, "");
}

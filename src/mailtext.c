/* mailtext: a decoded body to the sender's own lines (commands.md step 2),
 * HTML to text, charset conversion and UTF-8 hygiene. */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include <libetpan/libetpan.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include "mail.h"

/* One line of the body, not NUL-terminated. */
struct line {
	const char	*s;
	size_t		 len;
};

static int
mailtext_space_at(const char *s, size_t len, size_t *w)
{
	const unsigned char *u = (const unsigned char *)s;

	if (len >= 1 && (u[0] == ' ' || u[0] == '\t' || u[0] == '\r' ||
	    u[0] == '\n' || u[0] == '\f' || u[0] == '\v')) {
		*w = 1;
		return 1;
	}
	/* U+00A0 no-break space: HTML-made text and some clients use it. */
	if (len >= 2 && u[0] == 0xc2 && u[1] == 0xa0) {
		*w = 2;
		return 1;
	}
	/* U+200B zero width space, U+FEFF byte order mark. */
	if (len >= 3 && ((u[0] == 0xe2 && u[1] == 0x80 && u[2] == 0x8b) ||
	    (u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf))) {
		*w = 3;
		return 1;
	}
	return 0;
}

/* Trim both ends of a line in place (pointer and length). */
static struct line
mailtext_trim(struct line l)
{
	size_t w;

	while (l.len > 0 && mailtext_space_at(l.s, l.len, &w)) {
		l.s += w;
		l.len -= w;
	}
	for (;;) {
		if (l.len >= 1 && mailtext_space_at(l.s + l.len - 1, 1, &w))
			l.len--;
		else if (l.len >= 2 && mailtext_space_at(l.s + l.len - 2, 2,
		    &w) && w == 2)
			l.len -= 2;
		else if (l.len >= 3 && mailtext_space_at(l.s + l.len - 3, 3,
		    &w) && w == 3)
			l.len -= 3;
		else
			break;
	}
	return l;
}

static int
mailtext_starts(struct line l, const char *p)
{
	size_t n = strlen(p);

	return l.len >= n && memcmp(l.s, p, n) == 0;
}

static int
mailtext_starts_ci(struct line l, const char *p)
{
	size_t n = strlen(p);

	return l.len >= n && util_strncaseeq(l.s, p, n);
}

static int
mailtext_ends(struct line l, const char *p)
{
	size_t n = strlen(p);

	return l.len >= n && memcmp(l.s + l.len - n, p, n) == 0;
}

static int
mailtext_has(struct line l, int c)
{
	return memchr(l.s, c, l.len) != NULL;
}

static int
mailtext_words(struct line l)
{
	size_t i;
	int n = 0, in = 0;

	for (i = 0; i < l.len; i++) {
		if (l.s[i] == ' ' || l.s[i] == '\t')
			in = 0;
		else if (!in) {
			in = 1;
			n++;
		}
	}
	return n;
}

static int
mailtext_is_quote(struct line t)
{
	return t.len > 0 && t.s[0] == '>';
}

/* "-- " and "--" alone: the signature separator.  A "--" inside a sentence
 * is text. */
static int
mailtext_is_sigsep(struct line t)
{
	return t.len == 2 && t.s[0] == '-' && t.s[1] == '-';
}

/* A horizontal rule of ten or more '_' or '-': Outlook's reply separator
 * and mailing-list footers start with one. */
static int
mailtext_is_rule(struct line t)
{
	size_t i;

	if (t.len < 10 || (t.s[0] != '_' && t.s[0] != '-'))
		return 0;
	for (i = 0; i < t.len; i++)
		if (t.s[i] != t.s[0])
			return 0;
	return 1;
}

/* "Sent from my iPhone" and its kin: a short line, no comma. */
static int
mailtext_is_mobile_sig(struct line t)
{
	static const char *const starts[] = {
		"Sent from ", "Sent with ", "Get Outlook for ",
		"Отправлено с ", "Отправлено из ", "Envoyé de mon ",
		"Envoyé depuis ", "Von meinem ", "Gesendet von ",
		"Enviado desde ",
	};
	size_t i;

	if (mailtext_has(t, ',') || mailtext_words(t) > 7)
		return 0;
	for (i = 0; i < nitems(starts); i++)
		if (mailtext_starts(t, starts[i]))
			return 1;
	return 0;
}

/* "-----Original Message-----", "---------- Forwarded message ---------",
 * "-------- Пересылаемое сообщение --------" and friends. */
static int
mailtext_is_original_marker(struct line t)
{
	static const char *const names[] = {
		"Original Message", "Forwarded message", "Forwarded Message",
		"Message d'origine", "Message transféré",
		"Ursprüngliche Nachricht", "Weitergeleitete Nachricht",
		"Исходное сообщение", "Пересылаемое сообщение",
		"Mensaje original",
	};
	struct line m = t;
	size_t i;

	if (mailtext_starts_ci(t, "Begin forwarded message:"))
		return 1;
	if (!mailtext_starts(t, "--"))
		return 0;
	while (m.len > 0 && (m.s[0] == '-' || m.s[0] == ' ')) {
		m.s++;
		m.len--;
	}
	while (m.len > 0 && (m.s[m.len - 1] == '-' || m.s[m.len - 1] == ' '))
		m.len--;
	for (i = 0; i < nitems(names); i++)
		if (m.len == strlen(names[i]) &&
		    util_strncaseeq(m.s, names[i], m.len))
			return 1;
	return 0;
}

/* A header-like line of an Outlook block ("From: …", "*Sent:* …"), with
 * the bold stars removed.  Returns 1 for a From-like line, 2 for the other
 * fields, 0 otherwise. */
static int
mailtext_outlook_field(struct line t)
{
	static const char *const from[] = { "From:", "От:", "Von:", "De:",
		"Od:" };
	static const char *const other[] = { "Sent:", "Date:", "To:", "Cc:",
		"Subject:", "Отправлено:", "Дата:", "Кому:", "Копия:", "Тема:",
		"Gesendet:", "Datum:", "An:", "Betreff:", "Envoyé:", "À:",
		"Objet:" };
	char tmp[64];
	size_t i, n = 0;
	struct line c;

	for (i = 0; i < t.len && n < sizeof(tmp) - 1; i++)
		if (t.s[i] != '*')
			tmp[n++] = t.s[i];
	tmp[n] = '\0';
	c.s = tmp;
	c.len = n;
	for (i = 0; i < nitems(from); i++)
		if (mailtext_starts_ci(c, from[i]))
			return 1;
	for (i = 0; i < nitems(other); i++)
		if (mailtext_starts_ci(c, other[i]))
			return 2;
	return 0;
}

/* An Outlook-style header block: a From: line with a Sent:/Date:/To:/…
 * line among the next three non-blank lines. */
static int
mailtext_is_outlook_block(const struct line *lines, int n, int i)
{
	int j, seen = 0;

	if (mailtext_outlook_field(mailtext_trim(lines[i])) != 1)
		return 0;
	for (j = i + 1; j < n && seen < 3; j++) {
		struct line t = mailtext_trim(lines[j]);

		if (t.len == 0)
			continue;
		seen++;
		if (mailtext_outlook_field(t) == 2)
			return 1;
	}
	return 0;
}

/* Does this (joined) text end like an attribution with a verb? */
static int
mailtext_attribution_text(struct line t)
{
	static const char *const ends[] = {
		"wrote:", "writes:", "написал(а):", "написал:", "написала:",
		"пишет:", "a écrit :", "a écrit:", "escribió:", "scrisse:",
	};
	size_t i;

	if (t.len > 400)
		return 0;
	for (i = 0; i < nitems(ends); i++)
		if (mailtext_ends(t, ends[i]))
			return 1;
	/* German: "Am 12.03.2021 um 10:15 schrieb Hans <hans@example.de>:" */
	if (mailtext_starts(t, "Am ") && mailtext_ends(t, ":")) {
		const char *p = t.s;
		size_t left = t.len;

		while (left >= 9) {
			if (memcmp(p, " schrieb ", 9) == 0)
				return 1;
			p++;
			left--;
		}
	}
	return 0;
}

/* Is an attribution at line i?  Returns how many lines it spans (1 to 3:
 * clients wrap long "On …, Name <address> wrote:" lines), 0 when not.
 * *verb is set when it carries a writing verb ("wrote:"); an attribution
 * without one ("12.03.2021, 10:15, "Иван" <ivan@example.ru>:", as Yandex,
 * Mail.ru and Gmail in Russian write them) counts only when quoted lines
 * follow. */
static int
mailtext_attribution(const struct line *lines, int n, int i, int *verb)
{
	char joined[512];
	size_t jl = 0;
	int k;

	*verb = 0;
	for (k = 0; k < 3 && i + k < n; k++) {
		struct line t = mailtext_trim(lines[i + k]), j;

		if (t.len == 0 || mailtext_is_quote(t) ||
		    jl + t.len + 1 >= sizeof(joined))
			break;
		if (k > 0) {
			struct line first = mailtext_trim(lines[i]);

			/* Only a line that opens like a date or "On"
			 * continues onto the next. */
			if (!(mailtext_starts(first, "On ") ||
			    mailtext_starts(first, "Am ") ||
			    mailtext_starts(first, "Le ") ||
			    isdigit((unsigned char)first.s[0])))
				break;
			joined[jl++] = ' ';
		}
		memcpy(joined + jl, t.s, t.len);
		jl += t.len;
		j.s = joined;
		j.len = jl;
		if (mailtext_attribution_text(j)) {
			*verb = 1;
			return k + 1;
		}
		if (k == 0 && mailtext_ends(j, ":") && mailtext_has(j, '@'))
			return 1;
	}
	return 0;
}

/* A closing "-Name" line: a dash glued to a word, a short line. */
static int
mailtext_is_dash_name(const char *s)
{
	struct line t;

	t.s = s;
	t.len = strlen(s);
	return t.len >= 2 && s[0] == '-' && isalpha((unsigned char)s[1]) &&
	    mailtext_words(t) <= 3;
}

void
mailtext_commands(const char *text, size_t len, int max_lines,
    int max_commands, struct mail_strv *out, int *lines_truncated,
    int *commands_truncated)
{
	struct line *lines = NULL;
	size_t i, start;
	int n = 0, cap = 0, k, verb, li, first = out->n;

	*lines_truncated = 0;
	*commands_truncated = 0;
	/* Split on LF, CRLF or a lone CR. */
	for (i = 0, start = 0; i <= len; i++) {
		if (i < len && text[i] != '\n' && text[i] != '\r')
			continue;
		if (i == len && i == start)
			break;	/* nothing after the last line end */
		if (max_lines > 0 && n >= max_lines) {
			*lines_truncated = 1;
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			lines = xreallocarray(lines, (size_t)cap, sizeof(*lines));
		}
		lines[n].s = text + start;
		lines[n].len = i - start;
		n++;
		if (i < len && text[i] == '\r' && i + 1 < len &&
		    text[i + 1] == '\n')
			i++;
		start = i + 1;
	}
	for (li = 0; li < n; li++) {
		struct line t = mailtext_trim(lines[li]);

		if (t.len == 0 || mailtext_is_quote(t))
			continue;
		if (mailtext_is_sigsep(t) || mailtext_is_rule(t) ||
		    mailtext_is_mobile_sig(t) ||
		    mailtext_is_original_marker(t) ||
		    mailtext_is_outlook_block(lines, n, li))
			break;
		if ((k = mailtext_attribution(lines, n, li, &verb)) > 0) {
			int j = li + k;

			while (j < n && mailtext_trim(lines[j]).len == 0)
				j++;
			if (j < n && mailtext_is_quote(mailtext_trim(lines[j]))) {
				/* Bottom-posting and inline replies: only the
				 * attribution goes; the quote rule drops the
				 * rest and what follows is the sender's. */
				li += k - 1;
				continue;
			}
			if (verb)
				break;
		}
		if (max_commands > 0 && out->n - first >= max_commands) {
			*commands_truncated = 1;
			break;
		}
		{
			char *c = xstrndup(t.s, t.len);

			mail_strv_add(out, c);
			free(c);
		}
	}
	if (out->n > first && mailtext_is_dash_name(out->v[out->n - 1])) {
		free(out->v[--out->n]);
		out->v[out->n] = NULL;
	}
	free(lines);
}

/* HTML to text. */

struct htmlout {
	struct buf	b;
	int		bol;		/* at the start of a line */
	int		space;		/* a space is pending */
	int		quote;		/* blockquote depth */
	int		pre;		/* inside <pre> */
};

static void
mailtext_html_newline(struct htmlout *h)
{
	buf_addc(&h->b, '\n');
	h->bol = 1;
	h->space = 0;
}

static void
mailtext_html_text(struct htmlout *h, const char *s)
{
	int i;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == 0xc2 && (unsigned char)s[1] == 0xa0) {
			s++;
			c = ' ';
		}
		if (h->pre && c == '\n') {
			mailtext_html_newline(h);
			continue;
		}
		if (!h->pre && (c == ' ' || c == '\t' || c == '\n' ||
		    c == '\r' || c == '\f')) {
			if (!h->bol)
				h->space = 1;
			continue;
		}
		if (h->bol) {
			for (i = 0; i < h->quote; i++)
				buf_adds(&h->b, "> ");
			h->bol = 0;
		} else if (h->space)
			buf_addc(&h->b, ' ');
		h->space = 0;
		buf_addc(&h->b, (char)c);
	}
}

static int
mailtext_html_is(const xmlNode *n, const char *const *names, size_t nn)
{
	size_t i;

	for (i = 0; i < nn; i++)
		if (util_strcaseeq((const char *)n->name, names[i]))
			return 1;
	return 0;
}

static void
mailtext_html_walk(struct htmlout *h, const xmlNode *n, int depth)
{
	static const char *const skip[] = { "script", "style", "head",
		"title", "template", "noscript" };
	static const char *const block[] = { "p", "div", "li", "tr", "h1",
		"h2", "h3", "h4", "h5", "h6", "table", "ul", "ol", "pre",
		"blockquote", "hr", "dd", "dt", "dl", "section", "article",
		"header", "footer", "center", "address", "body", "html" };

	/* libxml2 itself caps nesting at 256; this guards our recursion
	 * against a tree built some other way. */
	if (depth > 300)
		return;
	for (; n != NULL; n = n->next) {
		if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
			if (n->content)
				mailtext_html_text(h, (const char *)n->content);
			continue;
		}
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (mailtext_html_is(n, skip, nitems(skip)))
			continue;
		if (util_strcaseeq((const char *)n->name, "br")) {
			mailtext_html_newline(h);
			continue;
		}
		if (mailtext_html_is(n, block, nitems(block))) {
			int isq = util_strcaseeq((const char *)n->name,
			    "blockquote");
			int isp = util_strcaseeq((const char *)n->name, "pre");

			if (!h->bol)
				mailtext_html_newline(h);
			h->quote += isq;
			h->pre += isp;
			mailtext_html_walk(h, n->children, depth + 1);
			h->quote -= isq;
			h->pre -= isp;
			if (!h->bol)
				mailtext_html_newline(h);
			continue;
		}
		if (util_strcaseeq((const char *)n->name, "td") ||
		    util_strcaseeq((const char *)n->name, "th"))
			h->space = !h->bol;
		mailtext_html_walk(h, n->children, depth + 1);
	}
}

char *
mailtext_html(const char *html, size_t len)
{
	struct htmlout h = { { 0 }, 1, 0, 0, 0 };
	htmlDocPtr doc;

	if (len > 0 && len <= (size_t)INT32_MAX) {
		doc = htmlReadMemory(html, (int)len, NULL, "UTF-8",
		    HTML_PARSE_RECOVER | HTML_PARSE_NOERROR |
		    HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
		if (doc != NULL) {
			mailtext_html_walk(&h, xmlDocGetRootElement(doc), 0);
			xmlFreeDoc(doc);
		}
	}
	buf_adds(&h.b, "");
	return buf_steal(&h.b);
}

/* UTF-8 hygiene and charsets. */

/* Length of the valid UTF-8 sequence at s, 0 when invalid. */
static size_t
mailtext_utf8_seq(const unsigned char *s, size_t len)
{
	size_t n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 ||
	    cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static int
mailtext_utf8_valid(const char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		if ((n = mailtext_utf8_seq((const unsigned char *)s + i,
		    len - i)) == 0)
			return 0;
		i += n;
	}
	return 1;
}

char *
mailtext_utf8(const char *s, size_t len)
{
	struct buf b = { 0 };
	size_t i = 0, n;

	while (i < len) {
		if (s[i] == '\0') {
			i++;
			continue;
		}
		n = mailtext_utf8_seq((const unsigned char *)s + i, len - i);
		if (n == 0) {
			buf_adds(&b, "\xef\xbf\xbd");
			i++;
		} else {
			buf_add(&b, s + i, n);
			i += n;
		}
	}
	buf_adds(&b, "");
	return buf_steal(&b);
}

char *
mailtext_to_utf8(const char *s, size_t len, const char *charset)
{
	char *res = NULL, *out;
	size_t rlen = 0;
	int r;

	if (charset == NULL || *charset == '\0' ||
	    util_strcaseeq(charset, "utf-8") || util_strcaseeq(charset, "utf8"))
		return mailtext_utf8(s, len);
	if ((util_strcaseeq(charset, "us-ascii") ||
	    util_strcaseeq(charset, "ascii")) && mailtext_utf8_valid(s, len))
		return mailtext_utf8(s, len);
	/* charconv_buffer(tocode, fromcode, …): target first. */
	r = charconv_buffer("UTF-8", charset, s, len, &res, &rlen);
	if (r == MAIL_CHARCONV_NO_ERROR && res != NULL) {
		out = mailtext_utf8(res, rlen);
		charconv_buffer_free(res);
		return out;
	}
	if (res != NULL)
		charconv_buffer_free(res);
	if (mailtext_utf8_valid(s, len))
		return mailtext_utf8(s, len);
	res = NULL;
	if (charconv_buffer("UTF-8", "WINDOWS-1252", s, len, &res, &rlen) ==
	    MAIL_CHARCONV_NO_ERROR && res != NULL) {
		out = mailtext_utf8(res, rlen);
		charconv_buffer_free(res);
		return out;
	}
	if (res != NULL)
		charconv_buffer_free(res);
	return mailtext_utf8(s, len);
}

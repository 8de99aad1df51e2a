/* compose: outgoing mail with libetpan's MIME writer. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libetpan/libetpan.h>
#include <openssl/evp.h>

#include "compose.h"

static int
is_plain(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80 || (unsigned char)*s < 0x20 ||
		    (s[0] == '=' && s[1] == '?'))
			return 0;
	return 1;
}

/* Length of the UTF-8 sequence starting at s (1 for stray bytes). */
static size_t
utf8_len(const unsigned char *s)
{
	size_t n = 1;

	if (*s >= 0xf0)
		n = 4;
	else if (*s >= 0xe0)
		n = 3;
	else if (*s >= 0xc0)
		n = 2;
	while (n > 1 && strnlen((const char *)s, n) < n)
		n--;
	return n;
}

/* Encoded words of at most 75 characters: 45 bytes of UTF-8 make 60 of
 * base64, plus the 12 of "=?UTF-8?B?" and "?=".  Characters are never split
 * between words (RFC 2047, 5). */
static void
encode_run(struct buf *b, const char *s, size_t len)
{
	unsigned char out[64];
	size_t i = 0, chunk, n;

	while (i < len) {
		chunk = 0;
		while (i + chunk < len) {
			n = utf8_len((const unsigned char *)s + i + chunk);
			if (chunk + n > 45)
				break;
			chunk += n;
		}
		EVP_EncodeBlock(out, (const unsigned char *)s + i, (int)chunk);
		buf_printf(b, "%s=?UTF-8?B?%s?=", i ? " " : "", (char *)out);
		i += chunk;
	}
}

static int
word_plain(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80 || (unsigned char)s[i] < 0x20 ||
		    (s[i] == '=' && i + 1 < len && s[i + 1] == '?'))
			return 0;
	return 1;
}

/*
 * Plain ASCII words stay as they are, so the subject tag stays readable in
 * any client and any log; each run of words that need encoding becomes
 * encoded words, the spaces inside the run encoded with it (whitespace
 * between two encoded words is dropped when decoding).
 */
char *
compose_header_words(const char *s)
{
	struct buf b = { 0 };
	const char *p = s, *run = NULL, *run_end = NULL;
	size_t len;

	if (is_plain(s))
		return xstrdup(s);
	for (;;) {
		while (*p == ' ')
			p++;
		len = strcspn(p, " ");
		if (len > 0 && !word_plain(p, len)) {
			if (run == NULL)
				run = p;
			run_end = p + len;
		} else {
			if (run != NULL) {
				if (b.len)
					buf_addc(&b, ' ');
				encode_run(&b, run, (size_t)(run_end - run));
				run = NULL;
			}
			if (len > 0) {
				if (b.len)
					buf_addc(&b, ' ');
				buf_add(&b, p, len);
			}
		}
		if (p[len] == '\0')
			break;
		p += len;
	}
	if (run != NULL) {
		if (b.len)
			buf_addc(&b, ' ');
		encode_run(&b, run, (size_t)(run_end - run));
	}
	return buf_steal(&b);
}

static struct mailimf_mailbox *
mailbox(const char *name, const char *addr)
{
	return mailimf_mailbox_new(name && *name ?
	    compose_header_words(name) : NULL, xstrdup(addr));
}

static struct mailimf_address_list *
address_list(const char *name, const char *addr)
{
	struct mailimf_address_list *l = mailimf_address_list_new_empty();

	if (l == NULL || mailimf_address_list_add_mb(l, name && *name ?
	    compose_header_words(name) : NULL, xstrdup(addr)) !=
	    MAILIMF_NO_ERROR)
		fatal("out of memory composing mail");
	return l;
}

static clist *
id_list(const char *ids)
{
	clist *l = clist_new();
	char *copy = xstrdup(ids), *p = copy, *tok;

	if (l == NULL)
		fatal("out of memory composing mail");
	while ((tok = strtok_r(p, " \t", &p)) != NULL)
		if (clist_append(l, xstrdup(tok)) < 0)
			fatal("out of memory composing mail");
	free(copy);
	return l;
}

static void
add_custom(struct mailimf_fields *f, const char *name, const char *value)
{
	struct mailimf_field *fld;

	if (value == NULL)
		return;
	fld = mailimf_field_new_custom(xstrdup(name), xstrdup(value));
	if (fld == NULL || mailimf_fields_add(f, fld) != MAILIMF_NO_ERROR)
		fatal("out of memory composing mail");
}

/* Text in canonical form (RFC 2045, 2.10): every line end CRLF. */
static char *
crlf(const char *text)
{
	struct buf b = { 0 };
	size_t n;

	/* The text between line ends in one piece. */
	while (*text) {
		n = strcspn(text, "\r\n");
		buf_add(&b, text, n);
		text += n;
		if (*text == '\0')
			break;
		text += text[0] == '\r' && text[1] == '\n' ? 2 : 1;
		buf_add(&b, "\r\n", 2);
	}
	return buf_steal(&b);
}

/* The encoding as it is written: into out, handed to b a few hundred
 * bytes at a time rather than a character at a time. */
struct qp {
	struct buf	 b;
	char		 out[512];
	size_t		 o;
};

static void
qp_put(struct qp *q, const char *s, size_t n)
{
	if (q->o + n > sizeof(q->out)) {
		buf_add(&q->b, q->out, q->o);
		q->o = 0;
	}
	memcpy(q->out + q->o, s, n);
	q->o += n;
}

/* A line ends at p: the text's end or CRLF. */
static int
qp_eol(const unsigned char *p)
{
	return p[0] == '\0' || (p[0] == '\r' && p[1] == '\n');
}

/* How many of the at most max characters at p quoted-printable keeps as
 * they are: printable ASCII but =, and a space or tab not ending the line
 * (not for a line's first character: see compose_qp). */
static size_t
qp_plain(const unsigned char *p, size_t max)
{
	size_t n = 0;

	while (n < max && ((p[n] > 0x20 && p[n] < 0x7f && p[n] != '=') ||
	    ((p[n] == ' ' || p[n] == '\t') && !qp_eol(p + n + 1))))
		n++;
	return n;
}

/*
 * Quoted-printable (RFC 2045, 6.7) of CRLF text: hard line breaks stay
 * CRLF, soft breaks keep every line within 76 characters, an "=XX" is never
 * split, and a space or tab that ends a line is encoded, so the "-- "
 * signature separator decodes as it was written.  libetpan 1.9.4's writer
 * turns such a space into " =20", which decodes to two spaces; hence our
 * own.  A dot or "From " starting a line is encoded too: some transports
 * treat them specially.
 */
char *
compose_qp(const char *text)
{
	static const char hex[] = "0123456789ABCDEF";
	struct qp q;
	const unsigned char *p = (const unsigned char *)text;
	char tok[4];
	size_t col = 0, n;
	int enc;

	memset(&q.b, 0, sizeof(q.b));
	q.o = 0;
	while (*p) {
		if (p[0] == '\r' && p[1] == '\n') {
			qp_put(&q, "\r\n", 2);
			col = 0;
			p += 2;
			continue;
		}
		/* Inside a line, a run of characters that stand for
		 * themselves and fit before the soft break: in one piece
		 * (what the steps below would do one at a time). */
		if (col > 0 && col < 75 && (n = qp_plain(p, 75 - col)) > 0) {
			qp_put(&q, (const char *)p, n);
			col += n;
			p += n;
			continue;
		}
		enc = *p == '=' || *p >= 0x7f || (*p < 0x20 && *p != '\t') ||
		    ((*p == ' ' || *p == '\t') && (p[1] == '\0' ||
		    (p[1] == '\r' && p[2] == '\n'))) ||
		    (col == 0 && (*p == '.' || strncmp((const char *)p,
		    "From ", 5) == 0));
		if (enc) {
			tok[0] = '=';
			tok[1] = hex[*p >> 4];
			tok[2] = hex[*p & 15];
			n = 3;
		} else {
			tok[0] = (char)*p;
			n = 1;
		}
		/* Room for the token and, unless the line ends after it, a
		 * soft break's "=". */
		if (col + n > 75 && !(col + n <= 76 && (p[1] == '\0' ||
		    (p[1] == '\r' && p[2] == '\n')))) {
			qp_put(&q, "=\r\n", 3);
			col = 0;
			if (*p == '.' || strncmp((const char *)p, "From ",
			    5) == 0)
				continue;	/* encoded at the new line's start */
		}
		qp_put(&q, tok, n);
		col += n;
		p++;
	}
	buf_add(&q.b, q.out, q.o);
	return buf_steal(&q.b);
}

/* 7bit serves text that is ASCII with lines within 78 characters; the rest
 * is quoted-printable, which a person can still read in the raw source. */
static int
fits_7bit(const char *text)
{
	size_t col = 0;

	for (; *text; text++) {
		if ((unsigned char)*text >= 0x80 || *text == '\0')
			return 0;
		if (*text == '\n')
			col = 0;
		else if (*text != '\r' && ++col > 78)
			return 0;
	}
	return 1;
}

/* A text part, charset UTF-8, 7bit or quoted-printable.  The body is
 * handed to libetpan already encoded; *keep holds it, because
 * mailmime_set_body_text does not take ownership. */
static struct mailmime *
text_part(const char *type, const char *text, char **keep)
{
	struct mailmime_fields *mf;
	struct mailmime_content *ct;
	struct mailmime_parameter *param;
	struct mailmime *part;
	char *canon = crlf(text);
	int seven = fits_7bit(canon);

	mf = mailmime_fields_new_encoding(seven ? MAILMIME_MECHANISM_7BIT :
	    MAILMIME_MECHANISM_QUOTED_PRINTABLE);
	ct = mailmime_content_new_with_str(type);
	param = mailmime_param_new_with_data("charset", "UTF-8");
	if (mf == NULL || ct == NULL || param == NULL ||
	    clist_append(ct->ct_parameters, param) < 0)
		fatal("out of memory composing mail");
	if ((part = mailmime_new_empty(ct, mf)) == NULL)
		fatal("out of memory composing mail");
	if (seven)
		*keep = canon;
	else {
		*keep = compose_qp(canon);
		free(canon);
	}
	if (mailmime_set_body_text(part, *keep, strlen(*keep)) !=
	    MAILIMF_NO_ERROR)
		fatal("out of memory composing mail");
	part->mm_data.mm_single->dt_encoded = 1;
	return part;
}

/* mailmime_new_empty adds a random boundary parameter; replace its value. */
static void
set_boundary(struct mailmime_content *ct, const char *boundary)
{
	struct mailmime_parameter *p;
	clistiter *it;

	for (it = clist_begin(ct->ct_parameters); it; it = clist_next(it)) {
		p = clist_content(it);
		if (strcasecmp(p->pa_name, "boundary") == 0) {
			free(p->pa_value);
			p->pa_value = xstrdup(boundary);
			return;
		}
	}
	if ((p = mailmime_param_new_with_data("boundary",
	    (char *)boundary)) == NULL || clist_append(ct->ct_parameters,
	    p) < 0)
		fatal("out of memory composing mail");
}

static int
valid_id(const char *id)
{
	return id != NULL && *id != '\0' && strpbrk(id, "<> \t\r\n") == NULL &&
	    strchr(id, '@') != NULL;
}

char *
compose_message(const struct compose_mail *m, char *err, size_t errlen)
{
	struct mailimf_fields *f;
	struct mailimf_mailbox_list *from;
	struct mailmime *msg, *body, *alt;
	struct mailmime_content *ct;
	MMAPString *out;
	char *text_keep = NULL, *html_keep = NULL, *result, boundary[80];
	unsigned char digest[EVP_MAX_MD_SIZE];
	char hex[2 * 16 + 1];
	unsigned int dlen;
	int col = 0;

	if (!valid_id(m->message_id) || (m->in_reply_to &&
	    !valid_id(m->in_reply_to))) {
		util_err(err, errlen, "unusable Message-ID");
		return NULL;
	}
	if (strpbrk(m->from, "<> \r\n") || strpbrk(m->to, "<> \r\n") ||
	    !strchr(m->from, '@') || !strchr(m->to, '@') ||
	    (m->reply_to && strpbrk(m->reply_to, "<> \r\n"))) {
		util_err(err, errlen, "unusable address");
		return NULL;
	}

	from = mailimf_mailbox_list_new_empty();
	if (from == NULL || mailimf_mailbox_list_add(from,
	    mailbox(m->from_name, m->from)) != MAILIMF_NO_ERROR)
		fatal("out of memory composing mail");
	f = mailimf_fields_new_with_data_all(mailimf_get_date(m->date), from,
	    NULL, m->reply_to ? address_list(NULL, m->reply_to) : NULL,
	    address_list(m->to_name, m->to), NULL, NULL,
	    xstrdup(m->message_id),
	    m->in_reply_to ? id_list(m->in_reply_to) : NULL,
	    m->references ? id_list(m->references) : NULL,
	    compose_header_words(m->subject));
	if (f == NULL)
		fatal("out of memory composing mail");
	add_custom(f, "Auto-Submitted", m->auto_submitted);
	add_custom(f, "X-Loop", m->x_loop);
	add_custom(f, "List-Id", m->list_id);
	if (m->list_unsubscribe) {
		char *v = xasprintf("<%s>", m->list_unsubscribe);

		add_custom(f, "List-Unsubscribe", v);
		free(v);
	}

	body = text_part("text/plain", m->text, &text_keep);
	if (m->html) {
		/* A boundary derived from the Message-ID keeps the output a
		 * function of the input. */
		EVP_Digest(m->message_id, strlen(m->message_id), digest, &dlen,
		    EVP_sha256(), NULL);
		util_hex(digest, 16, hex);
		snprintf(boundary, sizeof(boundary), "=_ludus_%s", hex);
		ct = mailmime_content_new_with_str("multipart/alternative");
		if (ct == NULL || (alt = mailmime_new_empty(ct,
		    mailmime_fields_new_empty())) == NULL)
			fatal("out of memory composing mail");
		set_boundary(ct, boundary);
		if (mailmime_add_part(alt, body) != MAILIMF_NO_ERROR ||
		    mailmime_add_part(alt, text_part("text/html", m->html,
		    &html_keep)) != MAILIMF_NO_ERROR)
			fatal("out of memory composing mail");
		body = alt;
	}
	if ((msg = mailmime_new_message_data(NULL)) == NULL)
		fatal("out of memory composing mail");
	mailmime_set_imf_fields(msg, f);
	if (mailmime_smart_add_part(msg, body) != MAILIMF_NO_ERROR)
		fatal("out of memory composing mail");
	if ((out = mmap_string_new("")) == NULL)
		fatal("out of memory composing mail");
	if (mailmime_write_mem(out, &col, msg) != MAILIMF_NO_ERROR)
		fatal("composing mail failed");
	result = xstrndup(out->str, out->len);
	mmap_string_free(out);
	mailmime_free(msg);
	free(text_keep);
	free(html_keep);
	return result;
}

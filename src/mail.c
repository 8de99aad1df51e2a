/* mail: one incoming message parsed with libetpan into what the referee
 * needs, the guards that keep it from answering machines, and the account
 * `ludus parse` prints. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libetpan/libetpan.h>

#include "addr.h"
#include "i18n.h"
#include "mail.h"

#define MAIL_MIME_DEPTH	32	/* nested parts we walk into */

static int
strv_has(const struct strv *sv, const char *s)
{
	int i;

	for (i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return 1;
	return 0;
}

void
mail_msg_free(struct mail_msg *m)
{
	int i;

	free(m->from);
	free(m->from_name);
	free(m->reply_to);
	strv_free(&m->to);
	strv_free(&m->cc);
	strv_free(&m->delivered_to);
	free(m->subject);
	free(m->message_id);
	free(m->in_reply_to);
	strv_free(&m->references);
	free(m->auto_submitted);
	free(m->precedence);
	free(m->return_path);
	free(m->list_id);
	strv_free(&m->x_loop);
	free(m->x_failed_recipients);
	free(m->auth_results);
	free(m->auth_serv_id);
	free(m->dmarc);
	free(m->dmarc_from);
	free(m->content_type);
	free(m->report_type);
	free(m->body);
	strv_free(&m->commands);
	for (i = 0; i < m->nlines; i++)
		free(m->lines[i].text);
	free(m->lines);
	strv_free(&m->unread);
	free(m->unread_below);
	free(m->raw);
	memset(m, 0, sizeof(*m));
}

void
mail_body_commands(const char *text, size_t len, int max_lines,
    int max_commands, struct strv *out, int *lines_truncated,
    int *commands_truncated)
{
	struct mail_msg m;
	int i;

	memset(&m, 0, sizeof(m));
	mailtext_read(text, len, max_lines, max_commands, &m);
	for (i = 0; i < m.commands.n; i++)
		strv_add(out, m.commands.v[i]);
	*lines_truncated = m.lines_truncated;
	*commands_truncated = m.commands_truncated;
	mail_msg_free(&m);
}

/* A header value unfolded (line ends and the folding white space after them
 * become one space), trimmed, made valid UTF-8.  Owned. */
static char *
mail_unfold(const char *v)
{
	struct buf b = { 0 };
	char *t, *u;
	const char *p;

	for (p = v; *p; p++) {
		if (*p == '\r' || *p == '\n') {
			while (p[1] == '\r' || p[1] == '\n' || p[1] == ' ' ||
			    p[1] == '\t')
				p++;
			buf_addc(&b, ' ');
		} else
			buf_addc(&b, *p == '\t' ? ' ' : *p);
	}
	buf_adds(&b, "");
	t = util_trim(b.s);
	u = mailtext_utf8(t, strlen(t));
	buf_free(&b);
	return u;
}

/* RFC 2047 words decoded to UTF-8; 8-bit text outside them is taken as
 * UTF-8 (made valid).  Owned. */
static char *
mail_decode_phrase(const char *v)
{
	char *res = NULL, *out;
	size_t idx = 0;

	if (mailmime_encoded_phrase_parse("utf-8", v, strlen(v), &idx, "utf-8",
	    &res) == MAILIMF_NO_ERROR && res != NULL) {
		out = mail_unfold(res);
		free(res);
		return out;
	}
	free(res);
	return mail_unfold(v);
}

/* The address inside angle brackets, or the bare address, of a value that
 * libetpan could not parse as an address list.  Owned or NULL. */
static char *
mail_addr_fallback(const char *v)
{
	const char *lt = strrchr(v, '<'), *gt;
	char *a;

	if (lt != NULL && (gt = strchr(lt, '>')) != NULL && gt > lt + 1 &&
	    memchr(lt, '@', (size_t)(gt - lt)) != NULL)
		a = xstrndup(lt + 1, (size_t)(gt - lt - 1));
	else if (strchr(v, '@') != NULL && strpbrk(v, " \t<>,") == NULL)
		a = xstrdup(v);
	else
		return NULL;
	addr_lower(a);
	return a;
}

static void
mail_add_mailbox(struct strv *sv, const struct mailimf_mailbox *mb,
    char **name)
{
	char *a;

	if (mb == NULL || mb->mb_addr_spec == NULL)
		return;
	a = mailtext_utf8(mb->mb_addr_spec, strlen(mb->mb_addr_spec));
	addr_lower(a);
	if (!strv_has(sv, a))
		strv_add(sv, a);
	free(a);
	if (name != NULL && *name == NULL && mb->mb_display_name != NULL)
		*name = mail_decode_phrase(mb->mb_display_name);
}

/* Every address of an address-list header value, appended to sv; the first
 * display name to *name when name is not NULL. */
static void
mail_addresses(const char *v, struct strv *sv, char **name)
{
	struct mailimf_address_list *al = NULL;
	clistiter *c, *d;
	size_t idx = 0;
	char *a;

	if (mailimf_address_list_parse(v, strlen(v), &idx, &al) ==
	    MAILIMF_NO_ERROR && al != NULL) {
		for (c = clist_begin(al->ad_list); c; c = clist_next(c)) {
			struct mailimf_address *ad = clist_content(c);

			if (ad->ad_type == MAILIMF_ADDRESS_MAILBOX)
				mail_add_mailbox(sv, ad->ad_data.ad_mailbox,
				    name);
			else if (ad->ad_type == MAILIMF_ADDRESS_GROUP &&
			    ad->ad_data.ad_group->grp_mb_list != NULL)
				for (d = clist_begin(ad->ad_data.ad_group->
				    grp_mb_list->mb_list); d; d = clist_next(d))
					mail_add_mailbox(sv, clist_content(d),
					    name);
		}
		mailimf_address_list_free(al);
		return;
	}
	if ((a = mail_addr_fallback(v)) != NULL) {
		char *u = mailtext_utf8(a, strlen(a));

		if (!strv_has(sv, u))
			strv_add(sv, u);
		free(u);
		free(a);
	}
}

/* Message ids of a header value, without angle brackets. */
static void
mail_msgids(const char *v, struct strv *sv)
{
	const char *p = v, *lt, *gt;
	char *id;

	while ((lt = strchr(p, '<')) != NULL && (gt = strchr(lt, '>')) != NULL) {
		if (gt > lt + 1) {
			id = xstrndup(lt + 1, (size_t)(gt - lt - 1));
			strv_add(sv, id);
			free(id);
		}
		p = gt + 1;
	}
	/* A bare id without brackets, as some clients write. */
	if (p == v) {
		id = xstrdup(v);
		if (*util_trim(id) != '\0' && strchr(id, ' ') == NULL)
			strv_add(sv, util_trim(id));
		free(id);
	}
}

static char *
mail_first_msgid(const char *v)
{
	struct strv sv = { 0 };
	char *r = NULL;

	mail_msgids(v, &sv);
	if (sv.n > 0)
		r = xstrdup(sv.v[0]);
	strv_free(&sv);
	return r;
}

/* authserv-id, dmarc= and header.from= of an Authentication-Results value
 * (RFC 8601): "mx.example.org; spf=pass …; dmarc=pass (p=NONE)
 * header.from=example.org". */
static void
mail_auth_parse(struct mail_msg *m)
{
	const char *v = m->auth_results, *p, *e;
	size_t n;

	if (v == NULL)
		return;
	n = strcspn(v, "; \t");
	if (n > 0)
		m->auth_serv_id = xstrndup(v, n);
	for (p = v; (p = strchr(p, ';')) != NULL; p++) {
		const char *q = p + 1;

		while (*q == ' ' || *q == '\t')
			q++;
		if (!util_strncaseeq(q, "dmarc=", 6))
			continue;
		q += 6;
		n = strcspn(q, " \t;(");
		free(m->dmarc);
		m->dmarc = xstrndup(q, n);
		util_lower(m->dmarc);
		e = strchr(q, ';');
		for (q += n; *q && (e == NULL || q < e); q++) {
			if (util_strncaseeq(q, "header.from=", 12)) {
				q += 12;
				n = strcspn(q, " \t;)");
				free(m->dmarc_from);
				m->dmarc_from = xstrndup(q, n);
				util_lower(m->dmarc_from);
				break;
			}
		}
		break;
	}
}

static void
mail_set_once(char **dst, const char *v)
{
	if (*dst == NULL)
		*dst = mail_unfold(v);
}

/* Header fields that autoresponders, vacation programs, challenge-response
 * systems and Exchange put on their mail, with the value that gives them
 * away (NULL: any value; else the value starts with it, ignoring case). */
static const struct {
	const char	*name;
	const char	*value;
	int		 flag;		/* MAIL_AUTO_* */
} mail_auto_fields[] = {
	{ "X-Autoreply", NULL, MAIL_AUTO_HEADER },
	{ "X-Auto-Reply", NULL, MAIL_AUTO_HEADER },
	{ "X-Autorespond", NULL, MAIL_AUTO_HEADER },
	{ "X-Autoresponder", NULL, MAIL_AUTO_HEADER },
	{ "X-Autoresponse", NULL, MAIL_AUTO_HEADER },
	{ "X-Autogenerated", NULL, MAIL_AUTO_HEADER },
	{ "X-AutoReply-From", NULL, MAIL_AUTO_HEADER },
	{ "X-Mail-Autoreply", NULL, MAIL_AUTO_HEADER },
	{ "X-Vacation", NULL, MAIL_AUTO_HEADER },
	{ "X-Apple-Action", "VACATION", MAIL_AUTO_HEADER },
	{ "X-POST-MessageClass", "9; Autoresponder", MAIL_AUTO_HEADER },
	{ "X-Precedence", "auto_reply", MAIL_AUTO_HEADER },
	{ "X-FC-MachineGenerated", "true", MAIL_AUTO_HEADER },
	/* TMDA and other challenge-response systems. */
	{ "X-Delivery-Agent", "TMDA", MAIL_AUTO_CHALLENGE },
	{ "X-TMDA-Fingerprint", NULL, MAIL_AUTO_CHALLENGE },
	{ "X-Challenge", NULL, MAIL_AUTO_CHALLENGE },
	{ "X-Spam-Arrest", NULL, MAIL_AUTO_CHALLENGE },
	{ "X-Boxbe-Challenge", NULL, MAIL_AUTO_CHALLENGE },
	/* Exchange marks its own automatic mail (replies, notices) so that
	 * nothing answers it; "None" is the one value that does not. */
	{ "X-Auto-Response-Suppress", NULL, MAIL_AUTO_SUPPRESS },
};

static int mail_has_ci(const char *, const char *);

static void
mail_autoresponder_field(struct mail_msg *m, const char *name, const char *v)
{
	size_t i;
	char *u;

	for (i = 0; i < nitems(mail_auto_fields); i++) {
		if (!util_strcaseeq(name, mail_auto_fields[i].name))
			continue;
		u = mail_unfold(v);
		if (mail_auto_fields[i].flag == MAIL_AUTO_SUPPRESS ?
		    !util_strcaseeq(u, "None") && *u != '\0' :
		    mail_auto_fields[i].value == NULL ||
		    util_strncaseeq(u, mail_auto_fields[i].value,
		    strlen(mail_auto_fields[i].value)))
			m->autoresponder_header |= mail_auto_fields[i].flag;
		free(u);
		return;
	}
	/* Challenge-response providers mark their requests with a field of
	 * their own ("X-Mailblocks-Challenge", "X-Sender-Verification"):
	 * no Auto-Submitted, no subject or sentence to go by. */
	if (util_strncaseeq(name, "X-", 2) && (mail_has_ci(name, "challenge") ||
	    mail_has_ci(name, "sender-verif") ||
	    mail_has_ci(name, "senderverif")))
		m->autoresponder_header |= MAIL_AUTO_CHALLENGE;
}

/* Header fields we read, each value raw from libetpan's optional-field
 * parse (every field kept in order, nothing interpreted). */
static void
mail_headers(struct mail_msg *m, struct mailimf_fields *f)
{
	clistiter *c;
	struct strv from = { 0 }, rt = { 0 };
	char *v;

	for (c = clist_begin(f->fld_list); c; c = clist_next(c)) {
		struct mailimf_field *fld = clist_content(c);
		const char *name;

		if (fld->fld_type != MAILIMF_FIELD_OPTIONAL_FIELD)
			continue;
		name = fld->fld_data.fld_optional_field->fld_name;
		v = fld->fld_data.fld_optional_field->fld_value;
		if (util_strcaseeq(name, "From")) {
			if (from.n == 0)
				mail_addresses(v, &from, &m->from_name);
		} else if (util_strcaseeq(name, "Reply-To")) {
			if (rt.n == 0)
				mail_addresses(v, &rt, NULL);
		} else if (util_strcaseeq(name, "To"))
			mail_addresses(v, &m->to, NULL);
		else if (util_strcaseeq(name, "Cc"))
			mail_addresses(v, &m->cc, NULL);
		else if (util_strcaseeq(name, "Delivered-To"))
			mail_addresses(v, &m->delivered_to, NULL);
		else if (util_strcaseeq(name, "Subject")) {
			if (m->subject == NULL)
				m->subject = mail_decode_phrase(v);
		} else if (util_strcaseeq(name, "Message-ID")) {
			if (m->message_id == NULL)
				m->message_id = mail_first_msgid(v);
		} else if (util_strcaseeq(name, "In-Reply-To")) {
			if (m->in_reply_to == NULL)
				m->in_reply_to = mail_first_msgid(v);
		} else if (util_strcaseeq(name, "References")) {
			if (m->references.n == 0)
				mail_msgids(v, &m->references);
		} else if (util_strcaseeq(name, "Auto-Submitted"))
			mail_set_once(&m->auto_submitted, v);
		else if (util_strcaseeq(name, "Precedence"))
			mail_set_once(&m->precedence, v);
		else if (util_strcaseeq(name, "Return-Path"))
			mail_set_once(&m->return_path, v);
		else if (util_strcaseeq(name, "List-Id"))
			mail_set_once(&m->list_id, v);
		else if (util_strcaseeq(name, "X-Failed-Recipients"))
			mail_set_once(&m->x_failed_recipients, v);
		else if (util_strcaseeq(name, "Authentication-Results"))
			/* The topmost is the one our own MTA added. */
			mail_set_once(&m->auth_results, v);
		else if (util_strcaseeq(name, "X-Loop")) {
			char *u = mail_unfold(v);

			strv_add(&m->x_loop, u);
			free(u);
		} else
			mail_autoresponder_field(m, name, v);
	}
	if (from.n > 0)
		m->from = xstrdup(from.v[0]);
	if (rt.n > 0)
		m->reply_to = xstrdup(rt.v[0]);
	strv_free(&from);
	strv_free(&rt);
	if (m->return_path != NULL) {
		const char *p = m->return_path;
		size_t n;

		while (*p == '<' || *p == ' ')
			p++;
		n = strcspn(p, "> ");
		m->return_path_null = n == 0;
	}
	mail_auth_parse(m);
}

/* "type/subtype" of a content type, lower-case, into out. */
static void
mail_ctype(const struct mailmime_content *ct, char *out, size_t outlen)
{
	const char *t = "text", *sub;

	if (ct == NULL || ct->ct_type == NULL) {
		util_strlcpy(out, "text/plain", outlen);
		return;
	}
	if (ct->ct_type->tp_type == MAILMIME_TYPE_DISCRETE_TYPE) {
		switch (ct->ct_type->tp_data.tp_discrete_type->dt_type) {
		case MAILMIME_DISCRETE_TYPE_TEXT: t = "text"; break;
		case MAILMIME_DISCRETE_TYPE_IMAGE: t = "image"; break;
		case MAILMIME_DISCRETE_TYPE_AUDIO: t = "audio"; break;
		case MAILMIME_DISCRETE_TYPE_VIDEO: t = "video"; break;
		case MAILMIME_DISCRETE_TYPE_APPLICATION: t = "application"; break;
		default:
			t = ct->ct_type->tp_data.tp_discrete_type->dt_extension;
			break;
		}
	} else if (ct->ct_type->tp_type == MAILMIME_TYPE_COMPOSITE_TYPE) {
		switch (ct->ct_type->tp_data.tp_composite_type->ct_type) {
		case MAILMIME_COMPOSITE_TYPE_MESSAGE: t = "message"; break;
		case MAILMIME_COMPOSITE_TYPE_MULTIPART: t = "multipart"; break;
		default:
			t = ct->ct_type->tp_data.tp_composite_type->ct_token;
			break;
		}
	}
	sub = ct->ct_subtype ? ct->ct_subtype : "";
	snprintf(out, outlen, "%s/%s", t ? t : "x", sub);
	util_lower(out);
}

static int
mail_is_attachment(const struct mailmime *mm)
{
	clistiter *c;

	if (mm->mm_mime_fields == NULL)
		return 0;
	for (c = clist_begin(mm->mm_mime_fields->fld_list); c; c = clist_next(c)) {
		struct mailmime_field *f = clist_content(c);

		if (f->fld_type == MAILMIME_FIELD_DISPOSITION &&
		    f->fld_data.fld_disposition != NULL &&
		    f->fld_data.fld_disposition->dsp_type != NULL &&
		    f->fld_data.fld_disposition->dsp_type->dsp_type ==
		    MAILMIME_DISPOSITION_TYPE_ATTACHMENT)
			return 1;
	}
	return 0;
}

/* The first inline single part of type want ("text/plain"), depth first,
 * not looking inside attached messages. */
static const struct mailmime *
mail_find_part(const struct mailmime *mm, const char *want, int depth)
{
	char ct[128];
	clistiter *c;
	const struct mailmime *r;

	if (mm == NULL || depth > MAIL_MIME_DEPTH)
		return NULL;
	switch (mm->mm_type) {
	case MAILMIME_SINGLE:
		mail_ctype(mm->mm_content_type, ct, sizeof(ct));
		if (strcmp(ct, want) == 0 && !mail_is_attachment(mm) &&
		    mm->mm_data.mm_single != NULL)
			return mm;
		return NULL;
	case MAILMIME_MULTIPLE:
		if (mm->mm_data.mm_multipart.mm_mp_list == NULL)
			return NULL;
		for (c = clist_begin(mm->mm_data.mm_multipart.mm_mp_list); c;
		    c = clist_next(c))
			if ((r = mail_find_part(clist_content(c), want,
			    depth + 1)) != NULL)
				return r;
		return NULL;
	case MAILMIME_MESSAGE:
		/* Only the message itself, never one attached to it. */
		if (depth > 0)
			return NULL;
		return mail_find_part(mm->mm_data.mm_message.mm_msg_mime, want,
		    depth + 1);
	}
	return NULL;
}

/* A single part's content, transfer-decoded and converted to UTF-8. */
static char *
mail_part_text(const struct mailmime *mm)
{
	const struct mailmime_data *d = mm->mm_data.mm_single;
	const char *charset = NULL;
	char *dec = NULL, *out;
	size_t idx = 0, dlen = 0;

	if (d->dt_type != MAILMIME_DATA_TEXT)
		return xstrdup("");
	if (mm->mm_content_type != NULL)
		charset = mailmime_content_param_get(mm->mm_content_type,
		    "charset");
	if (d->dt_encoded && mailmime_part_parse(d->dt_data.dt_text.dt_data,
	    d->dt_data.dt_text.dt_length, &idx, d->dt_encoding, &dec, &dlen) ==
	    MAILIMF_NO_ERROR && dec != NULL) {
		out = mailtext_to_utf8(dec, dlen, charset);
		mailmime_decoded_part_free(dec);
		return out;
	}
	return mailtext_to_utf8(d->dt_data.dt_text.dt_data,
	    d->dt_data.dt_text.dt_length, charset);
}

/* Does a multipart Content-Type anywhere in this raw text lack its boundary
 * parameter (or have an empty one)?  libetpan 1.9.4 has had a crash on
 * multiparts with a missing boundary (fixed upstream after that release);
 * rather than hand such a message to it, its text after the header is read
 * as plain text. */
static int
mail_boundary_unsafe(const char *raw, size_t len)
{
	const char *p = raw, *end = raw + len;

	while (p < end) {
		const char *eol, *b, *mp;

		/* A Content-Type field and its folded continuation lines. */
		for (eol = p; eol < end; eol++)
			if (*eol == '\n' && (eol + 1 >= end ||
			    (eol[1] != ' ' && eol[1] != '\t')))
				break;
		if (!((size_t)(end - p) > 13 &&
		    util_strncaseeq(p, "Content-Type:", 13))) {
			p = eol + 1;
			continue;
		}
		for (mp = p + 13; mp < eol && (*mp == ' ' || *mp == '\t' ||
		    *mp == '\r' || *mp == '\n'); mp++)
			;
		if ((size_t)(eol - mp) < 9 || !util_strncaseeq(mp, "multipart",
		    9)) {
			p = eol + 1;
			continue;
		}
		b = NULL;
		for (mp = p; mp + 8 <= eol; mp++)
			if (util_strncaseeq(mp, "boundary", 8)) {
				b = mp + 8;
				break;
			}
		if (b == NULL)
			return 1;
		while (b < eol && (*b == ' ' || *b == '\t' || *b == '=' ||
		    *b == '*' || *b == '"'))
			b++;
		if (b >= eol || *b == ';' || *b == '\r' || *b == '\n')
			return 1;
		p = eol + 1;
	}
	return 0;
}

int
mail_subject_tag(const char *s, const char *tag, int64_t *game, char *token)
{
	size_t tl = strlen(tag);
	const char *p;

	for (p = s; p != NULL && (p = strchr(p, '[')) != NULL; p++) {
		const char *q = p + 1;
		long long id = 0;
		size_t n = 0;

		while (*q == ' ')
			q++;
		if (!util_strncaseeq(q, tag, tl))
			continue;
		q += tl;
		while (*q == ' ')
			q++;
		if (*q++ != '#' || !isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q) && id < INT64_MAX / 10 - 10)
			id = id * 10 + (*q++ - '0');
		if (isdigit((unsigned char)*q) || id == 0)
			continue;
		while (*q == ' ')
			q++;
		while (n < MAIL_TOKEN_MAX && isalnum((unsigned char)q[n]))
			n++;
		if (q[n] == ' ' ? q[n + strspn(q + n, " ")] != ']' : q[n] != ']')
			continue;
		*game = id;
		memcpy(token, q, n);
		token[n] = '\0';
		return 1;
	}
	return 0;
}

/* LOCAL+ID.TOKEN@DOMAIN, with LOCAL and DOMAIN those of referee when set. */
static int
mail_plus_tag(const char *addr, const char *referee, int64_t *game,
    char *token)
{
	const char *plus = strchr(addr, '+'), *at = strrchr(addr, '@'), *q;
	long long id = 0;
	size_t n;

	if (plus == NULL || at == NULL || plus > at)
		return 0;
	if (referee != NULL) {
		const char *rat = strrchr(referee, '@');

		if (rat == NULL || (size_t)(plus - addr) != (size_t)(rat - referee) ||
		    !util_strncaseeq(addr, referee, (size_t)(plus - addr)) ||
		    !util_strcaseeq(at, rat))
			return 0;
	}
	for (q = plus + 1; isdigit((unsigned char)*q) && id < INT64_MAX / 10 - 10;
	    q++)
		id = id * 10 + (*q - '0');
	if (q == plus + 1 || *q != '.' || id == 0)
		return 0;
	n = (size_t)(at - (q + 1));
	if (n == 0 || n > MAIL_TOKEN_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)q[1 + i]))
			return 0;
	*game = id;
	memcpy(token, q + 1, n);
	token[n] = '\0';
	return 1;
}

static void
mail_find_tag(struct mail_msg *m, const struct mail_limits *lim,
    const char *tag)
{
	const struct strv *lists[] = { &m->to, &m->cc, &m->delivered_to };
	char stok[MAIL_TOKEN_MAX + 1], ptok[MAIL_TOKEN_MAX + 1];
	int64_t sgame = 0, pgame = 0;
	size_t l;
	int i, found = 0;

	if (m->subject != NULL && mail_subject_tag(m->subject, tag, &sgame,
	    stok)) {
		m->tag_source |= MAIL_TAG_SUBJECT;
		util_lower(stok);
	}
	for (l = 0; l < nitems(lists) && !found; l++)
		for (i = 0; i < lists[l]->n && !found; i++)
			found = mail_plus_tag(lists[l]->v[i], lim->referee,
			    &pgame, ptok);
	if (found)
		m->tag_source |= MAIL_TAG_PLUS;
	/* The plus address is what the referee's Reply-To carries and what a
	 * client cannot mangle: it wins when the two disagree. */
	if (found) {
		m->tag_game = pgame;
		util_strlcpy(m->tag_token, ptok, sizeof(m->tag_token));
		if ((m->tag_source & MAIL_TAG_SUBJECT) && (sgame != pgame ||
		    (stok[0] && strcmp(stok, ptok) != 0)))
			m->tag_conflict = 1;
	} else if (m->tag_source & MAIL_TAG_SUBJECT) {
		m->tag_game = sgame;
		util_strlcpy(m->tag_token, stok, sizeof(m->tag_token));
	}
}

/* Length of a reply or forward prefix at s ("Re:", "Fwd:", "AW:", "Re[2]:",
 * "Ответ:" …), 0 when there is none. */
static size_t
mail_subject_prefix(const char *s)
{
	/* ASCII words compare case-insensitively, the others as written. */
	static const char *const ascii[] = { "re", "fwd", "fw", "aw", "wg",
		"sv", "vs", "tr", "rif", "antw" };
	static const char *const other[] = { "Ответ", "ответ", "ОТВЕТ", "Отв",
		"отв", "ОТВ", "Пересл", "пересл", "ПЕРЕСЛ", "Réf", "réf", "RÉF" };
	size_t i, n, k;

	for (i = 0; i < nitems(ascii) + nitems(other); i++) {
		const char *w = i < nitems(ascii) ? ascii[i] :
		    other[i - nitems(ascii)];

		n = strlen(w);
		if (i < nitems(ascii) ? !util_strncaseeq(s, w, n) :
		    strncmp(s, w, n) != 0)
			continue;
		k = n;
		if (s[k] == '[' || s[k] == '(') {
			k++;
			while (isdigit((unsigned char)s[k]))
				k++;
			if (s[k] != ']' && s[k] != ')')
				continue;
			k++;
		}
		while (s[k] == ' ')
			k++;
		if (s[k] == ':')
			return k + 1;
	}
	return 0;
}

char *
mail_subject_command(const char *subject, const char *tag)
{
	struct buf b = { 0 };
	char *s = xstrdup(subject), *p, *r, token[MAIL_TOKEN_MAX + 1];
	int64_t game;
	size_t n;
	int changed;

	/* Remove the tag (the whole bracket). */
	if (mail_subject_tag(s, tag, &game, token)) {
		size_t tl = strlen(tag);

		for (p = s; (p = strchr(p, '[')) != NULL; p++) {
			const char *q = p + 1;

			while (*q == ' ')
				q++;
			if (util_strncaseeq(q, tag, tl) && strchr(q, ']')) {
				char *e = strchr(q, ']') + 1;

				memmove(p, e, strlen(e) + 1);
				break;
			}
		}
	}
	p = s;
	do {
		changed = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if ((n = mail_subject_prefix(p)) > 0) {
			p += n;
			changed = 1;
		}
	} while (changed);
	/* Collapse runs of blanks left by the removals. */
	for (r = p; *r; r++) {
		if ((*r == ' ' || *r == '\t') && (b.len == 0 ||
		    b.s[b.len - 1] == ' '))
			continue;
		buf_addc(&b, *r == '\t' ? ' ' : *r);
	}
	buf_adds(&b, "");
	free(s);
	r = xstrdup(util_trim(b.s));
	buf_free(&b);
	return r;
}

/* The message with CR-only line ends turned into LF (libetpan and our line
 * splitting want LF or CRLF).  Owned. */
static char *
mail_copy_raw(const char *raw, size_t len)
{
	char *c = xmalloc(len + 1);
	size_t i;

	memcpy(c, raw, len);
	c[len] = '\0';
	if (memchr(raw, '\n', len) == NULL)
		for (i = 0; i < len; i++)
			if (c[i] == '\r')
				c[i] = '\n';
	return c;
}

/* Length of the header block (through its blank line) in the first len
 * bytes; len when no blank line ends it there. */
static size_t
mail_header_len(const char *raw, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i++) {
		if (raw[i] != '\n')
			continue;
		if (raw[i + 1] == '\n')
			return i + 2;
		if (raw[i + 1] == '\r' && i + 2 < len && raw[i + 2] == '\n')
			return i + 3;
	}
	return len;
}

int
mail_parse(const char *raw, size_t len, const struct mail_limits *lim0,
    struct mail_msg *m, char *err, size_t errlen)
{
	struct mail_limits lim = *lim0;
	struct mailimf_fields *fields = NULL;
	struct mailmime *mime = NULL;
	const struct mailmime *part;
	const char *tag;
	size_t idx = 0, hstart = 0, too_big = 0;
	char ct[128];

	memset(m, 0, sizeof(*m));
	if (lim.max_bytes == 0)
		lim.max_bytes = MAIL_DEFAULT_MAX_BYTES;
	if (lim.max_lines == 0)
		lim.max_lines = MAIL_DEFAULT_MAX_LINES;
	if (lim.max_commands == 0)
		lim.max_commands = MAIL_DEFAULT_MAX_COMMANDS;
	tag = lim.tag && *lim.tag ? lim.tag : MAIL_DEFAULT_TAG;
	if (len > lim.max_bytes) {
		/* Only the header is read, so the guards can still be asked
		 * and the sender told. */
		too_big = len;
		len = mail_header_len(raw, len < lim.max_bytes ? len :
		    lim.max_bytes);
	}
	m->raw = mail_copy_raw(raw, len);
	m->rawlen = len;
	/* An mbox "From " line before the header is not a header. */
	if (len > 5 && memcmp(m->raw, "From ", 5) == 0) {
		const char *nl = memchr(m->raw, '\n', len);

		hstart = nl ? (size_t)(nl - m->raw) + 1 : len;
	}
	idx = hstart;
	if (mailimf_optional_fields_parse(m->raw, len, &idx, &fields) !=
	    MAILIMF_NO_ERROR || fields == NULL) {
		/* N_: the referee answers these in the sender's language,
		 * which is not known yet. */
		util_err(err, errlen, N_("the message has no readable header"));
		return -1;
	}
	mail_headers(m, fields);
	mailimf_fields_free(fields);
	mail_find_tag(m, &lim, tag);
	if (too_big) {
		util_err(err, errlen, "message too large (%zu bytes; the limit "
		    "is %zu)", too_big, lim.max_bytes);
		return -1;
	}

	if (mail_boundary_unsafe(m->raw + hstart, len - hstart)) {
		/* Read what there is as plain text after the header. */
		m->content_type = xstrdup("multipart/broken");
		m->body_source = MAIL_BODY_PLAIN;
		m->body = mailtext_to_utf8(m->raw + idx, len - idx, NULL);
	} else {
		idx = hstart;
		if (mailmime_parse(m->raw, len, &idx, &mime) != MAILIMF_NO_ERROR ||
		    mime == NULL) {
			util_err(err, errlen, N_("the message could not be read "
			    "as MIME"));
			return -1;
		}
		if (mime->mm_type == MAILMIME_MESSAGE &&
		    mime->mm_data.mm_message.mm_msg_mime != NULL) {
			const struct mailmime *top =
			    mime->mm_data.mm_message.mm_msg_mime;

			mail_ctype(top->mm_content_type, ct, sizeof(ct));
			m->content_type = xstrdup(ct);
			if (top->mm_content_type != NULL) {
				const char *rt = mailmime_content_param_get(
				    top->mm_content_type, "report-type");

				if (rt != NULL) {
					m->report_type = xstrdup(rt);
					util_lower(m->report_type);
				}
			}
		} else
			m->content_type = xstrdup("text/plain");
		if ((part = mail_find_part(mime, "text/plain", 0)) != NULL) {
			m->body_source = MAIL_BODY_PLAIN;
			m->body = mail_part_text(part);
		} else if ((part = mail_find_part(mime, "text/html", 0)) !=
		    NULL) {
			char *html = mail_part_text(part);

			m->body_source = MAIL_BODY_HTML;
			m->body = mailtext_html(html, strlen(html));
			free(html);
		}
		mailmime_free(mime);
		/* Never read as empty (the subject would be taken for
		 * the command): refused. */
		if (m->body_source == MAIL_BODY_HTML && m->body == NULL) {
			util_err(err, errlen, N_("the message's HTML nests too "
			    "deeply to be read: write your commands as plain "
			    "text"));
			return -1;
		}
	}
	if (m->body_source == MAIL_BODY_NONE) {
		util_err(err, errlen, N_("the message has no text part: write "
		    "your commands as plain text (or HTML)"));
		return -1;
	}
	mailtext_read(m->body, strlen(m->body), lim.max_lines,
	    lim.max_commands, m);
	/* Lines held back are not nothing: the subject is no stand-in for
	 * them, and the sender is told which were not read. */
	if (m->commands.n == 0 && m->unread.n == 0 && m->subject != NULL) {
		char *c = mail_subject_command(m->subject, tag);

		if (*c != '\0') {
			strv_add(&m->commands, c);
			m->from_subject = 1;
		}
		free(c);
	}
	return 0;
}

/* Guards. */

static int
mail_local_is(const char *addr, const char *local)
{
	const char *at = strrchr(addr, '@');
	size_t n = at ? (size_t)(at - addr) : strlen(addr);

	return n == strlen(local) && util_strncaseeq(addr, local, n);
}

static int
mail_is_daemon(const char *addr)
{
	return addr != NULL && (mail_local_is(addr, "mailer-daemon") ||
	    mail_local_is(addr, "postmaster") ||
	    mail_local_is(addr, "mail-daemon") ||
	    mail_local_is(addr, "mailerdaemon"));
}

static int
mail_is_noreply(const char *addr)
{
	return addr != NULL && (mail_local_is(addr, "no-reply") ||
	    mail_local_is(addr, "noreply") ||
	    mail_local_is(addr, "do-not-reply") ||
	    mail_local_is(addr, "donotreply"));
}

/* The address in a Return-Path value. */
static int
mail_return_path_daemon(const char *rp)
{
	char a[256];
	size_t n;

	while (*rp == '<' || *rp == ' ')
		rp++;
	n = strcspn(rp, "> ");
	if (n == 0 || n >= sizeof(a))
		return 0;
	memcpy(a, rp, n);
	a[n] = '\0';
	return mail_is_daemon(a);
}

/* The id inside a List-Id value: "Club <club.example.org>" → the part in
 * brackets, else the whole. */
static int
mail_list_matches(const char *list_id, const char *want)
{
	const char *lt = strrchr(list_id, '<'), *gt;

	if (util_strcaseeq(list_id, want))
		return 1;
	if (lt != NULL && (gt = strchr(lt, '>')) != NULL) {
		size_t n = (size_t)(gt - lt - 1);

		if (strlen(want) == n && util_strncaseeq(lt + 1, want, n))
			return 1;
		if (want[0] == '<' && strlen(want) == n + 2 &&
		    util_strncaseeq(lt, want, n + 2))
			return 1;
	}
	return 0;
}

/* Subjects of automatic replies: how they start (Exchange's "Automatic
 * reply:" in Outlook's languages, Lotus Notes' "AUTO:"), and what they say
 * anywhere ("… is out of the office"), for the ones that carry no
 * Auto-Submitted. */
static const char *const mail_auto_subject_starts[] = {
	"Auto reply", "Autoreply", "Auto-reply", "Automatic reply",
	"Auto Response", "Autoresponse", "AutoReply", "Out of Office",
	"Out of the office", "AUTO:", "AUTO :", "Vacation reply",
	"Away from my mail",					/* English */
	"Automatische Antwort", "Abwesenheitsnotiz", "Abwesend",
	"Automatische Abwesenheitsnotiz",			/* German */
	"Réponse automatique", "Absence du bureau", "Absent du bureau",
	"Absence :",						/* French */
	"Respuesta automática", "Fuera de la oficina",		/* Spanish */
	"Risposta automatica", "Fuori ufficio", "Fuori sede",	/* Italian */
	"Resposta automática", "Ausente do escritório",		/* Portuguese */
	"Automatisch antwoord", "Afwezig",			/* Dutch */
	"Automatiskt svar", "Autosvar", "Automatisk svar",
	"Automatisk besvarelse",				/* Nordic */
	"Automaattinen vastaus", "Poissaolo",			/* Finnish */
	"Automatyczna odpowiedź", "Odpowiedź automatyczna",
	"Poza biurem",						/* Polish */
	"Automatická odpověď", "Mimo kancelář",			/* Czech */
	"Автоматический ответ", "Автоответ", "Вне офиса",	/* Russian */
	"Автоматична відповідь", "Автовідповідь",		/* Ukrainian */
	"Otomatik yanıt", "Otomatik cevap", "Ofis dışında",	/* Turkish */
	"Automatikus válasz", "Αυτόματη απάντηση",
	"رد تلقائي", "自动回复", "自動回覆", "自動応答", "不在",
};
static const char *const mail_auto_subject_has[] = {
	" is out of the office", " is out of office", " is away from ",
	" ist außer Haus", " ist nicht im Büro", " ist abwesend",
	" est absent", " è fuori ufficio", " è assente",
	" está fuera de la oficina", " está ausente", " is afwezig",
	" er ikke på kontoret", " är inte på kontoret", " on lomalla",
	" jest poza biurem", " není v kanceláři", " не в офисе",
	" ofis dışında", " 不在", "不在です", "休假",
};

static int
mail_subject_autoreply(const char *s)
{
	size_t i;

	if (s == NULL)
		return 0;
	for (i = 0; i < nitems(mail_auto_subject_starts); i++)
		if (util_strncaseeq(s, mail_auto_subject_starts[i],
		    strlen(mail_auto_subject_starts[i])))
			return 1;
	if (strlen(s) > 1000)
		return 0;
	for (i = 0; i < nitems(mail_auto_subject_has); i++)
		if (strstr(s, mail_auto_subject_has[i]) != NULL)
			return 1;
	return 0;
}

/* Subjects of delivery failure reports from servers that send them
 * without a null sender, a daemon's address or a DSN. */
static const char *const mail_bounce_subject_starts[] = {
	"Undelivered Mail", "Undeliverable",
	"Delivery Status Notification (Failure)", "Delivery Failure",
	"DELIVERY FAILURE:", "Mail delivery failed", "Mail System Error",
	"failure notice", "Returned mail:", "Nondeliverable",
	"Non remis", "Unzustellbar", "Nicht zustellbar", "No se puede entregar",
	"Non recapitabile", "Onbestelbaar", "Kan inte levereras",
	"Не доставлено", "Недоставленное сообщение",
	"Ваше сообщение не доставлено",
	"メールエラー通知", "未送達", "退信", "邮件退回",
};

static int
mail_subject_bounce(const char *s)
{
	size_t i;

	if (s == NULL)
		return 0;
	for (i = 0; i < nitems(mail_bounce_subject_starts); i++)
		if (util_strncaseeq(s, mail_bounce_subject_starts[i],
		    strlen(mail_bounce_subject_starts[i])))
			return 1;
	return 0;
}

/* Challenge-response systems hold mail from unknown senders until a person
 * proves to be one: their subjects and the sentences of their requests. */
static const char *const mail_challenge_subject_starts[] = {
	"Please confirm your", "Please verify your", "Confirm your message",
	"Verify your message", "Sender verification", "Verification required",
	"Your message requires", "Your message is awaiting", "Message held",
	"[SpamArrest]", "Spam Arrest", "Boxbe", "Request to join my",
	"Confirm you are", "Confirm you're", "Verify you are", "Are you human",
	"Human verification", "Please confirm that you",
	"Bitte bestätigen Sie", "Absenderbestätigung",
	"Merci de confirmer", "Veuillez confirmer", "Confirmez votre",
	"Por favor confirme", "Confirme su", "Si prega di confermare",
	"Пожалуйста, подтвердите",
};
static const char *const mail_challenge_body_has[] = {
	"you are a human", "you are human", "you're a human",
	"that you are a person", "you are not a robot", "you're not a robot",
	"not a spam robot", "list of approved senders",
	"approved senders list", "I only accept mail from",
	"to release your message", "held pending verification",
	"challenge-response", "confirm that you sent",
	"you're human", "prove that you are human",
	"Sie ein Mensch sind", "kein Roboter", "vous êtes un humain",
	"vous êtes bien un humain", "une personne réelle", "eres humano",
	"eres una persona", "sei una persona", "sei un essere umano",
	"você é humano", "een mens bent", "jesteś człowiekiem",
	"вы не робот", "вы человек",
};

/* Does hay contain needle, ASCII letters in either case?  For short
 * needles in bounded text. */
static int
mail_has_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (util_strncaseeq(hay, needle, n))
			return 1;
	return 0;
}

static int
mail_challenge(const struct mail_msg *m)
{
	size_t i, k;
	int c;

	if (m->autoresponder_header & MAIL_AUTO_CHALLENGE)
		return 1;
	if (m->subject != NULL)
		for (i = 0; i < nitems(mail_challenge_subject_starts); i++)
			if (util_strncaseeq(m->subject,
			    mail_challenge_subject_starts[i],
			    strlen(mail_challenge_subject_starts[i])))
				return 1;
	/* The sender's own lines only: a player quoting such a request is
	 * still a player.  Bounded by the command cap. */
	for (c = 0; c < m->commands.n && c < 100; c++) {
		if (strlen(m->commands.v[c]) > 2000)
			continue;
		for (k = 0; k < nitems(mail_challenge_body_has); k++)
			if (mail_has_ci(m->commands.v[c],
			    mail_challenge_body_has[k]))
				return 1;
	}
	return 0;
}

/* Is the referee (or its plus address) among the To and Cc of a message? */
static int
mail_to_referee(const struct mail_msg *m, const char *referee)
{
	const struct strv *lists[] = { &m->to, &m->cc };
	const char *at = strrchr(referee, '@'), *a, *aat;
	size_t l, local = at ? (size_t)(at - referee) : strlen(referee);
	int i;

	for (l = 0; l < nitems(lists); l++)
		for (i = 0; i < lists[l]->n; i++) {
			a = lists[l]->v[i];
			if (util_strcaseeq(a, referee))
				return 1;
			aat = strrchr(a, '@');
			if (at != NULL && aat != NULL && util_strcaseeq(aat,
			    at) && util_strncaseeq(a, referee, local) &&
			    a[local] == '+')
				return 1;
		}
	return 0;
}

const char *
mail_guard(const struct mail_msg *m, const struct mail_guard_cfg *cfg)
{
	int i, club = 0;

	if (m->from == NULL)
		return "bounce: no sender address";
	if (cfg->x_loop != NULL && *cfg->x_loop)
		for (i = 0; i < m->x_loop.n; i++)
			if (util_strcaseeq(m->x_loop.v[i], cfg->x_loop))
				return "loop: our own X-Loop";
	if (cfg->referee != NULL && util_strcaseeq(m->from, cfg->referee))
		return "loop: sent by the referee itself";
	for (i = 0; i < cfg->nbanned; i++) {
		const char *b = cfg->banned[i], *at = strrchr(m->from, '@');

		if (util_strcaseeq(m->from, b) || (b[0] == '@' && at != NULL &&
		    util_strcaseeq(at, b)))
			return "banned: sender is banned";
	}
	if (m->return_path_null)
		return "bounce: null Return-Path";
	if (mail_is_daemon(m->from))
		return "bounce: sender is a mailer daemon";
	if (m->return_path != NULL && mail_return_path_daemon(m->return_path))
		return "bounce: Return-Path is a mailer daemon";
	if (m->content_type != NULL &&
	    strcmp(m->content_type, "multipart/report") == 0) {
		if (m->report_type == NULL ||
		    strcmp(m->report_type, "delivery-status") == 0)
			return "bounce: delivery status report";
		return "report: automated report";
	}
	if (m->x_failed_recipients != NULL)
		return "bounce: X-Failed-Recipients";
	if (mail_subject_bounce(m->subject))
		return "bounce: subject";
	if (m->auto_submitted != NULL) {
		size_t n = strcspn(m->auto_submitted, " \t;(");

		if (!(n == 2 && util_strncaseeq(m->auto_submitted, "no", 2)))
			return "auto-reply: Auto-Submitted";
	}
	if (m->autoresponder_header & MAIL_AUTO_HEADER)
		return "auto-reply: autoresponder header";
	if (mail_subject_autoreply(m->subject))
		return "auto-reply: subject";
	if (mail_challenge(m))
		return "auto-reply: challenge-response";
	if (m->autoresponder_header & MAIL_AUTO_SUPPRESS)
		return "auto-reply: X-Auto-Response-Suppress";
	if (mail_is_noreply(m->from))
		return "auto-reply: no-reply sender";
	if (m->list_id != NULL)
		for (i = 0; i < cfg->nclub_lists && !club; i++)
			club = mail_list_matches(m->list_id, cfg->club_lists[i]);
	if (m->precedence != NULL && util_strncaseeq(m->precedence,
	    "auto_reply", 10))
		return "auto-reply: Precedence";
	if (!club && m->precedence != NULL) {
		size_t n = strcspn(m->precedence, " \t;");

		if ((n == 4 && (util_strncaseeq(m->precedence, "bulk", 4) ||
		    util_strncaseeq(m->precedence, "junk", 4) ||
		    util_strncaseeq(m->precedence, "list", 4))))
			return "bulk: Precedence";
	}
	if (!club && m->list_id != NULL)
		return "list: List-Id of a list we do not serve";
	/* The club's own talk (and the referee's postings coming back) is
	 * not for the referee: only mail that names it is read. */
	if (club && cfg->referee != NULL && !mail_to_referee(m, cfg->referee))
		return "list: club list mail not addressed to the referee";
	return NULL;
}

/* Bounces. */

/* The address after "rfc822;" in a DSN recipient field. */
static void
mail_dsn_addr(const char *v, size_t n, char *out, size_t outlen)
{
	const char *semi = memchr(v, ';', n), *e = v + n;
	size_t k;

	out[0] = '\0';
	if (semi != NULL)
		v = semi + 1;
	while (v < e && (*v == ' ' || *v == '\t' || *v == '<'))
		v++;
	for (k = 0; v + k < e && v[k] != '>' && v[k] != ' ' && v[k] != '\r' &&
	    v[k] != '\n' && v[k] != '\t'; k++)
		;
	if (k == 0 || k >= outlen || memchr(v, '@', k) == NULL)
		return;
	memcpy(out, v, k);
	out[k] = '\0';
	addr_lower(out);
}

static void
mail_bounce_add(struct strv *out, const char *a)
{
	char *u;

	if (*a == '\0')
		return;
	u = mailtext_utf8(a, strlen(a));
	if (!strv_has(out, u))
		strv_add(out, u);
	free(u);
}

/* Per-recipient blocks of a delivery-status part, found in the raw text:
 * each Final-Recipient starts a block that runs to the next blank line. */
static int
mail_dsn_scan(const char *raw, size_t len, struct strv *out)
{
	const char *p = raw, *end = raw + len;
	int found = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q;
		char fin[256] = "", orig[256] = "";
		int failed = 1;

		if (eol == NULL)
			eol = end;
		/* The returned message may itself be a bounce: its blocks
		 * are not this report's. */
		if (found && (size_t)(end - p) > 27 && util_strncaseeq(p,
		    "Content-Type: message/rfc822", 28))
			break;
		if (!util_strncaseeq(p, "Final-Recipient:", 16)) {
			p = eol + 1;
			continue;
		}
		/* Walk the block: this line and the following ones. */
		for (q = p; q < end;) {
			const char *qe = memchr(q, '\n', (size_t)(end - q));
			size_t n;

			if (qe == NULL)
				qe = end;
			n = (size_t)(qe - q);
			if (n > 0 && q[n - 1] == '\r')
				n--;
			if (n == 0)
				break;
			if (util_strncaseeq(q, "Final-Recipient:", 16) && q != p)
				break;
			if (util_strncaseeq(q, "Final-Recipient:", 16))
				mail_dsn_addr(q + 16, n - 16, fin, sizeof(fin));
			else if (util_strncaseeq(q, "Original-Recipient:", 19))
				mail_dsn_addr(q + 19, n - 19, orig,
				    sizeof(orig));
			else if (util_strncaseeq(q, "Action:", 7)) {
				const char *a = q + 7;

				while (*a == ' ' || *a == '\t')
					a++;
				failed = util_strncaseeq(a, "failed", 6);
			}
			q = qe + 1;
		}
		found = 1;
		if (failed)
			mail_bounce_add(out, orig[0] ? orig : fin);
		p = q;
	}
	return found;
}

/* Recipients named at the start of a line in prose bounces:
 * "<user@example.org>:" (qmail, Postfix; anything may follow),
 * "\"user@example.org\":" (GMX) and "user@example.org: 550 …" (OpenSMTPD;
 * a status code or nothing must follow the bare form). */
static void
mail_prose_scan(const char *body, struct strv *out)
{
	const char *p = body;

	while (p && *p) {
		const char *eol = strchr(p, '\n'), *q = p, *e;
		size_t n = eol ? (size_t)(eol - p) : strlen(p), k;
		char open = 0, a[256];

		if (*q == '<' || *q == '"')
			open = *q++;
		for (k = 0; q + k < p + n && !strchr(" \t<>\":", q[k]); k++)
			;
		e = q + k;
		if (open && e < p + n && *e == (open == '<' ? '>' : '"'))
			e++;
		else if (open)
			k = 0;
		if (open == '<' && k > 0 && k < sizeof(a) &&
		    memchr(q, '@', k) != NULL &&
		    (e == p + n || (*e == '\r' && e + 1 == p + n))) {
			/* "<user@example.org>" alone on its line (ezweb). */
			memcpy(a, q, k);
			a[k] = '\0';
			addr_lower(a);
			mail_bounce_add(out, a);
		} else if (k > 0 && k < sizeof(a) &&
		    memchr(q, '@', k) != NULL && e < p + n && *e == ':') {
			const char *after = e + 1;

			while (after < p + n && (*after == ' ' || *after == '\r'))
				after++;
			if (open == '<' || after == p + n ||
			    isdigit((unsigned char)*after)) {
				memcpy(a, q, k);
				a[k] = '\0';
				addr_lower(a);
				mail_bounce_add(out, a);
			}
		}
		p = eol ? eol + 1 : NULL;
	}
}

/* Prose bounces that name the recipients on the lines below a sentence:
 * Exchange 2003, Lotus Domino, Lotus Notes. */
static const char *const mail_prose_intros[] = {
	"did not reach the following recipient",
	"was not delivered to:",
	"------- Failure Reasons",
	"could not be delivered to the following recipient",
};

/* An address opening a line (after blanks): "user@example.org on Thu, …",
 * "  user@example.org".  Copied to a (size alen), canonical. */
static int
mail_line_address(const char *p, size_t n, char *a, size_t alen)
{
	size_t k;

	while (n > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	for (k = 0; k < n && !strchr(" \t\r<>\":;,()", p[k]); k++)
		;
	if (k == 0 || k >= alen || memchr(p, '@', k) == NULL || p[0] == '@' ||
	    p[k - 1] == '@')
		return 0;
	memcpy(a, p, k);
	a[k] = '\0';
	addr_lower(a);
	return 1;
}

static void
mail_intro_scan(const char *body, struct strv *out)
{
	const char *p = body;

	while (p && *p) {
		const char *eol = strchr(p, '\n'), *q;
		size_t n = eol ? (size_t)(eol - p) : strlen(p), i;
		int intro = 0, seen;
		char a[256];

		for (i = 0; i < nitems(mail_prose_intros) && !intro; i++) {
			size_t il = strlen(mail_prose_intros[i]);
			const char *x;

			for (x = p; x + il <= p + n && !intro; x++)
				intro = util_strncaseeq(x, mail_prose_intros[i],
				    il);
		}
		p = eol ? eol + 1 : NULL;
		if (!intro)
			continue;
		/* The next few non-blank lines, up to the next section. */
		for (q = p, seen = 0; q && *q && seen < 4;) {
			const char *qe = strchr(q, '\n');
			size_t qn = qe ? (size_t)(qe - q) : strlen(q);

			if (qn > 0 && strspn(q, " \t\r") < qn) {
				if (strncmp(q, "-----", 5) == 0)
					break;
				seen++;
				if (mail_line_address(q, qn, a, sizeof(a)))
					mail_bounce_add(out, a);
			}
			q = qe ? qe + 1 : NULL;
		}
	}
}

/* The To of the returned message (a message/rfc822 or text/rfc822-headers
 * part), for bounces that name the recipient nowhere else. */
static void
mail_returned_to(const char *raw, size_t len, struct strv *out)
{
	const char *p = raw, *end = raw + len;
	int inpart = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);

		if (n >= 13 && util_strncaseeq(p, "Content-Type:", 13)) {
			const char *x;

			for (x = p + 13; x < p + n && (*x == ' ' || *x == '\t');
			    x++)
				;
			if ((size_t)(p + n - x) >= 14 && (util_strncaseeq(x,
			    "message/rfc822", 14) || util_strncaseeq(x,
			    "text/rfc822-headers", 19)))
				inpart = 1;
		} else if (inpart && n > 3 && util_strncaseeq(p, "To:", 3)) {
			struct strv sv = { 0 };
			char *v = xstrndup(p + 3, n - 3);
			int i;

			mail_addresses(v, &sv, NULL);
			for (i = 0; i < sv.n; i++)
				mail_bounce_add(out, sv.v[i]);
			strv_free(&sv);
			free(v);
			return;
		}
		if (eol == NULL)
			break;
		p = eol + 1;
	}
}

int
mail_bounce_recipients(const struct mail_msg *m, struct strv *out)
{
	int before = out->n;

	if (m->raw != NULL && mail_dsn_scan(m->raw, m->rawlen, out))
		return out->n - before;
	if (m->x_failed_recipients != NULL) {
		struct strv sv = { 0 };
		int i;

		mail_addresses(m->x_failed_recipients, &sv, NULL);
		for (i = 0; i < sv.n; i++)
			mail_bounce_add(out, sv.v[i]);
		strv_free(&sv);
		if (out->n > before)
			return out->n - before;
	}
	if (m->body != NULL) {
		mail_prose_scan(m->body, out);
		if (out->n == before)
			mail_intro_scan(m->body, out);
	}
	if (out->n == before && m->raw != NULL)
		mail_returned_to(m->raw, m->rawlen, out);
	return out->n - before;
}

/* What `ludus parse` prints. */

static void
mail_describe_field(struct buf *b, const char *name, const char *v)
{
	buf_printf(b, "%-16s %s\n", name, v ? v : "(none)");
}

void
mail_describe(const struct mail_msg *m, const char *reason, struct buf *b)
{
	const char *src;
	int i;

	if (m->from_name != NULL && *m->from_name)
		buf_printf(b, "%-16s %s (%s)\n", "from:", m->from ? m->from :
		    "(none)", m->from_name);
	else
		mail_describe_field(b, "from:", m->from);
	mail_describe_field(b, "reply-to:", m->reply_to);
	mail_describe_field(b, "subject:", m->subject);
	mail_describe_field(b, "message-id:", m->message_id);
	if (m->in_reply_to != NULL)
		mail_describe_field(b, "in-reply-to:", m->in_reply_to);
	if (m->return_path != NULL)
		mail_describe_field(b, "return-path:", m->return_path);
	if (m->auto_submitted != NULL)
		mail_describe_field(b, "auto-submitted:", m->auto_submitted);
	if (m->precedence != NULL)
		mail_describe_field(b, "precedence:", m->precedence);
	if (m->list_id != NULL)
		mail_describe_field(b, "list-id:", m->list_id);
	for (i = 0; i < m->x_loop.n; i++)
		mail_describe_field(b, "x-loop:", m->x_loop.v[i]);
	mail_describe_field(b, "auth-results:", m->auth_results);
	if (m->auth_results != NULL) {
		mail_describe_field(b, "authserv-id:", m->auth_serv_id);
		if (m->dmarc != NULL) {
			const char *at = m->from ? strrchr(m->from, '@') : NULL;

			buf_printf(b, "%-16s %s%s%s%s\n", "dmarc:", m->dmarc,
			    m->dmarc_from ? " header.from=" : "",
			    m->dmarc_from ? m->dmarc_from : "",
			    m->dmarc_from && at && !util_strcaseeq(at + 1,
			    m->dmarc_from) ? " (not the From domain)" : "");
		}
		else
			mail_describe_field(b, "dmarc:", "(no result)");
	}
	if (m->tag_source == 0)
		mail_describe_field(b, "game tag:", NULL);
	else {
		src = m->tag_source == (MAIL_TAG_SUBJECT | MAIL_TAG_PLUS) ?
		    "subject and plus address" : m->tag_source ==
		    MAIL_TAG_PLUS ? "plus address" : "subject";
		buf_printf(b, "%-16s #%" PRId64 " token %s (from the %s)%s\n",
		    "game tag:", m->tag_game, m->tag_token[0] ? m->tag_token :
		    "(none)", src, m->tag_conflict ?
		    "; the subject names another game or token" : "");
	}
	buf_printf(b, "%-16s %s, read from %s\n", "body:",
	    m->content_type ? m->content_type : "(none)",
	    m->body_source == MAIL_BODY_PLAIN ? "the text/plain part" :
	    m->body_source == MAIL_BODY_HTML ? "the text/html part" :
	    "nothing (no text part)");
	if (m->from_subject)
		mail_describe_field(b, "commands from:", "the subject (the "
		    "body has none)");
	if (m->lines_truncated)
		mail_describe_field(b, "truncated:", "only the first lines of "
		    "the body were read");
	if (m->commands_truncated)
		mail_describe_field(b, "truncated:", "too many commands; the "
		    "rest were dropped");
	/* Every line and why it was read or not, so that "why was my move
	 * not read" has an answer. */
	for (i = 0; i < m->nlines; i++) {
		const struct mail_line *l = &m->lines[i];
		char name[24];

		snprintf(name, sizeof(name), "line %d:", i + 1);
		buf_printf(b, "%-16s %s", name, mailtext_why_name(l->why));
		if (l->possible)
			buf_adds(b, " (may start quoted text: nothing below "
			    "is read)");
		else if (l->below >= 0 && l->why != MAIL_LINE_SIGNOFF)
			buf_printf(b, " (below line %d)", l->below + 1);
		buf_printf(b, "%s%s\n", *l->text ? " | " : "", l->text);
	}
	if (m->unread.n > 0)
		buf_printf(b, "%-16s %d line%s below \"%s\": %s\n", "not read:",
		    m->unread.n, m->unread.n == 1 ? "" : "s", m->unread_below,
		    m->unread_why);
	if (reason != NULL)
		buf_printf(b, "%-16s drop (%s)\n", "guard:", reason);
	else
		mail_describe_field(b, "guard:", "answer");
	if (reason != NULL && strncmp(reason, "bounce:", 7) == 0) {
		struct strv r = { 0 };

		/* The addresses the bounce counts against. */
		if (mail_bounce_recipients(m, &r) == 0)
			mail_describe_field(b, "failed:", "(none found)");
		for (i = 0; i < r.n; i++)
			mail_describe_field(b, "failed:", r.v[i]);
		strv_free(&r);
	}
	buf_adds(b, "== commands ==\n");
	for (i = 0; i < m->commands.n; i++)
		buf_printf(b, "%s\n", m->commands.v[i]);
}

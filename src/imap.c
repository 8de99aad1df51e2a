/* imap: libetpan for the protocol, OpenSSL libcrypto for trusting it. */
#include "config.h"

#include <errno.h>
#include <libetpan/libetpan.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "imap.h"
#include "log.h"
#include "util.h"

/* Servers may drop a client idle for 30 minutes (RFC 3501 9; RFC 2177 asks
 * clients to re-issue IDLE at least every 29). */
#define IMAP_IDLE_MAX_MS	(28 * 60 * 1000)
#define IMAP_DEFAULT_FLAG	"$Ludus"

struct imap {
	const struct imap_settings *set;	/* foreign */
	mailimap	*s;			/* NULL when not connected */
	char		*host;			/* owned */
	uint16_t	 port;
	int		 implicit_tls;
	int		 have_processed;	/* folder known to exist */
	int		 broken;		/* the stream failed: no LOGOUT */
	int		 untrusted;		/* the certificate was refused */
	int		 tls;			/* IMAP_TLS_* of the session */
	uint32_t	 uidvalidity;
	struct imap_trace {			/* logging.level: debug */
		struct buf	 line[2];	/* a line so far, received
						 * and sent */
		size_t		 skip;		/* literal bytes still to
						 * come, not shown */
		size_t		 literal;	/* its size */
		int		 hidden;	/* sent lines hidden until
						 * the server's answer */
	} trace;
};

static const char *
imap_strerror(int r)
{
	switch (r) {
	case MAILIMAP_ERROR_STREAM:
		return "connection lost or timed out";
	case MAILIMAP_ERROR_PARSE:
		return "unparsable server response";
	case MAILIMAP_ERROR_CONNECTION_REFUSED:
		return "connection refused";
	case MAILIMAP_ERROR_LOGIN:
		return "login refused";
	case MAILIMAP_ERROR_SSL:
		return "TLS handshake failed";
	case MAILIMAP_ERROR_STARTTLS:
		return "STARTTLS failed";
	case MAILIMAP_ERROR_BAD_STATE:
		return "command not allowed in this state";
	case MAILIMAP_ERROR_MEMORY:
		return "out of memory";
	default:
		return "command failed";
	}
}

/* Fill err with what failed, the library's reason and the server's text. */
static int
imap_fail(struct imap *im, int r, const char *what, char *err, size_t errlen)
{
	const char *resp = im->s != NULL ? im->s->imap_response : NULL;

	/* After a stream or parse error the dialogue is out of step or the
	 * link is dead; a LOGOUT could only wait for the timeout. */
	if (r == MAILIMAP_ERROR_STREAM || r == MAILIMAP_ERROR_PARSE)
		im->broken = 1;

	if (resp != NULL && resp[0] != '\0')
		util_err(err, errlen, "imap %s: %s: %s (%s)", im->host, what,
		    imap_strerror(r), resp);
	else
		util_err(err, errlen, "imap %s: %s: %s", im->host, what,
		    imap_strerror(r));
	return -1;
}

/* imap[s]://host[:port][/]; IPv6 literals in brackets. */
static int
imap_parse_url(struct imap *im, char *err, size_t errlen)
{
	const char *url = im->set->url, *p, *hend, *end;
	long long port;

	if (url == NULL) {
		util_err(err, errlen, "imap: no server URL");
		return -1;
	}
	if (strncmp(url, "imaps://", 8) == 0) {
		im->implicit_tls = 1;
		p = url + 8;
		port = 993;
	} else if (strncmp(url, "imap://", 7) == 0) {
		im->implicit_tls = 0;
		p = url + 7;
		port = 143;
	} else {
		util_err(err, errlen, "imap: %s: scheme must be imap or imaps",
		    url);
		return -1;
	}
	end = p + strcspn(p, "/");
	if (*p == '[') {
		hend = memchr(p, ']', (size_t)(end - p));
		if (hend == NULL) {
			util_err(err, errlen, "imap: %s: unclosed [", url);
			return -1;
		}
		free(im->host);
		im->host = xstrndup(p + 1, (size_t)(hend - p - 1));
		hend++;
	} else {
		hend = p + strcspn(p, ":/");
		free(im->host);
		im->host = xstrndup(p, (size_t)(hend - p));
	}
	if (im->host[0] == '\0') {
		util_err(err, errlen, "imap: %s: no host", url);
		return -1;
	}
	if (*hend == ':') {
		char *ps = xstrndup(hend + 1, (size_t)(end - hend - 1));
		int bad = util_parse_int(ps, 1, 65535, &port);

		free(ps);
		if (bad == -1) {
			util_err(err, errlen, "imap: %s: bad port", url);
			return -1;
		}
	} else if (hend != end) {
		util_err(err, errlen, "imap: %s: bad host", url);
		return -1;
	}
	if (*end == '/' && end[1] != '\0') {
		util_err(err, errlen, "imap: %s: give the mailbox as a setting, "
		    "not in the URL", url);
		return -1;
	}
	im->port = (uint16_t)port;
	if (im->set->plain && !im->implicit_tls &&
	    strcmp(im->host, "localhost") != 0 &&
	    strncmp(im->host, "127.", 4) != 0 && strcmp(im->host, "::1") != 0) {
		util_err(err, errlen, "imap: plain IMAP is only allowed to a "
		    "loopback address, not %s", im->host);
		return -1;
	}
	return 0;
}

int
imap_verify_chain(const unsigned char *const *der, const size_t *derlen,
    size_t n, const char *host, const char *ca_file, char *err, size_t errlen)
{
	X509_STORE *store = NULL;
	X509_STORE_CTX *ctx = NULL;
	STACK_OF(X509) *rest = NULL;
	X509 *leaf = NULL;
	X509_VERIFY_PARAM *param;
	ASN1_OCTET_STRING *ip;
	size_t i;
	int rc = -1;

	if (n == 0) {
		util_err(err, errlen, "%s: the server sent no certificate", host);
		return -1;
	}
	rest = sk_X509_new_null();
	if (rest == NULL)
		fatal("sk_X509_new_null: out of memory");
	for (i = 0; i < n; i++) {
		const unsigned char *p = der[i];
		X509 *x = d2i_X509(NULL, &p, (long)derlen[i]);

		if (x == NULL) {
			util_err(err, errlen, "%s: unreadable certificate "
			    "in the chain", host);
			goto out;
		}
		if (i == 0)
			leaf = x;
		else if (!sk_X509_push(rest, x)) {
			X509_free(x);
			fatal("sk_X509_push: out of memory");
		}
	}
	store = X509_STORE_new();
	if (store == NULL)
		fatal("X509_STORE_new: out of memory");
	if (ca_file != NULL) {
		if (X509_STORE_load_locations(store, ca_file, NULL) != 1) {
			util_err(err, errlen, "%s: cannot load CA file", ca_file);
			goto out;
		}
	} else if (X509_STORE_set_default_paths(store) != 1) {
		util_err(err, errlen, "cannot load the system trust store");
		goto out;
	}
	ctx = X509_STORE_CTX_new();
	if (ctx == NULL || X509_STORE_CTX_init(ctx, store, leaf, rest) != 1)
		fatal("X509_STORE_CTX_init failed");
	param = X509_STORE_CTX_get0_param(ctx);
	X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
	X509_VERIFY_PARAM_set_hostflags(param,
	    X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
	/* An address is matched against IP SANs, a name against DNS SANs
	 * (and the CN when there are none). */
	ip = a2i_IPADDRESS(host);
	if (ip != NULL) {
		ASN1_OCTET_STRING_free(ip);
		if (X509_VERIFY_PARAM_set1_ip_asc(param, host) != 1)
			fatal("X509_VERIFY_PARAM_set1_ip_asc failed");
	} else if (X509_VERIFY_PARAM_set1_host(param, host, 0) != 1)
		fatal("X509_VERIFY_PARAM_set1_host failed");
	if (X509_verify_cert(ctx) != 1) {
		int e = X509_STORE_CTX_get_error(ctx);

		util_err(err, errlen, "%s: certificate not trusted: %s", host,
		    X509_verify_cert_error_string(e));
		goto out;
	}
	rc = 0;
out:
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	sk_X509_pop_free(rest, X509_free);
	X509_free(leaf);
	return rc;
}

/* Verify the certificates of the TLS stream just set up. */
static int
imap_verify_stream(struct imap *im, char *err, size_t errlen)
{
	carray *chain;
	const unsigned char **der;
	size_t *len, n, i;
	int rc;

	chain = mailstream_get_certificate_chain(im->s->imap_stream);
	if (chain == NULL) {
		util_err(err, errlen, "imap %s: no certificate chain from the "
		    "TLS layer", im->host);
		return -1;
	}
	n = carray_count(chain);
	der = xcalloc(n + 1, sizeof(*der));
	len = xcalloc(n + 1, sizeof(*len));
	for (i = 0; i < n; i++) {
		MMAPString *c = carray_get(chain, (unsigned int)i);

		der[i] = (const unsigned char *)c->str;
		len[i] = c->len;
	}
	rc = imap_verify_chain(der, len, n, im->host, im->set->ca_file, err,
	    errlen);
	free(der);
	free(len);
	mailstream_certificate_chain_free(chain);
	return rc;
}

/*
 * The conversation, a line at a time, at debug level.  Never in it: the
 * arguments of LOGIN and AUTHENTICATE and whatever the client sends until
 * the server answers them (a password given as a literal comes on lines
 * of its own), what libetpan marks private, and the messages fetched (a
 * literal's bytes are counted, not shown: mail carries seat tokens).
 */
#define IMAP_TRACE_MAX	300	/* bytes of a line shown */

static void
imap_trace_line(struct imap *im, int sent)
{
	struct imap_trace *t = &im->trace;
	struct buf *b = &t->line[sent];
	char *s = (char *)buf_str(b), *p, *end;
	size_t n = b->len;
	unsigned long long lit;

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	if (sent && t->hidden)
		log_debug("imap C: (hidden)");
	else if (sent) {
		/* "TAG LOGIN ..." or "TAG AUTHENTICATE ...": the tag and
		 * the command only. */
		p = strchr(s, ' ');
		if (p != NULL && (util_strncaseeq(p + 1, "LOGIN ", 6) ||
		    util_strncaseeq(p + 1, "AUTHENTICATE ", 13))) {
			*strchr(p + 1, ' ') = '\0';
			log_debug("imap C: %s (arguments hidden)", s);
			t->hidden = 1;
		} else
			log_debug("imap C: %.*s%s", IMAP_TRACE_MAX, s,
			    n > IMAP_TRACE_MAX ? "..." : "");
	} else {
		log_debug("imap S: %.*s%s", IMAP_TRACE_MAX, s,
		    n > IMAP_TRACE_MAX ? "..." : "");
		/* A continuation ("+ ...") asks for more of what was
		 * hidden; anything else answers it. */
		if (s[0] != '+')
			t->hidden = 0;
		/* A literal follows "{N}": its bytes are skipped. */
		if (n > 2 && s[n - 1] == '}' && (p = strrchr(s, '{')) != NULL) {
			lit = strtoull(p + 1, &end, 10);
			if (end != p + 1 && (*end == '}' || *end == '+')) {
				t->skip = t->literal = (size_t)lit;
			}
		}
	}
	buf_reset(b);
}

static void
imap_trace_cb(mailimap *s, int type, const char *str, size_t size,
    void *arg)
{
	struct imap *im = arg;
	struct imap_trace *t = &im->trace;
	int sent;
	size_t i, take;

	(void)s;
	if (type == MAILSTREAM_LOG_TYPE_DATA_SENT_PRIVATE) {
		log_debug("imap C: (private data hidden)");
		return;
	}
	if (type != MAILSTREAM_LOG_TYPE_DATA_RECEIVED &&
	    type != MAILSTREAM_LOG_TYPE_DATA_SENT)
		return;
	sent = type == MAILSTREAM_LOG_TYPE_DATA_SENT;
	for (i = 0; i < size; i++) {
		if (!sent && t->skip > 0) {
			take = size - i < t->skip ? size - i : t->skip;
			t->skip -= take;
			i += take - 1;
			if (t->skip == 0)
				log_debug("imap S: (%zu bytes of a message, "
				    "not shown)", t->literal);
			continue;
		}
		if (t->line[sent].len < IMAP_TRACE_MAX + 8)
			buf_add(&t->line[sent], str + i, 1);
		if (str[i] == '\n')
			imap_trace_line(im, sent);
	}
}

static void
imap_trace_reset(struct imap *im)
{
	buf_free(&im->trace.line[0]);
	buf_free(&im->trace.line[1]);
	memset(&im->trace, 0, sizeof(im->trace));
}

struct imap *
imap_new(const struct imap_settings *set)
{
	struct imap *im = xcalloc(1, sizeof(*im));

	im->set = set;
	return im;
}

void
imap_free(struct imap *im)
{
	if (im == NULL)
		return;
	imap_close(im);
	imap_trace_reset(im);
	free(im->host);
	free(im);
}

int
imap_untrusted(const struct imap *im)
{
	return im->untrusted;
}

int
imap_tls(const struct imap *im)
{
	return im->tls;
}

int
imap_connected(const struct imap *im)
{
	return im->s != NULL;
}

uint32_t
imap_uidvalidity(const struct imap *im)
{
	return im->uidvalidity;
}

int
imap_has_idle(const struct imap *im)
{
	return im->s != NULL && mailimap_has_idle(im->s);
}

void
imap_close(struct imap *im)
{
	if (im->s == NULL)
		return;
	if (im->s->imap_stream != NULL && !im->broken)
		(void)mailimap_logout(im->s);
	mailimap_free(im->s);
	im->s = NULL;
	im->uidvalidity = 0;
	im->have_processed = 0;
	im->broken = 0;
}

static const char *
imap_mailbox(const struct imap *im)
{
	return im->set->mailbox != NULL ? im->set->mailbox : "INBOX";
}

/*
 * libetpan sets sel_has_exists whenever an untagged EXISTS comes, in the
 * answer to any command.  Dovecot announces new mail at the end of
 * whichever command runs when it arrives (a FETCH, a MOVE, the SEARCH
 * itself after its result) and never again, so an IDLE begun after such an
 * announcement would wait for the next message.  The flag, cleared when a
 * search begins, tells imap_idle there is news already.
 */
static void
imap_news_seen(struct imap *im)
{
	if (im->s != NULL && im->s->imap_selection_info != NULL)
		im->s->imap_selection_info->sel_has_exists = 0;
}

static int
imap_news_pending(const struct imap *im)
{
	return im->s != NULL && im->s->imap_selection_info != NULL &&
	    im->s->imap_selection_info->sel_has_exists;
}

int
imap_connect(struct imap *im, char *err, size_t errlen)
{
	struct mailimap_capability_data *cap = NULL;
	carray *chain;
	int r;

	imap_close(im);
	im->untrusted = 0;
	if (imap_parse_url(im, err, errlen) == -1)
		return -1;
	/* libetpan writes to its socket without MSG_NOSIGNAL: a server that
	 * went away would kill us with SIGPIPE instead of returning EPIPE. */
	signal(SIGPIPE, SIG_IGN);
	im->s = mailimap_new(0, NULL);
	if (im->s == NULL)
		fatal("mailimap_new: out of memory");
	im->broken = 0;
	im->tls = IMAP_TLS_NONE;
	imap_trace_reset(im);
	if (log_enabled(LOG_LEVEL_DEBUG))
		mailimap_set_logger(im->s, imap_trace_cb, im);
	mailimap_set_timeout(im->s, im->set->timeout > 0 ?
	    im->set->timeout : 60);
	if (im->implicit_tls)
		r = mailimap_ssl_connect(im->s, im->host, im->port);
	else
		r = mailimap_socket_connect(im->s, im->host, im->port);
	if (r != MAILIMAP_NO_ERROR && r != MAILIMAP_NO_ERROR_AUTHENTICATED &&
	    r != MAILIMAP_NO_ERROR_NON_AUTHENTICATED) {
		imap_fail(im, r, "connect", err, errlen);
		goto fail;
	}
	if (!im->implicit_tls && !im->set->plain) {
		r = mailimap_socket_starttls(im->s);
		if (r != MAILIMAP_NO_ERROR) {
			imap_fail(im, r, "STARTTLS", err, errlen);
			goto fail;
		}
	}
	if ((im->implicit_tls || !im->set->plain) && !im->set->no_verify &&
	    imap_verify_stream(im, err, errlen) == -1) {
		im->untrusted = 1;
		goto fail;
	}
	/* What the session is, as it runs (for ludusd -n -v): TLS when
	 * the stream has a peer's certificate chain (a plain socket has
	 * none), verified when that chain was checked above. */
	if ((chain = mailstream_get_certificate_chain(im->s->imap_stream)) !=
	    NULL) {
		mailstream_certificate_chain_free(chain);
		im->tls = im->set->no_verify ? IMAP_TLS_UNVERIFIED :
		    IMAP_TLS_VERIFIED;
	}
	r = mailimap_login(im->s, im->set->user != NULL ? im->set->user : "",
	    im->set->password != NULL ? im->set->password : "");
	if (r != MAILIMAP_NO_ERROR) {
		imap_fail(im, r, "LOGIN", err, errlen);
		goto fail;
	}
	/* Capabilities change after login (IDLE, MOVE, UIDPLUS). */
	r = mailimap_capability(im->s, &cap);
	if (r != MAILIMAP_NO_ERROR) {
		imap_fail(im, r, "CAPABILITY", err, errlen);
		goto fail;
	}
	mailimap_capability_data_free(cap);
	r = mailimap_select(im->s, imap_mailbox(im));
	if (r != MAILIMAP_NO_ERROR) {
		imap_fail(im, r, "SELECT", err, errlen);
		goto fail;
	}
	im->uidvalidity = im->s->imap_selection_info != NULL ?
	    im->s->imap_selection_info->sel_uidvalidity : 0;
	imap_news_seen(im);
	return 0;
fail:
	/* A half-open session: don't try LOGOUT on it. */
	mailimap_free(im->s);
	im->s = NULL;
	return -1;
}

static int
imap_need(struct imap *im, char *err, size_t errlen)
{
	if (im->s != NULL)
		return 0;
	util_err(err, errlen, "imap: not connected");
	return -1;
}

static int
imap_uid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int
imap_search(struct imap *im, uint32_t **uids, size_t *n, char *err,
    size_t errlen)
{
	struct mailimap_search_key *key;
	clist *res = NULL;
	clistiter *it;
	size_t i = 0;
	int r;

	*uids = NULL;
	*n = 0;
	if (imap_need(im, err, errlen) == -1)
		return -1;
	key = mailimap_search_key_new_multiple_empty();
	mailimap_search_key_multiple_add(key, mailimap_search_key_new(
	    MAILIMAP_SEARCH_KEY_UNDELETED, NULL, NULL, NULL, NULL, NULL, NULL,
	    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL,
	    NULL, NULL, NULL, 0, NULL, NULL, NULL));
	if (im->set->processed == NULL)
		mailimap_search_key_multiple_add(key,
		    mailimap_search_key_new_unkeyword(xstrdup(
		    im->set->flag != NULL ? im->set->flag : IMAP_DEFAULT_FLAG)));
	imap_news_seen(im);
	r = mailimap_uid_search(im->s, NULL, key, &res);
	mailimap_search_key_free(key);
	if (r != MAILIMAP_NO_ERROR)
		return imap_fail(im, r, "UID SEARCH", err, errlen);
	if (clist_count(res) > 0) {
		*uids = xcalloc((size_t)clist_count(res), sizeof(**uids));
		for (it = clist_begin(res); it != NULL; it = clist_next(it))
			(*uids)[i++] = *(uint32_t *)clist_content(it);
		qsort(*uids, i, sizeof(**uids), imap_uid_cmp);
	}
	*n = i;
	mailimap_search_result_free(res);
	return 0;
}

/* A UID set of uids (ascending runs become ranges). */
static struct mailimap_set *
imap_uid_set(const uint32_t *uids, size_t n)
{
	struct mailimap_set *set = mailimap_set_new_empty();
	size_t i, j;

	if (set == NULL)
		fatal("mailimap_set_new_empty: out of memory");
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && uids[j] == uids[j - 1] + 1; j++)
			;
		if (mailimap_set_add_interval(set, uids[i], uids[j - 1]) !=
		    MAILIMAP_NO_ERROR)
			fatal("mailimap_set_add_interval: out of memory");
	}
	return set;
}

void
imap_msgs_free(struct imap_msg *m, size_t n)
{
	size_t i;

	for (i = 0; m != NULL && i < n; i++)
		free(m[i].data);
	free(m);
}

int
imap_fetch_many(struct imap *im, const uint32_t *uids, size_t n,
    struct imap_msg **out, char *err, size_t errlen)
{
	struct mailimap_fetch_type *ft;
	struct mailimap_set *set;
	struct imap_msg *m;
	clist *res = NULL;
	clistiter *it, *jt;
	size_t k;
	int r;

	*out = NULL;
	if (imap_need(im, err, errlen) == -1)
		return -1;
	if (n == 0 || n > IMAP_FETCH_MAX) {
		util_err(err, errlen, "imap: %zu messages in one fetch", n);
		return -1;
	}
	ft = mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_body_peek_section(mailimap_section_new(NULL)));
	set = imap_uid_set(uids, n);
	r = mailimap_uid_fetch(im->s, set, ft, &res);
	mailimap_set_free(set);
	mailimap_fetch_type_free(ft);
	if (r != MAILIMAP_NO_ERROR)
		return imap_fail(im, r, "UID FETCH", err, errlen);
	m = xcalloc(n, sizeof(*m));
	for (k = 0; k < n; k++)
		m[k].uid = uids[k];
	/* Untagged FETCHes for other messages may ride along: match by UID. */
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		struct mailimap_msg_att *ma = clist_content(it);
		const char *body = NULL;
		size_t blen = 0;
		uint32_t got = 0;

		for (jt = clist_begin(ma->att_list); jt != NULL;
		    jt = clist_next(jt)) {
			struct mailimap_msg_att_item *item = clist_content(jt);
			struct mailimap_msg_att_static *st;

			if (item->att_type != MAILIMAP_MSG_ATT_ITEM_STATIC)
				continue;
			st = item->att_data.att_static;
			if (st->att_type == MAILIMAP_MSG_ATT_UID)
				got = st->att_data.att_uid;
			else if (st->att_type == MAILIMAP_MSG_ATT_BODY_SECTION &&
			    st->att_data.att_body_section->sec_body_part !=
			    NULL) {
				body = st->att_data.att_body_section->
				    sec_body_part;
				blen = st->att_data.att_body_section->
				    sec_length;
			}
		}
		for (k = 0; body != NULL && k < n; k++)
			if (m[k].uid == got && m[k].data == NULL) {
				m[k].data = xmalloc(blen + 1);
				memcpy(m[k].data, body, blen);
				m[k].data[blen] = '\0';
				m[k].len = blen;
				break;
			}
	}
	mailimap_fetch_list_free(res);
	*out = m;
	return 0;
}

int
imap_fetch(struct imap *im, uint32_t uid, char **data, size_t *len,
    char *err, size_t errlen)
{
	struct imap_msg *m;

	*data = NULL;
	*len = 0;
	if (imap_fetch_many(im, &uid, 1, &m, err, errlen) == -1)
		return -1;
	*data = m[0].data;
	*len = m[0].len;
	free(m);
	if (*data == NULL) {
		util_err(err, errlen, "imap %s: UID %u: no such message",
		    im->host, (unsigned)uid);
		return -1;
	}
	return 0;
}

/* Make sure the processed folder exists (once per connection). */
static int
imap_ensure_processed(struct imap *im, char *err, size_t errlen)
{
	clist *list = NULL;
	int r, found;

	if (im->have_processed)
		return 0;
	r = mailimap_list(im->s, "", im->set->processed, &list);
	if (r != MAILIMAP_NO_ERROR)
		return imap_fail(im, r, "LIST", err, errlen);
	found = clist_count(list) > 0;
	mailimap_list_result_free(list);
	if (!found) {
		r = mailimap_create(im->s, im->set->processed);
		if (r != MAILIMAP_NO_ERROR)
			return imap_fail(im, r, "CREATE", err, errlen);
	}
	im->have_processed = 1;
	return 0;
}

static int
imap_store_flag(struct imap *im, struct mailimap_set *set,
    struct mailimap_flag *flag, char *err, size_t errlen)
{
	struct mailimap_flag_list *fl = mailimap_flag_list_new_empty();
	struct mailimap_store_att_flags *sf;
	int r;

	mailimap_flag_list_add(fl, flag);
	sf = mailimap_store_att_flags_new_add_flags_silent(fl);
	r = mailimap_uid_store(im->s, set, sf);
	mailimap_store_att_flags_free(sf);
	if (r != MAILIMAP_NO_ERROR)
		return imap_fail(im, r, "UID STORE", err, errlen);
	return 0;
}

int
imap_done_many(struct imap *im, const uint32_t *uids, size_t n,
    char *err, size_t errlen)
{
	struct mailimap_set *set;
	int r, rc = -1;

	if (imap_need(im, err, errlen) == -1)
		return -1;
	if (n == 0)
		return 0;
	set = imap_uid_set(uids, n);
	if (im->set->processed == NULL) {
		rc = imap_store_flag(im, set, mailimap_flag_new_flag_keyword(
		    xstrdup(im->set->flag != NULL ? im->set->flag :
		    IMAP_DEFAULT_FLAG)), err, errlen);
		goto out;
	}
	if (imap_ensure_processed(im, err, errlen) == -1)
		goto out;
	if (mailimap_has_extension(im->s, "MOVE")) {
		r = mailimap_uid_move(im->s, set, im->set->processed);
		if (r != MAILIMAP_NO_ERROR) {
			imap_fail(im, r, "UID MOVE", err, errlen);
			goto out;
		}
		rc = 0;
		goto out;
	}
	r = mailimap_uid_copy(im->s, set, im->set->processed);
	if (r != MAILIMAP_NO_ERROR) {
		imap_fail(im, r, "UID COPY", err, errlen);
		goto out;
	}
	if (imap_store_flag(im, set, mailimap_flag_new_deleted(), err,
	    errlen) == -1)
		goto out;
	/* Plain EXPUNGE would also remove messages someone else marked
	 * \Deleted; UID EXPUNGE only ours. */
	if (mailimap_has_uidplus(im->s))
		r = mailimap_uid_expunge(im->s, set);
	else
		r = mailimap_expunge(im->s);
	if (r != MAILIMAP_NO_ERROR) {
		imap_fail(im, r, "EXPUNGE", err, errlen);
		goto out;
	}
	rc = 0;
out:
	mailimap_set_free(set);
	return rc;
}

int
imap_done(struct imap *im, uint32_t uid, char *err, size_t errlen)
{
	return imap_done_many(im, &uid, 1, err, errlen);
}

int
imap_idle(struct imap *im, int timeout_ms, int wakefd, char *err,
    size_t errlen)
{
	struct pollfd pfd[2];
	int r, news = 0, npfd = 1;

	if (imap_need(im, err, errlen) == -1)
		return -1;
	if (!mailimap_has_idle(im->s)) {
		util_err(err, errlen, "imap %s: the server has no IDLE",
		    im->host);
		return -1;
	}
	if (imap_news_pending(im))
		return 1;
	if (timeout_ms < 0 || timeout_ms > IMAP_IDLE_MAX_MS)
		timeout_ms = IMAP_IDLE_MAX_MS;
	r = mailimap_idle(im->s);
	if (r != MAILIMAP_NO_ERROR)
		return imap_fail(im, r, "IDLE", err, errlen);
	/* libetpan may already hold the server's next line in its buffer
	 * (read together with the "+ idling"); poll would not see it. */
	if (im->s->imap_stream->read_buffer_len > 0)
		news = 1;
	else {
		pfd[0].fd = mailimap_idle_get_fd(im->s);
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		if (wakefd >= 0) {
			pfd[1].fd = wakefd;
			pfd[1].events = POLLIN;
			pfd[1].revents = 0;
			npfd = 2;
		}
		r = poll(pfd, (nfds_t)npfd, timeout_ms);
		if (r == -1 && errno != EINTR) {
			util_err(err, errlen, "imap %s: poll: %s", im->host,
			    strerror(errno));
			im->broken = 1;
			return -1;
		}
		if (r > 0 && pfd[0].revents != 0)
			news = 1;
	}
	r = mailimap_idle_done(im->s);
	if (r != MAILIMAP_NO_ERROR)
		return imap_fail(im, r, "IDLE DONE", err, errlen);
	return news;
}

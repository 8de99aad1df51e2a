/* smtp: libcurl for SMTP, fork/exec for sendmail. */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

/* libcurl is loaded when mail is first sent (dlopen), so the programs
 * that never send (ludus deliver, as an MTA runs it once per mail) do not
 * pay for loading it and what it pulls in (Kerberos, LDAP, SSH...). */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "smtp.h"
#include "util.h"

#ifndef LUDUS_CURL_SO
#define LUDUS_CURL_SO	"libcurl.so.4"
#endif

static struct {
	int	 loaded;
	CURL	*(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void	 (*easy_cleanup)(CURL *);
	void	 (*easy_reset)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	void	 (*free)(void *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void	 (*slist_free_all)(struct curl_slist *);
	CURLU	*(*url)(void);
	void	 (*url_cleanup)(CURLU *);
	CURLUcode (*url_get)(const CURLU *, CURLUPart, char **, unsigned int);
	CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
} cu;
#define curl_easy_init		cu.easy_init
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_easy_setopt	cu.easy_setopt
#define curl_easy_perform	cu.easy_perform
#define curl_easy_getinfo	cu.easy_getinfo
#define curl_easy_cleanup	cu.easy_cleanup
#define curl_easy_reset		cu.easy_reset
#define curl_easy_strerror	cu.easy_strerror
#define curl_free		cu.free
#define curl_slist_append	cu.slist_append
#define curl_slist_free_all	cu.slist_free_all
#define curl_url		cu.url
#define curl_url_cleanup	cu.url_cleanup
#define curl_url_get		cu.url_get
#define curl_url_set		cu.url_set

/* Load libcurl once; -1 with err when it cannot be had. */
static int
smtp_curl_load(char *err, size_t errlen)
{
	static const char *const names[] = { "easy_init", "easy_setopt",
	    "easy_perform", "easy_getinfo", "easy_cleanup", "easy_reset",
	    "easy_strerror", "free", "slist_append", "slist_free_all", "url",
	    "url_cleanup", "url_get", "url_set" };
	void **slot[] = { (void **)&cu.easy_init, (void **)&cu.easy_setopt,
	    (void **)&cu.easy_perform, (void **)&cu.easy_getinfo,
	    (void **)&cu.easy_cleanup, (void **)&cu.easy_reset,
	    (void **)&cu.easy_strerror, (void **)&cu.free,
	    (void **)&cu.slist_append, (void **)&cu.slist_free_all,
	    (void **)&cu.url, (void **)&cu.url_cleanup, (void **)&cu.url_get,
	    (void **)&cu.url_set };
	char sym[64];
	void *h;
	size_t i;

	if (cu.loaded)
		return 0;
	if ((h = dlopen(LUDUS_CURL_SO, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		util_err(err, errlen, "smtp: cannot load %s: %s",
		    LUDUS_CURL_SO, dlerror());
		return -1;
	}
	for (i = 0; i < nitems(names); i++) {
		snprintf(sym, sizeof(sym), "curl_%s", names[i]);
		if ((*slot[i] = dlsym(h, sym)) == NULL) {
			util_err(err, errlen, "smtp: %s has no %s",
			    LUDUS_CURL_SO, sym);
			dlclose(h);
			return -1;
		}
	}
	cu.loaded = 1;
	return 0;
}

/* Where in the dialogue the last command was: a failure while the server
 * judges a message (MAIL, RCPT, DATA) belongs to that message; one during
 * connect, STARTTLS or AUTH belongs to the connection and so to the whole
 * rest of the batch. */
enum smtp_phase {
	SMTP_PHASE_CONN,
	SMTP_PHASE_MSG,
};

struct smtp_xfer {
	struct buf	 body;		/* the message with CRLF line ends */
	size_t		 off;
	enum smtp_phase	 phase;
	char		 last[SMTP_REPLYLEN];	/* last line the server sent */
	/* The first 4xx/5xx line and the phase it came in: libcurl goes on
	 * to QUIT, whose "221 Bye" must not hide the reason. */
	enum smtp_phase	 fail_phase;
	char		 fail[SMTP_REPLYLEN];
	int		 hidden;	/* AUTH's lines, until its answer */
	int		 tls;		/* a command went out over TLS */
};

static size_t
smtp_read_cb(char *out, size_t size, size_t nmemb, void *arg)
{
	struct smtp_xfer *x = arg;
	size_t n = size * nmemb, left = x->body.len - x->off;

	if (n > left)
		n = left;
	memcpy(out, x->body.s + x->off, n);
	x->off += n;
	return n;
}

/*
 * The conversation at debug level, a command or a reply a line.  AUTH
 * shows its mechanism only, and what the client sends after it (the
 * answers to the server's 334 challenges) is hidden until the server's
 * verdict; the message itself (DATA's bytes) is never shown.
 */
static void
smtp_trace(struct smtp_xfer *x, int sent, const char *data, size_t len)
{
	const char *sp;

	if (!log_enabled(LOG_LEVEL_DEBUG))
		return;
	while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r'))
		len--;
	if (len > 300)
		len = 300;
	if (!sent) {
		if (len < 3 || strncmp(data, "334", 3) != 0)
			x->hidden = 0;
		log_debug("smtp S: %.*s", (int)len, data);
	} else if (x->hidden)
		log_debug("smtp C: (hidden)");
	else if (len >= 5 && util_strncaseeq(data, "AUTH ", 5)) {
		sp = memchr(data + 5, ' ', len - 5);
		log_debug("smtp C: %.*s (arguments hidden)",
		    (int)(sp ? sp - data : (ptrdiff_t)len), data);
		x->hidden = 1;
	} else
		log_debug("smtp C: %.*s", (int)len, data);
}

static int
smtp_debug_cb(CURL *c, curl_infotype type, char *data, size_t len, void *arg)
{
	struct smtp_xfer *x = arg;
	struct curl_tlssessioninfo *ti = NULL;

	/* While a command goes out the connection is the transfer's: its
	 * TLS session, if any, is there to see (libcurl drops it from the
	 * handle once the transfer ends).  After STARTTLS every command
	 * goes through TLS; smtps has no command before it. */
	if (type == CURLINFO_HEADER_OUT && !x->tls &&
	    curl_easy_getinfo(c, CURLINFO_TLS_SSL_PTR, &ti) == CURLE_OK &&
	    ti != NULL && ti->backend != CURLSSLBACKEND_NONE &&
	    ti->internals != NULL)
		x->tls = 1;
	if (type == CURLINFO_HEADER_IN || type == CURLINFO_HEADER_OUT)
		smtp_trace(x, type == CURLINFO_HEADER_OUT, data, len);
	if (type == CURLINFO_HEADER_IN) {
		while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == '\r'))
			len--;
		if (len >= sizeof(x->last))
			len = sizeof(x->last) - 1;
		memcpy(x->last, data, len);
		x->last[len] = '\0';
		if (x->fail[0] == '\0' && (data[0] == '4' || data[0] == '5')) {
			memcpy(x->fail, x->last, len + 1);
			x->fail_phase = x->phase;
		}
	} else if (type == CURLINFO_HEADER_OUT) {
		if (len >= 4 && util_strncaseeq(data, "QUIT", 4))
			return 0;
		if (len >= 4 && (util_strncaseeq(data, "MAIL", 4) ||
		    util_strncaseeq(data, "RCPT", 4) ||
		    util_strncaseeq(data, "DATA", 4) ||
		    util_strncaseeq(data, "BDAT", 4)))
			x->phase = SMTP_PHASE_MSG;
		else
			x->phase = SMTP_PHASE_CONN;
	}
	return 0;
}

/* Bare LF becomes CRLF; the message then ends with CRLF.  libcurl does the
 * dot-stuffing itself. */
static void
smtp_crlf(struct buf *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r'))
			buf_addc(out, '\r');
		buf_addc(out, s[i]);
	}
	if (out->len < 2 || out->s[out->len - 1] != '\n')
		buf_adds(out, "\r\n");
}

static int
smtp_loopback(const char *host)
{
	return strcmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 ||
	    strcmp(host, "[::1]") == 0 || strcmp(host, "::1") == 0;
}

/* Check the URL's scheme and host; *tls tells whether TLS is implicit. */
static int
smtp_check_url(const struct smtp_settings *set, int *implicit, char *err,
    size_t errlen)
{
	CURLU *u;
	char *scheme = NULL, *host = NULL;
	int rc = -1;

	if (set->url == NULL) {
		util_err(err, errlen, "smtp: no server URL");
		return -1;
	}
	if (smtp_curl_load(err, errlen) == -1)
		return -1;
	u = curl_url();
	if (u == NULL)
		fatal("curl_url: out of memory");
	if (curl_url_set(u, CURLUPART_URL, set->url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		util_err(err, errlen, "smtp: bad URL %s", set->url);
		goto out;
	}
	if (strcmp(scheme, "smtps") == 0)
		*implicit = 1;
	else if (strcmp(scheme, "smtp") == 0)
		*implicit = 0;
	else {
		util_err(err, errlen, "smtp: %s: scheme must be smtp or smtps",
		    set->url);
		goto out;
	}
	if (set->plain && !*implicit && !smtp_loopback(host)) {
		util_err(err, errlen, "smtp: plain SMTP is only allowed to a "
		    "loopback address, not %s", host);
		goto out;
	}
	rc = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return rc;
}

/* Judge one finished transfer; 1 when the connection is unusable and the
 * rest of the batch should not be tried. */
static int
smtp_judge(CURL *c, CURLcode rc, const struct smtp_xfer *x,
    const char *errbuf, struct smtp_msg *m)
{
	long code = 0;

	m->untrusted = 0;
	if (rc == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		m->code = (int)code;
		m->status = SMTP_SENT;
		util_strlcpy(m->reply, x->last, sizeof(m->reply));
		return 0;
	}
	if (x->fail[0] != '\0')
		code = strtol(x->fail, NULL, 10);
	m->code = (int)code;
	if (x->fail[0] != '\0' && x->fail_phase == SMTP_PHASE_MSG) {
		m->status = code >= 500 ? SMTP_PERMFAIL : SMTP_TEMPFAIL;
		util_strlcpy(m->reply, x->fail, sizeof(m->reply));
		/* 421: the server is closing the connection. */
		return code == 421;
	}
	m->status = SMTP_TEMPFAIL;
	m->untrusted = rc == CURLE_PEER_FAILED_VERIFICATION ||
	    rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_SSL_ISSUER_ERROR ||
	    rc == CURLE_SSL_PINNEDPUBKEYNOTMATCH;
	if (x->fail[0] != '\0')
		util_err(m->reply, sizeof(m->reply), "%s: %s",
		    errbuf[0] ? errbuf : curl_easy_strerror(rc), x->fail);
	else
		util_strlcpy(m->reply, errbuf[0] ? errbuf :
		    curl_easy_strerror(rc), sizeof(m->reply));
	/* No verdict on the message itself: the connection, the TLS layer
	 * or the login failed, and would again for the next message. */
	return 1;
}

/* Messages of a batch that were not tried: temporary, with the cause. */
static void
smtp_not_tried(struct smtp_msg *m, size_t n, const char *cause)
{
	size_t i;

	for (i = 0; i < n; i++) {
		m[i].status = SMTP_TEMPFAIL;
		m[i].code = 0;
		util_err(m[i].reply, sizeof(m[i].reply), "not tried: %s",
		    cause);
	}
}

/* The connection's settings: server, TLS and its checks, AUTH, timeouts,
 * and the dialogue into x. */
static void
smtp_setup(CURL *c, const struct smtp_settings *set, int implicit,
    struct smtp_xfer *x, char *errbuf)
{
	curl_easy_setopt(c, CURLOPT_URL, set->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(c, CURLOPT_USE_SSL,
	    set->plain && !implicit ? (long)CURLUSESSL_NONE :
	    (long)CURLUSESSL_ALL);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, set->no_verify ? 0L : 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, set->no_verify ? 0L : 2L);
	if (set->ca_file != NULL) {
		curl_easy_setopt(c, CURLOPT_CAINFO, set->ca_file);
		/* That file alone: the system's directory of certificates
		 * would be read (and kept in memory) as well. */
		curl_easy_setopt(c, CURLOPT_CAPATH, NULL);
	}
	if (set->user != NULL) {
		curl_easy_setopt(c, CURLOPT_USERNAME, set->user);
		curl_easy_setopt(c, CURLOPT_PASSWORD,
		    set->password != NULL ? set->password : "");
	}
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT,
	    set->connect_timeout > 0 ? set->connect_timeout : 30L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT,
	    set->timeout > 0 ? set->timeout : 120L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_DEBUGFUNCTION, smtp_debug_cb);
	curl_easy_setopt(c, CURLOPT_DEBUGDATA, x);
	curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
}

/*
 * A batch goes out over up to SMTP_LANES connections at once, each driven
 * by a thread of its own with its own handle (libcurl does not pipeline
 * SMTP, and its multi interface waits, blocking, for the answer to a
 * message's end: each message costs round trips and the server's sync of
 * its queue file, and a second connection keeps mail moving meanwhile).
 * The threads only talk to the server: the caller's done callback runs in
 * the calling thread.  A message starts only when no earlier message of
 * the batch that shares a recipient is still waiting for its answer, so
 * each recipient's mail is handed over in the order it was queued.  Each
 * handle keeps its connection (TLS set up, logged in) for the next batch
 * while the server keeps it open.
 */
#define SMTP_LANES	2

struct smtp_lane {
	CURL		*c;
	struct smtp_xfer x;
	char		 errbuf[CURL_ERROR_SIZE];
	pthread_t	 thread;
	struct smtp_run	*run;
};

/* What became of each message of a batch so far. */
enum smtp_state {
	SMTP_WAITING = 0,
	SMTP_ON_ITS_WAY,
	SMTP_ANSWERED,		/* its status is known, not yet passed on */
	SMTP_PASSED,		/* passed to the done callback */
};

/* One batch: everything below mu is shared by the lanes and the caller. */
struct smtp_run {
	const struct smtp_settings *set;
	struct smtp_msg	*msgs;
	size_t		 n;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;		/* a state changed */
	unsigned char	*state;
	int		 lanes;		/* lanes still at work */
	int		 stop;		/* start nothing more */
	int		 halted;	/* the caller said stop */
	int		 broken;	/* a connection failed: cause says why */
	char		 cause[SMTP_REPLYLEN];
};

static struct smtp_lane lanes[SMTP_LANES];

void
smtp_release(void)
{
	size_t k;

	for (k = 0; k < SMTP_LANES; k++) {
		/* Closes its connection (QUIT). */
		if (lanes[k].c != NULL)
			curl_easy_cleanup(lanes[k].c);
		buf_free(&lanes[k].x.body);
		memset(&lanes[k], 0, sizeof(lanes[k]));
	}
}

static int
smtp_share_rcpt(const struct smtp_msg *a, const struct smtp_msg *b)
{
	size_t i, j;

	for (i = 0; i < a->nrcpt; i++)
		for (j = 0; j < b->nrcpt; j++)
			if (util_strcaseeq(a->rcpt[i], b->rcpt[j]))
				return 1;
	return 0;
}

/* The first waiting message that no earlier one still without its
 * answer shares a recipient with: n when none may start now, and
 * *waiting tells whether any waits at all.  Under mu. */
static size_t
smtp_next(const struct smtp_run *r, int *waiting)
{
	size_t i, j;

	*waiting = 0;
	for (i = 0; i < r->n; i++) {
		if (r->state[i] != SMTP_WAITING)
			continue;
		*waiting = 1;
		for (j = 0; j < i; j++)
			if (r->state[j] < SMTP_ANSWERED &&
			    smtp_share_rcpt(&r->msgs[i], &r->msgs[j]))
				break;
		if (j == i)
			return i;
	}
	return r->n;
}

/* Send one message over lane l's connection; 1 when the connection is
 * unusable (smtp_judge). */
static int
smtp_lane_send(struct smtp_lane *l, struct smtp_msg *m)
{
	struct curl_slist *rcpt = NULL;
	char *from;
	CURLcode rc;
	size_t j;
	int broken;

	if (m->nrcpt == 0) {
		m->status = SMTP_PERMFAIL;
		m->code = 0;
		util_strlcpy(m->reply, "no recipients", sizeof(m->reply));
		return 0;
	}
	for (j = 0; j < m->nrcpt; j++) {
		char *r = xasprintf("<%s>", m->rcpt[j]);

		rcpt = curl_slist_append(rcpt, r);
		free(r);
		if (rcpt == NULL)
			fatal("curl_slist_append: out of memory");
	}
	from = xasprintf("<%s>", m->from != NULL ? m->from : "");
	buf_reset(&l->x.body);
	smtp_crlf(&l->x.body, m->data, m->len);
	l->x.off = 0;
	l->x.phase = SMTP_PHASE_CONN;
	l->x.last[0] = '\0';
	l->x.fail[0] = '\0';
	l->errbuf[0] = '\0';
	curl_easy_setopt(l->c, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(l->c, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(l->c, CURLOPT_INFILESIZE_LARGE,
	    (curl_off_t)l->x.body.len);
	rc = curl_easy_perform(l->c);
	broken = smtp_judge(l->c, rc, &l->x, l->errbuf, m);
	curl_easy_setopt(l->c, CURLOPT_MAIL_RCPT, NULL);
	curl_slist_free_all(rcpt);
	free(from);
	return broken;
}

/* A lane's thread: send what may go, until nothing waits or the batch
 * stops. */
static void *
smtp_lane_main(void *arg)
{
	struct smtp_lane *l = arg;
	struct smtp_run *r = l->run;
	size_t i = 0;
	int waiting = 0, broken;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->stop && (i = smtp_next(r, &waiting)) == r->n &&
		    waiting)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stop || !waiting)
			break;
		r->state[i] = SMTP_ON_ITS_WAY;
		pthread_mutex_unlock(&r->mu);
		broken = smtp_lane_send(l, &r->msgs[i]);
		pthread_mutex_lock(&r->mu);
		r->state[i] = SMTP_ANSWERED;
		if (broken && !r->broken) {
			r->broken = 1;
			r->stop = 1;
			util_strlcpy(r->cause, r->msgs[i].reply,
			    sizeof(r->cause));
		}
		pthread_cond_broadcast(&r->cv);
	}
	r->lanes--;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* Pass each answered message to the caller's callback, in the order the
 * answers come, until the lanes are done.  Under mu. */
static void
smtp_pass_answers(struct smtp_run *r)
{
	size_t i;
	int stop;

	for (;;) {
		for (i = 0; i < r->n && r->state[i] != SMTP_ANSWERED; i++)
			;
		if (i == r->n) {
			if (r->lanes == 0)
				return;
			pthread_cond_wait(&r->cv, &r->mu);
			continue;
		}
		r->state[i] = SMTP_PASSED;
		if (r->set->done == NULL)
			continue;
		pthread_mutex_unlock(&r->mu);
		stop = r->set->done(r->set->done_arg, i) != 0;
		pthread_mutex_lock(&r->mu);
		if (stop) {
			r->stop = r->halted = 1;
			pthread_cond_broadcast(&r->cv);
		}
	}
}

int
smtp_send_batch(const struct smtp_settings *set, struct smtp_msg *msgs,
    size_t n, char *err, size_t errlen)
{
	struct smtp_run r;
	struct smtp_lane *l;
	int implicit = 0, sent = 0, started = 0, stopped;
	size_t i, k;

	if (smtp_check_url(set, &implicit, err, errlen) == -1)
		return -1;
	memset(&r, 0, sizeof(r));
	r.set = set;
	r.msgs = msgs;
	r.n = n;
	r.state = xcalloc(n > 0 ? n : 1, 1);
	pthread_mutex_init(&r.mu, NULL);
	pthread_cond_init(&r.cv, NULL);
	/* The handles are made here, before any thread: libcurl's global
	 * set-up, done by the first, is not thread-safe. */
	for (k = 0; k < SMTP_LANES && k < n; k++) {
		l = &lanes[k];
		if (l->c != NULL)
			curl_easy_reset(l->c);
		else if ((l->c = curl_easy_init()) == NULL)
			fatal("smtp: curl_easy_init failed");
		smtp_setup(l->c, set, implicit, &l->x, l->errbuf);
		curl_easy_setopt(l->c, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(l->c, CURLOPT_READFUNCTION, smtp_read_cb);
		curl_easy_setopt(l->c, CURLOPT_READDATA, &l->x);
		l->run = &r;
	}
	pthread_mutex_lock(&r.mu);
	for (k = 0; k < SMTP_LANES && k < n; k++) {
		if (pthread_create(&lanes[k].thread, NULL, smtp_lane_main,
		    &lanes[k]) != 0) {
			/* Fewer lanes: the others carry the batch. */
			log_warn("smtp: pthread_create: %s", strerror(errno));
			continue;
		}
		started |= 1 << k;
		r.lanes++;
	}
	if (r.lanes == 0 && n > 0)
		fatal("smtp: no thread to send with");
	smtp_pass_answers(&r);
	stopped = r.halted;
	pthread_mutex_unlock(&r.mu);
	for (k = 0; k < SMTP_LANES; k++)
		if (started & (1 << k))
			pthread_join(lanes[k].thread, NULL);
	/* What was never started: after a broken connection each is told
	 * to the caller, who may stop; after a stop none is. */
	for (i = 0; i < n; i++) {
		if (r.state[i] == SMTP_PASSED) {
			sent += msgs[i].status == SMTP_SENT;
			continue;
		}
		smtp_not_tried(&msgs[i], 1, stopped ? "stopped by the caller" :
		    r.cause);
		if (!stopped && set->done != NULL &&
		    set->done(set->done_arg, i) != 0)
			stopped = 1;
	}
	pthread_cond_destroy(&r.cv);
	pthread_mutex_destroy(&r.mu);
	free(r.state);
	/* A connection that failed is not kept. */
	if (r.broken)
		smtp_release();
	return sent;
}

/* sysexits(3) codes that say "try again later". */
static int
smtp_transient_exit(int st)
{
	return st == 75 || st == 71 || st == 74;	/* TEMPFAIL OSERR IOERR */
}

/* Write all of p to fd, even when the reader has gone away (EPIPE instead
 * of SIGPIPE, which is blocked here and any pending one swallowed). */
static int
smtp_write_all(int fd, const char *p, size_t len)
{
	sigset_t block, old, pending;
	struct timespec zero = { 0, 0 };
	int rc = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGPIPE);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w == -1) {
			if (errno == EINTR)
				continue;
			rc = -1;
			break;
		}
		p += w;
		len -= (size_t)w;
	}
	sigpending(&pending);
	if (sigismember(&pending, SIGPIPE) && !sigismember(&old, SIGPIPE))
		(void)sigtimedwait(&block, NULL, &zero);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* The first line of what the child wrote to stderr. */
static void
smtp_first_line(FILE *f, char *out, size_t outlen)
{
	char *nl;

	rewind(f);
	if (fgets(out, (int)outlen, f) == NULL) {
		out[0] = '\0';
		return;
	}
	if ((nl = strchr(out, '\n')) != NULL)
		*nl = '\0';
}

/* sendmail takes local text: LF line ends, as Postfix and Sendmail
 * expect on their input (CRLF would be kept as a stray CR by some). */
static void
smtp_lf(struct buf *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!(s[i] == '\r' && i + 1 < len && s[i + 1] == '\n'))
			buf_addc(out, s[i]);
}

int
smtp_sendmail(const char *path, struct smtp_msg *m)
{
	struct buf lf = { 0 };
	const char **argv;
	FILE *errf;
	int in[2], st;
	size_t i, k = 0;
	pid_t pid;

	m->code = 0;
	m->reply[0] = '\0';
	m->status = SMTP_TEMPFAIL;
	argv = xcalloc(m->nrcpt + 8, sizeof(*argv));
	argv[k++] = path;
	if (m->nrcpt == 0)
		argv[k++] = "-t";
	argv[k++] = "-i";
	if (m->from != NULL) {
		argv[k++] = "-f";
		argv[k++] = m->from[0] != '\0' ? m->from : "<>";
	}
	if (m->nrcpt > 0) {
		argv[k++] = "--";
		for (i = 0; i < m->nrcpt; i++)
			argv[k++] = m->rcpt[i];
	}
	argv[k] = NULL;

	if ((errf = tmpfile()) == NULL) {
		util_err(m->reply, sizeof(m->reply), "sendmail: tmpfile: %s",
		    strerror(errno));
		free(argv);
		return -1;
	}
	if (pipe(in) == -1) {
		util_err(m->reply, sizeof(m->reply), "sendmail: pipe: %s",
		    strerror(errno));
		fclose(errf);
		free(argv);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == -1) {
		util_err(m->reply, sizeof(m->reply), "sendmail: fork: %s",
		    strerror(errno));
		close(in[0]);
		close(in[1]);
		fclose(errf);
		free(argv);
		return -1;
	}
	if (pid == 0) {
		int efd = fileno(errf);

		if (dup2(in[0], 0) == -1 || dup2(efd, 1) == -1 ||
		    dup2(efd, 2) == -1)
			_exit(71);
		close(in[0]);
		close(in[1]);
		execv(path, (char *const *)argv);
		dprintf(2, "cannot run %s: %s\n", path, strerror(errno));
		_exit(75);
	}
	close(in[0]);
	smtp_lf(&lf, m->data, m->len);
	(void)smtp_write_all(in[1], lf.s != NULL ? lf.s : "", lf.len);
	buf_free(&lf);
	close(in[1]);
	free(argv);
	while (waitpid(pid, &st, 0) == -1) {
		if (errno != EINTR) {
			util_err(m->reply, sizeof(m->reply),
			    "sendmail: waitpid: %s", strerror(errno));
			fclose(errf);
			return -1;
		}
	}
	smtp_first_line(errf, m->reply, sizeof(m->reply));
	fclose(errf);
	if (WIFSIGNALED(st)) {
		util_err(m->reply, sizeof(m->reply), "%s killed by signal %d",
		    path, WTERMSIG(st));
		return -1;
	}
	m->code = WEXITSTATUS(st);
	if (m->code == 0) {
		m->status = SMTP_SENT;
		return 0;
	}
	m->status = smtp_transient_exit(m->code) ? SMTP_TEMPFAIL :
	    SMTP_PERMFAIL;
	if (m->reply[0] == '\0')
		util_err(m->reply, sizeof(m->reply), "%s exited with %d", path,
		    m->code);
	return -1;
}

/* NOOP's answer: not for stdout. */
static size_t
smtp_discard_cb(char *p, size_t size, size_t nmemb, void *arg)
{
	(void)p;
	(void)arg;
	return size * nmemb;
}

/*
 * Connect, TLS with its checks, EHLO and AUTH as for sending, then NOOP
 * and QUIT: no MAIL command, so nothing is sent.  libcurl sends a custom
 * command instead of a mail when it is given no recipients and nothing to
 * upload.
 */
int
smtp_probe(const struct smtp_settings *set, int *untrusted, int *tls,
    char *err, size_t errlen)
{
	CURL *c;
	struct smtp_xfer x;
	char errbuf[CURL_ERROR_SIZE];
	int implicit = 0, rc = 0;
	CURLcode cc;

	*untrusted = 0;
	*tls = SMTP_TLS_NONE;
	if (smtp_check_url(set, &implicit, err, errlen) == -1)
		return -1;
	if ((c = curl_easy_init()) == NULL) {
		util_err(err, errlen, "smtp: curl_easy_init failed");
		return -1;
	}
	memset(&x, 0, sizeof(x));
	errbuf[0] = '\0';
	smtp_setup(c, set, implicit, &x, errbuf);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "NOOP");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, smtp_discard_cb);
	if ((cc = curl_easy_perform(c)) != CURLE_OK) {
		*untrusted = cc == CURLE_PEER_FAILED_VERIFICATION ||
		    cc == CURLE_SSL_CACERT_BADFILE ||
		    cc == CURLE_SSL_ISSUER_ERROR ||
		    cc == CURLE_SSL_PINNEDPUBKEYNOTMATCH;
		util_err(err, errlen, "%s%s%s", errbuf[0] ? errbuf :
		    curl_easy_strerror(cc), x.fail[0] ? ": " : "", x.fail);
		rc = -1;
	} else if (x.tls)
		/* What the connection used, whatever the URL said. */
		*tls = set->no_verify ? SMTP_TLS_UNVERIFIED :
		    SMTP_TLS_VERIFIED;
	curl_easy_cleanup(c);
	return rc;
}

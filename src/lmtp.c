/* lmtp: ludusd's LMTP server (RFC 2033). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lmtp.h"
#include "log.h"
#include "util.h"

/* Limits against a peer that misbehaves (the mail server never reaches
 * them): RFC 5321's command line of 512 octets, its 100 recipients, a few
 * mistakes, an idle connection closed after RFC 5321's five minutes. */
#define LMTP_LINE_MAX	512
#define LMTP_RCPT_MAX	100
#define LMTP_ERRORS_MAX	20
#define LMTP_CONN_MAX	64
#define LMTP_IDLE_MS	(5 * 60 * 1000)
/* Answers not yet read by the peer: input waits beyond this. */
#define LMTP_OUT_MAX	65536
#define LMTP_READ	16384

enum conn_state { C_GREETED, C_READY, C_MAIL, C_DATA };

/* In DATA: where the next byte falls (only CR LF ends a line: a bare LF
 * never makes a line's start, so it can neither end the data nor hide a
 * command after it). */
enum data_state { D_BOL, D_MID, D_CR, D_DOT, D_DOTCR };

struct conn {
	int		 fd;
	enum conn_state	 state;
	enum data_state	 ds;
	struct buf	 in;		/* read, not yet taken */
	struct buf	 out;		/* answers not yet written */
	struct buf	 msg;		/* the message being received */
	size_t		 msglen;	/* its size, counted past the limit */
	int		 nrcpt;		/* accepted recipients */
	int		 errors;
	int		 discard;	/* skipping an overlong line's rest */
	int		 closing;	/* close once out is written */
	int64_t		 last_ms;	/* the last sign of life */
};

struct lmtp {
	int		 fd;		/* the listening socket */
	int		 ep;		/* epoll: fd, wakefd, the connections */
	char		*path;		/* a Unix socket's file (owned) */
	size_t		 max;
	int64_t		 idle_ms;
	struct lmtp_hooks hooks;
	struct conn	**conns;
	int		 nconns;
};

static void
reply(struct conn *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&c->out, fmt, ap);
	va_end(ap);
	buf_adds(&c->out, "\r\n");
}

/* A command the peer got wrong; too many and the connection ends. */
static void
mistake(struct conn *c, const char *text)
{
	reply(c, "%s", text);
	if (++c->errors >= LMTP_ERRORS_MAX) {
		reply(c, "421 4.7.0 too many errors, closing");
		c->closing = 1;
	}
}

static void
transaction_reset(struct conn *c)
{
	c->nrcpt = 0;
	c->msglen = 0;
	buf_free(&c->msg);
	if (c->state != C_GREETED)
		c->state = C_READY;
}

/* "VERB" at the start of line, case aside, followed by the end or a
 * space (or, for "MAIL FROM:" and "RCPT TO:", by anything). */
static const char *
verb(const char *line, const char *v)
{
	size_t n = strlen(v);

	if (strncasecmp(line, v, n) != 0)
		return NULL;
	if (v[n - 1] == ':')
		return line + n;
	if (line[n] == '\0' || line[n] == ' ')
		return line + n + (line[n] == ' ');
	return NULL;
}

/* The address of "<addr> PARAMS" (owned), *params after it; NULL when
 * there are no angle brackets. */
static char *
path_of(const char *s, const char **params)
{
	const char *end;

	while (*s == ' ')
		s++;
	if (*s != '<' || (end = strchr(s, '>')) == NULL)
		return NULL;
	*params = end + 1;
	return xasprintf("%.*s", (int)(end - s - 1), s + 1);
}

static void
cmd_mail(struct lmtp *l, struct conn *c, const char *arg)
{
	const char *params, *p;
	char *addr;
	unsigned long long size;

	if (c->state == C_GREETED) {
		mistake(c, "503 5.5.1 LHLO first");
		return;
	}
	if (c->state != C_READY) {
		mistake(c, "503 5.5.1 nested MAIL command");
		return;
	}
	if ((addr = path_of(arg, &params)) == NULL) {
		mistake(c, "501 5.5.4 syntax: MAIL FROM:<address>");
		return;
	}
	free(addr);
	if ((p = strcasestr(params, "SIZE=")) != NULL &&
	    (p == params || p[-1] == ' ')) {
		size = strtoull(p + 5, NULL, 10);
		if (size > l->max) {
			reply(c, "552 5.3.4 message size exceeds the limit "
			    "of %zu", l->max);
			return;
		}
	}
	transaction_reset(c);
	c->state = C_MAIL;
	reply(c, "250 2.1.0 Ok");
}

static void
cmd_rcpt(struct lmtp *l, struct conn *c, const char *arg)
{
	const char *params;
	char *addr;

	if (c->state != C_MAIL) {
		mistake(c, "503 5.5.1 MAIL first");
		return;
	}
	if ((addr = path_of(arg, &params)) == NULL) {
		mistake(c, "501 5.5.4 syntax: RCPT TO:<address>");
		return;
	}
	if (c->nrcpt >= LMTP_RCPT_MAX)
		reply(c, "452 4.5.3 too many recipients");
	else if (!l->hooks.recipient(l->hooks.arg, addr))
		reply(c, "550 5.1.1 <%s>: not the referee here", addr);
	else {
		c->nrcpt++;
		reply(c, "250 2.1.5 Ok");
	}
	free(addr);
}

static void
cmd_lhlo(struct lmtp *l, struct conn *c, const char *arg)
{
	if (*arg == '\0') {
		mistake(c, "501 5.5.4 syntax: LHLO hostname");
		return;
	}
	c->state = C_READY;
	transaction_reset(c);
	reply(c, "250-ludusd\r\n250-PIPELINING\r\n250-ENHANCEDSTATUSCODES\r\n"
	    "250-8BITMIME\r\n250 SIZE %zu", l->max);
}

static void
command(struct lmtp *l, struct conn *c, char *line)
{
	const char *arg;

	if ((arg = verb(line, "LHLO")) != NULL)
		cmd_lhlo(l, c, arg);
	else if (verb(line, "HELO") != NULL || verb(line, "EHLO") != NULL)
		mistake(c, "500 5.5.1 this is LMTP: LHLO");
	else if ((arg = verb(line, "MAIL FROM:")) != NULL)
		cmd_mail(l, c, arg);
	else if ((arg = verb(line, "RCPT TO:")) != NULL)
		cmd_rcpt(l, c, arg);
	else if (verb(line, "DATA") != NULL) {
		if (c->state != C_MAIL || c->nrcpt == 0)
			mistake(c, "503 5.5.1 no valid recipients");
		else {
			c->state = C_DATA;
			c->ds = D_BOL;
			reply(c, "354 go ahead, end with <CR><LF>.<CR><LF>");
		}
	} else if (verb(line, "RSET") != NULL) {
		transaction_reset(c);
		reply(c, "250 2.0.0 Ok");
	} else if (verb(line, "NOOP") != NULL)
		reply(c, "250 2.0.0 Ok");
	else if (verb(line, "QUIT") != NULL) {
		reply(c, "221 2.0.0 bye");
		c->closing = 1;
	} else if (verb(line, "VRFY") != NULL)
		reply(c, "502 5.5.1 VRFY command is disabled");
	else
		mistake(c, "500 5.5.2 command not recognised");
}

/* The data is complete: one answer for each accepted recipient. */
static void
data_end(struct lmtp *l, struct conn *c)
{
	enum lmtp_stored st;
	int i;

	if (c->msglen > l->max) {
		for (i = 0; i < c->nrcpt; i++)
			reply(c, "552 5.3.4 message size exceeds the limit "
			    "of %zu", l->max);
	} else {
		st = l->hooks.deliver(l->hooks.arg, buf_str(&c->msg),
		    c->msg.len);
		for (i = 0; i < c->nrcpt; i++)
			reply(c, "%s", st == LMTP_STORED ? "250 2.0.0 Ok, "
			    "stored" : st == LMTP_FULL ? "452 4.3.1 "
			    "insufficient storage, try again later" :
			    "451 4.3.0 temporary failure, try again later");
	}
	transaction_reset(c);
}

static void
data_put(struct lmtp *l, struct conn *c, const char *p, size_t n)
{
	c->msglen += n;
	if (c->msglen <= l->max)
		buf_add(&c->msg, p, n);
	else
		buf_free(&c->msg);
}

/* Take DATA bytes; the number used (less than n when the data ended). */
static size_t
data_take(struct lmtp *l, struct conn *c, const char *p, size_t n)
{
	size_t i = 0, j;

	while (i < n) {
		char ch = p[i];

		switch (c->ds) {
		case D_MID:
			/* The bulk: up to the next CR in one piece. */
			for (j = i; j < n && p[j] != '\r'; j++)
				;
			data_put(l, c, p + i, j - i);
			i = j;
			if (i < n) {
				data_put(l, c, "\r", 1);
				c->ds = D_CR;
				i++;
			}
			continue;
		case D_BOL:
			if (ch == '.') {
				/* Stuffed, or the end: not kept either way. */
				c->ds = D_DOT;
				i++;
				continue;
			}
			c->ds = D_MID;
			continue;
		case D_CR:
			data_put(l, c, &ch, 1);
			c->ds = ch == '\n' ? D_BOL : ch == '\r' ? D_CR : D_MID;
			i++;
			continue;
		case D_DOT:
			if (ch == '\r') {
				c->ds = D_DOTCR;
				i++;
			} else
				c->ds = D_MID;
			continue;
		case D_DOTCR:
			if (ch == '\n') {
				data_end(l, c);
				return i + 1;
			}
			/* ".\r" and more: the CR was the line's. */
			data_put(l, c, "\r", 1);
			c->ds = D_CR;
			continue;
		}
	}
	return n;
}

/* Take what was read: commands, one line at a time, or data. */
static void
conn_input(struct lmtp *l, struct conn *c)
{
	char *nl, *line;
	size_t used = 0, len;

	if (c->in.len == 0)
		return;
	while (used < c->in.len && !c->closing && c->out.len < LMTP_OUT_MAX) {
		if (c->state == C_DATA) {
			used += data_take(l, c, c->in.s + used,
			    c->in.len - used);
			continue;
		}
		line = c->in.s + used;
		len = c->in.len - used;
		nl = memchr(line, '\n', len);
		if (c->discard) {
			if (nl == NULL) {
				used = c->in.len;
				break;
			}
			c->discard = 0;
			used += (size_t)(nl - line) + 1;
			continue;
		}
		if (nl == NULL && len < LMTP_LINE_MAX)
			break;
		if (nl == NULL || (size_t)(nl - line) + 1 > LMTP_LINE_MAX) {
			mistake(c, "500 5.5.2 line too long");
			c->discard = nl == NULL;
			used += nl == NULL ? len : (size_t)(nl - line) + 1;
			continue;
		}
		used += (size_t)(nl - line) + 1;
		len = (size_t)(nl - line);
		if (len > 0 && line[len - 1] == '\r')
			len--;
		line[len] = '\0';
		if (strlen(line) != len)
			mistake(c, "500 5.5.2 NUL in a command");
		else
			command(l, c, line);
	}
	/* What is left is the start of a line (or of the data). */
	memmove(c->in.s, c->in.s + used, c->in.len - used);
	c->in.len -= used;
	c->in.s[c->in.len] = '\0';
}

static void
conn_events(struct lmtp *l, struct conn *c)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.data.ptr = c;
	/* Input waits while the answers pile up unread. */
	if (c->out.len < LMTP_OUT_MAX && !c->closing)
		ev.events |= EPOLLIN;
	if (c->out.len > 0)
		ev.events |= EPOLLOUT;
	(void)epoll_ctl(l->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static void
conn_close(struct lmtp *l, struct conn *c)
{
	int i;

	(void)epoll_ctl(l->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	buf_free(&c->in);
	buf_free(&c->out);
	buf_free(&c->msg);
	for (i = 0; i < l->nconns; i++)
		if (l->conns[i] == c) {
			l->conns[i] = l->conns[--l->nconns];
			break;
		}
	free(c);
}

/* Write what can be written; -1 when the connection is to go. */
static int
conn_write(struct conn *c)
{
	ssize_t w;

	while (c->out.len > 0) {
		w = send(c->fd, c->out.s, c->out.len, MSG_NOSIGNAL);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w <= 0)
			return -1;
		memmove(c->out.s, c->out.s + w, c->out.len - (size_t)w);
		c->out.len -= (size_t)w;
		c->out.s[c->out.len] = '\0';
	}
	return c->closing ? -1 : 0;
}

/* Read what is there; -1 when the peer has gone. */
static int
conn_read(struct lmtp *l, struct conn *c)
{
	char chunk[LMTP_READ];
	ssize_t r;
	int k;

	/* At most a few chunks a turn: the other connections go too. */
	for (k = 0; k < 64; k++) {
		if (c->out.len >= LMTP_OUT_MAX || c->closing)
			return 0;
		r = recv(c->fd, chunk, sizeof(chunk), 0);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (r <= 0)
			return -1;
		buf_add(&c->in, chunk, (size_t)r);
		conn_input(l, c);
	}
	return 0;
}

static void
accept_all(struct lmtp *l, int64_t now_ms)
{
	struct epoll_event ev;
	struct conn *c;
	int fd;

	while ((fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK |
	    SOCK_CLOEXEC)) != -1) {
		if (l->nconns >= LMTP_CONN_MAX) {
			static const char busy[] = "421 4.3.2 too many "
			    "connections, try again later\r\n";

			(void)send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL);
			close(fd);
			continue;
		}
		c = xcalloc(1, sizeof(*c));
		c->fd = fd;
		c->state = C_GREETED;
		c->last_ms = now_ms;
		reply(c, "220 ludusd LMTP ready");
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN | EPOLLOUT;
		ev.data.ptr = c;
		if (epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev) == -1) {
			log_err("lmtp: epoll: %s", strerror(errno));
			close(fd);
			buf_free(&c->out);
			free(c);
			continue;
		}
		l->conns = xreallocarray(l->conns, (size_t)l->nconns + 1,
		    sizeof(*l->conns));
		l->conns[l->nconns++] = c;
	}
	if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
		log_warn("lmtp: accept: %s", strerror(errno));
}

void
lmtp_service(struct lmtp *l, int64_t now_ms)
{
	struct epoll_event evs[32];
	struct conn *c;
	int i, n, gone, round;

	if (l == NULL)
		return;
	/* A few rounds, so that a peer that never stops sending cannot
	 * keep the daemon from its other work. */
	for (round = 0; round < 8 && (n = epoll_wait(l->ep, evs,
	    (int)nitems(evs), 0)) > 0; round++) {
		int progress = 0;

		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr == NULL)
				continue;	/* the wake descriptor */
			progress = 1;
			if (evs[i].data.ptr == l) {
				accept_all(l, now_ms);
				continue;
			}
			c = evs[i].data.ptr;
			gone = 0;
			if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
				c->last_ms = now_ms;
				gone = conn_read(l, c) == -1;
			}
			if (!gone) {
				/* Lines left from before the answers piled
				 * up are taken as they drain. */
				if (c->out.len < LMTP_OUT_MAX)
					conn_input(l, c);
				gone = conn_write(c) == -1;
			}
			if (gone)
				conn_close(l, c);
			else
				conn_events(l, c);
		}
		/* Only the wake descriptor is ready: the daemon's business. */
		if (!progress)
			break;
	}
	for (i = 0; i < l->nconns;) {
		c = l->conns[i];
		if (now_ms - c->last_ms < l->idle_ms) {
			i++;
			continue;
		}
		/* Idle too long (half a message is dropped, not stored). */
		reply(c, "421 4.4.2 idle too long, closing");
		(void)conn_write(c);
		conn_close(l, c);
	}
}

int64_t
lmtp_next_ms(const struct lmtp *l, int64_t now_ms)
{
	int64_t next = -1, t;
	int i;

	if (l == NULL)
		return -1;
	for (i = 0; i < l->nconns; i++) {
		t = l->conns[i]->last_ms + l->idle_ms - now_ms;
		if (t < 0)
			t = 0;
		if (next == -1 || t < next)
			next = t;
	}
	return next;
}

int
lmtp_connections(const struct lmtp *l)
{
	return l == NULL ? 0 : l->nconns;
}

int
lmtp_fd(const struct lmtp *l)
{
	return l->ep;
}

void
lmtp_set_max(struct lmtp *l, size_t max_size)
{
	if (l != NULL)
		l->max = max_size;
}

/* Split "HOST:PORT" / "[V6]:PORT" into a loopback socket address. */
static int
where_inet(const char *where, struct sockaddr_storage *ss, socklen_t *sslen,
    char *err, size_t errlen)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(where, ':'), *h = where;
	char host[64], *end;
	size_t hlen;
	long port;

	if (colon == NULL)
		goto bad;
	hlen = (size_t)(colon - where);
	if (*h == '[') {
		if (hlen < 2 || where[hlen - 1] != ']')
			goto bad;
		h++;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= sizeof(host))
		goto bad;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || errno != 0 || port < 1 ||
	    port > 65535)
		goto bad;
	memset(ss, 0, sizeof(*ss));
	if (strcmp(host, "localhost") == 0)
		snprintf(host, sizeof(host), "127.0.0.1");
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		if ((ntohl(sin->sin_addr.s_addr) >> 24) != 127)
			goto remote;
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		*sslen = sizeof(*sin);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		if (!IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr))
			goto remote;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*sslen = sizeof(*sin6);
		return 0;
	}
bad:
	util_err(err, errlen, "`%s` is not unix:/PATH or HOST:PORT with a "
	    "loopback address (127.0.0.1:24, [::1]:24)", where);
	return -1;
remote:
	util_err(err, errlen, "`%s`: LMTP has no authentication; listen on a "
	    "loopback address or a Unix socket", where);
	return -1;
}

int
lmtp_where_check(const char *where, char *msg, size_t len)
{
	struct sockaddr_storage ss;
	struct sockaddr_un sun;
	socklen_t sslen;

	if (strncmp(where, "unix:", 5) == 0) {
		if (where[5] != '/' || strlen(where + 5) >=
		    sizeof(sun.sun_path)) {
			util_err(msg, len, "`%s`: unix: needs an absolute path "
			    "of at most %zu bytes", where,
			    sizeof(sun.sun_path) - 1);
			return -1;
		}
		return 0;
	}
	return where_inet(where, &ss, &sslen, msg, len);
}

struct lmtp *
lmtp_start(const char *where, size_t max_size, int wakefd,
    const struct lmtp_hooks *hooks, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct sockaddr_un *sun = (struct sockaddr_un *)&ss;
	struct epoll_event ev;
	struct lmtp *l;
	struct stat sb;
	socklen_t sslen;
	const char *path = NULL;
	int one = 1;

	if (lmtp_where_check(where, err, errlen) == -1)
		return NULL;
	memset(&ss, 0, sizeof(ss));
	if (strncmp(where, "unix:", 5) == 0) {
		path = where + 5;
		sun->sun_family = AF_UNIX;
		memcpy(sun->sun_path, path, strlen(path));
		sslen = sizeof(*sun);
		/* A socket left by a daemon that did not stop cleanly is
		 * replaced; anything else at the path is the operator's. */
		if (lstat(path, &sb) == 0) {
			if (!S_ISSOCK(sb.st_mode)) {
				util_err(err, errlen, "in.lmtp %s: exists and "
				    "is not a socket", path);
				return NULL;
			}
			unlink(path);
		}
	} else if (where_inet(where, &ss, &sslen, err, errlen) == -1)
		return NULL;
	l = xcalloc(1, sizeof(*l));
	l->max = max_size;
	l->hooks = *hooks;
	l->idle_ms = LMTP_IDLE_MS;
#ifdef LUDUS_TEST_CLOCK
	/* Test builds: the idle timeout of the protocol tests. */
	if (getenv("LUDUS_LMTP_IDLE_MS") != NULL)
		l->idle_ms = atoll(getenv("LUDUS_LMTP_IDLE_MS"));
#endif
	l->ep = -1;
	if ((l->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1 ||
	    (path == NULL && setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof(one)) == -1) ||
	    bind(l->fd, (struct sockaddr *)&ss, sslen) == -1 ||
	    (path != NULL && chmod(path, 0660) == -1) ||
	    listen(l->fd, 64) == -1 ||
	    (l->ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		goto fail;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = l;
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, l->fd, &ev) == -1)
		goto fail;
	if (wakefd >= 0) {
		ev.data.ptr = NULL;
		if (epoll_ctl(l->ep, EPOLL_CTL_ADD, wakefd, &ev) == -1)
			goto fail;
	}
	l->path = path ? xstrdup(path) : NULL;
	return l;
fail:
	util_err(err, errlen, "in.lmtp %s: %s", where, strerror(errno));
	if (l->fd != -1)
		close(l->fd);
	if (l->ep != -1)
		close(l->ep);
	free(l);
	return NULL;
}

void
lmtp_stop(struct lmtp *l)
{
	if (l == NULL)
		return;
	while (l->nconns > 0)
		conn_close(l, l->conns[0]);
	free(l->conns);
	close(l->fd);
	close(l->ep);
	if (l->path != NULL)
		unlink(l->path);
	free(l->path);
	free(l);
}

int
lmtp_address_is(const char *rcpt, const char *own)
{
	const char *at = strrchr(rcpt, '@'), *oat = strrchr(own, '@');
	const char *plus;
	size_t local;

	if (at == NULL || oat == NULL || !util_strcaseeq(at, oat))
		return 0;
	local = (size_t)(at - rcpt);
	/* local+detail, as Postfix's recipient_delimiter delivers it. */
	if ((plus = memchr(rcpt, '+', local)) != NULL)
		local = (size_t)(plus - rcpt);
	return local == (size_t)(oat - own) && strncasecmp(rcpt, own, local) ==
	    0;
}

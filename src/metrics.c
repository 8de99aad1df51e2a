/* metrics: ludusd's OpenMetrics endpoint on a Unix socket. */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "metrics.h"
#include "stats.h"
#include "store.h"

#define METRICS_WAIT_MS	300	/* for a request line before answering */

struct metrics {
	char		*path;		/* owned */
	char		*dbpath;	/* owned */
	int		 fd;
	pthread_t	 thread;
};

/* Write all of len bytes; a client that went away is no error of ours. */
static void
write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = send(fd, p, len, MSG_NOSIGNAL)) == -1) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += n;
		len -= (size_t)n;
	}
}

/*
 * One connection.  A client that sends an HTTP request ("GET ...", as
 * curl --unix-socket or a Prometheus agent does) gets an HTTP/1.0
 * answer; one that sends nothing within METRICS_WAIT_MS (socat, nc -U)
 * gets the text alone.
 */
static void
serve_one(struct store **sp, const char *dbpath, int c)
{
	struct pollfd pfd = { c, POLLIN, 0 };
	struct store_stats st;
	struct buf body = { 0 }, head = { 0 };
	char req[512], err[256];
	ssize_t n = 0;
	int http;

	if (poll(&pfd, 1, METRICS_WAIT_MS) == 1)
		n = recv(c, req, sizeof(req) - 1, 0);
	http = n >= 4 && strncmp(req, "GET ", 4) == 0;
	if (*sp == NULL && store_open(dbpath, sp, err, sizeof(err)) == -1) {
		log_warn("metrics: %s", err);
		*sp = NULL;
	}
	if (*sp == NULL || store_stats(*sp, &st) == -1) {
		if (*sp != NULL)
			log_warn("metrics: %s", store_errmsg(*sp));
		if (http)
			buf_printf(&head, "HTTP/1.0 503 Service Unavailable\r\n"
			    "Content-Length: 0\r\nConnection: close\r\n\r\n");
		write_all(c, head.s, head.len);
		buf_free(&head);
		return;
	}
	stats_openmetrics(&st, clock_now(), &body);
	if (http) {
		buf_printf(&head, "HTTP/1.0 200 OK\r\nContent-Type: "
		    "application/openmetrics-text; version=1.0.0; "
		    "charset=utf-8\r\nContent-Length: %zu\r\nConnection: "
		    "close\r\n\r\n", body.len);
		write_all(c, head.s, head.len);
	}
	write_all(c, body.s, body.len);
	buf_free(&head);
	buf_free(&body);
}

static void *
serve(void *arg)
{
	struct metrics *m = arg;
	struct store *s = NULL;
	int c;

	for (;;) {
		if ((c = accept4(m->fd, NULL, NULL, SOCK_CLOEXEC)) == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;	/* metrics_stop shut the socket down */
		}
		serve_one(&s, m->dbpath, c);
		close(c);
	}
	store_close(s);
	return NULL;
}

struct metrics *
metrics_start(const char *path, const char *dbpath, char *err, size_t errlen)
{
	struct sockaddr_un sun;
	struct metrics *m;
	struct stat sb;
	sigset_t all, old;
	int rc;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		util_err(err, errlen, "metrics.socket %s: longer than %zu "
		    "bytes", path, sizeof(sun.sun_path) - 1);
		return NULL;
	}
	memcpy(sun.sun_path, path, strlen(path));
	/* A socket left by a daemon that did not stop cleanly is replaced;
	 * anything else at the path is the operator's. */
	if (lstat(path, &sb) == 0) {
		if (!S_ISSOCK(sb.st_mode)) {
			util_err(err, errlen, "metrics.socket %s: exists and "
			    "is not a socket", path);
			return NULL;
		}
		unlink(path);
	}
	m = xcalloc(1, sizeof(*m));
	if ((m->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(m->fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    chmod(path, 0660) == -1 || listen(m->fd, 8) == -1) {
		util_err(err, errlen, "metrics.socket %s: %s", path,
		    strerror(errno));
		if (m->fd != -1)
			close(m->fd);
		free(m);
		return NULL;
	}
	m->path = xstrdup(path);
	m->dbpath = xstrdup(dbpath);
	/* Signals stay the main thread's (its handlers wake its loop):
	 * the thread starts with all of them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&m->thread, NULL, serve, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		util_err(err, errlen, "metrics: thread: %s", strerror(rc));
		close(m->fd);
		unlink(m->path);
		free(m->path);
		free(m->dbpath);
		free(m);
		return NULL;
	}
	return m;
}

void
metrics_stop(struct metrics *m)
{
	if (m == NULL)
		return;
	/* Wakes the thread's accept() with an error: it leaves its loop. */
	shutdown(m->fd, SHUT_RDWR);
	pthread_join(m->thread, NULL);
	close(m->fd);
	unlink(m->path);
	free(m->path);
	free(m->dbpath);
	free(m);
}

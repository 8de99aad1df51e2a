/*
 * ludusd: the referee daemon.
 *
 * One loop: fetch new mail (IMAP or a Maildir), take each message through
 * the referee in its own transaction, mark it processed on the server only
 * after the commit is synced (one sync for a batch), send the outbox as
 * the backlog drains, then sleep in IDLE (or poll) until
 * new mail, the next due outgoing mail or the poll interval.  Signal
 * handlers only set flags and write a byte to a pipe that wakes the loop.
 */
#include "config.h"
#include "gitversion.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "backoff.h"
#include "clock.h"
#include "conf.h"
#include "gamedef.h"
#include "i18n.h"
#include "imap.h"
#include "intake.h"
#include "lmtp.h"
#include "log.h"
#include "maildir.h"
#include "metrics.h"
#include "outbox.h"
#include "site.h"
#include "smtp.h"
#include "store.h"
#include "template.h"
#include "token.h"


/* Waits, in seconds, after the store failed to record what was sent or
 * fired (a full disk): doubling from the first to the last. */
/* sysexits(3)'s EX_TEMPFAIL: --once could not reach or trust a server. */
#define EXIT_TEMPFAIL	75

/* Seconds the SMTP connection is kept after mail was sent (go_idle). */
#define SMTP_KEEP	30

#define STORE_RETRY_MIN	1
#define STORE_RETRY_MAX	300

static volatile sig_atomic_t want_quit, want_reload, want_poll;
static int wake_pipe[2] = { -1, -1 };

/*
 * A message waiting for a robot: nothing of it is committed, it stays in
 * the inbox, and a worker process (forked) thinks the robot's
 * moves from the position the referee left in the job.  When the answers
 * are back the message is handed in again and applied in a short
 * transaction of its own, or, when its game moved on meanwhile, it waits
 * for another round of thinking.  Other players' mail goes on meanwhile;
 * the sender's later mail waits behind it (the referee's hold).
 */
struct parked {
	uint32_t	 uid;		/* IMAP: its UID in uidvalidity */
	uint32_t	 uidvalidity;
	char		*name;		/* Maildir: its file (owned) */
	char		*data;		/* owned */
	size_t		 len;
	int64_t		 now;		/* when it came: the referee's time */
	struct referee_plans plans;	/* the answers so far */
	struct referee_robot *job;	/* owned: to think, or thinking */
	pid_t		 pid;		/* its worker, 0 when none yet */
	int		 fd;		/* the answers come on it */
	int64_t		 since_ms;	/* parked (monotonic) */
	int		 rounds;	/* times its game moved on */
	int64_t		 wait_id;	/* its robot_waits row, 0: none */
	int64_t		 inbound;	/* LMTP: its inbound row, 0: none */
};

struct daemon {
	const char	*config_path;
	struct config	 cfg;
	struct store	*store;
	struct gamedef	*defs;
	int		 ndefs;
	struct referee	 ref;

	struct imap	*imap;
	struct imap_settings is;
	char		*imap_password;
	char		*imap_url;	/* the server part of in.imap.url */
	struct backoff	 imap_backoff;
	/* The next attempt to connect, on the monotonic clock (ms): the
	 * wait logged is the wait kept, however long the failed attempt
	 * took and whatever the referee's clock says. */
	int64_t		 imap_retry_ms;
	int		 maildir_watch;	/* inotify on the Maildir, -1: none */
	char		*watched;	/* the Maildir it watches (owned) */
	/* The store failed to record sent mail or fired timers (a full
	 * disk, say): wait before the next attempt. */
	struct backoff	 store_backoff;
	int64_t		 store_retry_at;
	struct outbox_unmarked unmarked;
	uint32_t	 uidvalidity;	/* of the last session, 0 before */
	int64_t		 prune_at;	/* next retention pass */
	int64_t		 smtp_until;	/* keep the SMTP connection until */
	/* A server could not be reached or trusted in this cycle (for the
	 * exit status of --once). */
	int		 trouble;

	/* Messages waiting for a robot (robot.c's workers). */
	struct parked	*parked;
	size_t		 nparked;
	int		 workers;	/* at most this many think at once */
	int		 robots_nice;	/* the workers' nice value now */
	const struct parked *rerun;	/* handed in again now */
	int		 recheck;	/* a sender's held mail may go now */
	int		 lock_fd;	/* the database's lock (store_lock) */
	struct metrics	*metrics;	/* metrics.socket's, NULL: none */
	struct lmtp	*lmtp;		/* in.lmtp's listener, NULL: none */
	int64_t		 inbound_wake;	/* an inbound row's retry, 0: none */
};

static void
on_signal(int sig)
{
	int saved = errno;
	char c = 0;

	if (sig == SIGTERM || sig == SIGINT)
		want_quit = 1;
	else if (sig == SIGHUP)
		want_reload = 1;
	else if (sig == SIGUSR1)
		want_poll = 1;

	if (wake_pipe[1] != -1 && write(wake_pipe[1], &c, 1) == -1) {
		/* The pipe is full: the loop is awake anyway. */
	}
	errno = saved;
}

static void
drain_wake_pipe(void)
{
	char buf[64];

	while (read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
}

static void
setup_signals(void)
{
	struct sigaction sa;
	int i;

	if (pipe(wake_pipe) == -1)
		fatal("pipe: %s", strerror(errno));
	for (i = 0; i < 2; i++)
		if (fcntl(wake_pipe[i], F_SETFL, O_NONBLOCK) == -1 ||
		    fcntl(wake_pipe[i], F_SETFD, FD_CLOEXEC) == -1)
			fatal("fcntl: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

static void
apply_logging(const struct config *cfg, int foreground)
{
	int to_syslog = cfg->logging.to == CONFIG_LOG_SYSLOG || !foreground;

	log_init("ludusd", to_syslog, config_syslog_facility(cfg),
	    (enum log_level)cfg->logging.level);
}

/* in.imap.url may name the mailbox (imap://host/Box); imap.c takes the
 * server and the mailbox apart. */
static char *
imap_server_url(const struct config_url *u)
{
	int v6 = strchr(u->host, ':') != NULL;

	return xasprintf("%s://%s%s%s:%d", u->tls ? "imaps" : "imap",
	    v6 ? "[" : "", u->host, v6 ? "]" : "", u->port);
}

static void
imap_settings_from(struct daemon *d)
{
	const struct config_imap *ci = &d->cfg.imap;

	memset(&d->is, 0, sizeof(d->is));
	free(d->imap_url);
	d->imap_url = imap_server_url(&ci->url);
	d->is.url = d->imap_url;
	d->is.user = ci->cred.user;
	d->is.password = d->imap_password;
	d->is.ca_file = ci->ca_file;
	d->is.mailbox = ci->url.path;
	if (ci->processed.kind == CONFIG_PROCESSED_MOVE)
		d->is.processed = ci->processed.arg;
	else
		d->is.flag = ci->processed.arg;
	d->is.no_verify = !ci->tls_verify;
	d->is.plain = ci->starttls == CONFIG_STARTTLS_OFF && !ci->url.tls;
	d->is.timeout = (int)(ci->timeout_ms / 1000);
}

static void
imap_drop(struct daemon *d)
{
	imap_free(d->imap);
	d->imap = NULL;
	if (d->imap_password)
		config_password_free(d->imap_password);
	d->imap_password = NULL;
	free(d->imap_url);
	d->imap_url = NULL;
}

/* Milliseconds on a clock that only goes forward (for pacing, not
 * for the referee's time). */
static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The IMAP server's certificate was refused: the admins hear of it once a
 * day (the notice waits in the outbox like any mail). */
static void
tell_untrusted(struct daemon *d, const char *why)
{
	if (store_begin(d->store) == -1 || outbox_untrusted(d->store, &d->cfg,
	    "imap", d->is.url, why, clock_now()) == -1 ||
	    store_commit(d->store) == -1) {
		store_rollback(d->store);
		log_err("imap: %s", store_errmsg(d->store));
	}
}

/* A connection failed: the next attempt after the backoff's wait, counted
 * from now (after the attempt, which may have taken a while). */
static void
imap_retry_later(struct daemon *d)
{
	unsigned w = backoff_next(&d->imap_backoff);

	d->trouble = 1;
	imap_drop(d);
	d->imap_retry_ms = mono_ms() + (int64_t)w * 1000;
	log_info("imap: next attempt in %u s", w);
}

static int
imap_ensure(struct daemon *d)
{
	char err[512];

	if (d->imap != NULL && imap_connected(d->imap))
		return 0;
	if (mono_ms() < d->imap_retry_ms)
		return -1;
	imap_drop(d);
	if (d->cfg.imap.cred.user != NULL && config_password(&d->cfg.imap.cred,
	    &d->imap_password, err, sizeof(err)) == -1) {
		log_err("imap: %s", err);
		goto fail;
	}
	imap_settings_from(d);
	d->imap = imap_new(&d->is);
	if (imap_connect(d->imap, err, sizeof(err)) == -1) {
		if (imap_untrusted(d->imap))
			tell_untrusted(d, err);
		else
			log_err("imap: %s", err);
		goto fail;
	}
	log_info("imap: connected to %s, uidvalidity %u%s", d->is.url,
	    imap_uidvalidity(d->imap), imap_has_idle(d->imap) ? ", IDLE" : "");
	/* UIDs are never stored (messages are known by Message-ID), so a
	 * recreated mailbox loses nothing; it is worth a line in the log. */
	if (d->uidvalidity != 0 && imap_uidvalidity(d->imap) != d->uidvalidity)
		log_warn("imap: UIDVALIDITY changed from %u to %u: the mailbox "
		    "was recreated; every message in it is read again and "
		    "recognised by its Message-ID", d->uidvalidity,
		    imap_uidvalidity(d->imap));
	d->uidvalidity = imap_uidvalidity(d->imap);
	backoff_reset(&d->imap_backoff);
	d->imap_retry_ms = 0;
	return 0;
fail:
	imap_retry_later(d);
	return -1;
}

/* A quarantined message is an error for the operator and done for the
 * inbox (it is recorded, never tried again): the status to go on with. */
static enum intake_status
log_outcome(enum intake_status st, char *outcome)
{
	if (st == INTAKE_DONE || st == INTAKE_ROBOT || st == INTAKE_WAIT)
		log_info("%s", outcome ? outcome : "done");
	else if (st == INTAKE_QUARANTINE)
		log_err("%s", outcome ? outcome : "quarantined");
	else
		log_warn("%s", outcome ? outcome : "temporary failure");
	free(outcome);
	return st == INTAKE_QUARANTINE ? INTAKE_DONE : st;
}

/*
 * While a backlog drains, what is done leaves in batches: the committed
 * messages are moved (or flagged) in one IMAP command and the outbox is
 * sent, every SETTLE_EVERY messages or SETTLE_MS, whichever comes first,
 * and at once after the first message, so the first answer leaves while
 * the rest still waits.
 */
#define SETTLE_EVERY	50
#define SETTLE_MS	500

struct settling {
	uint32_t	 done[SETTLE_EVERY];	/* committed, not yet moved */
	size_t		 ndone;
	int64_t		 last_ms;	/* the last settlement, 0: none yet */
};

static void	flush(struct daemon *);

/* Move what is committed, then send what it queued. */
static int
settle(struct daemon *d, struct settling *z, char *err, size_t errlen)
{
	/* One sync makes the batch's commits durable before the messages
	 * leave the inbox; if it fails they stay, to be seen again. */
	if (z->ndone > 0 && store_sync(d->store) == -1) {
		log_err("store: %s", store_errmsg(d->store));
		z->ndone = 0;
	}
	if (z->ndone > 0 && imap_done_many(d->imap, z->done, z->ndone, err,
	    errlen) == -1)
		return -1;
	z->ndone = 0;
	z->last_ms = mono_ms();
	if (!want_quit)
		flush(d);
	return 0;
}

/* A message is committed: settle when the batch is full or old. */
static int
settle_after(struct daemon *d, struct settling *z, uint32_t uid, char *err,
    size_t errlen)
{
	z->done[z->ndone++] = uid;
	if (z->ndone < SETTLE_EVERY && z->last_ms != 0 &&
	    mono_ms() - z->last_ms < SETTLE_MS)
		return 0;
	return settle(d, z, err, errlen);
}

/* Rounds of thinking a message may take while its game keeps moving on,
 * before its robots think inline, in its transaction. */
#define ROBOT_ROUNDS	20

static int	 settle_one(struct daemon *, const struct parked *);

static int
robot_hold(void *arg, const char *from)
{
	struct daemon *d = arg;
	size_t i;

	for (i = 0; i < d->nparked; i++)
		if (&d->parked[i] != d->rerun &&
		    util_strcaseeq(referee_robot_from(d->parked[i].job != NULL ?
		    d->parked[i].job : d->parked[i].plans.v[0]), from))
			return 1;
	return 0;
}

static void
parked_free(struct parked *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		while (waitpid(p->pid, NULL, 0) == -1 && errno == EINTR)
			;
	}
	if (p->pid != 0)
		close(p->fd);
	referee_robot_free(p->job);
	referee_plans_free(&p->plans);
	free(p->name);
	free(p->data);
}

/*
 * What `ludus outbox` shows of the robots: a row for each parked message
 * (the game, this process, when the message came), marked while a worker
 * thinks for it.  Only shown, never read back here: a failure to write
 * one is logged and the robots go on.
 */
static void
wait_row(struct daemon *d, struct parked *p, int what)
{
	int rc;

	if (what == -1) {
		if (p->wait_id == 0)
			return;
		rc = store_robot_wait_del(d->store, p->wait_id);
		p->wait_id = 0;
	} else if (p->wait_id == 0)
		rc = store_robot_wait_add(d->store, referee_robot_game(p->job),
		    (int)getpid(), p->now, what, &p->wait_id);
	else
		rc = store_robot_wait_set(d->store, p->wait_id, what);
	if (rc == -1)
		log_warn("robot: %s", store_errmsg(d->store));
}

/* Rows left by a ludusd or a delivery that is gone. */
static void
wait_rows_clean(struct daemon *d)
{
	struct store_robot_wait *v;
	int i, n;

	if (store_robot_waits(d->store, &v, &n) == -1) {
		log_warn("robot: %s", store_errmsg(d->store));
		return;
	}
	for (i = 0; i < n; i++)
		if (v[i].pid == (int)getpid() || (kill(v[i].pid, 0) == -1 &&
		    errno == ESRCH))
			(void)store_robot_wait_del(d->store, v[i].id);
	free(v);
}

static void
parked_remove(struct daemon *d, struct parked *p)
{
	wait_row(d, p, -1);
	parked_free(p);
	*p = d->parked[--d->nparked];
}

/*
 * Robots think at the referee's own priority while no other message waits,
 * so a player's move against a robot is answered as fast as any mail on a
 * busy machine; while the daemon takes other messages in, the workers step
 * back (nice 10) so players' mail goes first.  Going back up needs the
 * privilege to lower a nice value (root, or RLIMIT_NICE): without it a
 * worker that stepped back stays there until it is done.
 */
#define ROBOT_NICE_BUSY	10

static void
robots_nice(struct daemon *d, int nice)
{
	size_t i;
	int thinking = 0;

	for (i = 0; i < d->nparked; i++)
		thinking |= d->parked[i].pid > 0;
	/* With none at work the next worker starts at the referee's
	 * priority: the message that parks its job is no other message. */
	if (!thinking)
		d->robots_nice = 0;
	if (d->robots_nice == nice || !thinking)
		return;
	d->robots_nice = nice;
	for (i = 0; i < d->nparked; i++)
		if (d->parked[i].pid > 0) {
			(void)setpriority(PRIO_PROCESS,
			    (id_t)d->parked[i].pid, nice);
			log_debug("robot: game #%lld: worker %ld at nice %d "
			    "(%s)", (long long)referee_robot_game(
			    d->parked[i].job), (long)d->parked[i].pid, nice,
			    nice ? "a message waits" : "no message waits");
		}
}

/* Start workers for the jobs that wait, as many as may run. */
static void
robots_start(struct daemon *d)
{
	struct parked *p;
	const void *ans;
	size_t i, len, off;
	ssize_t w;
	int running = 0, fds[2];

	for (i = 0; i < d->nparked; i++)
		running += d->parked[i].pid > 0;
	for (i = 0; i < d->nparked && running < d->workers; i++) {
		p = &d->parked[i];
		if (p->pid != 0)
			continue;
		if (pipe(fds) == -1) {
			log_err("robot: pipe: %s", strerror(errno));
			return;
		}
		if ((p->pid = fork()) == -1) {
			log_err("robot: fork: %s", strerror(errno));
			p->pid = 0;
			close(fds[0]);
			close(fds[1]);
			return;
		}
		if (p->pid == 0) {
			/* The worker: no store, no mail, no log; it
			 * thinks, writes its answers and goes. */
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			close(fds[0]);
			if (d->robots_nice != 0)
				(void)setpriority(PRIO_PROCESS, 0,
				    d->robots_nice);
			referee_robot_think(p->job);
			ans = referee_robot_answers(p->job, &len);
			for (off = 0; off < len; off += (size_t)w)
				if ((w = write(fds[1], (const char *)ans + off,
				    len - off)) <= 0)
					_exit(1);
			/* Wake the daemon from its IDLE or poll. */
			if (write(wake_pipe[1], "", 1) == -1) {
				/* Full: it is awake anyway. */
			}
			_exit(0);
		}
		close(fds[1]);
		(void)fcntl(fds[0], F_SETFD, FD_CLOEXEC);
		p->fd = fds[0];
		running++;
		wait_row(d, p, 1);
	}
}

/* Hand a parked message in again with what its robots thought; 1 when
 * it is done with (committed, or to be read again from the inbox). */
static int
robot_rerun(struct daemon *d, struct parked *p)
{
	enum intake_status st;
	char *outcome;
	int64_t t0 = mono_ms();

	d->ref.plans = &p->plans;
	d->rerun = p;
	if (p->rounds >= ROBOT_ROUNDS)
		d->ref.robots_apart = 0;
	st = intake_message(&d->ref, p->data, p->len, p->now, &outcome);
	d->ref.robots_apart = 1;
	d->ref.plans = NULL;
	d->rerun = NULL;
	if (st == INTAKE_ROBOT) {
		const struct referee_robot *last = p->plans.v[p->plans.n - 1];

		free(outcome);
		p->job = referee_robot_take(&d->ref);
		p->pid = 0;
		wait_row(d, p, 0);
		/* Where the last answers end (a long run of robot moves, or
		 * the message's next game) is progress; anywhere else the
		 * game moved on while the robot thought. */
		if (referee_robot_game(p->job) == referee_robot_game(last) &&
		    referee_robot_ply(p->job) != referee_robot_ply(last) +
		    referee_robot_moves(last)) {
			p->rounds++;
			log_info("robot: game #%lld moved on while its robot "
			    "thought; thinking again",
			    (long long)referee_robot_game(p->job));
		}
		return 0;
	}
	st = log_outcome(st, outcome);
	log_info("robot: applied in %lld ms, %lld ms after the message came",
	    (long long)(mono_ms() - t0), (long long)(mono_ms() - p->since_ms));
	if (st == INTAKE_DONE)
		(void)settle_one(d, p);
	d->recheck = 1;
	return 1;
}

/* Has p's worker written its answers (or died)? */
static int
robot_answered(const struct parked *p)
{
	struct pollfd pfd;

	if (p->pid <= 0)
		return 0;
	pfd.fd = p->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	return poll(&pfd, 1, 0) > 0;
}

static int
robots_answered(const struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nparked; i++)
		if (robot_answered(&d->parked[i]))
			return 1;
	return 0;
}

static int	 robot_inline(struct daemon *, struct parked *);

/* Collect the workers that finished, apply what they thought. */
static void
robots_reap(struct daemon *d)
{
	struct parked *p;
	struct referee_robot *j;
	char *buf;
	size_t i, got, len;
	ssize_t r;
	int status, ok;
	pid_t pid;

	for (i = 0; i < d->nparked;) {
		p = &d->parked[i];
		if (!robot_answered(p)) {
			i++;
			continue;
		}
		(void)referee_robot_answers(p->job, &len);
		buf = xmalloc(len);
		for (got = 0; got < len; got += (size_t)r)
			if ((r = read(p->fd, buf + got, len - got)) <= 0)
				break;
		close(p->fd);
		while ((pid = waitpid(p->pid, &status, 0)) == -1 &&
		    errno == EINTR)
			;
		ok = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		    got == len && referee_robot_set_answers(p->job, buf,
		    len) == 0;
		free(buf);
		p->pid = 0;
		j = p->job;
		p->job = NULL;
		if (!ok) {
			/* A worker that died: the robot thinks inline. */
			log_err("robot: the worker for game #%lld failed; "
			    "thinking in the daemon", (long long)
			    referee_robot_game(j));
			p->rounds = ROBOT_ROUNDS;
		}
		log_info("robot: game #%lld: %d move%s thought (budget %ld ms "
		    "a move), %lld ms after the message came",
		    (long long)referee_robot_game(j), referee_robot_moves(j),
		    referee_robot_moves(j) == 1 ? "" : "s",
		    referee_robot_budget(j),
		    (long long)(mono_ms() - p->since_ms));
		referee_plans_add(&p->plans, j);
		if (robot_rerun(d, p) || robot_inline(d, p))
			parked_remove(d, p);
		else
			i++;
	}
	robots_start(d);
}

/*
 * A robot that does not search (levels 1 and 2: a choice among the legal
 * moves, a look one move ahead) has chosen before a worker could even be
 * scheduled on a busy machine: it thinks here, at once, and the message is
 * applied.  1 when the message is done with.
 */
static int
robot_inline(struct daemon *d, struct parked *p)
{
	struct referee_robot *j;

	while (p->job != NULL && p->pid == 0 &&
	    !referee_robot_searches(p->job)) {
		j = p->job;
		p->job = NULL;
		referee_robot_think(j);
		log_info("robot: game #%lld: %d move%s chosen at once, without "
		    "a worker (no search)", (long long)referee_robot_game(j),
		    referee_robot_moves(j), referee_robot_moves(j) == 1 ? "" :
		    "s");
		referee_plans_add(&p->plans, j);
		if (robot_rerun(d, p))
			return 1;
	}
	return 0;
}

/* The message waits for a robot: keep it and have the robot think.  It
 * came by IMAP (uid), from the Maildir (name) or from the inbound table
 * (inbound, its row); data is taken over. */
static void
park(struct daemon *d, uint32_t uid, const char *name, int64_t inbound,
    char *data, size_t len, int64_t now)
{
	struct parked *p;
	size_t i, waiting = 0;
	int64_t oldest = 0, t = mono_ms();

	d->parked = xreallocarray(d->parked, d->nparked + 1,
	    sizeof(*d->parked));
	p = &d->parked[d->nparked++];
	memset(p, 0, sizeof(*p));
	p->uid = uid;
	p->uidvalidity = d->uidvalidity;
	p->name = name ? xstrdup(name) : NULL;
	p->inbound = inbound;
	p->data = data;
	p->len = len;
	p->now = now;
	p->since_ms = t;
	p->job = referee_robot_take(&d->ref);
	if (robot_inline(d, p)) {
		parked_remove(d, p);
		return;
	}
	wait_row(d, p, 0);
	robots_start(d);
	for (i = 0; i < d->nparked; i++)
		if (d->parked[i].pid == 0) {
			waiting++;
			if (t - d->parked[i].since_ms > oldest)
				oldest = t - d->parked[i].since_ms;
		}
	/* Robots falling behind: more moves to think than workers. */
	if (waiting > 0)
		log_warn("robot: %zu move%s waiting for a worker (%d at work), "
		    "the oldest for %lld ms", waiting, waiting == 1 ? "" : "s",
		    d->workers, (long long)oldest);
}

static int
is_parked(const struct daemon *d, uint32_t uid, const char *name)
{
	size_t i;

	for (i = 0; i < d->nparked; i++)
		if (name != NULL ? d->parked[i].name != NULL &&
		    strcmp(d->parked[i].name, name) == 0 :
		    d->parked[i].name == NULL && d->parked[i].uid == uid &&
		    d->parked[i].uidvalidity == d->uidvalidity)
			return 1;
	return 0;
}

static void
robots_stop(struct daemon *d)
{
	while (d->nparked > 0)
		parked_remove(d, &d->parked[0]);
	free(d->parked);
	d->parked = NULL;
}

/* A message that waited for a robot is committed: out of the inbox, and
 * its answers sent.  -1 when it stays (read again later: seen before). */
static int
settle_one(struct daemon *d, const struct parked *p)
{
	const struct config_maildir *cm = &d->cfg.maildir;
	char err[512];

	if (store_sync(d->store) == -1) {
		log_err("store: %s", store_errmsg(d->store));
		return -1;
	}
	if (p->inbound != 0) {
		if (store_inbound_done(d->store, p->inbound) == -1) {
			log_err("inbound: %s", store_errmsg(d->store));
			return -1;
		}
	} else if (p->name != NULL) {
		if (maildir_done(cm->path, p->name, cm->processed, err,
		    sizeof(err)) == -1) {
			log_err("maildir: %s", err);
			return -1;
		}
	} else if (d->imap != NULL && imap_connected(d->imap) &&
	    p->uidvalidity == d->uidvalidity) {
		if (imap_done(d->imap, p->uid, err, sizeof(err)) == -1) {
			log_err("imap: %s", err);
			imap_drop(d);
			return -1;
		}
	} else
		return -1;
	flush(d);
	return 0;
}

/* The first fetch of a pass: a few messages, so that the first answer
 * of a backlog does not wait for a full batch to come over. */
#define IMAP_FETCH_FIRST	4

/* One pass over the IMAP mailbox; -1 when the connection failed.  The
 * messages are fetched IMAP_FETCH_MAX at a time (IMAP_FETCH_FIRST the
 * first time), in one round trip. */
static int
cycle_imap(struct daemon *d)
{
	struct settling z;
	struct imap_msg *msgs = NULL;
	uint32_t *uids = NULL;
	size_t n = 0, i, k, batch = 0;
	char err[512], *outcome;
	enum intake_status st;
	int64_t now;

	memset(&z, 0, sizeof(z));
	if (imap_ensure(d) == -1)
		return -1;
	if (imap_search(d->imap, &uids, &n, err, sizeof(err)) == -1)
		goto fail;
	/* The server answered: the last contact, for `ludus stats`. */
	if (store_counter_set(d->store, "imap.contact", clock_now()) == -1)
		log_warn("store: %s", store_errmsg(d->store));
	/* Those waiting for a robot are not read again. */
	for (i = k = 0; i < n; i++)
		if (!is_parked(d, uids[i], NULL))
			uids[k++] = uids[i];
	n = k;
	for (i = 0; i < n && !want_quit; i += batch) {
		batch = i == 0 ? IMAP_FETCH_FIRST : IMAP_FETCH_MAX;
		if (batch > n - i)
			batch = n - i;
		if (imap_fetch_many(d->imap, uids + i, batch, &msgs, err,
		    sizeof(err)) == -1)
			goto fail;
		for (k = 0; k < batch && !want_quit; k++) {
			/* Gone since the search (another client moved it). */
			if (msgs[k].data == NULL)
				continue;
			robots_nice(d, ROBOT_NICE_BUSY);
			now = clock_now();
			st = intake_message(&d->ref, msgs[k].data, msgs[k].len,
			    now, &outcome);
			st = log_outcome(st, outcome);
			if (st == INTAKE_ROBOT)
				park(d, msgs[k].uid, NULL, 0, msgs[k].data,
				    msgs[k].len, now);
			else
				free(msgs[k].data);
			msgs[k].data = NULL;
			if (st != INTAKE_DONE)
				continue;
			if (settle_after(d, &z, msgs[k].uid, err,
			    sizeof(err)) == -1)
				goto fail;
		}
		imap_msgs_free(msgs, batch);
		msgs = NULL;
	}
	/* Even when asked to quit: what is committed leaves the inbox. */
	if (z.ndone > 0 && settle(d, &z, err, sizeof(err)) == -1)
		goto fail;
	free(uids);
	return 0;
fail:
	imap_msgs_free(msgs, batch);
	free(uids);
	log_err("imap: %s", err);
	imap_retry_later(d);
	return -1;
}

static int
cycle_maildir(struct daemon *d)
{
	const struct config_maildir *cm = &d->cfg.maildir;
	char **names, err[512], *data, *outcome;
	size_t n, i, len;
	enum intake_status st;
	int64_t now;

	if (maildir_list(cm->path, &names, &n, err, sizeof(err)) == -1) {
		log_err("maildir: %s", err);
		return -1;
	}
	for (i = 0; i < n && !want_quit; i++) {
		if (is_parked(d, 0, names[i]))
			continue;
		if (maildir_read(cm->path, names[i],
		    (size_t)d->cfg.limits.message_size * 2 + 65536, &data, &len,
		    err, sizeof(err)) == -1) {
			log_err("maildir: %s", err);
			continue;
		}
		robots_nice(d, ROBOT_NICE_BUSY);
		now = clock_now();
		st = intake_message(&d->ref, data, len, now, &outcome);
		st = log_outcome(st, outcome);
		if (st == INTAKE_ROBOT)
			park(d, 0, names[i], 0, data, len, now);
		else
			free(data);
		if (st == INTAKE_DONE && store_sync(d->store) == -1) {
			log_err("store: %s", store_errmsg(d->store));
			continue;
		}
		if (st == INTAKE_DONE && maildir_done(cm->path, names[i],
		    cm->processed, err, sizeof(err)) == -1)
			log_err("maildir: %s", err);
	}
	maildir_names_free(names, n);
	return 0;
}

/*
 * The mail LMTP stored (the inbound table), in the order it came.  The
 * messages of one route (a game, or a sender writing about none) are
 * taken in order: once one of them waits (for a robot, behind the
 * sender's earlier message, or to be tried again after a temporary
 * failure) the later ones wait for the next pass.  After INBOUND_ATTEMPTS
 * temporary failures a message is set aside (dead-lettered, `ludus
 * inbound` shows it) so that it no longer holds up its route.
 */
#define INBOUND_ATTEMPTS	8
#define INBOUND_RETRY_MAX	300

static int
inbound_parked(const struct daemon *d, int64_t id)
{
	size_t i;

	for (i = 0; i < d->nparked; i++)
		if (d->parked[i].inbound == id)
			return 1;
	return 0;
}

static int
route_held(const struct strv *held, const char *route)
{
	int i;

	for (i = 0; i < held->n; i++)
		if (strcmp(held->v[i], route) == 0)
			return 1;
	return 0;
}

/* A temporary failure: counted, tried again later, or given up. */
static int
inbound_attempts(void)
{
#ifdef LUDUS_TEST_CLOCK
	/* Test builds: fewer attempts, for a test of the dead letters. */
	if (getenv("LUDUS_INBOUND_ATTEMPTS") != NULL)
		return atoi(getenv("LUDUS_INBOUND_ATTEMPTS"));
#endif
	return INBOUND_ATTEMPTS;
}

static void
inbound_failed(struct daemon *d, const struct store_inbound *row,
    const char *why, int64_t now)
{
	int attempts = row->attempts + 1, dead = attempts >= inbound_attempts();
	int64_t wait = (int64_t)1 << (attempts - 1);

	if (wait > INBOUND_RETRY_MAX)
		wait = INBOUND_RETRY_MAX;
	if (store_inbound_retry(d->store, row->id, now + wait, dead, why) ==
	    -1)
		log_warn("inbound: %s", store_errmsg(d->store));
	else if (dead)
		log_err("inbound: message %lld (%s) set aside after %d "
		    "attempts; `ludus inbound` shows it", (long long)row->id,
		    row->route, attempts);
	if (!dead && (d->inbound_wake == 0 || now + wait < d->inbound_wake))
		d->inbound_wake = now + wait;
}

static void
cycle_inbound(struct daemon *d)
{
	struct store_inbound row;
	struct strv held = { 0 };
	enum intake_status st;
	char *outcome;
	int64_t after = 0, now, flushed_ms = 0;
	int rc, n = 0;

	d->inbound_wake = 0;
#ifdef LUDUS_TEST_CLOCK
	/* Test builds: mail stored by LMTP and not yet read, to kill the
	 * daemon in between. */
	if (getenv("LUDUS_INBOUND_HOLD") != NULL)
		return;
#endif
	while (!want_quit && (rc = store_inbound_next(d->store, after, &row)) ==
	    0) {
		after = row.id;
		now = clock_now();
		if (route_held(&held, row.route) || inbound_parked(d, row.id) ||
		    row.next_try > now) {
			if (row.next_try > now && (d->inbound_wake == 0 ||
			    row.next_try < d->inbound_wake))
				d->inbound_wake = row.next_try;
			strv_add(&held, row.route);
			store_inbound_clear(&row);
			continue;
		}
		robots_nice(d, ROBOT_NICE_BUSY);
		st = intake_message(&d->ref, row.raw, row.len, now, &outcome);
		if (st == INTAKE_TEMPFAIL)
			inbound_failed(d, &row, outcome ? outcome :
			    "temporary failure", now);
		st = log_outcome(st, outcome);
		if (st == INTAKE_ROBOT) {
			park(d, 0, NULL, row.id, row.raw, row.len, now);
			row.raw = NULL;
		}
		if (st != INTAKE_DONE) {
			if (row.attempts + 1 < inbound_attempts() ||
			    st != INTAKE_TEMPFAIL)
				strv_add(&held, row.route);
		} else if (store_inbound_done(d->store, row.id) == -1)
			log_err("inbound: %s", store_errmsg(d->store));
		else if (++n == 1 || n % SETTLE_EVERY == 0 ||
		    mono_ms() - flushed_ms >= SETTLE_MS) {
			/* The answers leave while the backlog drains, each
			 * batch after one sync of what it answers. */
			if (store_sync(d->store) == -1)
				log_err("store: %s", store_errmsg(d->store));
			else
				flush(d);
			flushed_ms = mono_ms();
		}
		store_inbound_clear(&row);
		/* Deliveries are answered while the backlog drains. */
		lmtp_service(d->lmtp, mono_ms());
	}
	if (rc == -1)
		log_err("inbound: %s", store_errmsg(d->store));
	strv_free(&held);
}

/* A recipient of an LMTP delivery: the referee's address (+detail). */
static int
lmtp_recipient(void *arg, const char *address)
{
	struct daemon *d = arg;

	return lmtp_address_is(address, d->cfg.referee.address);
}

/* A message received by LMTP: the mail server hears 250 only once its
 * row is committed and synced. */
static enum lmtp_stored
lmtp_deliver(void *arg, const char *data, size_t len)
{
	struct daemon *d = arg;
	enum lmtp_stored st = LMTP_STORED;
	char *key, *route;
	int dup = 0;

	intake_route(&d->cfg, data, len, &key, &route);
	if (store_begin(d->store) == -1 || store_inbound_add(d->store, key,
	    route, clock_now(), data, len, &dup) == -1 ||
	    store_commit(d->store) == -1 || store_sync(d->store) == -1) {
		store_rollback(d->store);
		/* SQLite's SQLITE_FULL: "database or disk is full". */
		st = strstr(store_errmsg(d->store), "is full") != NULL ?
		    LMTP_FULL : LMTP_TEMP;
		log_warn("lmtp: %s: not stored, the mail server will try "
		    "again: %s", key, store_errmsg(d->store));
	} else
		log_info("lmtp: %s: %s, %zu bytes (%s)", key, dup ?
		    "delivered again, kept once" : "stored", len, route);
	free(key);
	free(route);
	return st;
}

static int
lmtp_open(struct daemon *d, char *err, size_t errlen)
{
	static const struct lmtp_hooks hooks = { lmtp_recipient,
	    lmtp_deliver, NULL };
	struct lmtp_hooks h = hooks;

	if (d->cfg.lmtp == NULL)
		return 0;
	h.arg = d;
	/* The limit of a Maildir's message: what is above limits.
	 * message_size is still read, to tell its sender. */
	d->lmtp = lmtp_start(d->cfg.lmtp, (size_t)d->cfg.limits.message_size *
	    2 + 65536, wake_pipe[0], &h, err, errlen);
	if (d->lmtp == NULL)
		return -1;
	log_info("lmtp: listening on %s", d->cfg.lmtp);
	return 0;
}

/* Tell systemd (Type=notify) how the daemon stands; nothing elsewhere. */
static void
notify(const char *state)
{
#ifdef HAVE_SYSTEMD
	int rc;

	if ((rc = sd_notify(0, state)) < 0)
		log_warn("sd_notify: %s", strerror(-rc));
#else
	(void)state;
#endif
}

/* The store failed: no timers and no sending for a while. */
static void
wait_for_store(struct daemon *d)
{
	int64_t now = clock_now();

	d->store_retry_at = now + backoff_next(&d->store_backoff);
	log_warn("store: next attempt to send and fire timers in %lld s",
	    (long long)(d->store_retry_at - now));
}

static void
flush(struct daemon *d)
{
	struct outbox_stats st;
	char err[512];

	if (clock_now() < d->store_retry_at)
		return;
	if (outbox_flush(d->store, &d->cfg, &d->unmarked, clock_now(), &st,
	    err, sizeof(err)) == -1) {
		log_err("%s", err);
		wait_for_store(d);
		d->trouble = 1;
		return;
	}
	if (st.unreachable || st.untrusted)
		d->trouble = 1;
	if (st.sent > 0 && d->cfg.out == CONFIG_OUT_SMTP)
		d->smtp_until = clock_now() + SMTP_KEEP;
	backoff_reset(&d->store_backoff);
	d->store_retry_at = 0;
	if (st.sent || st.retry || st.failed)
		log_info("outbox: %d sent, %d to retry, %d given up", st.sent,
		    st.retry, st.failed);
}

/* Milliseconds until the loop must run again: the poll interval, the next
 * outgoing mail due, the next timer (whole seconds of the referee's
 * clock), the next IMAP attempt (the monotonic clock: an attempt due
 * already, one that took longer than its wait, is made at once). */
static int64_t
next_wake_ms(struct daemon *d)
{
	int64_t now = clock_now(), wake, t, ms;

	wake = now + (d->cfg.imap.poll_interval_ms + 999) / 1000;
	if (d->smtp_until > now && d->smtp_until < wake)
		wake = d->smtp_until;
	if (store_outbox_next(d->store, &t) == 0) {
		if (t < d->store_retry_at)
			t = d->store_retry_at;
		if (t < wake)
			wake = t;
	}
	if (store_timer_next(d->store, &t) == 0) {
		if (t < d->store_retry_at)
			t = d->store_retry_at;
		if (t < wake)
			wake = t;
	}
	if (d->inbound_wake != 0 && d->inbound_wake < wake)
		wake = d->inbound_wake;
	ms = wake > now ? (wake - now) * 1000 : 0;
	if ((t = lmtp_next_ms(d->lmtp, mono_ms())) != -1 && t < ms)
		ms = t;
	if (d->cfg.in == CONFIG_IN_IMAP && (d->imap == NULL ||
	    !imap_connected(d->imap))) {
		t = d->imap_retry_ms - mono_ms();
		if (t < ms)
			ms = t > 0 ? t : 0;
	}
	return ms;
}

/*
 * A Maildir is watched with inotify: a message put into new/ or cur/
 * (renamed or linked there, as Maildir delivery does) wakes the loop at
 * once.  The poll interval stays as a fallback where inotify cannot watch
 * (a network file system does not report other hosts' changes).
 */
static void
maildir_watch(struct daemon *d)
{
	static const char *const sub[] = { "new", "cur" };
	const char *dir = d->cfg.maildir.path;
	char *path;
	size_t i;

	if (d->cfg.in != CONFIG_IN_MAILDIR || (d->watched != NULL &&
	    strcmp(d->watched, dir) == 0))
		return;
	if (d->maildir_watch != -1)
		close(d->maildir_watch);
	free(d->watched);
	d->watched = xstrdup(dir);
	if ((d->maildir_watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) ==
	    -1) {
		log_warn("maildir: inotify: %s; reading %s every poll "
		    "interval", strerror(errno), dir);
		return;
	}
	for (i = 0; i < nitems(sub); i++) {
		path = xasprintf("%s/%s", dir, sub[i]);
		if (inotify_add_watch(d->maildir_watch, path, IN_CREATE |
		    IN_MOVED_TO) == -1) {
			log_warn("maildir: inotify %s: %s; reading it every "
			    "poll interval", path, strerror(errno));
			close(d->maildir_watch);
			d->maildir_watch = -1;
		}
		free(path);
		if (d->maildir_watch == -1)
			return;
	}
}

/* Forget what the watch saw: the listing that follows reads it all. */
static void
maildir_watch_drain(struct daemon *d)
{
	char buf[4096];

	if (d->maildir_watch != -1)
		while (read(d->maildir_watch, buf, sizeof(buf)) > 0)
			;
}

static void
maildir_unwatch(struct daemon *d)
{
	if (d->maildir_watch != -1)
		close(d->maildir_watch);
	d->maildir_watch = -1;
	free(d->watched);
	d->watched = NULL;
}

/* Going to sleep: the SMTP connection kept while mail flows (and for
 * SMTP_KEEP seconds after, so the next answer needs no new TLS session)
 * is closed and the allocator gives back what is free, so an idle daemon
 * holds little memory of its own. */
static void
go_idle(struct daemon *d)
{
	if (d->nparked > 0 || d->smtp_until == 0 || clock_now() <
	    d->smtp_until)
		return;
	smtp_release();
	malloc_trim(0);
	d->smtp_until = 0;
}

static void
sleep_until_news(struct daemon *d)
{
	struct pollfd pfd[2];
	int64_t ms = next_wake_ms(d);
	char err[512];
	/* With LMTP, one descriptor holds the wake pipe and the
	 * connections. */
	int rc, n = 1, wake = d->lmtp ? lmtp_fd(d->lmtp) : wake_pipe[0];

	if (ms <= 0 || want_quit || want_reload || want_poll || d->recheck ||
	    robots_answered(d))
		return;
	/* Nothing waits now but the robots. */
	robots_nice(d, 0);
	if (ms > INT_MAX)
		ms = INT_MAX;
	go_idle(d);
	if (d->cfg.in == CONFIG_IN_IMAP && d->cfg.imap.idle &&
	    d->imap != NULL && imap_has_idle(d->imap)) {
		rc = imap_idle(d->imap, (int)ms, wake, err,
		    sizeof(err));
		if (rc == -1) {
			log_warn("imap: idle: %s; reconnecting", err);
			imap_drop(d);
		}
		drain_wake_pipe();
		return;
	}
	pfd[0].fd = wake;
	pfd[0].events = POLLIN;
	if (d->cfg.in == CONFIG_IN_MAILDIR && d->maildir_watch != -1) {
		pfd[1].fd = d->maildir_watch;
		pfd[1].events = POLLIN;
		n = 2;
	}
	if (poll(pfd, (nfds_t)n, (int)ms) > 0) {
		drain_wake_pipe();
		maildir_watch_drain(d);
	}
}

/* Where the game definitions are: $LUDUS_GAMES_DIR, games_dir, or the
 * installed ones. */
static const char *
games_dir(const struct daemon *d)
{
	const char *env = getenv("LUDUS_GAMES_DIR");

	return env && *env ? env : d->cfg.games_dir ? d->cfg.games_dir :
	    gamedef_default_dir();
}

/* Every template read now, into the referee's cache: a template edited
 * afterwards changes nothing until a reload checks it. */
static int
hold_templates(struct referee *r, const struct config *cfg, char *err,
    size_t errlen)
{
	const char *tdir = getenv("LUDUS_TEMPLATES_DIR");
	struct buf errors = { 0 };
	char *c;
	int rc;

	if (tdir == NULL || *tdir == '\0')
		tdir = cfg->templates_dir ? cfg->templates_dir :
		    LUDUS_TEMPLATES_DIR;
	if ((rc = tmpl_cache_fill(r->tmpl, tdir, &errors)) != 0) {
		for (c = errors.s; c != NULL && *c; c++)
			if (*c == '\n')
				*c = ' ';
		util_err(err, errlen, "templates %s: %s", tdir,
		    util_trim(errors.s ? errors.s : ""));
	}
	buf_free(&errors);
	return rc == 0 ? 0 : -1;
}

static int
open_everything(struct daemon *d, char *err, size_t errlen)
{
	const char *dir = games_dir(d);

	if (gamedef_load_dir(dir, &d->defs, &d->ndefs, err, errlen) == -1)
		return -1;
	if (store_open(d->cfg.database, &d->store, err, errlen) == -1)
		return -1;
	/* The first start makes the secret, as `ludus init` would. */
	if (token_secret_create(d->cfg.referee.secret_file, err, errlen) ==
	    -1)
		return -1;
	if (referee_open(&d->ref, d->store, &d->cfg, d->defs, d->ndefs,
	    dir, d->cfg.referee.secret_file, err, errlen) == -1)
		return -1;
	return hold_templates(&d->ref, &d->cfg, err, errlen);
}

/*
 * ludusd -n: everything that can be checked without touching mail or the
 * database.  Each problem is printed as "ludusd: what: why"; returns how
 * many there were.
 */
static int
preflight_path(const char *what, const char *path, int mode, int dir)
{
	struct stat sb;

	if (stat(path, &sb) == -1) {
		fprintf(stderr, "ludusd: %s %s: %s\n", what, path,
		    strerror(errno));
		return 1;
	}
	if (dir != !!S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "ludusd: %s %s: %s\n", what, path, dir ?
		    "not a directory" : "a directory");
		return 1;
	}
	if (access(path, mode) == -1) {
		fprintf(stderr, "ludusd: %s %s: %s for this user\n", what, path,
		    mode & X_OK ? "not executable" : mode & W_OK ?
		    "not writable" : "not readable");
		return 1;
	}
	return 0;
}

/* A file that need not exist yet: its directory must take it. */
static int
preflight_new(const char *what, const char *path)
{
	char *dir, *slash;
	int bad;

	if (access(path, F_OK) == 0)
		return preflight_path(what, path, R_OK | W_OK, 0);
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL) {
		free(dir);
		dir = xstrdup(".");
	} else
		*(slash == dir ? slash + 1 : slash) = '\0';
	bad = preflight_path(what, dir, W_OK | X_OK, 1);
	free(dir);
	return bad;
}

/* What a reload reads again, read as it would be: the game definitions
 * and every template of the configuration cfg.  Each problem is appended
 * to problems, a line each; returns how many there were. */
static int
check_words(const struct config *cfg, struct buf *problems)
{
	const char *env = getenv("LUDUS_GAMES_DIR");
	const char *games = env && *env ? env : cfg->games_dir ?
	    cfg->games_dir : gamedef_default_dir();
	const char *tdir = getenv("LUDUS_TEMPLATES_DIR");
	struct gamedef *defs;
	struct buf errors = { 0 };
	char err[512];
	int bad = 0, ndefs;

	if (tdir == NULL || *tdir == '\0')
		tdir = cfg->templates_dir;
	if (gamedef_load_dir(games, &defs, &ndefs, err, sizeof(err)) == -1) {
		buf_printf(problems, "game definitions: %s\n", err);
		bad++;
	} else
		gamedef_free_all(defs, ndefs);
	if (tmpl_check_dir(tdir, &errors) != 0) {
		buf_printf(problems, "templates %s: %s", tdir, errors.len ?
		    buf_str(&errors) : "cannot be read\n");
		bad++;
	}
	buf_free(&errors);
	return bad;
}

/* Each line of text on stderr, "ludusd: " before it, or (a reload) in
 * the log as an error, "reload: " before it. */
static void
tell_lines(const char *text, int reloading)
{
	const char *line, *nl;
	int len;

	for (line = text; line != NULL && *line; line = nl) {
		nl = strchr(line, '\n');
		len = nl ? (int)(nl - line) : (int)strlen(line);
		if (reloading)
			log_err("reload: %.*s", len, line);
		else
			fprintf(stderr, "ludusd: %.*s\n", len, line);
		nl = nl ? nl + 1 : NULL;
	}
}


static int
preflight(struct daemon *d)
{
	const char *games = games_dir(d);
	const char *tdir = getenv("LUDUS_TEMPLATES_DIR");
	struct token_secret sec;
	struct buf problems = { 0 };
	char err[512], *path;
	int bad = 0, version;

	if (tdir == NULL || *tdir == '\0')
		tdir = d->cfg.templates_dir;
	if (config_check_passwords(&d->cfg, err, sizeof(err)) == -1) {
		fprintf(stderr, "ludusd: %s\n", err);
		bad++;
	}
	bad += check_words(&d->cfg, &problems);
	tell_lines(buf_str(&problems), 0);
	buf_free(&problems);
	path = xasprintf("%s/commands.yaml", games);
	bad += preflight_path("command aliases", path, R_OK, 0);
	free(path);
	/* An existing database is opened: its version, quick_check (a
	 * PostgreSQL one: the connection and its version). */
	if (store_is_server(d->cfg.database) ||
	    access(d->cfg.database, F_OK) == 0) {
		if (store_check(d->cfg.database, &version, err, sizeof(err)) ==
		    -1) {
			fprintf(stderr, "ludusd: database %s\n", err);
			bad++;
		} else if (version < STORE_SCHEMA_VERSION)
			printf("database %s: schema version %d, migrated to %d "
			    "at the start\n", d->cfg.database, version,
			    STORE_SCHEMA_VERSION);
	}
	/* Each language with templates needs its catalogue, else the
	 * boards and the referee's sentences in its mails are English. */
	{
		static const char *const langs[] = { "ru", "ar" };
		size_t i;

		for (i = 0; i < nitems(langs); i++) {
			path = xasprintf("%s/%s", tdir, langs[i]);
			if (access(path, F_OK) == 0 && !i18n_known(langs[i])) {
				fprintf(stderr, "ludusd: catalogue %s: no "
				    "%s/%s/LC_MESSAGES/ludus.mo\n", langs[i],
				    i18n_dir(), langs[i]);
				bad++;
			}
			free(path);
		}
	}
	if (!store_is_server(d->cfg.database))
		bad += preflight_new("database", d->cfg.database);
	if (access(d->cfg.referee.secret_file, F_OK) == 0) {
		if (token_secret_load(d->cfg.referee.secret_file, &sec, err,
		    sizeof(err)) == -1) {
			fprintf(stderr, "ludusd: secret: %s\n", err);
			bad++;
		}
		OPENSSL_cleanse(&sec, sizeof(sec));
	} else
		bad += preflight_new("secret (made at the first start)",
		    d->cfg.referee.secret_file);
	if (d->cfg.pid_file != NULL)
		bad += preflight_new("pid file", d->cfg.pid_file);
	if (d->cfg.metrics.socket != NULL)
		bad += preflight_new("metrics socket", d->cfg.metrics.socket);
	if (d->cfg.in == CONFIG_IN_MAILDIR) {
		static const char *const sub[] = { "new", "cur", "tmp" };
		size_t i;

		for (i = 0; i < nitems(sub); i++) {
			path = xasprintf("%s/%s", d->cfg.maildir.path, sub[i]);
			bad += preflight_path("maildir", path, R_OK | W_OK |
			    X_OK, 1);
			free(path);
		}
	}
	if (d->cfg.out == CONFIG_OUT_SENDMAIL)
		bad += preflight_path("sendmail", d->cfg.sendmail, X_OK, 0);
	return bad;
}

/*
 * ludusd -n -v: the servers too.  Log in to each as the daemon would (TLS
 * and its verification, the login, the mailbox), then log out; nothing
 * is fetched, marked or sent.  Returns how many failed.
 */
/* What a connection used, as it ran: IMAP_TLS_* and SMTP_TLS_* agree. */
static const char *
tls_words(int tls)
{
	return tls == IMAP_TLS_VERIFIED ? "TLS verified" :
	    tls == IMAP_TLS_UNVERIFIED ? "TLS not verified (tls_verify: "
	    "false)" : "no TLS";
}

static int
check_imap(struct daemon *d)
{
	char err[512];
	int bad = 0;

	if (d->cfg.imap.cred.user != NULL && config_password(&d->cfg.imap.cred,
	    &d->imap_password, err, sizeof(err)) == -1) {
		fprintf(stderr, "ludusd: imap: %s\n", err);
		return 1;
	}
	imap_settings_from(d);
	d->imap = imap_new(&d->is);
	if (imap_connect(d->imap, err, sizeof(err)) == -1) {
		fprintf(stderr, "ludusd: imap %s: %s%s\n", d->is.url,
		    imap_untrusted(d->imap) ? "certificate not trusted: " : "",
		    err);
		bad = 1;
	} else
		printf("imap %s: %s, logged in as %s, mailbox %s selected, "
		    "logged out\n", d->is.url, tls_words(imap_tls(d->imap)),
		    d->is.user ? d->is.user :
		    "(none)", d->is.mailbox ? d->is.mailbox : "INBOX");
	imap_drop(d);
	return bad;
}

static int
check_smtp(struct daemon *d)
{
	const struct config_smtp *cs = &d->cfg.smtp;
	struct smtp_settings ss;
	char err[512], *password = NULL;
	int untrusted, tls, rc;

	memset(&ss, 0, sizeof(ss));
	ss.url = cs->url.text;
	ss.user = cs->cred.user;
	ss.ca_file = cs->ca_file;
	ss.no_verify = !cs->tls_verify;
	ss.plain = cs->starttls == CONFIG_STARTTLS_OFF && !cs->url.tls;
	ss.connect_timeout = (long)(cs->timeout_ms / 1000);
	ss.timeout = (long)(cs->timeout_ms / 1000);
	if (ss.user != NULL && config_password(&cs->cred, &password, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "ludusd: smtp: %s\n", err);
		return 1;
	}
	ss.password = password;
	rc = smtp_probe(&ss, &untrusted, &tls, err, sizeof(err));
	if (rc == -1)
		fprintf(stderr, "ludusd: smtp %s: %s%s\n", ss.url, untrusted ?
		    "certificate not trusted: " : "", err);
	else
		printf("smtp %s: %s, %s, logged out without sending\n", ss.url,
		    tls_words(tls), ss.user ? "logged in" : "no AUTH (no user)");
	if (password)
		config_password_free(password);
	return rc == -1;
}

static int
check_servers(struct daemon *d)
{
	int bad = 0;

	if (d->cfg.in == CONFIG_IN_IMAP)
		bad += check_imap(d);
	if (d->cfg.out == CONFIG_OUT_SMTP)
		bad += check_smtp(d);
	return bad;
}

/* The referee leaves robots to the workers and holds a sender's mail
 * behind their message that waits for one. */
static void
robots_apart(struct daemon *d)
{
	d->ref.robots_apart = 1;
	d->ref.hold = robot_hold;
	d->ref.hold_arg = d;
}

/* Templates, aliases and the secret again (SIGHUP); the running ones stay
 * when the new ones cannot be read. */
static void
reopen_referee(struct daemon *d)
{
	const char *dir = games_dir(d);
	struct referee fresh;
	char err[512];

	if (referee_open(&fresh, d->store, &d->cfg, d->defs, d->ndefs, dir,
	    d->cfg.referee.secret_file, err, sizeof(err)) == -1) {
		log_err("reload: %s; keeping the running templates", err);
		return;
	}
	if (hold_templates(&fresh, &d->cfg, err, sizeof(err)) == -1) {
		log_err("reload: %s; keeping the running templates", err);
		referee_close(&fresh);
		return;
	}
	referee_close(&d->ref);
	d->ref = fresh;
	robots_apart(d);
}

static void
fire_timers(struct daemon *d)
{
	int n;

	if (clock_now() < d->store_retry_at)
		return;
	if ((n = referee_timers(&d->ref, clock_now())) == -1) {
		log_err("timers: %s", store_errmsg(d->store));
		wait_for_store(d);
	} else if (n > 0)
		log_info("timers: %d fired", n);
}

/* site.dir: rewrite the public pages the commits since the last call
 * changed (every page the first time).  A failure is logged and tried
 * again next time: the changes stay recorded until their pages are
 * written. */
static void
site_pages(struct daemon *d)
{
	struct site_src src = { d->store, &d->cfg, d->defs, d->ndefs };
	char err[512];
	int pages;

	if (d->cfg.site.dir == NULL || clock_now() < d->store_retry_at)
		return;
	if (site_refresh(&src, d->cfg.site.dir, &pages, err, sizeof(err)) ==
	    -1)
		log_err("site: %s", err);
	else if (pages > 0)
		log_debug("site: %d page%s written", pages, pages == 1 ? "" :
		    "s");
}

/* Once a day: delete what the retention settings no longer keep.  The
 * error-reply counts matter for an hour; a day of them is kept. */
static void
prune(struct daemon *d)
{
	int64_t now = clock_now();
	int n;

	if (now < d->prune_at || now < d->store_retry_at)
		return;
	if (store_retention(d->store, now - d->cfg.retention.processed_ms /
	    1000, now - d->cfg.retention.outbox_ms / 1000, now - 86400,
	    &n) == -1) {
		log_err("retention: %s", store_errmsg(d->store));
		wait_for_store(d);
		return;
	}
	if (n > 0)
		log_info("retention: %d old record%s deleted", n, n == 1 ?
		    "" : "s");
	d->prune_at = now + 86400;
}

static void
reload(struct daemon *d)
{
	struct config fresh;
	struct buf problems = { 0 };
	char err[512];

	/* Every problem of the file is logged, as ludusd -n prints them. */
	if (config_load_all(d->config_path, &fresh, err, sizeof(err),
	    &problems) == -1) {
		tell_lines(problems.len ? buf_str(&problems) : err, 1);
		log_err("reload: keeping the running configuration");
		buf_free(&problems);
		config_free(&fresh);
		return;
	}
	buf_reset(&problems);
	/* Templates are read when first used: a broken one would fail
	 * every later mail.  Checked whole before anything is swapped. */
	if (check_words(&fresh, &problems) > 0) {
		tell_lines(buf_str(&problems), 1);
		log_err("reload: keeping the running configuration, "
		    "templates and game definitions");
		buf_free(&problems);
		config_free(&fresh);
		return;
	}
	buf_free(&problems);
	if (strcmp(fresh.database, d->cfg.database) != 0)
		log_warn("reload: database changed to %s; restart to use it",
		    fresh.database);
	free(fresh.database);
	fresh.database = xstrdup(d->cfg.database);
	if ((fresh.metrics.socket == NULL) != (d->cfg.metrics.socket == NULL) ||
	    (fresh.metrics.socket != NULL &&
	    strcmp(fresh.metrics.socket, d->cfg.metrics.socket) != 0))
		log_warn("reload: metrics.socket changed; restart to use it");
	if ((fresh.lmtp == NULL) != (d->cfg.lmtp == NULL) ||
	    (fresh.lmtp != NULL && strcmp(fresh.lmtp, d->cfg.lmtp) != 0))
		log_warn("reload: in.lmtp changed; restart to use it");
	lmtp_set_max(d->lmtp, (size_t)fresh.limits.message_size * 2 + 65536);
	imap_drop(d);
	config_free(&d->cfg);
	d->cfg = fresh;
	reopen_referee(d);
	log_info("reloaded %s", d->config_path);
}

static void
write_pid_file(const char *path)
{
	FILE *f;

	if (path == NULL)
		return;
	if ((f = fopen(path, "w")) == NULL) {
		log_err("%s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "%ld\n", (long)getpid());
	fclose(f);
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: ludusd [-c FILE] [-f] [-n [-v]] [--once]\n"
	    "  -c FILE  configuration (default %s)\n"
	    "  -f       stay in the foreground\n"
	    "  -n       check the configuration and exit\n"
	    "  -v       with -n: log in to the IMAP and SMTP servers too\n"
	    "  --once   run one full cycle and exit\n", config_default_path());
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct daemon d;
	struct buf problems = { 0 };
	char err[512], *pw;
	int ch, foreground = 0, check = 0, once = 0, servers = 0;
	long holder;

	memset(&d, 0, sizeof(d));
	d.lock_fd = -1;
	d.maildir_watch = -1;
	d.config_path = config_default_path();
	while ((ch = getopt_long(argc, argv, "c:fnvh", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'c':
			d.config_path = optarg;
			break;
		case 'f':
			foreground = 1;
			break;
		case 'n':
			check = 1;
			break;
		case 'v':
			servers = 1;
			break;
		case 'o':
			once = 1;
			foreground = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 64;
		}
	}
	if (optind != argc || (servers && !check)) {
		usage(stderr);
		return 64;
	}
	if (config_load_all(d.config_path, &d.cfg, err, sizeof(err),
	    &problems) == -1) {
		tell_lines(problems.len ? buf_str(&problems) : err, 0);
		buf_free(&problems);
		config_free(&d.cfg);
		return 1;
	}
	buf_free(&problems);
	/* The database's password, read once, before any connection. */
	if (config_db_password(&d.cfg, &pw, err, sizeof(err)) == -1) {
		fprintf(stderr, "ludusd: %s\n", err);
		config_free(&d.cfg);
		return 1;
	}
	store_set_password(pw);
	config_password_free(pw);
	if (d.cfg.referee.address == NULL) {
		fprintf(stderr, "ludusd: %s: referee.address is not set\n",
		    d.config_path);
		config_free(&d.cfg);
		return 1;
	}
	if (check) {
		int bad = preflight(&d);

		if (servers)
			bad += check_servers(&d);
		if (bad == 0)
			printf("%s: configuration OK\n", d.config_path);
		config_free(&d.cfg);
		return bad ? 1 : 0;
	}
	/* Refused where it is run when another holds the database; the
	 * lock itself is taken by the process that keeps it, before
	 * anything is opened. */
	if ((holder = store_lock_holder(d.cfg.database)) != 0) {
		fprintf(stderr, "ludusd: %s is in use by ludusd (pid %ld)\n",
		    d.cfg.database, holder);
		config_free(&d.cfg);
		return 1;
	}
	apply_logging(&d.cfg, foreground);
	if (!foreground && daemon(0, 0) == -1) {
		fprintf(stderr, "ludusd: daemon: %s\n", strerror(errno));
		return 1;
	}
	if (store_lock(d.cfg.database, &d.lock_fd, &holder, err,
	    sizeof(err)) != 0) {
		log_err("%s", err);
		fprintf(stderr, "ludusd: %s\n", err);
		config_free(&d.cfg);
		return 1;
	}
	setup_signals();
	if (open_everything(&d, err, sizeof(err)) == -1) {
		log_err("%s", err);
		fprintf(stderr, "ludusd: %s\n", err);
		store_close(d.store);
		store_unlock(d.lock_fd);
		gamedef_free_all(d.defs, d.ndefs);
		config_free(&d.cfg);
		return 1;
	}
	if (d.cfg.metrics.socket != NULL && (d.metrics = metrics_start(
	    d.cfg.metrics.socket, d.cfg.database, err, sizeof(err))) == NULL) {
		log_err("%s", err);
		fprintf(stderr, "ludusd: %s\n", err);
		referee_close(&d.ref);
		store_close(d.store);
		store_unlock(d.lock_fd);
		gamedef_free_all(d.defs, d.ndefs);
		config_free(&d.cfg);
		return 1;
	}
	/* --once runs for a cron job or a timer: a mail server cannot hand
	 * it mail, but what an earlier ludusd stored is read. */
	if (!once && lmtp_open(&d, err, sizeof(err)) == -1) {
		log_err("%s", err);
		fprintf(stderr, "ludusd: %s\n", err);
		metrics_stop(d.metrics);
		referee_close(&d.ref);
		store_close(d.store);
		store_unlock(d.lock_fd);
		gamedef_free_all(d.defs, d.ndefs);
		config_free(&d.cfg);
		return 1;
	}
	write_pid_file(d.cfg.pid_file);
	backoff_init(&d.imap_backoff,
	    (unsigned)(d.cfg.imap.retry_min_ms / 1000 ?
	    d.cfg.imap.retry_min_ms / 1000 : 1),
	    (unsigned)(d.cfg.imap.retry_max_ms / 1000 ?
	    d.cfg.imap.retry_max_ms / 1000 : 1));
	backoff_init(&d.store_backoff, STORE_RETRY_MIN, STORE_RETRY_MAX);
	log_info("started: ludusd %s, database %s, %s in, %s out",
	    LUDUS_VERSION, d.cfg.database,
	    d.cfg.in == CONFIG_IN_IMAP ? "imap" : d.cfg.in ==
	    CONFIG_IN_MAILDIR ? "maildir" : d.lmtp ? "lmtp" : "stdin only",
	    d.cfg.out == CONFIG_OUT_SMTP ? "smtp" : "sendmail");

	robots_apart(&d);
	wait_rows_clean(&d);
	{
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		d.workers = ncpu < 1 ? 1 : ncpu > 4 ? 4 : (int)ncpu;
	}
	notify("READY=1\nSTATUS=watching for mail");
	while (!want_quit) {
		d.recheck = 0;
		if (d.nparked > 0)
			robots_reap(&d);
		if (want_reload) {
			want_reload = 0;
			notify("RELOADING=1");
			reload(&d);
			apply_logging(&d.cfg, foreground);
			notify("READY=1\nSTATUS=watching for mail");
		}
		want_poll = 0;
		d.trouble = 0;
		if (d.cfg.in == CONFIG_IN_IMAP)
			cycle_imap(&d);
		else if (d.cfg.in == CONFIG_IN_MAILDIR) {
			/* Watched before it is read: what comes after the
			 * listing wakes the sleep that follows it. */
			maildir_watch(&d);
			cycle_maildir(&d);
		}
		lmtp_service(d.lmtp, mono_ms());
		cycle_inbound(&d);
		if (want_quit)
			break;
		fire_timers(&d);
		flush(&d);
		/* The public pages after the answers: players first. */
		site_pages(&d);
		prune(&d);
		if (once && d.nparked > 0) {
			/* --once waits for its robots, then looks again. */
			struct pollfd pfd = { .fd = wake_pipe[0],
			    .events = POLLIN };

			if (!robots_answered(&d) && poll(&pfd, 1, 1000) > 0)
				drain_wake_pipe();
			continue;
		}
		if (once && !d.recheck)
			break;
		sleep_until_news(&d);
	}
	notify("STOPPING=1");
	log_info("stopping");
	robots_stop(&d);
	lmtp_stop(d.lmtp);
	maildir_unwatch(&d);
	referee_close(&d.ref);
	imap_drop(&d);
	metrics_stop(d.metrics);
	if (d.cfg.pid_file)
		unlink(d.cfg.pid_file);
	store_close(d.store);
	store_unlock(d.lock_fd);
	if (d.unmarked.n > 0)
		log_warn("%zu mail%s sent but never marked: sent again at the "
		    "next start", d.unmarked.n, d.unmarked.n == 1 ? "" : "s");
	outbox_unmarked_free(&d.unmarked);
	gamedef_free_all(d.defs, d.ndefs);
	config_free(&d.cfg);
	/* --once under cron or a timer: say that the cycle fell short. */
	return once && d.trouble ? EXIT_TEMPFAIL : 0;
}

/*
 * store: SQLite.
 *
 * journal_mode=WAL so readers never block the writer.  synchronous=NORMAL:
 * a commit survives the process at once and a power cut once the WAL is
 * synced, which store_sync does for everything committed so far.  Callers
 * sync before they let a message go from where it came (out of the inbox,
 * or exit 0 to the MTA): one sync for a batch of messages instead of one
 * per transaction.  What commits without a sync (a "sent" mark, a timer
 * fired) can at worst happen again after a power cut: a mail resent with
 * its own Message-ID.
 *
 * The WAL file stays between processes (no delete on close, its size
 * capped by journal_size_limit), so a short-lived `ludus deliver` does not
 * create it.  But the first connection to open the database rebuilds the
 * WAL's index by reading every frame in it, and SQLite's own checkpoint
 * at 1,000 frames never lets the WAL start over when each process makes
 * one commit (the next process's rebuild forgets the checkpoint): so a
 * connection that closes with more than STORE_CLOSE_FRAMES frames in the
 * WAL checkpoints them and truncates it, when nobody else is using it.
 * Statements are prepared once per connection and kept (finalised at
 * close).  A delivery's one durable sync is the WAL's: the VFS here opens
 * an existing WAL without O_CREAT, so SQLite does not also fsync the
 * directory in every process (see store_vfs).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "log.h"
#include "store.h"
#include "util.h"

/* Prepared statements kept per connection, by their SQL text's address
 * (every statement here is a string literal; a text made at run time is
 * prepared per call). */
#define STORE_STMTS	128
/* The WAL's size kept after a checkpoint (bytes). */
#define STORE_WAL_LIMIT	4194304
/* SQLite's page cache per connection (KiB): the database's hot pages
 * (players, games, the outbox's index) fit; SQLite's default is 2000. */
#define STORE_CACHE_KB	512
/* SQLite's automatic checkpoint, kept by our WAL hook (frames). */
#define STORE_CKPT_FRAMES	1000
/* A connection that closes with more frames than this in the WAL (about
 * six deliveries of a move) checkpoints and truncates it: the next first
 * opener reads at most this many frames (about 1.5 us each). */
#define STORE_CLOSE_FRAMES	128
#define STRINGIFY_(x)	#x
#define STRINGIFY(x)	STRINGIFY_(x)

struct store {
	sqlite3	*db;
	char	 errmsg[512];
	FILE	*trace;		/* test builds: $LUDUS_SQL_TRACE */
	struct {
		const char	*sql;
		sqlite3_stmt	*st;
		int		 busy;	/* handed out, not yet done */
	} stmts[STORE_STMTS];
	int	 nstmts;
	int	 wal_frames;	/* frames in the WAL after our last commit */
	int	 unsynced;	/* committed since the last store_sync */
};

#ifdef LUDUS_TEST_CLOCK
/*
 * Test builds: the store's failures on demand (store_test_fault).  Every
 * sqlite3_step and sqlite3_exec below goes through these; the armed one
 * fails with SQLITE_IOERR or SQLITE_FULL without running.  A ROLLBACK is
 * counted but never failed: undoing is what a failure leads to.
 */
static struct {
	long	 at;		/* the call to fail, 0: none */
	long	 count;		/* calls since the last store_test_fault */
	int	 code;
	int	 fired;		/* the last call failed by the hook */
	int	 off;		/* not counting (the test's own dump) */
	int	 readonly;	/* the next open is read-only */
} fault;

static int
fault_hit(void)
{
	fault.fired = 0;
	if (fault.off)
		return 0;
	if (++fault.count != fault.at)
		return 0;
	fault.fired = 1;
	return 1;
}

static int
fault_step(sqlite3_stmt *st)
{
	return fault_hit() ? fault.code : sqlite3_step(st);
}

static int
fault_exec(sqlite3 *db, const char *sql, int (*cb)(void *, int, char **,
    char **), void *arg, char **msg)
{
	if (strncmp(sql, "ROLLBACK", 8) == 0) {
		if (!fault.off)
			fault.count++;
	} else if (fault_hit())
		return fault.code;
	return sqlite3_exec(db, sql, cb, arg, msg);
}

void
store_test_fault(long nth, int full)
{
	fault.at = nth;
	fault.count = 0;
	fault.code = full ? SQLITE_FULL : SQLITE_IOERR;
	fault.fired = 0;
}

long
store_test_calls(void)
{
	return fault.count;
}

void
store_test_readonly(int on)
{
	fault.readonly = on;
}

#define sqlite3_step(st)		fault_step(st)
#define sqlite3_exec(db, q, f, a, m)	fault_exec(db, q, f, a, m)
#define FAULT_ERRMSG(db) \
	(fault.fired ? sqlite3_errstr(fault.code) : sqlite3_errmsg(db))
#define FAULT_RDONLY	(fault.readonly ? SQLITE_OPEN_READONLY : 0)
#else
#define FAULT_ERRMSG(db)	sqlite3_errmsg(db)
#define FAULT_RDONLY	0
#endif

/* Numbered migrations: migrations[i] takes user_version i to i + 1. */
static const char *const migrations[] = {
	/* 1: the first schema. */
	"CREATE TABLE players ("
	"  id INTEGER PRIMARY KEY,"
	"  address TEXT NOT NULL UNIQUE,"
	"  name TEXT,"
	"  language TEXT NOT NULL DEFAULT 'en',"
	"  notify TEXT NOT NULL DEFAULT 'all',"
	"  banned INTEGER NOT NULL DEFAULT 0,"
	"  created INTEGER NOT NULL);"
	"CREATE TABLE games ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL,"
	"  options TEXT NOT NULL,"
	"  seed BLOB NOT NULL CHECK (length(seed) = 32),"
	"  state TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN"
	"    ('invited', 'active', 'finished', 'aborted')),"
	"  result TEXT,"
	"  nmoves INTEGER NOT NULL DEFAULT 0,"
	"  created INTEGER NOT NULL,"
	"  updated INTEGER NOT NULL);"
	"CREATE INDEX games_status ON games(status);"
	"CREATE TABLE seats ("
	"  game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  seat INTEGER NOT NULL CHECK (seat >= 0 AND seat < 4),"
	"  player_id INTEGER NOT NULL REFERENCES players(id),"
	"  accepted INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (game_id, seat));"
	"CREATE INDEX seats_player ON seats(player_id);"
	"CREATE TABLE moves ("
	"  game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  ply INTEGER NOT NULL CHECK (ply > 0),"
	"  seat INTEGER NOT NULL,"
	"  notation TEXT NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  PRIMARY KEY (game_id, ply));"
	"CREATE TABLE processed ("
	"  key TEXT PRIMARY KEY,"
	"  received INTEGER NOT NULL,"
	"  outcome TEXT);"
	"CREATE TABLE outbox ("
	"  id INTEGER PRIMARY KEY,"
	"  message_id TEXT NOT NULL UNIQUE,"
	"  envelope_from TEXT NOT NULL,"
	"  recipients TEXT NOT NULL,"
	"  game_id INTEGER,"
	"  data BLOB NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_try INTEGER NOT NULL,"
	"  sent INTEGER,"
	"  failed TEXT,"
	"  last_error TEXT);"
	"CREATE INDEX outbox_due ON outbox(next_try)"
	"  WHERE sent IS NULL AND failed IS NULL;"
	"CREATE TABLE timers ("
	"  id INTEGER PRIMARY KEY,"
	"  due INTEGER NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  game_id INTEGER REFERENCES games(id) ON DELETE CASCADE,"
	"  player_id INTEGER REFERENCES players(id),"
	"  data TEXT);"
	"CREATE INDEX timers_due ON timers(due);",
	/* 2: what each message said and who sent it; bounces per player;
	 * replies per sender for the error-reply rate limit. */
	"ALTER TABLE processed ADD COLUMN sender TEXT;"
	"ALTER TABLE processed ADD COLUMN commands TEXT;"
	"ALTER TABLE players ADD COLUMN bounces INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE players ADD COLUMN last_bounce INTEGER;"
	"ALTER TABLE players ADD COLUMN last_bounce_reason TEXT;"
	"CREATE TABLE replies ("
	"  sender TEXT NOT NULL,"
	"  at INTEGER NOT NULL);"
	"CREATE INDEX replies_sender ON replies(sender, at);",
	/* 3: the referee: time controls, ratings, invitations, deadlines,
	 * draw offers and how a game ended; vacations; a game's events,
	 * observers and thanks; reports to the admins; confirmation
	 * cookies; rate counters.  Columns added to existing tables are
	 * NULL or a constant by default, as ALTER TABLE requires. */
	"ALTER TABLE games ADD COLUMN clock TEXT;"
	"ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE games ADD COLUMN inviter INTEGER REFERENCES players(id);"
	"ALTER TABLE games ADD COLUMN expires INTEGER;"
	"ALTER TABLE games ADD COLUMN deadline INTEGER;"
	"ALTER TABLE games ADD COLUMN draw_offer INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE games ADD COLUMN ended TEXT;"
	"ALTER TABLE players ADD COLUMN vacation_start INTEGER;"
	"ALTER TABLE players ADD COLUMN vacation_until INTEGER;"
	"CREATE TABLE events ("
	"  game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  after_ply INTEGER NOT NULL CHECK (after_ply >= 0),"
	"  player_id INTEGER REFERENCES players(id),"
	"  kind TEXT NOT NULL,"
	"  text TEXT,"
	"  created INTEGER NOT NULL);"
	"CREATE INDEX events_game ON events(game_id);"
	"CREATE TABLE observers ("
	"  game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  player_id INTEGER NOT NULL REFERENCES players(id),"
	"  since INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS"
	"    INTEGER)),"
	"  PRIMARY KEY (game_id, player_id));"
	"CREATE TABLE thanks ("
	"  game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  from_player INTEGER NOT NULL REFERENCES players(id),"
	"  to_player INTEGER NOT NULL REFERENCES players(id),"
	"  created INTEGER NOT NULL,"
	"  PRIMARY KEY (game_id, from_player, to_player));"
	"CREATE INDEX thanks_to ON thanks(to_player);"
	"CREATE TABLE reports ("
	"  id INTEGER PRIMARY KEY,"
	"  game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  reporter INTEGER NOT NULL REFERENCES players(id),"
	"  text TEXT NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  resolved INTEGER,"
	"  resolution TEXT);"
	"CREATE INDEX reports_open ON reports(created) WHERE resolved IS NULL;"
	"CREATE TABLE confirmations ("
	"  cookie TEXT PRIMARY KEY,"
	"  player_id INTEGER NOT NULL REFERENCES players(id),"
	"  command TEXT NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  expires INTEGER NOT NULL,"
	"  used INTEGER);"
	"CREATE TABLE actions ("
	"  player_id INTEGER NOT NULL REFERENCES players(id),"
	"  kind TEXT NOT NULL,"
	"  at INTEGER NOT NULL);"
	"CREATE INDEX actions_player ON actions(player_id, kind, at);",
	/* 4: clocks: when the turn began, the reminders sent for it, each
	 * seat's Fischer reserve, the vacation days used this year. */
	"ALTER TABLE games ADD COLUMN turn_since INTEGER;"
	"ALTER TABLE games ADD COLUMN reminded INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE seats ADD COLUMN reserve INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE players ADD COLUMN vacation_used INTEGER NOT NULL "
	"  DEFAULT 0;"
	"ALTER TABLE players ADD COLUMN vacation_year INTEGER NOT NULL "
	"  DEFAULT 0;"
	"CREATE INDEX timers_game ON timers(game_id, kind);"
	"CREATE INDEX timers_player ON timers(player_id, kind);",
	/* 5: ratings per player and game kind, and what each rated game
	 * changed; ladders, their rungs (a player, or a fixed partnership
	 * of two) and challenges. */
	"CREATE TABLE ratings ("
	"  player_id INTEGER NOT NULL REFERENCES players(id),"
	"  kind TEXT NOT NULL,"
	"  r REAL NOT NULL,"
	"  rd REAL NOT NULL,"
	"  sigma REAL NOT NULL,"
	"  last INTEGER NOT NULL,"
	"  games INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (player_id, kind));"
	"CREATE TABLE ladders ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  kind TEXT NOT NULL,"
	"  options TEXT NOT NULL DEFAULT '',"
	"  clock TEXT,"
	"  list TEXT,"
	"  pairs INTEGER NOT NULL DEFAULT 0,"
	"  reach INTEGER NOT NULL,"
	"  accept INTEGER NOT NULL,"
	"  open_cap INTEGER NOT NULL,"
	"  cooldown INTEGER NOT NULL,"
	"  idle INTEGER NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  closed INTEGER);"
	"CREATE TABLE rungs ("
	"  ladder_id INTEGER NOT NULL REFERENCES ladders(id) ON DELETE CASCADE,"
	"  position INTEGER NOT NULL CHECK (position > 0),"
	"  player_id INTEGER NOT NULL REFERENCES players(id),"
	"  partner_id INTEGER REFERENCES players(id),"
	"  active INTEGER NOT NULL,"
	"  PRIMARY KEY (ladder_id, position));"
	"CREATE UNIQUE INDEX rungs_player ON rungs(ladder_id, player_id);"
	"CREATE TABLE challenges ("
	"  id INTEGER PRIMARY KEY,"
	"  ladder_id INTEGER NOT NULL REFERENCES ladders(id) ON DELETE CASCADE,"
	"  challenger INTEGER NOT NULL REFERENCES players(id),"
	"  challenged INTEGER NOT NULL REFERENCES players(id),"
	"  game_id INTEGER REFERENCES games(id),"
	"  status TEXT NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  decided INTEGER);"
	"CREATE TABLE rating_changes ("
	"  game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  seat INTEGER NOT NULL,"
	"  player_id INTEGER NOT NULL REFERENCES players(id),"
	"  r_old REAL NOT NULL,"
	"  r_new REAL NOT NULL,"
	"  PRIMARY KEY (game_id, seat));"
	"CREATE INDEX challenges_game ON challenges(game_id);"
	"CREATE INDEX challenges_ladder ON challenges(ladder_id, status);",
	/* 6: what retention prunes, found by age without a scan. */
	"CREATE INDEX processed_received ON processed(received);"
	"CREATE INDEX outbox_done ON outbox(created)"
	"  WHERE sent IS NOT NULL OR failed IS NOT NULL;"
	"CREATE INDEX replies_at ON replies(at);",
	/* 7: the time zone a player reads deadlines in. */
	"ALTER TABLE players ADD COLUMN timezone TEXT;",
	/* 8: the ban list each message reads, and the lapsed admin
	 * confirmations each new one deletes, without a scan. */
	"CREATE INDEX players_banned ON players(address) WHERE banned != 0;"
	"CREATE INDEX confirmations_expires ON confirmations(expires);",
	/* 9: whether the public site may show a player's address. */
	"ALTER TABLE players ADD COLUMN public_address INTEGER NOT NULL "
	"  DEFAULT 0;",
	/* 10: what the public site shows that changed since its pages were
	 * written: one row per game, player or ladder, renumbered at each
	 * change (whichever process makes it), taken by the daemon. */
	"CREATE TABLE site_changes ("
	"  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  kind TEXT NOT NULL,"
	"  id INTEGER NOT NULL);"
	"CREATE UNIQUE INDEX site_changes_what ON site_changes(kind, id);"
	"CREATE TRIGGER site_game AFTER UPDATE ON games BEGIN"
	"  DELETE FROM site_changes WHERE kind = 'g' AND id = NEW.id;"
	"  INSERT INTO site_changes (kind, id) VALUES ('g', NEW.id); END;"
	"CREATE TRIGGER site_game_status AFTER UPDATE OF status ON games"
	"  WHEN OLD.status IS NOT NEW.status BEGIN"
	"  DELETE FROM site_changes WHERE kind = 'G' AND id = NEW.id;"
	"  INSERT INTO site_changes (kind, id) VALUES ('G', NEW.id); END;"
	"CREATE TRIGGER site_player AFTER UPDATE OF name, public_address ON"
	"  players WHEN OLD.name IS NOT NEW.name OR"
	"  OLD.public_address IS NOT NEW.public_address BEGIN"
	"  DELETE FROM site_changes WHERE kind = 'n' AND id = NEW.id;"
	"  INSERT INTO site_changes (kind, id) VALUES ('n', NEW.id); END;"
	"CREATE TRIGGER site_thanks AFTER INSERT ON thanks BEGIN"
	"  DELETE FROM site_changes WHERE kind = 'p' AND id = NEW.to_player;"
	"  INSERT INTO site_changes (kind, id) VALUES ('p', NEW.to_player);"
	"  END;"
	"CREATE TRIGGER site_ladder_new AFTER INSERT ON ladders BEGIN"
	"  DELETE FROM site_changes WHERE kind = 'l' AND id = NEW.id;"
	"  INSERT INTO site_changes (kind, id) VALUES ('l', NEW.id); END;"
	"CREATE TRIGGER site_ladder AFTER UPDATE ON ladders BEGIN"
	"  DELETE FROM site_changes WHERE kind = 'l' AND id = NEW.id;"
	"  INSERT INTO site_changes (kind, id) VALUES ('l', NEW.id); END;"
	"CREATE TRIGGER site_rung AFTER INSERT ON rungs BEGIN"
	"  DELETE FROM site_changes WHERE kind = 'l' AND"
	"    id = NEW.ladder_id;"
	"  INSERT INTO site_changes (kind, id) VALUES ('l',"
	"    NEW.ladder_id); END;"
	"CREATE TRIGGER site_rung_gone AFTER DELETE ON rungs BEGIN"
	"  DELETE FROM site_changes WHERE kind = 'l' AND"
	"    id = OLD.ladder_id;"
	"  INSERT INTO site_changes (kind, id) VALUES ('l',"
	"    OLD.ladder_id); END;"
	"CREATE TRIGGER site_challenge_new AFTER INSERT ON challenges BEGIN"
	"  DELETE FROM site_changes WHERE kind = 'l' AND"
	"    id = NEW.ladder_id;"
	"  INSERT INTO site_changes (kind, id) VALUES ('l',"
	"    NEW.ladder_id); END;"
	"CREATE TRIGGER site_challenge AFTER UPDATE ON challenges BEGIN"
	"  DELETE FROM site_changes WHERE kind = 'l' AND"
	"    id = NEW.ladder_id;"
	"  INSERT INTO site_changes (kind, id) VALUES ('l',"
	"    NEW.ladder_id); END;",
	/* 11: the server's card decks (Almakleh's, cycled across games) and
	 * the cards each game was dealt from one. */
	"CREATE TABLE decks ("
	"  name TEXT PRIMARY KEY,"
	"  cycle INTEGER NOT NULL,"
	"  cards TEXT NOT NULL);"
	"CREATE TABLE deck_deals ("
	"  game_id INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,"
	"  deck TEXT NOT NULL,"
	"  cycle INTEGER NOT NULL,"
	"  turn INTEGER NOT NULL DEFAULT 0,"
	"  cards TEXT NOT NULL);",
	/* 12: open seeks, the lobby: a game offered to whoever takes the free
	 * seats; its id is taken from the games' numbers. */
	"CREATE TABLE seeks ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL,"
	"  words TEXT NOT NULL DEFAULT '',"
	"  clock TEXT,"
	"  rated INTEGER NOT NULL DEFAULT 1,"
	"  nseats INTEGER NOT NULL CHECK (nseats >= 2 AND nseats <= 4),"
	"  player_id INTEGER NOT NULL REFERENCES players(id),"
	"  seat1 INTEGER REFERENCES players(id),"
	"  seat2 INTEGER REFERENCES players(id),"
	"  seat3 INTEGER REFERENCES players(id),"
	"  ladder_id INTEGER REFERENCES ladders(id),"
	"  rating_min INTEGER,"
	"  rating_max INTEGER,"
	"  status TEXT NOT NULL,"
	"  created INTEGER NOT NULL,"
	"  expires INTEGER NOT NULL,"
	"  game_id INTEGER);"
	"CREATE INDEX seeks_status ON seeks(status);",
	/* 13: conditional moves queued per seat, and a takeback asked for. */
	"CREATE TABLE conditions ("
	"  game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
	"  seat INTEGER NOT NULL,"
	"  line INTEGER NOT NULL,"
	"  moves TEXT NOT NULL,"
	"  PRIMARY KEY (game_id, seat, line));"
	"CREATE TABLE takebacks ("
	"  game_id INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,"
	"  seats INTEGER NOT NULL,"
	"  at_ply INTEGER NOT NULL,"
	"  created INTEGER NOT NULL);",
	/* 14: a seek opened, filled, withdrawn or lapsed changes the public
	 * site's index. */
	"CREATE TRIGGER site_seek_new AFTER INSERT ON seeks BEGIN"
	"  DELETE FROM site_changes WHERE kind = 's' AND id = NEW.id;"
	"  INSERT INTO site_changes (kind, id) VALUES ('s', NEW.id); END;"
	"CREATE TRIGGER site_seek AFTER UPDATE ON seeks BEGIN"
	"  DELETE FROM site_changes WHERE kind = 's' AND id = NEW.id;"
	"  INSERT INTO site_changes (kind, id) VALUES ('s', NEW.id); END;",
	/* 15: robot moves being waited for (ludusd's parked messages, a
	 * delivery's robot thinking), for `ludus outbox`. */
	"CREATE TABLE robot_waits ("
	"  id INTEGER PRIMARY KEY,"
	"  game_id INTEGER NOT NULL,"
	"  pid INTEGER NOT NULL,"
	"  since INTEGER NOT NULL,"
	"  thinking INTEGER NOT NULL DEFAULT 0);",
	/* 16: the site's changes are written by the store functions that
	 * make them (site_changed), not by triggers: twelve triggers were a
	 * fifth of the schema every connection parses at its first read,
	 * and each statement that could fire one carried its program. */
	"DROP TRIGGER site_game;"
	"DROP TRIGGER site_game_status;"
	"DROP TRIGGER site_player;"
	"DROP TRIGGER site_thanks;"
	"DROP TRIGGER site_ladder_new;"
	"DROP TRIGGER site_ladder;"
	"DROP TRIGGER site_rung;"
	"DROP TRIGGER site_rung_gone;"
	"DROP TRIGGER site_challenge_new;"
	"DROP TRIGGER site_challenge;"
	"DROP TRIGGER site_seek_new;"
	"DROP TRIGGER site_seek;",
	/* 17: the confirmations still waiting for a player, counted before
	 * another is mailed, without a scan. */
	"CREATE INDEX confirmations_player ON confirmations(player_id, "
	"  expires) WHERE used IS NULL;",
	/* 18: the counters `ludus stats` and ludusd's metrics show (the
	 * messages by outcome, the failed sending attempts, the last IMAP
	 * contact), kept here so that ludus deliver and ludusd count into
	 * the same figures and a restart keeps them. */
	"CREATE TABLE counters ("
	"  name TEXT PRIMARY KEY,"
	"  value INTEGER NOT NULL);",
	/* 19: mail handed in by LMTP, kept until the referee has taken it
	 * (id: the order of arrival).  key is intake's dedupe key, so a
	 * message delivered twice is kept once; route is the game the
	 * message names ("game #ID") or its sender, the messages of one
	 * route taken in order.  state is 'waiting' or 'dead' (given up
	 * after too many temporary failures, the last in cause). */
	"CREATE TABLE inbound ("
	"  id INTEGER PRIMARY KEY,"
	"  key TEXT NOT NULL UNIQUE,"
	"  route TEXT NOT NULL,"
	"  arrived INTEGER NOT NULL,"
	"  raw BLOB NOT NULL,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_try INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'waiting',"
	"  cause TEXT);"
	"CREATE INDEX inbound_state ON inbound(state, id);",
};

_Static_assert(nitems(migrations) == STORE_SCHEMA_VERSION,
    "one migration per schema version");

static int
store_fail(struct store *s, const char *what)
{
	snprintf(s->errmsg, sizeof(s->errmsg), "%s: %s", what,
	    FAULT_ERRMSG(s->db));
	return -1;
}

const char *
store_errmsg(const struct store *s)
{
	return s->errmsg;
}

static int
exec(struct store *s, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(s->errmsg, sizeof(s->errmsg), "%s",
		    msg ? msg : FAULT_ERRMSG(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static sqlite3_stmt *
prepare(struct store *s, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int i;

	for (i = 0; i < s->nstmts; i++)
		if (s->stmts[i].sql == sql && !s->stmts[i].busy) {
			s->stmts[i].busy = 1;
			return s->stmts[i].st;
		}
	if (sqlite3_prepare_v3(s->db, sql, -1, s->nstmts < STORE_STMTS ?
	    SQLITE_PREPARE_PERSISTENT : 0, &st, NULL) != SQLITE_OK) {
		store_fail(s, "prepare");
		return NULL;
	}
	if (s->nstmts < STORE_STMTS) {
		s->stmts[s->nstmts].sql = sql;
		s->stmts[s->nstmts].st = st;
		s->stmts[s->nstmts].busy = 1;
		s->nstmts++;
	}
	return st;
}

/* Done with a statement: a kept one is reset for the next use. */
static void
done(struct store *s, sqlite3_stmt *st)
{
	int i;

	if (st == NULL)
		return;
	for (i = 0; i < s->nstmts; i++)
		if (s->stmts[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			s->stmts[i].busy = 0;
			return;
		}
	sqlite3_finalize(st);
}

/* Bind by a small format: i = int64, d = double, t = text (NULL ok),
 * b = blob (ptr,len). */
static int
bind(struct store *s, sqlite3_stmt *st, const char *fmt, va_list ap)
{
	int i, rc = SQLITE_OK;

	if ((size_t)sqlite3_bind_parameter_count(st) != strlen(fmt))
		fatal("store: %s has %d parameters, %zu bound",
		    sqlite3_sql(st), sqlite3_bind_parameter_count(st),
		    strlen(fmt));
	for (i = 1; *fmt && rc == SQLITE_OK; fmt++, i++) {
		switch (*fmt) {
		case 'i':
			rc = sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
			break;
		case 'd':
			rc = sqlite3_bind_double(st, i, va_arg(ap, double));
			break;
		case 't':
			rc = sqlite3_bind_text(st, i, va_arg(ap, const char *),
			    -1, SQLITE_TRANSIENT);
			break;
		case 'b': {
			const void *p = va_arg(ap, const void *);
			int len = va_arg(ap, int);

			rc = sqlite3_bind_blob(st, i, p, len, SQLITE_TRANSIENT);
			break;
		}
		default:
			fatal("store: bad bind format %c", *fmt);
		}
	}
	if (rc != SQLITE_OK)
		return store_fail(s, "bind");
	return 0;
}

/* Run a statement that returns no rows. */
static int
run(struct store *s, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc;

	if ((st = prepare(s, sql)) == NULL)
		return -1;
	va_start(ap, fmt);
	rc = bind(s, st, fmt, ap);
	va_end(ap);
	if (rc == 0 && sqlite3_step(st) != SQLITE_DONE)
		rc = store_fail(s, "step");
	done(s, st);
	return rc;
}

/* Prepare and bind a query; the caller steps and finalizes. */
static sqlite3_stmt *
query(struct store *s, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc;

	if ((st = prepare(s, sql)) == NULL)
		return NULL;
	va_start(ap, fmt);
	rc = bind(s, st, fmt, ap);
	va_end(ap);
	if (rc == -1) {
		done(s, st);
		return NULL;
	}
	return st;
}

/*
 * What the public site shows changed: kind g a game, G a game begun or
 * over, n a player's name or public address, p a player's thanks, l a
 * ladder, s a seek.  A thing has one row, renumbered at each change (the
 * daemon takes them in order; AUTOINCREMENT never gives a taken number
 * again).  Recorded with the write, in its transaction, when that changed
 * a row (a change of name or status is found before the update, from the
 * old row).
 */
static int
site_changed(struct store *s, const char *kind, int64_t id)
{
	return run(s, "INSERT OR REPLACE INTO site_changes (kind, id) VALUES "
	    "(?, ?)", "ti", kind, id);
}

static char *
col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? xstrdup((const char *)t) : NULL;
}

int
store_schema_version(struct store *s)
{
	sqlite3_stmt *st;
	int v = -1;

	if ((st = prepare(s, "PRAGMA user_version")) == NULL)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	done(s, st);
	return v;
}

static int
migrate(struct store *s, int target)
{
	int v;
	char *sql;

	if ((v = store_schema_version(s)) < 0)
		return -1;
	if (v > (int)nitems(migrations)) {
		snprintf(s->errmsg, sizeof(s->errmsg), "the database has "
		    "schema version %d, newer than this ludus understands "
		    "(%d): upgrade ludus", v, (int)nitems(migrations));
		return -1;
	}
	for (; v < target; v++) {
		/* Each migration, with its version bump, in its own
		 * transaction: a crash leaves the database at a version. */
		if (store_begin(s) == -1)
			return -1;
		sql = xasprintf("%s PRAGMA user_version = %d;", migrations[v],
		    v + 1);
		if (exec(s, sql) == -1) {
			char why[sizeof(s->errmsg)];

			free(sql);
			memcpy(why, s->errmsg, sizeof(why));
			store_rollback(s);
			snprintf(s->errmsg, sizeof(s->errmsg),
			    "migration to version %d: %s", v + 1, why);
			return -1;
		}
		free(sql);
		if (store_commit(s) == -1)
			return -1;
	}
	return 0;
}

/* The files SQLite and ludusd keep beside a database, by suffix. */
static const char *const own_suffixes[] = { "", "-wal", "-shm", "-journal",
	".lock" };

int
store_own_file(const char *dbpath, const char *path)
{
	size_t i;
	char *f;
	int same = 0;

	for (i = 0; i < nitems(own_suffixes) && !same; i++) {
		f = xasprintf("%s%s", dbpath, own_suffixes[i]);
		same = util_same_file(path, f);
		free(f);
	}
	return same;
}

int
store_backup(struct store *s, const char *path, char *err, size_t errlen)
{
	const char *db = sqlite3_db_filename(s->db, "main");
	sqlite3 *dst = NULL;
	sqlite3_backup *b;
	char *tmp = xasprintf("%s.tmp", path);
	int fd, rc;

	/* A copy renamed over the live database (or its WAL) would take
	 * every commit since with it: the writers keep the old inode. */
	if (db != NULL && (store_own_file(db, path) ||
	    store_own_file(db, tmp))) {
		util_err(err, errlen, "%s: that is the database %s or one of "
		    "its own files: back up to another file", path, db);
		free(tmp);
		return -1;
	}
	/* Into a new 0600 file beside the target, renamed over it when
	 * complete: a backup is never half written. */
	unlink(tmp);
	if ((fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1) {
		util_err(err, errlen, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	close(fd);
	if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		util_err(err, errlen, "%s: %s", tmp, dst ?
		    sqlite3_errmsg(dst) : "cannot open");
		goto fail;
	}
	/* One step copies every page under one read transaction: a
	 * consistent snapshot while the daemon goes on writing (WAL). */
	if ((b = sqlite3_backup_init(dst, "main", s->db, "main")) == NULL) {
		util_err(err, errlen, "backup: %s", sqlite3_errmsg(dst));
		goto fail;
	}
	while ((rc = sqlite3_backup_step(b, -1)) == SQLITE_BUSY ||
	    rc == SQLITE_LOCKED)
		sqlite3_sleep(100);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		util_err(err, errlen, "backup: %s", sqlite3_errstr(rc));
		goto fail;
	}
	if (sqlite3_close(dst) != SQLITE_OK) {
		dst = NULL;
		util_err(err, errlen, "%s: cannot close", tmp);
		goto fail;
	}
	dst = NULL;
	if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) == -1 || fsync(fd) == -1) {
		util_err(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd != -1)
			close(fd);
		goto fail;
	}
	close(fd);
	if (rename(tmp, path) == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	sqlite3_close(dst);
	unlink(tmp);
	free(tmp);
	return -1;
}

/*
 * The daemon's lock: a POSIX record lock on PATH.lock.  The kernel drops
 * it when the holder dies, however it dies, and tells who holds it
 * (F_GETLK), so the file holds nothing and a stale one is never in the
 * way.  Such a lock is not inherited by a forked child (the robot
 * workers) and goes with any close of the file by its holder: only these
 * functions open it.
 */
int
store_lock(const char *path, int *fd, long *holder, char *err, size_t errlen)
{
	char *lock = xasprintf("%s.lock", path);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int f, rc = -1;

	*fd = -1;
	*holder = 0;
	if ((f = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1) {
		util_err(err, errlen, "%s: %s", lock, strerror(errno));
		free(lock);
		return -1;
	}
	if (fcntl(f, F_SETLK, &fl) == 0) {
		*fd = f;
		free(lock);
		return 0;
	}
	if (errno == EACCES || errno == EAGAIN) {
		fl.l_type = F_WRLCK;
		if (fcntl(f, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
			*holder = (long)fl.l_pid;
		util_err(err, errlen, "%s is in use by ludusd (pid %ld, "
		    "holding %s)", path, *holder, lock);
		rc = 1;
	} else
		util_err(err, errlen, "%s: %s", lock, strerror(errno));
	close(f);
	free(lock);
	return rc;
}

long
store_lock_holder(const char *path)
{
	char *lock = xasprintf("%s.lock", path);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int f;

	f = open(lock, O_RDONLY | O_CLOEXEC);
	free(lock);
	if (f == -1)
		return 0;
	if (fcntl(f, F_GETLK, &fl) == -1 || fl.l_type == F_UNLCK)
		fl.l_pid = 0;
	close(f);
	return (long)fl.l_pid;
}

void
store_unlock(int fd)
{
	if (fd != -1)
		close(fd);
}

/* A plain connection to an existing database, for the checks below (no
 * migration, no creation). */
static int
check_open(const char *path, sqlite3 **db, char *err, size_t errlen)
{
	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		util_err(err, errlen, "%s: %s", path, *db ?
		    sqlite3_errmsg(*db) : "cannot open");
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(*db, 10000);
	return 0;
}

/* One text value of a pragma (NULL when it gives none). */
static char *
pragma_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	char *v = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/* An open database's version and soundness: 0, or -1 with err. */
static int
check_db(sqlite3 *db, const char *path, const char *integrity, int *version,
    char *err, size_t errlen)
{
	char *v, *ok;

	if ((v = pragma_text(db, "PRAGMA user_version")) == NULL) {
		util_err(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
		return -1;
	}
	*version = atoi(v);
	free(v);
	if (*version > (int)nitems(migrations)) {
		util_err(err, errlen, "%s: schema version %d, newer than this "
		    "ludus understands (%d)", path, *version,
		    (int)nitems(migrations));
		return -1;
	}
	ok = pragma_text(db, integrity);
	if (ok == NULL || strcmp(ok, "ok") != 0) {
		util_err(err, errlen, "%s: damaged (%s: %s)", path, integrity,
		    ok ? ok : sqlite3_errmsg(db));
		free(ok);
		return -1;
	}
	free(ok);
	return 0;
}

int
store_check(const char *path, int *version, char *err, size_t errlen)
{
	sqlite3 *db;
	int rc;

	if (access(path, R_OK | W_OK) == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (check_open(path, &db, err, errlen) == -1)
		return -1;
	rc = check_db(db, path, "PRAGMA quick_check", version, err, errlen);
	sqlite3_close(db);
	return rc;
}

/* Copy the bytes of from into a new 0600 file to, synced. */
static int
copy_file(const char *from, const char *to, char *err, size_t errlen)
{
	char chunk[65536];
	ssize_t n = 0;
	int in, out, rc = -1;

	if ((in = open(from, O_RDONLY | O_CLOEXEC)) == -1) {
		util_err(err, errlen, "%s: %s", from, strerror(errno));
		return -1;
	}
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1) {
		util_err(err, errlen, "%s: %s", to, strerror(errno));
		close(in);
		return -1;
	}
	while ((n = read(in, chunk, sizeof(chunk))) > 0)
		if (write(out, chunk, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n == 0 && fsync(out) == 0)
		rc = 0;
	if (close(out) == -1)
		rc = -1;
	close(in);
	if (rc == -1)
		util_err(err, errlen, "%s: %s", to, strerror(errno));
	return rc;
}

/* Remove path's -wal, -shm and -journal (none of them may be needed). */
static void
unlink_companions(const char *path)
{
	static const char *const sfx[] = { "-wal", "-shm", "-journal" };
	size_t i;
	char *f;

	for (i = 0; i < nitems(sfx); i++) {
		f = xasprintf("%s%s", path, sfx[i]);
		unlink(f);
		free(f);
	}
}

int
store_restore(const char *path, const char *from, const char *aside,
    int *version, char *err, size_t errlen)
{
	char *tmp = xasprintf("%s.restoring", path), *a, *f;
	struct stat old;
	sqlite3 *db = NULL;
	int have_old, rc = -1;

	have_old = stat(path, &old) == 0;
	unlink(tmp);
	unlink_companions(tmp);
	/* The backup is checked in its copy, beside the database: what is
	 * checked is what is put in place, and a WAL beside the backup is
	 * never read. */
	if (copy_file(from, tmp, err, errlen) == -1)
		goto out;
	if (check_open(tmp, &db, err, errlen) == -1)
		goto out;
	if (check_db(db, from, "PRAGMA integrity_check", version, err,
	    errlen) == -1)
		goto out;
	if (*version == 0) {
		util_err(err, errlen, "%s: not a ludus database", from);
		goto out;
	}
	if (sqlite3_close(db) != SQLITE_OK) {
		util_err(err, errlen, "%s: cannot close", tmp);
		goto out;
	}
	db = NULL;
	unlink_companions(tmp);
	/* Root restores for the daemon's user: the files stay its own. */
	if (have_old && geteuid() == 0 && chown(tmp, old.st_uid, old.st_gid) ==
	    -1) {
		util_err(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	/* The replaced database goes aside with its WAL, a pair that opens
	 * as it was; its -shm is only an index of that WAL. */
	if (have_old) {
		f = xasprintf("%s-wal", path);
		a = xasprintf("%s.%s-wal", path, aside);
		if (rename(f, a) == -1 && errno != ENOENT) {
			util_err(err, errlen, "%s: %s", a, strerror(errno));
			free(f);
			free(a);
			goto out;
		}
		free(f);
		free(a);
		a = xasprintf("%s.%s", path, aside);
		if (rename(path, a) == -1) {
			util_err(err, errlen, "%s: %s", a, strerror(errno));
			free(a);
			goto out;
		}
		free(a);
	}
	unlink_companions(path);
	if (rename(tmp, path) == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	sqlite3_close(db);
	if (rc == -1) {
		unlink(tmp);
		unlink_companions(tmp);
	}
	free(tmp);
	return rc;
}

#ifdef LUDUS_TEST_CLOCK
/*
 * Test builds: with $LUDUS_SQL_TRACE naming a file, the text of each
 * statement run (parameters as ?) is appended to it, one line each, for
 * tests/queryplan.sh to EXPLAIN.
 */
static int
store_trace_cb(unsigned type, void *arg, void *p, void *x)
{
	FILE *f = arg;
	const char *sql = sqlite3_sql(p);

	(void)type;
	(void)x;
	if (sql != NULL) {
		for (; *sql; sql++)
			fputc(*sql == '\n' ? ' ' : *sql, f);
		fputs(";\n", f);
		fflush(f);
	}
	return 0;
}

static void
store_trace(struct store *s)
{
	const char *path = getenv("LUDUS_SQL_TRACE");

	if (path != NULL && *path != '\0' &&
	    (s->trace = fopen(path, "a")) != NULL)
		sqlite3_trace_v2(s->db, SQLITE_TRACE_STMT, store_trace_cb,
		    s->trace);
}
#else
static void
store_trace(struct store *s)
{
	(void)s;
}
#endif

/* After each commit: remember what store_close and store_sync need, and
 * checkpoint as SQLite's own hook would. */
static int
store_wal_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	struct store *s = arg;

	s->wal_frames = frames;
	s->unsynced = 1;
	if (frames >= STORE_CKPT_FRAMES)
		sqlite3_wal_checkpoint(db, name);
	return SQLITE_OK;
}

/*
 * The default VFS but for one thing: a WAL that exists is opened without
 * O_CREAT.  SQLite always asks for the WAL with SQLITE_OPEN_CREATE, and a
 * unix file opened so fsyncs its directory at its first sync: every
 * process's commit would cost a second sync for a file made long ago.
 * The process that makes the WAL still syncs the directory (its open with
 * SQLITE_OPEN_CREATE is the one that succeeds).
 */
static sqlite3_vfs *real_vfs;

static int
wal_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags,
    int *outflags)
{
	sqlite3_vfs *real = real_vfs;

	(void)vfs;
	if ((flags & SQLITE_OPEN_WAL) && (flags & SQLITE_OPEN_CREATE) &&
	    name != NULL && real->xOpen(real, name, f, flags &
	    ~SQLITE_OPEN_CREATE, outflags) == SQLITE_OK)
		return SQLITE_OK;
	return real->xOpen(real, name, f, flags, outflags);
}

static sqlite3_vfs *
store_vfs(void)
{
	static sqlite3_vfs vfs;
	sqlite3_vfs *real;

	if (vfs.zName != NULL)
		return &vfs;
	if ((real = sqlite3_vfs_find(NULL)) == NULL)
		return NULL;
	/* A copy of the default in all else, its pAppData included. */
	real_vfs = real;
	vfs = *real;
	vfs.pNext = NULL;
	vfs.zName = "ludus";
	vfs.xOpen = wal_open;
	if (sqlite3_vfs_register(&vfs, 0) != SQLITE_OK) {
		memset(&vfs, 0, sizeof(vfs));
		return NULL;
	}
	return &vfs;
}

int
store_open_at(const char *path, int version, struct store **out, char *err,
    size_t errlen)
{
	sqlite3_vfs *vfs;
	struct store *s;
	char *bak = NULL;
	int fd, v;

	/* Create the file 0600 ourselves: SQLite would use the umask, and
	 * the database holds every hidden hand.  Its -wal and -shm files
	 * take the database file's mode. */
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	close(fd);
	/* Nothing here reads SQLite's memory statistics: without them its
	 * allocations take no lock (before SQLite starts, else a no-op,
	 * like the next). */
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	/* No bulk of page-cache lines either (20 of them, 87 KB allocated
	 * and touched whole at the first read): each page is allocated
	 * when it is first read. */
	(void)sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	s = xcalloc(1, sizeof(*s));
	vfs = store_vfs();
	if (sqlite3_open_v2(path, &s->db, (FAULT_RDONLY ? FAULT_RDONLY :
	    SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX, vfs ? vfs->zName :
	    NULL) != SQLITE_OK) {
		util_err(err, errlen, "%s: %s", path, s->db ?
		    sqlite3_errmsg(s->db) : "cannot open");
		store_close(s);
		return -1;
	}
	sqlite3_busy_timeout(s->db, 10000);
	store_trace(s);
	{
		int keep = 1;

		/* The WAL outlives the connection: no checkpoint, no
		 * delete, no new file at the next open (but see
		 * store_close). */
		sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1,
		    NULL);
		sqlite3_file_control(s->db, "main", SQLITE_FCNTL_PERSIST_WAL,
		    &keep);
		sqlite3_wal_hook(s->db, store_wal_hook, s);
	}
	if (exec(s, "PRAGMA journal_mode = WAL;"
	    "PRAGMA synchronous = NORMAL;"
	    "PRAGMA journal_size_limit = " STRINGIFY(STORE_WAL_LIMIT) ";"
	    "PRAGMA cache_size = -" STRINGIFY(STORE_CACHE_KB) ";"
	    "PRAGMA foreign_keys = ON;"
	    /* Statement journals and sorts in memory, not in a temporary
	     * file made and unlinked per transaction. */
	    "PRAGMA temp_store = MEMORY;") == -1 ||
	    (v = store_schema_version(s)) < 0) {
		util_err(err, errlen, "%s: %s", path, s->errmsg);
		store_close(s);
		return -1;
	}
	/* An existing database is copied before a migration changes it:
	 * PATH.vN.bak holds it as schema version N had it. */
	if (v > 0 && v < version && v <= (int)nitems(migrations)) {
		bak = xasprintf("%s.v%d.bak", path, v);
		if (store_backup(s, bak, err, errlen) == -1) {
			free(bak);
			store_close(s);
			return -1;
		}
	}
	if (migrate(s, version) == -1) {
		util_err(err, errlen, "%s: %s", path, s->errmsg);
		free(bak);
		store_close(s);
		return -1;
	}
	if (bak != NULL)
		log_info("database %s: schema version %d migrated to %d; as it "
		    "was before: %s", path, v, version, bak);
	free(bak);
	*out = s;
	return 0;
}

int
store_open(const char *path, struct store **out, char *err, size_t errlen)
{
	return store_open_at(path, (int)nitems(migrations), out, err, errlen);
}

void
store_close(struct store *s)
{
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nstmts; i++)
		sqlite3_finalize(s->stmts[i].st);
	/* A long WAL costs the next first opener its rebuild: checkpoint
	 * and truncate it, unless another connection is using it (then it
	 * is that one's to checkpoint, and waiting for it here would hold
	 * up this process's exit). */
	if (s->db != NULL && s->wal_frames > STORE_CLOSE_FRAMES) {
		sqlite3_busy_timeout(s->db, 0);
		sqlite3_wal_checkpoint_v2(s->db, "main",
		    SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	}
	sqlite3_close(s->db);
	if (s->trace != NULL)
		fclose(s->trace);
	free(s);
}

int
store_begin(struct store *s)
{
	/* What failed is told of the transaction it failed in. */
	s->errmsg[0] = '\0';
	return exec(s, "BEGIN IMMEDIATE");
}

int
store_savepoint(struct store *s)
{
	return exec(s, "SAVEPOINT command");
}

int
store_release(struct store *s)
{
	return exec(s, "RELEASE command");
}

int
store_undo(struct store *s)
{
	if (exec(s, "ROLLBACK TO command") == -1)
		return -1;
	return exec(s, "RELEASE command");
}

int
store_commit(struct store *s)
{
	return exec(s, "COMMIT");
}

int
store_sync(struct store *s)
{
	sqlite3_file *wal = NULL;

	if (!s->unsynced)
		return 0;
	/* In WAL mode the journal pointer is the WAL file. */
	if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_JOURNAL_POINTER,
	    &wal) != SQLITE_OK || wal == NULL || wal->pMethods == NULL)
		return 0;
	if (wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL) != SQLITE_OK) {
		snprintf(s->errmsg, sizeof(s->errmsg), "sync of the WAL failed");
		return -1;
	}
	s->unsynced = 0;
	return 0;
}

void
store_rollback(struct store *s)
{
	char keep[sizeof(s->errmsg)];

	/* Keep the error that made us roll back. */
	memcpy(keep, s->errmsg, sizeof(keep));
	if (sqlite3_get_autocommit(s->db) == 0)
		exec(s, "ROLLBACK");
	memcpy(s->errmsg, keep, sizeof(keep));
}

int
store_player_id(struct store *s, const char *address, int create,
    int64_t now, int64_t *id)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = query(s, "SELECT id FROM players WHERE address = ?", "t",
	    address)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		done(s, st);
		return 0;
	}
	done(s, st);
	if (rc != SQLITE_DONE)
		return store_fail(s, "player lookup");
	if (!create)
		return 1;
	if (run(s, "INSERT INTO players (address, created) VALUES (?, ?)",
	    "ti", address, now) == -1)
		return -1;
	*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

/* Fill p from a row of PLAYER_COLUMNS; 1 when there is none. */
#define PLAYER_COLUMNS	"id, address, name, language, notify, banned, " \
	"ifnull(vacation_start, 0), ifnull(vacation_until, 0), " \
	"vacation_used, vacation_year, timezone, public_address"

static int
player_row(struct store *s, sqlite3_stmt *st, struct store_player *p)
{
	int rc;

	memset(p, 0, sizeof(*p));
	if (st == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		p->id = sqlite3_column_int64(st, 0);
		p->address = col_text(st, 1);
		p->name = col_text(st, 2);
		p->language = col_text(st, 3);
		p->notify = col_text(st, 4);
		p->banned = sqlite3_column_int(st, 5);
		p->vacation_start = sqlite3_column_int64(st, 6);
		p->vacation_until = sqlite3_column_int64(st, 7);
		p->vacation_used = sqlite3_column_int64(st, 8);
		p->vacation_year = sqlite3_column_int(st, 9);
		p->timezone = col_text(st, 10);
		p->public_address = sqlite3_column_int(st, 11);
		rc = 0;
	} else
		rc = rc == SQLITE_DONE ? 1 : store_fail(s, "player load");
	done(s, st);
	return rc;
}

int
store_player_load(struct store *s, int64_t id, struct store_player *p)
{
	return player_row(s, query(s, "SELECT " PLAYER_COLUMNS " FROM players "
	    "WHERE id = ?", "i", id), p);
}

int
store_player_find(struct store *s, const char *address,
    struct store_player *p)
{
	return player_row(s, query(s, "SELECT " PLAYER_COLUMNS " FROM players "
	    "WHERE address = ?", "t", address), p);
}

int
store_player_update(struct store *s, const struct store_player *p)
{
	/* Before the update, which the old name and address are read
	 * from. */
	if (run(s, "INSERT OR REPLACE INTO site_changes (kind, id) SELECT "
	    "'n', id FROM players WHERE id = ? AND (name IS NOT ? OR "
	    "public_address IS NOT ?)", "iti", p->id, p->name,
	    (int64_t)(p->public_address != 0)) == -1)
		return -1;
	if (run(s, "UPDATE players SET name = ?, language = ?, notify = ?, "
	    "vacation_start = NULLIF(?, 0), vacation_until = NULLIF(?, 0), "
	    "vacation_used = ?, vacation_year = ?, timezone = ?, "
	    "public_address = ? WHERE id = ?",
	    "tttiiiitii", p->name, p->language, p->notify, p->vacation_start,
	    p->vacation_until, p->vacation_used, (int64_t)p->vacation_year,
	    p->timezone, (int64_t)(p->public_address != 0), p->id) == -1)
		return -1;
	if (sqlite3_changes(s->db) != 1) {
		snprintf(s->errmsg, sizeof(s->errmsg), "no player %lld",
		    (long long)p->id);
		return -1;
	}
	return 0;
}

void
store_player_free(struct store_player *p)
{
	free(p->address);
	free(p->name);
	free(p->language);
	free(p->notify);
	free(p->timezone);
	memset(p, 0, sizeof(*p));
}

/* The one number a query st (prepared, or NULL when that failed) gives,
 * the next id of a series. */
static int
next_id(struct store *s, sqlite3_stmt *st, int64_t *id)
{
	int rc;

	if (st == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	done(s, st);
	return rc == SQLITE_ROW ? 0 : store_fail(s, "next id");
}

/* The next number for a game or a seek. */
static int
next_game_id(struct store *s, int64_t *id)
{
	return next_id(s, query(s, "SELECT max(ifnull((SELECT max(id) FROM "
	    "games), 0), ifnull((SELECT max(id) FROM seeks), 0)) + 1", ""), id);
}

int
store_game_create(struct store *s, struct store_game *g)
{
	int i;

	/* Games and seeks share one series of numbers, so `accept #ID`
	 * names one of them; a seek's game keeps the seek's number. */
	if (g->id == 0 && next_game_id(s, &g->id) == -1)
		return -1;
	if (run(s, "INSERT INTO games (id, kind, options, seed, state, "
	    "status, result, nmoves, created, updated, clock, rated, inviter, "
	    "expires, deadline, draw_offer, ended, turn_since, reminded) "
	    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, 0), "
	    "NULLIF(?, 0), NULLIF(?, 0), ?, ?, NULLIF(?, 0), ?)",
	    "ittbtttiiitiiiiitii", g->id, g->kind, g->options, g->seed, RNG_SEED_LEN,
	    g->state, g->status, g->result, (int64_t)g->nmoves, g->created,
	    g->updated, g->clock, (int64_t)(g->rated != 0), g->inviter,
	    g->expires, g->deadline, (int64_t)g->draw_offer, g->ended,
	    g->turn_since, (int64_t)g->reminded) == -1)
		return -1;
	for (i = 0; i < g->nseats; i++)
		if (run(s, "INSERT INTO seats (game_id, seat, player_id, "
		    "accepted, reserve) VALUES (?, ?, ?, ?, ?)", "iiiii",
		    g->id, (int64_t)i, g->player[i], (int64_t)g->accepted[i],
		    g->reserve[i]) == -1)
			return -1;
	return 0;
}

int
store_game_load(struct store *s, int64_t id, struct store_game *g)
{
	sqlite3_stmt *st;
	int rc, seat;

	memset(g, 0, sizeof(*g));
	if ((st = query(s, "SELECT kind, options, seed, state, status, "
	    "result, nmoves, created, updated, clock, rated, ifnull(inviter, "
	    "0), ifnull(expires, 0), ifnull(deadline, 0), draw_offer, ended, "
	    "ifnull(turn_since, 0), reminded FROM games WHERE id = ?", "i",
	    id)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		done(s, st);
		return rc == SQLITE_DONE ? 1 : store_fail(s, "game load");
	}
	g->id = id;
	g->kind = col_text(st, 0);
	g->options = col_text(st, 1);
	if (sqlite3_column_bytes(st, 2) == RNG_SEED_LEN)
		memcpy(g->seed, sqlite3_column_blob(st, 2), RNG_SEED_LEN);
	g->state = col_text(st, 3);
	g->status = col_text(st, 4);
	g->result = col_text(st, 5);
	g->nmoves = sqlite3_column_int(st, 6);
	g->created = sqlite3_column_int64(st, 7);
	g->updated = sqlite3_column_int64(st, 8);
	g->clock = col_text(st, 9);
	g->rated = sqlite3_column_int(st, 10);
	g->inviter = sqlite3_column_int64(st, 11);
	g->expires = sqlite3_column_int64(st, 12);
	g->deadline = sqlite3_column_int64(st, 13);
	g->draw_offer = (unsigned)sqlite3_column_int64(st, 14);
	g->ended = col_text(st, 15);
	g->turn_since = sqlite3_column_int64(st, 16);
	g->reminded = (unsigned)sqlite3_column_int64(st, 17);
	done(s, st);

	if ((st = query(s, "SELECT seat, player_id, accepted, reserve FROM "
	    "seats WHERE game_id = ? ORDER BY seat", "i", id)) == NULL) {
		store_game_free(g);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		seat = sqlite3_column_int(st, 0);
		if (seat < 0 || seat >= STORE_MAX_SEATS)
			continue;
		g->player[seat] = sqlite3_column_int64(st, 1);
		g->accepted[seat] = sqlite3_column_int(st, 2);
		g->reserve[seat] = sqlite3_column_int64(st, 3);
		if (seat + 1 > g->nseats)
			g->nseats = seat + 1;
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		store_game_free(g);
		return store_fail(s, "seats load");
	}
	return 0;
}

int
store_game_update(struct store *s, const struct store_game *g)
{
	int i;

	/* Begun or over, read before the update. */
	if (run(s, "INSERT OR REPLACE INTO site_changes (kind, id) SELECT "
	    "'G', id FROM games WHERE id = ? AND status IS NOT ?", "it",
	    g->id, g->status) == -1)
		return -1;
	if (run(s, "UPDATE games SET state = ?, status = ?, result = ?, "
	    "nmoves = ?, updated = ?, expires = NULLIF(?, 0), deadline = "
	    "NULLIF(?, 0), draw_offer = ?, ended = ?, turn_since = "
	    "NULLIF(?, 0), reminded = ? WHERE id = ?", "tttiiiiitiii",
	    g->state, g->status, g->result, (int64_t)g->nmoves, g->updated,
	    g->expires, g->deadline, (int64_t)g->draw_offer, g->ended,
	    g->turn_since, (int64_t)g->reminded, g->id) == -1)
		return -1;
	if (sqlite3_changes(s->db) != 1) {
		snprintf(s->errmsg, sizeof(s->errmsg), "no game %lld",
		    (long long)g->id);
		return -1;
	}
	if (site_changed(s, "g", g->id) == -1)
		return -1;
	for (i = 0; i < g->nseats; i++)
		if (run(s, "UPDATE seats SET accepted = ?, reserve = ? WHERE "
		    "game_id = ? AND seat = ?", "iiii", (int64_t)g->accepted[i],
		    g->reserve[i], g->id, (int64_t)i) == -1)
			return -1;
	return 0;
}

void
store_game_free(struct store_game *g)
{
	free(g->kind);
	free(g->options);
	free(g->state);
	free(g->status);
	free(g->result);
	free(g->clock);
	free(g->ended);
	memset(g, 0, sizeof(*g));
}

/* The first column of every row of st, as owned strings. */
static int
collect_strings(struct store *s, sqlite3_stmt *st, const char *what,
    char ***out, int *n)
{
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	if (st == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xreallocarray(*out, (size_t)cap, sizeof(**out));
		}
		(*out)[(*n)++] = col_text(st, 0);
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		store_strings_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_fail(s, what);
	}
	return 0;
}

static int
collect_ids(struct store *s, sqlite3_stmt *st, int64_t **ids, int *n)
{
	int rc, cap = 0;

	*ids = NULL;
	*n = 0;
	if (st == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*ids = xreallocarray(*ids, (size_t)cap, sizeof(**ids));
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return store_fail(s, "list");
	}
	return 0;
}

int
store_game_ids(struct store *s, int64_t player, int64_t **ids, int *n)
{
	if (player == 0)
		return collect_ids(s, query(s, "SELECT id FROM games ORDER BY "
		    "id DESC", ""), ids, n);
	return collect_ids(s, query(s, "SELECT DISTINCT game_id FROM seats "
	    "WHERE player_id = ? ORDER BY game_id DESC", "i", player), ids, n);
}

int
store_move_add(struct store *s, int64_t game, int ply, int seat,
    const char *notation, int64_t now)
{
	return run(s, "INSERT INTO moves (game_id, ply, seat, notation, "
	    "created) VALUES (?, ?, ?, ?, ?)", "iiiti", game, (int64_t)ply,
	    (int64_t)seat, notation, now);
}

int
store_moves(struct store *s, int64_t game, struct store_move **out, int *n)
{
	sqlite3_stmt *st;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	if ((st = query(s, "SELECT ply, seat, notation, created FROM moves "
	    "WHERE game_id = ? ORDER BY ply", "i", game)) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			*out = xreallocarray(*out, (size_t)cap, sizeof(**out));
		}
		(*out)[*n].ply = sqlite3_column_int(st, 0);
		(*out)[*n].seat = sqlite3_column_int(st, 1);
		(*out)[*n].notation = col_text(st, 2);
		(*out)[*n].created = sqlite3_column_int64(st, 3);
		(*n)++;
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		store_moves_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_fail(s, "moves");
	}
	return 0;
}

void
store_moves_free(struct store_move *m, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(m[i].notation);
	free(m);
}

int
store_message_seen(struct store *s, const char *key, int64_t now,
    const char *outcome)
{
	if (run(s, "INSERT INTO processed (key, received, outcome) VALUES "
	    "(?, ?, ?) ON CONFLICT (key) DO NOTHING", "tit", key, now,
	    outcome) == -1)
		return -1;
	return sqlite3_changes(s->db) == 0 ? 1 : 0;
}

int
store_outbox_add_once(struct store *s, const struct store_mail *m,
    int64_t now)
{
	if (run(s, "INSERT OR IGNORE INTO outbox (message_id, envelope_from, "
	    "recipients, game_id, data, created, next_try) VALUES (?, ?, ?, "
	    "NULLIF(?, 0), ?, ?, ?)", "tttitii", m->message_id,
	    m->envelope_from, m->recipients, m->game, m->data, now,
	    m->next_try ? m->next_try : now) == -1)
		return -1;
	return sqlite3_changes(s->db) == 0 ? 1 : 0;
}

int
store_outbox_add(struct store *s, const struct store_mail *m, int64_t now)
{
	return run(s, "INSERT INTO outbox (message_id, envelope_from, "
	    "recipients, game_id, data, created, next_try) VALUES (?, ?, ?, "
	    "NULLIF(?, 0), ?, ?, ?)", "tttitii", m->message_id,
	    m->envelope_from, m->recipients, m->game, m->data, now,
	    m->next_try ? m->next_try : now);
}

/* Outbox rows of a query with two integer parameters, at most max. */
static int
outbox_rows(struct store *s, const char *sql, int64_t a, int max,
    struct store_mail **out, int *n)
{
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	*n = 0;
	if ((st = query(s, sql, "ii", a, (int64_t)max)) == NULL)
		return -1;
	*out = xcalloc((size_t)(max > 0 ? max : 1), sizeof(**out));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
		struct store_mail *m = &(*out)[(*n)++];

		m->id = sqlite3_column_int64(st, 0);
		m->message_id = col_text(st, 1);
		m->envelope_from = col_text(st, 2);
		m->recipients = col_text(st, 3);
		m->data = col_text(st, 4);
		m->game = sqlite3_column_int64(st, 5);
		m->attempts = sqlite3_column_int(st, 6);
		m->next_try = sqlite3_column_int64(st, 7);
		m->created = sqlite3_column_int64(st, 8);
		m->last_error = col_text(st, 9);
		m->failed = col_text(st, 10);
	}
	done(s, st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		store_mails_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_fail(s, "outbox");
	}
	return 0;
}

#define OUTBOX_COLUMNS	"id, message_id, envelope_from, recipients, data, " \
	"ifnull(game_id, 0), attempts, next_try, created, last_error, failed"

int
store_outbox_due(struct store *s, int64_t now, int max,
    struct store_mail **out, int *n)
{
	return outbox_rows(s, "SELECT " OUTBOX_COLUMNS " FROM outbox WHERE "
	    "sent IS NULL AND failed IS NULL AND next_try <= ? ORDER BY "
	    "next_try, id LIMIT ?", now, max, out, n);
}

int
store_outbox_sent(struct store *s, int64_t id, int64_t now)
{
	return run(s, "UPDATE outbox SET sent = ?, attempts = attempts + 1 "
	    "WHERE id = ?", "ii", now, id);
}

int
store_outbox_retry(struct store *s, int64_t id, int64_t next_try,
    const char *why)
{
	if (run(s, "UPDATE outbox SET attempts = attempts + 1, next_try = "
	    "?, last_error = ? WHERE id = ?", "iti", next_try, why, id) == -1)
		return -1;
	return store_counter_add(s, "send.failures", 1);
}

int
store_outbox_failed(struct store *s, int64_t id, const char *why)
{
	if (run(s, "UPDATE outbox SET attempts = attempts + 1, failed = ? "
	    "WHERE id = ?", "ti", why, id) == -1)
		return -1;
	return store_counter_add(s, "send.failures", 1);
}

int
store_counter_add(struct store *s, const char *name, int64_t n)
{
	return run(s, "INSERT INTO counters (name, value) VALUES (?, ?) "
	    "ON CONFLICT (name) DO UPDATE SET value = value + excluded.value",
	    "ti", name, n);
}

int
store_counter_set(struct store *s, const char *name, int64_t v)
{
	return run(s, "INSERT INTO counters (name, value) VALUES (?, ?) "
	    "ON CONFLICT (name) DO UPDATE SET value = excluded.value", "ti",
	    name, v);
}

const char *const store_outcomes[STORE_NOUTCOMES] = { "applied", "failed",
	"remarks", "unreadable", "dropped", "duplicate", "quarantined" };

int
store_stats(struct store *s, struct store_stats *out)
{
	sqlite3_stmt *st;
	const char *name;
	int rc, i;

	memset(out, 0, sizeof(*out));
	if ((st = query(s, "SELECT name, value FROM counters", "")) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		name = (const char *)sqlite3_column_text(st, 0);
		if (name == NULL)
			continue;
		for (i = 0; i < STORE_NOUTCOMES; i++)
			if (strncmp(name, "messages.", 9) == 0 &&
			    strcmp(name + 9, store_outcomes[i]) == 0)
				out->messages[i] = sqlite3_column_int64(st, 1);
		if (strcmp(name, "send.failures") == 0)
			out->send_failures = sqlite3_column_int64(st, 1);
		else if (strcmp(name, "imap.contact") == 0)
			out->imap_contact = sqlite3_column_int64(st, 1);
	}
	done(s, st);
	if (rc != SQLITE_DONE)
		return store_fail(s, "counters");
	/* The queue as the outbox holds it (its partial index, not the
	 * sent rows); robots and games as they are now. */
	if ((st = query(s, "SELECT count(*), coalesce(min(created), 0) FROM "
	    "outbox WHERE sent IS NULL AND failed IS NULL", "")) == NULL)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		out->queue = sqlite3_column_int64(st, 0);
		out->queue_oldest = sqlite3_column_int64(st, 1);
	}
	done(s, st);
	if (rc != SQLITE_ROW)
		return store_fail(s, "outbox");
	if ((st = query(s, "SELECT (SELECT count(*) FROM robot_waits), "
	    "(SELECT count(*) FROM games WHERE status = 'active'), "
	    "(SELECT count(*) FROM outbox WHERE failed IS NOT NULL AND "
	    "sent IS NULL)", "")) == NULL)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		out->robot_backlog = sqlite3_column_int64(st, 0);
		out->games_active = sqlite3_column_int64(st, 1);
		out->given_up = sqlite3_column_int64(st, 2);
	}
	done(s, st);
	if (rc != SQLITE_ROW)
		return store_fail(s, "stats");
	return store_inbound_counts(s, &out->inbound, &out->inbound_dead);
}

int
store_outbox_counts(struct store *s, int *waiting, int *sent, int *failed)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = query(s, "SELECT count(*) FILTER (WHERE sent IS NULL AND "
	    "failed IS NULL), count(sent), count(failed) FROM outbox", "")) ==
	    NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*waiting = sqlite3_column_int(st, 0);
		*sent = sqlite3_column_int(st, 1);
		*failed = sqlite3_column_int(st, 2);
	}
	done(s, st);
	return rc == SQLITE_ROW ? 0 : store_fail(s, "outbox counts");
}

int
store_robot_wait_add(struct store *s, int64_t game, int pid, int64_t since,
    int thinking, int64_t *id)
{
	if (run(s, "INSERT INTO robot_waits (game_id, pid, since, thinking) "
	    "VALUES (?, ?, ?, ?)", "iiii", game, (int64_t)pid, since,
	    (int64_t)thinking) == -1)
		return -1;
	*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int
store_robot_wait_set(struct store *s, int64_t id, int thinking)
{
	return run(s, "UPDATE robot_waits SET thinking = ? WHERE id = ?", "ii",
	    (int64_t)thinking, id);
}

int
store_robot_wait_del(struct store *s, int64_t id)
{
	return run(s, "DELETE FROM robot_waits WHERE id = ?", "i", id);
}

int
store_robot_waits(struct store *s, struct store_robot_wait **out, int *n)
{
	sqlite3_stmt *st;
	struct store_robot_wait *v = NULL;
	int rc, k = 0;

	*out = NULL;
	*n = 0;
	if ((st = query(s, "SELECT id, game_id, pid, since, thinking FROM "
	    "robot_waits ORDER BY since, id", "")) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = xreallocarray(v, (size_t)k + 1, sizeof(*v));
		v[k].id = sqlite3_column_int64(st, 0);
		v[k].game = sqlite3_column_int64(st, 1);
		v[k].pid = sqlite3_column_int(st, 2);
		v[k].since = sqlite3_column_int64(st, 3);
		v[k].thinking = sqlite3_column_int(st, 4);
		k++;
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		free(v);
		return store_fail(s, "robot waits");
	}
	*out = v;
	*n = k;
	return 0;
}

int
store_inbound_add(struct store *s, const char *key, const char *route,
    int64_t now, const char *raw, size_t len, int *dup)
{
	if (len > INT_MAX) {
		snprintf(s->errmsg, sizeof(s->errmsg), "inbound: a message of "
		    "%zu bytes", len);
		return -1;
	}
	if (run(s, "INSERT INTO inbound (key, route, arrived, raw) VALUES "
	    "(?, ?, ?, ?) ON CONFLICT (key) DO NOTHING", "ttib", key, route,
	    now, raw, (int)len) == -1)
		return -1;
	*dup = sqlite3_changes(s->db) == 0;
	return 0;
}

static void
inbound_row(sqlite3_stmt *st, struct store_inbound *r, int with_raw)
{
	r->id = sqlite3_column_int64(st, 0);
	r->key = col_text(st, 1);
	r->route = col_text(st, 2);
	r->arrived = sqlite3_column_int64(st, 3);
	r->attempts = sqlite3_column_int(st, 4);
	r->next_try = sqlite3_column_int64(st, 5);
	r->dead = strcmp((const char *)sqlite3_column_text(st, 6), "dead") ==
	    0;
	r->cause = col_text(st, 7);
	r->len = (size_t)sqlite3_column_bytes(st, 8);
	r->raw = NULL;
	if (with_raw) {
		r->raw = xmalloc(r->len + 1);
		if (r->len > 0)
			memcpy(r->raw, sqlite3_column_blob(st, 8), r->len);
		r->raw[r->len] = '\0';
	}
}

int
store_inbound_next(struct store *s, int64_t after, struct store_inbound *r)
{
	sqlite3_stmt *st;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((st = query(s, "SELECT id, key, route, arrived, attempts, "
	    "next_try, state, cause, raw FROM inbound WHERE state = 'waiting' "
	    "AND id > ? ORDER BY state, id LIMIT 1", "i", after)) == NULL)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		inbound_row(st, r, 1);
	done(s, st);
	if (rc == SQLITE_DONE)
		return 1;
	return rc == SQLITE_ROW ? 0 : store_fail(s, "inbound");
}

int
store_inbound_list(struct store *s, struct store_inbound **out, int *n)
{
	sqlite3_stmt *st;
	struct store_inbound *v = NULL;
	int rc, k = 0;

	*out = NULL;
	*n = 0;
	if ((st = query(s, "SELECT id, key, route, arrived, attempts, "
	    "next_try, state, cause, raw FROM inbound ORDER BY id", "")) ==
	    NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = xreallocarray(v, (size_t)k + 1, sizeof(*v));
		inbound_row(st, &v[k++], 0);
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		store_inbound_free(v, k);
		return store_fail(s, "inbound");
	}
	*out = v;
	*n = k;
	return 0;
}

int
store_inbound_done(struct store *s, int64_t id)
{
	return run(s, "DELETE FROM inbound WHERE id = ?", "i", id);
}

int
store_inbound_retry(struct store *s, int64_t id, int64_t next_try,
    int dead, const char *cause)
{
	return run(s, "UPDATE inbound SET attempts = attempts + 1, "
	    "next_try = ?, state = ?, cause = ? WHERE id = ?", "itti",
	    next_try, dead ? "dead" : "waiting", cause, id);
}

int
store_inbound_requeue(struct store *s, int64_t id, int *changed)
{
	if (run(s, "UPDATE inbound SET state = 'waiting', attempts = 0, "
	    "next_try = 0 WHERE id = ? AND state = 'dead'", "i", id) == -1)
		return -1;
	*changed = sqlite3_changes(s->db);
	return 0;
}

int
store_inbound_counts(struct store *s, int64_t *waiting, int64_t *dead)
{
	sqlite3_stmt *st;
	int rc;

	*waiting = *dead = 0;
	if ((st = query(s, "SELECT (SELECT count(*) FROM inbound WHERE "
	    "state = 'waiting'), (SELECT count(*) FROM inbound WHERE "
	    "state = 'dead')", "")) == NULL)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*waiting = sqlite3_column_int64(st, 0);
		*dead = sqlite3_column_int64(st, 1);
	}
	done(s, st);
	return rc == SQLITE_ROW ? 0 : store_fail(s, "inbound");
}

void
store_inbound_clear(struct store_inbound *r)
{
	free(r->key);
	free(r->route);
	free(r->cause);
	free(r->raw);
	memset(r, 0, sizeof(*r));
}

void
store_inbound_free(struct store_inbound *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		store_inbound_clear(&v[i]);
	free(v);
}

int
store_outbox_unsent(struct store *s, int max, struct store_mail **out,
    int *n)
{
	return outbox_rows(s, "SELECT " OUTBOX_COLUMNS " FROM outbox WHERE "
	    "sent IS NULL AND id > ? ORDER BY failed IS NOT NULL, id LIMIT ?",
	    0, max, out, n);
}

int
store_outbox_requeue(struct store *s, int64_t id, int64_t now, int *changed)
{
	int rc;

	if (id == 0)
		rc = run(s, "UPDATE outbox SET next_try = ? WHERE sent IS NULL "
		    "AND failed IS NULL AND next_try < ?", "ii", now,
		    (int64_t)STORE_OUTBOX_HELD);
	else
		rc = run(s, "UPDATE outbox SET next_try = ?1, created = CASE "
		    "WHEN failed IS NULL THEN created ELSE ?1 END, failed = "
		    "NULL WHERE id = ?2 AND sent IS NULL", "ii", now, id);
	*changed = rc == 0 ? sqlite3_changes(s->db) : 0;
	return rc;
}

int
store_outbox_delete(struct store *s, int64_t id, int *changed)
{
	int rc;

	if (id == 0)
		rc = run(s, "DELETE FROM outbox WHERE sent IS NULL", "");
	else
		rc = run(s, "DELETE FROM outbox WHERE id = ? AND sent IS NULL",
		    "i", id);
	*changed = rc == 0 ? sqlite3_changes(s->db) : 0;
	return rc;
}

int
store_outbox_hold(struct store *s, int64_t id, int hold, int64_t now,
    int *changed)
{
	int rc;

	if (hold)
		rc = run(s, "UPDATE outbox SET next_try = ? WHERE id = ? AND "
		    "sent IS NULL AND failed IS NULL", "ii",
		    (int64_t)STORE_OUTBOX_HELD, id);
	else
		rc = run(s, "UPDATE outbox SET next_try = ? WHERE id = ? AND "
		    "sent IS NULL AND failed IS NULL AND next_try = ?", "iii",
		    now, id, (int64_t)STORE_OUTBOX_HELD);
	*changed = rc == 0 ? sqlite3_changes(s->db) : 0;
	return rc;
}

int
store_prune(struct store *s, int64_t processed_before, int64_t outbox_before,
    int64_t replies_before, int max, int *deleted)
{
	static const char *const sql[] = {
		"DELETE FROM processed WHERE rowid IN (SELECT rowid FROM "
		"processed WHERE received < ? LIMIT ?)",
		"DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE "
		"created < ? AND (sent IS NOT NULL OR failed IS NOT NULL) "
		"LIMIT ?)",
		"DELETE FROM replies WHERE rowid IN (SELECT rowid FROM replies "
		"WHERE at < ? LIMIT ?)",
	};
	int64_t before[3];
	size_t i;

	before[0] = processed_before;
	before[1] = outbox_before;
	before[2] = replies_before;
	*deleted = 0;
	for (i = 0; i < nitems(sql) && *deleted < max; i++) {
		if (run(s, sql[i], "ii", before[i], (int64_t)(max -
		    *deleted)) == -1)
			return -1;
		*deleted += sqlite3_changes(s->db);
	}
	return 0;
}

int
store_retention(struct store *s, int64_t processed_before,
    int64_t outbox_before, int64_t replies_before, int *total)
{
	int n;

	*total = 0;
	/* Small transactions, so the daemon's own work never waits long. */
	do {
		if (store_begin(s) == -1)
			return -1;
		if (store_prune(s, processed_before, outbox_before,
		    replies_before, 500, &n) == -1 || store_commit(s) == -1) {
			store_rollback(s);
			return -1;
		}
		*total += n;
	} while (n == 500);
	return 0;
}

void
store_mails_free(struct store_mail *m, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(m[i].last_error);
		free(m[i].failed);
		free(m[i].message_id);
		free(m[i].envelope_from);
		free(m[i].recipients);
		free(m[i].data);
	}
	free(m);
}

int
store_timer_add(struct store *s, const struct store_timer *t, int64_t *id)
{
	if (run(s, "INSERT INTO timers (due, kind, game_id, player_id, data) "
	    "VALUES (?, ?, NULLIF(?, 0), NULLIF(?, 0), ?)", "itiit", t->due,
	    t->kind, t->game, t->player, t->data) == -1)
		return -1;
	if (id)
		*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int
store_timer_next(struct store *s, int64_t *due)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = query(s, "SELECT min(due) FROM timers", "")) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		done(s, st);
		return store_fail(s, "timers");
	}
	rc = sqlite3_column_type(st, 0) == SQLITE_NULL ? 1 : 0;
	if (rc == 0)
		*due = sqlite3_column_int64(st, 0);
	done(s, st);
	return rc;
}

int
store_timer_due(struct store *s, int64_t now, int max,
    struct store_timer **out, int *n)
{
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	*n = 0;
	if ((st = query(s, "SELECT id, due, kind, ifnull(game_id, 0), "
	    "ifnull(player_id, 0), data FROM timers WHERE due <= ? ORDER BY "
	    "due, id LIMIT ?", "ii", now, (int64_t)max)) == NULL)
		return -1;
	*out = xcalloc((size_t)(max > 0 ? max : 1), sizeof(**out));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
		struct store_timer *t = &(*out)[(*n)++];

		t->id = sqlite3_column_int64(st, 0);
		t->due = sqlite3_column_int64(st, 1);
		t->kind = col_text(st, 2);
		t->game = sqlite3_column_int64(st, 3);
		t->player = sqlite3_column_int64(st, 4);
		t->data = col_text(st, 5);
	}
	done(s, st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		store_timers_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_fail(s, "timers");
	}
	return 0;
}

int
store_timer_delete(struct store *s, int64_t id)
{
	return run(s, "DELETE FROM timers WHERE id = ?", "i", id);
}

int
store_timer_cancel(struct store *s, const char *kind, int64_t game,
    int64_t player)
{
	/* Timers without a game keep NULL there: game 0 names those. */
	return run(s, "DELETE FROM timers WHERE kind = ? AND game_id IS "
	    "NULLIF(?, 0) AND (? = 0 OR player_id = ?)", "tiii", kind, game,
	    player, player);
}

void
store_timers_free(struct store_timer *t, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(t[i].kind);
		free(t[i].data);
	}
	free(t);
}

int
store_message_note(struct store *s, const char *key, const char *sender,
    const char *commands, const char *outcome)
{
	return run(s, "UPDATE processed SET sender = ?, commands = ?, outcome "
	    "= ? WHERE key = ?", "tttt", sender, commands, outcome, key);
}

int
store_message_get(struct store *s, const char *key, char **sender,
    char **commands, char **outcome)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = query(s, "SELECT sender, commands, outcome FROM processed "
	    "WHERE key = ?", "t", key)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*sender = col_text(st, 0);
		*commands = col_text(st, 1);
		*outcome = col_text(st, 2);
		rc = 0;
	} else
		rc = rc == SQLITE_DONE ? 1 : store_fail(s, "message");
	done(s, st);
	return rc;
}

int
store_bounce_add(struct store *s, const char *address, int64_t now,
    const char *reason)
{
	if (run(s, "UPDATE players SET bounces = bounces + 1, last_bounce = ?, "
	    "last_bounce_reason = ? WHERE address = ?", "itt", now, reason,
	    address) == -1)
		return -1;
	return sqlite3_changes(s->db) ? 0 : 1;
}

int
store_player_bounces(struct store *s, const char *address, int *bounces)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = query(s, "SELECT bounces FROM players WHERE address = ?",
	    "t", address)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*bounces = sqlite3_column_int(st, 0);
		rc = 0;
	} else
		rc = rc == SQLITE_DONE ? 1 : store_fail(s, "bounces");
	done(s, st);
	return rc;
}

int
store_reply_count(struct store *s, const char *sender, int64_t since, int *n)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = query(s, "SELECT count(*) FROM replies WHERE sender = ? AND "
	    "at >= ?", "ti", sender, since)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int(st, 0);
	done(s, st);
	return rc == SQLITE_ROW ? 0 : store_fail(s, "replies");
}

int
store_reply_oldest(struct store *s, const char *sender, int64_t since,
    int64_t *at)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = query(s, "SELECT coalesce(min(at), 0) FROM replies WHERE "
	    "sender = ? AND at >= ?", "ti", sender, since)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*at = sqlite3_column_int64(st, 0);
	done(s, st);
	return rc == SQLITE_ROW ? 0 : store_fail(s, "replies");
}

int
store_reply_add(struct store *s, const char *sender, int64_t now)
{
	/* Rows older than a day are never counted again. */
	if (run(s, "DELETE FROM replies WHERE at < ?", "i", now - 86400) == -1)
		return -1;
	return run(s, "INSERT INTO replies (sender, at) VALUES (?, ?)", "ti",
	    sender, now);
}

int
store_outbox_next(struct store *s, int64_t *when)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = query(s, "SELECT min(next_try) FROM outbox WHERE sent IS "
	    "NULL AND failed IS NULL AND next_try < ?", "i",
	    (int64_t)STORE_OUTBOX_HELD)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		done(s, st);
		return store_fail(s, "outbox");
	}
	rc = sqlite3_column_type(st, 0) == SQLITE_NULL ? 1 : 0;
	if (rc == 0)
		*when = sqlite3_column_int64(st, 0);
	done(s, st);
	return rc;
}

int
store_banned(struct store *s, char ***out, int *n)
{
	return collect_strings(s, query(s, "SELECT address FROM players "
	    "WHERE banned != 0 ORDER BY address", ""), "banned", out, n);
}

int
store_player_ban(struct store *s, const char *address, int banned,
    int64_t now)
{
	int64_t id;

	if (store_player_id(s, address, 1, now, &id) == -1)
		return -1;
	return run(s, "UPDATE players SET banned = ? WHERE id = ?", "ii",
	    (int64_t)(banned != 0), id);
}

void
store_strings_free(char **v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Run a query returning one integer (a count). */
static int
count(struct store *s, sqlite3_stmt *st, const char *what, int *n)
{
	int rc;

	if (st == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int(st, 0);
	done(s, st);
	return rc == SQLITE_ROW ? 0 : store_fail(s, what);
}

int
store_event_add(struct store *s, int64_t game, int after_ply, int64_t player,
    const char *kind, const char *text, int64_t now)
{
	return run(s, "INSERT INTO events (game_id, after_ply, player_id, "
	    "kind, text, created) VALUES (?, ?, NULLIF(?, 0), ?, ?, ?)",
	    "iiitti", game, (int64_t)after_ply, player, kind, text, now);
}

int
store_events(struct store *s, int64_t game, struct store_event **out, int *n)
{
	sqlite3_stmt *st;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	/* rowid is the order of insertion: events of one ply, or of one
	 * second, keep the order they happened in. */
	if ((st = query(s, "SELECT after_ply, ifnull(player_id, 0), kind, "
	    "text, created FROM events WHERE game_id = ? ORDER BY rowid", "i",
	    game)) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xreallocarray(*out, (size_t)cap, sizeof(**out));
		}
		(*out)[*n].after_ply = sqlite3_column_int(st, 0);
		(*out)[*n].player = sqlite3_column_int64(st, 1);
		(*out)[*n].kind = col_text(st, 2);
		(*out)[*n].text = col_text(st, 3);
		(*out)[*n].created = sqlite3_column_int64(st, 4);
		(*n)++;
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		store_events_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_fail(s, "events");
	}
	return 0;
}

void
store_events_free(struct store_event *e, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(e[i].kind);
		free(e[i].text);
	}
	free(e);
}

int
store_observer_set(struct store *s, int64_t game, int64_t player, int on)
{
	int rc;

	/* The interface takes no time, so `since` is the wall clock; the
	 * order of observers is the order of insertion. */
	if (on)
		rc = run(s, "INSERT INTO observers (game_id, player_id) VALUES "
		    "(?, ?) ON CONFLICT DO NOTHING", "ii", game, player);
	else
		rc = run(s, "DELETE FROM observers WHERE game_id = ? AND "
		    "player_id = ?", "ii", game, player);
	if (rc == -1)
		return -1;
	return sqlite3_changes(s->db) == 0 ? 1 : 0;
}

int
store_observers(struct store *s, int64_t game, int64_t **players, int *n)
{
	return collect_ids(s, query(s, "SELECT player_id FROM observers WHERE "
	    "game_id = ? ORDER BY rowid", "i", game), players, n);
}

int
store_thanks_add(struct store *s, int64_t game, int64_t from, int64_t to,
    int64_t now)
{
	if (run(s, "INSERT INTO thanks (game_id, from_player, to_player, "
	    "created) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING", "iiii",
	    game, from, to, now) == -1)
		return -1;
	if (sqlite3_changes(s->db) == 0)
		return 1;
	return site_changed(s, "p", to);
}

int
store_player_authority(struct store *s, int64_t player, int *n)
{
	return count(s, query(s, "SELECT count(*) FROM thanks WHERE to_player "
	    "= ?", "i", player), "authority", n);
}

#define REPORT_COLUMNS	"id, game_id, reporter, text, created, " \
	"ifnull(resolved, 0), resolution"

static void
report_row(sqlite3_stmt *st, struct store_report *r)
{
	r->id = sqlite3_column_int64(st, 0);
	r->game = sqlite3_column_int64(st, 1);
	r->reporter = sqlite3_column_int64(st, 2);
	r->text = col_text(st, 3);
	r->created = sqlite3_column_int64(st, 4);
	r->resolved = sqlite3_column_int64(st, 5);
	r->resolution = col_text(st, 6);
}

int
store_report_add(struct store *s, int64_t game, int64_t reporter,
    const char *text, int64_t now, int64_t *id)
{
	if (run(s, "INSERT INTO reports (game_id, reporter, text, created) "
	    "VALUES (?, ?, ?, ?)", "iiti", game, reporter, text, now) == -1)
		return -1;
	if (id)
		*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int
store_report_load(struct store *s, int64_t id, struct store_report *r)
{
	sqlite3_stmt *st;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((st = query(s, "SELECT " REPORT_COLUMNS " FROM reports WHERE id = "
	    "?", "i", id)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		report_row(st, r);
		rc = 0;
	} else
		rc = rc == SQLITE_DONE ? 1 : store_fail(s, "report load");
	done(s, st);
	return rc;
}

int
store_reports_open(struct store *s, struct store_report **out, int *n)
{
	sqlite3_stmt *st;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	if ((st = query(s, "SELECT " REPORT_COLUMNS " FROM reports WHERE "
	    "resolved IS NULL ORDER BY created, id", "")) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xreallocarray(*out, (size_t)cap, sizeof(**out));
		}
		report_row(st, &(*out)[(*n)++]);
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		store_reports_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_fail(s, "reports");
	}
	return 0;
}

int
store_report_resolve(struct store *s, int64_t id, const char *text,
    int64_t now)
{
	if (run(s, "UPDATE reports SET resolved = ?, resolution = ? WHERE id "
	    "= ? AND resolved IS NULL", "iti", now, text, id) == -1)
		return -1;
	return sqlite3_changes(s->db) == 0 ? 1 : 0;
}

void
store_report_free(struct store_report *r)
{
	free(r->text);
	free(r->resolution);
	memset(r, 0, sizeof(*r));
}

void
store_reports_free(struct store_report *r, int n)
{
	int i;

	for (i = 0; i < n; i++)
		store_report_free(&r[i]);
	free(r);
}

int
store_confirm_add(struct store *s, const char *cookie, int64_t player,
    const char *command, int64_t now, int64_t expires)
{
	/* An expired cookie can never be taken again: drop those. */
	if (run(s, "DELETE FROM confirmations WHERE expires <= ?", "i",
	    now) == -1)
		return -1;
	return run(s, "INSERT INTO confirmations (cookie, player_id, command, "
	    "created, expires) VALUES (?, ?, ?, ?, ?)", "titii", cookie,
	    player, command, now, expires);
}

int
store_confirm_waiting(struct store *s, int64_t player, int64_t now, int *n)
{
	return count(s, query(s, "SELECT count(*) FROM confirmations WHERE "
	    "player_id = ? AND used IS NULL AND expires > ?", "ii", player,
	    now), "confirmations", n);
}

int
store_confirm_take(struct store *s, const char *cookie, int64_t player,
    int64_t now, char **command)
{
	char *cmd;
	int rc;

	*command = NULL;
	if ((rc = store_confirm_get(s, cookie, player, now, &cmd)) != 0)
		return rc;
	/* The same conditions again: only one taker can change the row, even
	 * when the caller forgot its transaction. */
	if (run(s, "UPDATE confirmations SET used = ? WHERE cookie = ? AND "
	    "player_id = ? AND used IS NULL AND expires > ?", "itii", now,
	    cookie, player, now) == -1) {
		free(cmd);
		return -1;
	}
	if (sqlite3_changes(s->db) != 1) {
		free(cmd);
		return 1;
	}
	*command = cmd;
	return 0;
}

int
store_action_add(struct store *s, int64_t player, const char *kind,
    int64_t now)
{
	return run(s, "INSERT INTO actions (player_id, kind, at) VALUES (?, ?, "
	    "?)", "iti", player, kind, now);
}

int
store_action_count(struct store *s, int64_t player, const char *kind,
    int64_t since, int *n)
{
	return count(s, query(s, "SELECT count(*) FROM actions WHERE player_id "
	    "= ? AND kind = ? AND at >= ?", "iti", player, kind, since),
	    "actions", n);
}

int
store_outbox_all(struct store *s, int64_t after, int max,
    struct store_mail **out, int *n)
{
	return outbox_rows(s, "SELECT " OUTBOX_COLUMNS " FROM outbox WHERE "
	    "id > ? ORDER BY id LIMIT ?", after, max, out, n);
}

int
store_rating_get(struct store *s, int64_t player, const char *kind,
    struct store_rating *r)
{
	sqlite3_stmt *st;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((st = query(s, "SELECT r, rd, sigma, last, games FROM ratings "
	    "WHERE player_id = ? AND kind = ?", "it", player, kind)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		r->r = sqlite3_column_double(st, 0);
		r->rd = sqlite3_column_double(st, 1);
		r->sigma = sqlite3_column_double(st, 2);
		r->last = sqlite3_column_int64(st, 3);
		r->games = sqlite3_column_int(st, 4);
		rc = 0;
	} else
		rc = rc == SQLITE_DONE ? 1 : store_fail(s, "rating");
	done(s, st);
	return rc;
}

int
store_rating_put(struct store *s, int64_t player, const char *kind,
    const struct store_rating *r)
{
	return run(s, "INSERT OR REPLACE INTO ratings (player_id, kind, r, rd, "
	    "sigma, last, games) VALUES (?, ?, ?, ?, ?, ?, ?)", "itdddii",
	    player, kind, r->r, r->rd, r->sigma, r->last, (int64_t)r->games);
}

#define LADDER_COLUMNS	"id, name, kind, options, clock, list, pairs, " \
	"reach, accept, open_cap, cooldown, idle, created, ifnull(closed, 0)"

static int
ladder_one(struct store *s, sqlite3_stmt *st, struct store_ladder *l)
{
	int rc;

	memset(l, 0, sizeof(*l));
	if (st == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		l->id = sqlite3_column_int64(st, 0);
		l->name = col_text(st, 1);
		l->kind = col_text(st, 2);
		l->options = col_text(st, 3);
		l->clock = col_text(st, 4);
		l->list = col_text(st, 5);
		l->pairs = sqlite3_column_int(st, 6);
		l->reach = sqlite3_column_int(st, 7);
		l->accept = sqlite3_column_int64(st, 8);
		l->open_cap = sqlite3_column_int(st, 9);
		l->cooldown = sqlite3_column_int64(st, 10);
		l->idle = sqlite3_column_int64(st, 11);
		l->created = sqlite3_column_int64(st, 12);
		l->closed = sqlite3_column_int64(st, 13);
		rc = 0;
	} else
		rc = rc == SQLITE_DONE ? 1 : store_fail(s, "ladder");
	done(s, st);
	return rc;
}

int
store_ladder_add(struct store *s, struct store_ladder *l)
{
	if (run(s, "INSERT INTO ladders (name, kind, options, clock, list, "
	    "pairs, reach, accept, open_cap, cooldown, idle, created) VALUES "
	    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "tttttiiiiiii", l->name,
	    l->kind, l->options ? l->options : "", l->clock, l->list,
	    (int64_t)l->pairs, (int64_t)l->reach, l->accept,
	    (int64_t)l->open_cap, l->cooldown, l->idle, l->created) == -1)
		return -1;
	l->id = sqlite3_last_insert_rowid(s->db);
	return site_changed(s, "l", l->id);
}

int
store_ladder_find(struct store *s, const char *name, struct store_ladder *l)
{
	return ladder_one(s, query(s, "SELECT " LADDER_COLUMNS " FROM ladders "
	    "WHERE name = ?", "t", name), l);
}

int
store_ladder_load(struct store *s, int64_t id, struct store_ladder *l)
{
	return ladder_one(s, query(s, "SELECT " LADDER_COLUMNS " FROM ladders "
	    "WHERE id = ?", "i", id), l);
}

int
store_ladder_close(struct store *s, int64_t id, int64_t now)
{
	if (run(s, "UPDATE ladders SET closed = ? WHERE id = ?", "ii", now,
	    id) == -1)
		return -1;
	return sqlite3_changes(s->db) == 0 ? 0 : site_changed(s, "l", id);
}

int
store_ladder_ids(struct store *s, int64_t **ids, int *n)
{
	return collect_ids(s, query(s, "SELECT id FROM ladders WHERE closed IS "
	    "NULL ORDER BY id", ""), ids, n);
}

void
store_ladder_free(struct store_ladder *l)
{
	free(l->name);
	free(l->kind);
	free(l->options);
	free(l->clock);
	free(l->list);
	memset(l, 0, sizeof(*l));
}

int
store_rungs(struct store *s, int64_t ladder, struct store_rung **out, int *n)
{
	sqlite3_stmt *st;
	struct store_rung *r;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	if ((st = query(s, "SELECT position, player_id, ifnull(partner_id, 0), "
	    "active FROM rungs WHERE ladder_id = ? ORDER BY position", "i",
	    ladder)) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = xreallocarray(*out, (size_t)cap, sizeof(**out));
		}
		r = &(*out)[(*n)++];
		r->position = sqlite3_column_int(st, 0);
		r->player = sqlite3_column_int64(st, 1);
		r->partner = sqlite3_column_int64(st, 2);
		r->active = sqlite3_column_int64(st, 3);
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return store_fail(s, "rungs");
	}
	return 0;
}

int
store_rungs_set(struct store *s, int64_t ladder, const struct store_rung *r,
    int n)
{
	int i, gone;

	if (run(s, "DELETE FROM rungs WHERE ladder_id = ?", "i", ladder) == -1)
		return -1;
	gone = sqlite3_changes(s->db);
	for (i = 0; i < n; i++) {
		if (r[i].partner != 0) {
			if (run(s, "INSERT INTO rungs (ladder_id, position, "
			    "player_id, partner_id, active) VALUES (?, ?, ?, "
			    "?, ?)", "iiiii", ladder, (int64_t)i + 1,
			    r[i].player, r[i].partner, r[i].active) == -1)
				return -1;
		} else if (run(s, "INSERT INTO rungs (ladder_id, position, "
		    "player_id, active) VALUES (?, ?, ?, ?)", "iiii", ladder,
		    (int64_t)i + 1, r[i].player, r[i].active) == -1)
			return -1;
	}
	return gone + n == 0 ? 0 : site_changed(s, "l", ladder);
}

#define CHALLENGE_COLUMNS "id, ladder_id, challenger, challenged, " \
	"ifnull(game_id, 0), status, created, ifnull(decided, 0)"

static void
challenge_row(sqlite3_stmt *st, struct store_challenge *c)
{
	c->id = sqlite3_column_int64(st, 0);
	c->ladder = sqlite3_column_int64(st, 1);
	c->challenger = sqlite3_column_int64(st, 2);
	c->challenged = sqlite3_column_int64(st, 3);
	c->game = sqlite3_column_int64(st, 4);
	c->status = col_text(st, 5);
	c->created = sqlite3_column_int64(st, 6);
	c->decided = sqlite3_column_int64(st, 7);
}

int
store_challenge_add(struct store *s, struct store_challenge *c)
{
	if (run(s, "INSERT INTO challenges (ladder_id, challenger, challenged, "
	    "status, created) VALUES (?, ?, ?, ?, ?)", "iiiti", c->ladder,
	    c->challenger, c->challenged, c->status ? c->status : "open",
	    c->created) == -1)
		return -1;
	c->id = sqlite3_last_insert_rowid(s->db);
	return store_challenge_update(s, c);
}

int
store_challenge_update(struct store *s, const struct store_challenge *c)
{
	if (run(s, "UPDATE challenges SET game_id = nullif(?, 0), status = "
	    "?, decided = nullif(?, 0) WHERE id = ?", "itii", c->game,
	    c->status ? c->status : "open", c->decided, c->id) == -1)
		return -1;
	return run(s, "INSERT OR REPLACE INTO site_changes (kind, id) SELECT "
	    "'l', ladder_id FROM challenges WHERE id = ?", "i", c->id);
}

int
store_challenge_by_game(struct store *s, int64_t game,
    struct store_challenge *c)
{
	sqlite3_stmt *st;
	int rc;

	memset(c, 0, sizeof(*c));
	if ((st = query(s, "SELECT " CHALLENGE_COLUMNS " FROM challenges "
	    "WHERE game_id = ?", "i", game)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		challenge_row(st, c);
		rc = 0;
	} else
		rc = rc == SQLITE_DONE ? 1 : store_fail(s, "challenge");
	done(s, st);
	return rc;
}

int
store_challenges(struct store *s, int64_t ladder, int64_t player, int open,
    int64_t since, struct store_challenge **out, int *n)
{
	sqlite3_stmt *st;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	if ((st = query(s, "SELECT " CHALLENGE_COLUMNS " FROM challenges "
	    "WHERE ladder_id = ? AND (? = 0 OR challenger = ? OR challenged "
	    "= ?) AND (CASE WHEN ? THEN status = 'open' ELSE status <> "
	    "'open' AND decided >= ? END) ORDER BY id", "iiiiii", ladder,
	    player, player, player, (int64_t)(open != 0), since)) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xreallocarray(*out, (size_t)cap, sizeof(**out));
		}
		challenge_row(st, &(*out)[(*n)++]);
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		store_challenges_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_fail(s, "challenges");
	}
	return 0;
}

void
store_challenge_free(struct store_challenge *c)
{
	free(c->status);
	memset(c, 0, sizeof(*c));
}

void
store_challenges_free(struct store_challenge *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(c[i].status);
	free(c);
}

int
store_rating_change_add(struct store *s, int64_t game, int seat,
    int64_t player, double r_old, double r_new)
{
	return run(s, "INSERT INTO rating_changes (game_id, seat, player_id, "
	    "r_old, r_new) VALUES (?, ?, ?, ?, ?)", "iiidd", game,
	    (int64_t)seat, player, r_old, r_new);
}

int
store_rating_changes(struct store *s, int64_t game,
    double r_old[STORE_MAX_SEATS], double r_new[STORE_MAX_SEATS], int *n)
{
	sqlite3_stmt *st;
	int rc, seat;

	*n = 0;
	if ((st = query(s, "SELECT seat, r_old, r_new FROM rating_changes "
	    "WHERE game_id = ? ORDER BY seat", "i", game)) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		seat = sqlite3_column_int(st, 0);
		if (seat < 0 || seat >= STORE_MAX_SEATS)
			continue;
		r_old[seat] = sqlite3_column_double(st, 1);
		r_new[seat] = sqlite3_column_double(st, 2);
		(*n)++;
	}
	done(s, st);
	return rc == SQLITE_DONE ? 0 : store_fail(s, "rating changes");
}

int
store_games_public(struct store *s, int finished, int max, int64_t **ids,
    int *n)
{
	/* Games that began: an invitation declined or lapsed never did. */
	return collect_ids(s, query(s, finished ? "SELECT id FROM games "
	    "WHERE status IN ('finished', 'aborted') AND nmoves > 0 ORDER BY "
	    "updated DESC, id DESC LIMIT ?" : "SELECT id FROM games WHERE "
	    "status = 'active' ORDER BY updated DESC, id DESC LIMIT ?", "i",
	    (int64_t)max), ids, n);
}

int
store_rating_history(struct store *s, int64_t player, const char *kind,
    struct store_rating_point **out, int *n)
{
	sqlite3_stmt *st;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	if ((st = query(s, "SELECT c.game_id, g.updated, c.r_old, c.r_new "
	    "FROM rating_changes c JOIN games g ON g.id = c.game_id WHERE "
	    "c.player_id = ? AND g.kind = ? ORDER BY g.updated, c.game_id",
	    "it", player, kind)) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = xreallocarray(*out, (size_t)cap, sizeof(**out));
		}
		(*out)[*n].game = sqlite3_column_int64(st, 0);
		(*out)[*n].when = sqlite3_column_int64(st, 1);
		(*out)[*n].r_old = sqlite3_column_double(st, 2);
		(*out)[*n].r_new = sqlite3_column_double(st, 3);
		(*n)++;
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return store_fail(s, "rating history");
	}
	return 0;
}

int
store_site_changes(struct store *s, int max, struct store_site_change **out,
    int *n)
{
	sqlite3_stmt *st;
	const unsigned char *k;
	int rc, cap = 0;

	*out = NULL;
	*n = 0;
	if ((st = query(s, "SELECT seq, kind, id FROM site_changes ORDER BY "
	    "seq LIMIT ?", "i", (int64_t)max)) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = xreallocarray(*out, (size_t)cap, sizeof(**out));
		}
		k = sqlite3_column_text(st, 1);
		(*out)[*n].seq = sqlite3_column_int64(st, 0);
		(*out)[*n].kind = k == NULL ? '?' : (char)k[0];
		(*out)[*n].id = sqlite3_column_int64(st, 2);
		(*n)++;
	}
	done(s, st);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return store_fail(s, "site changes");
	}
	return 0;
}

int
store_site_changes_done(struct store *s, int64_t upto)
{
	return run(s, "DELETE FROM site_changes WHERE seq <= ?", "i", upto);
}

/* ---- decks ---- */

int
store_deck_get(struct store *s, const char *name, int *cycle, char **cards)
{
	sqlite3_stmt *st;
	int rc;

	*cards = NULL;
	*cycle = 0;
	if ((st = query(s, "SELECT cycle, cards FROM decks WHERE name = ?", "t",
	    name)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*cycle = sqlite3_column_int(st, 0);
		*cards = col_text(st, 1);
		rc = 0;
	} else
		rc = rc == SQLITE_DONE ? 1 : store_fail(s, "deck");
	done(s, st);
	return rc;
}

int
store_deck_put(struct store *s, const char *name, int cycle,
    const char *cards)
{
	return run(s, "INSERT INTO decks (name, cycle, cards) VALUES (?, ?, ?) "
	    "ON CONFLICT (name) DO UPDATE SET cycle = excluded.cycle, "
	    "cards = excluded.cards", "tit", name, (int64_t)cycle, cards);
}

int
store_deck_deal_add(struct store *s, int64_t game, const char *deck,
    int cycle, int turn, const char *cards)
{
	return run(s, "INSERT INTO deck_deals (game_id, deck, cycle, turn, "
	    "cards) VALUES (?, ?, ?, ?, ?)", "itiit", game, deck,
	    (int64_t)cycle, (int64_t)turn, cards);
}

int
store_deck_deal(struct store *s, int64_t game, int *cycle, int *turn,
    char **cards)
{
	sqlite3_stmt *st;
	int rc;

	*cards = NULL;
	*cycle = *turn = 0;
	if ((st = query(s, "SELECT cycle, turn, cards FROM deck_deals WHERE "
	    "game_id = ?", "i", game)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*cycle = sqlite3_column_int(st, 0);
		*turn = sqlite3_column_int(st, 1);
		*cards = col_text(st, 2);
		rc = 0;
	} else
		rc = rc == SQLITE_DONE ? 1 : store_fail(s, "deck deal");
	done(s, st);
	return rc;
}

/* ---- seeks ---- */

#define SEEK_COLUMNS	"id, kind, words, clock, rated, nseats, player_id, " \
	"ifnull(seat1, 0), ifnull(seat2, 0), ifnull(seat3, 0), " \
	"ifnull(ladder_id, 0), ifnull(rating_min, 0), ifnull(rating_max, 0), " \
	"status, created, expires, ifnull(game_id, 0)"

int
store_seek_add(struct store *s, struct store_seek *k)
{
	if (next_game_id(s, &k->id) == -1)
		return -1;
	if (run(s, "INSERT INTO seeks (id, kind, words, clock, rated, nseats, "
	    "player_id, seat1, seat2, seat3, ladder_id, rating_min, rating_max, "
	    "status, created, expires, game_id) VALUES (?, ?, ?, ?, ?, ?, ?, "
	    "NULLIF(?, 0), NULLIF(?, 0), NULLIF(?, 0), NULLIF(?, 0), "
	    "NULLIF(?, 0), NULLIF(?, 0), ?, ?, ?, NULLIF(?, 0))",
	    "itttiiiiiiiiitiii", k->id, k->kind, k->words ? k->words : "",
	    k->clock, (int64_t)(k->rated != 0), (int64_t)k->nseats,
	    k->player[0], k->player[1], k->player[2], k->player[3], k->ladder,
	    (int64_t)k->rating_min, (int64_t)k->rating_max, k->status,
	    k->created, k->expires, k->game) == -1)
		return -1;
	return site_changed(s, "s", k->id);
}

int
store_seek_load(struct store *s, int64_t id, struct store_seek *k)
{
	sqlite3_stmt *st;
	int rc, i;

	memset(k, 0, sizeof(*k));
	if ((st = query(s, "SELECT " SEEK_COLUMNS " FROM seeks WHERE id = ?",
	    "i", id)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		k->id = sqlite3_column_int64(st, 0);
		k->kind = col_text(st, 1);
		k->words = col_text(st, 2);
		k->clock = col_text(st, 3);
		k->rated = sqlite3_column_int(st, 4);
		k->nseats = sqlite3_column_int(st, 5);
		for (i = 0; i < STORE_MAX_SEATS; i++)
			k->player[i] = sqlite3_column_int64(st, 6 + i);
		k->ladder = sqlite3_column_int64(st, 10);
		k->rating_min = sqlite3_column_int(st, 11);
		k->rating_max = sqlite3_column_int(st, 12);
		k->status = col_text(st, 13);
		k->created = sqlite3_column_int64(st, 14);
		k->expires = sqlite3_column_int64(st, 15);
		k->game = sqlite3_column_int64(st, 16);
		rc = 0;
	} else
		rc = rc == SQLITE_DONE ? 1 : store_fail(s, "seek");
	done(s, st);
	return rc;
}

int
store_seek_update(struct store *s, const struct store_seek *k)
{
	if (run(s, "UPDATE seeks SET seat1 = NULLIF(?, 0), seat2 = "
	    "NULLIF(?, 0), seat3 = NULLIF(?, 0), status = ?, game_id = "
	    "NULLIF(?, 0) WHERE id = ?", "iiitii", k->player[1], k->player[2],
	    k->player[3], k->status, k->game, k->id) == -1)
		return -1;
	return sqlite3_changes(s->db) == 0 ? 0 : site_changed(s, "s", k->id);
}

int
store_seeks_open(struct store *s, int64_t **ids, int *n)
{
	return collect_ids(s, query(s, "SELECT id FROM seeks WHERE status = "
	    "'open' ORDER BY id", ""), ids, n);
}

void
store_seek_free(struct store_seek *k)
{
	free(k->kind);
	free(k->words);
	free(k->clock);
	free(k->status);
	memset(k, 0, sizeof(*k));
}

int
store_timer_count(struct store *s, const char *kind, int *n)
{
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	if ((st = query(s, "SELECT count(*) FROM timers WHERE kind = ?", "t",
	    kind)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int(st, 0);
	done(s, st);
	return rc == SQLITE_ROW ? 0 : store_fail(s, "timers");
}

/* Conditional moves and takebacks. */

int
store_conditions(struct store *s, int64_t game, int seat, char ***out,
    int *n)
{
	return collect_strings(s, query(s, "SELECT moves FROM conditions "
	    "WHERE game_id = ? AND seat = ? ORDER BY line", "ii", game,
	    (int64_t)seat), "conditions", out, n);
}

int
store_conditions_set(struct store *s, int64_t game, int seat,
    char *const *lines, int n)
{
	int i;

	if (store_conditions_clear(s, game, seat) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (run(s, "INSERT INTO conditions (game_id, seat, line, moves) "
		    "VALUES (?, ?, ?, ?)", "iiit", game, (int64_t)seat,
		    (int64_t)i, lines[i]) == -1)
			return -1;
	return 0;
}

int
store_conditions_clear(struct store *s, int64_t game, int seat)
{
	if (seat < 0)
		return run(s, "DELETE FROM conditions WHERE game_id = ?", "i",
		    game);
	return run(s, "DELETE FROM conditions WHERE game_id = ? AND seat = ?",
	    "ii", game, (int64_t)seat);
}

int
store_takeback_get(struct store *s, int64_t game, unsigned *seats,
    int *at_ply)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = query(s, "SELECT seats, at_ply FROM takebacks WHERE "
	    "game_id = ?", "i", game)) == NULL)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*seats = (unsigned)sqlite3_column_int64(st, 0);
		*at_ply = sqlite3_column_int(st, 1);
	}
	done(s, st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? 1 : store_fail(s, "takeback");
}

int
store_takeback_set(struct store *s, int64_t game, unsigned seats,
    int at_ply, int64_t now)
{
	if (seats == 0)
		return run(s, "DELETE FROM takebacks WHERE game_id = ?", "i",
		    game);
	return run(s, "INSERT INTO takebacks (game_id, seats, at_ply, created) "
	    "VALUES (?, ?, ?, ?) ON CONFLICT (game_id) DO UPDATE SET seats = "
	    "excluded.seats, at_ply = excluded.at_ply, created = "
	    "excluded.created", "iiii", game, (int64_t)seats, (int64_t)at_ply,
	    now);
}

int
store_moves_truncate(struct store *s, int64_t game, int keep)
{
	if (run(s, "DELETE FROM moves WHERE game_id = ? AND ply > ?", "ii",
	    game, (int64_t)keep) == -1)
		return -1;
	/* The events after the moves taken back stay, as events after the
	 * moves that are left. */
	return run(s, "UPDATE events SET after_ply = ? WHERE game_id = ? AND "
	    "after_ply > ?", "iii", (int64_t)keep, game, (int64_t)keep);
}

#ifdef LUDUS_TEST_CLOCK
static void
dump_table(struct store *s, const char *name, struct buf *b)
{
	sqlite3_stmt *st;
	char *sql, hex[3];
	int i, k, n, len;

	buf_printf(b, "table %s\n", name);
	sql = xasprintf("SELECT * FROM \"%s\" ORDER BY rowid", name);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		fatal("store dump %s: %s", name, sqlite3_errmsg(s->db));
	free(sql);
	n = sqlite3_column_count(st);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (i = 0; i < n; i++) {
			buf_printf(b, "%s%s=", i ? "|" : "",
			    sqlite3_column_name(st, i));
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				buf_adds(b, "NULL");
				break;
			case SQLITE_BLOB: {
				const unsigned char *p =
				    sqlite3_column_blob(st, i);

				/* Blobs as hex, so a dump is text. */
				len = sqlite3_column_bytes(st, i);
				for (k = 0; k < len; k++) {
					snprintf(hex, sizeof(hex), "%02x",
					    p[k]);
					buf_adds(b, hex);
				}
				break;
			}
			default:
				buf_adds(b, (const char *)
				    sqlite3_column_text(st, i));
			}
		}
		buf_adds(b, "\n");
	}
	sqlite3_finalize(st);
}

char *
store_test_dump(struct store *s)
{
	struct buf b = { 0 };
	sqlite3_stmt *st;

	fault.off++;
	if (sqlite3_prepare_v2(s->db, "SELECT name FROM sqlite_schema WHERE "
	    "type = 'table' ORDER BY name", -1, &st, NULL) != SQLITE_OK)
		fatal("store dump: %s", sqlite3_errmsg(s->db));
	while (sqlite3_step(st) == SQLITE_ROW)
		dump_table(s, (const char *)sqlite3_column_text(st, 0), &b);
	sqlite3_finalize(st);
	fault.off--;
	buf_adds(&b, "");
	return buf_steal(&b);
}

int
store_test_restore(struct store *s, const char *path)
{
	sqlite3 *src;
	sqlite3_backup *bk;
	int rc;

	if (sqlite3_open_v2(path, &src, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK)
		return -1;
	bk = sqlite3_backup_init(s->db, "main", src, "main");
	rc = bk != NULL && sqlite3_backup_step(bk, -1) == SQLITE_DONE ? 0 : -1;
	if (bk != NULL)
		sqlite3_backup_finish(bk);
	sqlite3_close(src);
	return rc;
}
#endif

/*
 * Reads for a referee that decides before it writes (refeff.h): the id
 * the next row of a series will get, and the lookups that a write used to
 * answer by its own return value.
 */

int
store_id_next(struct store *s, enum store_series series, int64_t *id)
{
	sqlite3_stmt *st;

	switch (series) {
	case STORE_SERIES_GAME:
		return next_game_id(s, id);
	case STORE_SERIES_PLAYER:
		st = query(s, "SELECT ifnull(max(id), 0) + 1 FROM players", "");
		break;
	case STORE_SERIES_REPORT:
		st = query(s, "SELECT ifnull(max(id), 0) + 1 FROM reports", "");
		break;
	case STORE_SERIES_LADDER:
		st = query(s, "SELECT ifnull(max(id), 0) + 1 FROM ladders", "");
		break;
	case STORE_SERIES_CHALLENGE:
		st = query(s, "SELECT ifnull(max(id), 0) + 1 FROM challenges",
		    "");
		break;
	default:
		return store_fail(s, "no such series");
	}
	return next_id(s, st, id);
}

int
store_thanks_get(struct store *s, int64_t game, int64_t from, int64_t to)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = query(s, "SELECT 1 FROM thanks WHERE game_id = ? AND "
	    "from_player = ? AND to_player = ?", "iii", game, from, to)) ==
	    NULL)
		return -1;
	rc = sqlite3_step(st);
	done(s, st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? 1 : store_fail(s, "thanks");
}

int
store_confirm_get(struct store *s, const char *cookie, int64_t player,
    int64_t now, char **command)
{
	sqlite3_stmt *st;
	int rc;

	*command = NULL;
	if ((st = query(s, "SELECT command FROM confirmations WHERE cookie = ? "
	    "AND player_id = ? AND used IS NULL AND expires > ?", "tii",
	    cookie, player, now)) == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*command = col_text(st, 0);
	done(s, st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? 1 : store_fail(s, "confirmation");
}

/*
 * store: every game, player and mail ludus keeps, in SQL run by a
 * database driver (db.h: SQLite or PostgreSQL).  The SQL here is written
 * once, in what both engines speak; the schema's migrations are given in
 * each engine's dialect.
 *
 * Statements are prepared once per connection and kept (finalised at
 * close).  A write transaction that fails on a conflict with another
 * writer (PostgreSQL's serialization failure or deadlock, SQLite's busy
 * timeout) fails as any store error does, so the whole message is tried
 * again; store_conflict tells it was one, and the rollback counts it
 * (counter store.retries).
 */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <errno.h>
#include <unistd.h>

#include "db.h"
#include "log.h"
#include "store.h"
#include "util.h"

/* Prepared statements kept per connection, by their SQL text's address
 * (every statement here is a string literal; a text made at run time is
 * prepared per call). */
#define STORE_STMTS	128

struct store {
	struct db		*db;
	const struct db_driver	*drv;
	char			 errmsg[512];
	struct {
		const char	*sql;
		struct db_stmt	*st;
		int		 busy;	/* handed out, not yet done */
	} stmts[STORE_STMTS];
	int			 nstmts;
	int			 conflict; /* the last failure was one */
	char			*path;	/* a database file's name */
};

/* The password the next connection is given (store_set_password). */
static char *store_password;

/* A row's columns, through the statement's driver. */
#define col_null(st, i)		((st)->db->drv->column_null((st), (i)))
#define col_int64(st, i)	((st)->db->drv->column_int64((st), (i)))
#define col_int(st, i)		((int)col_int64((st), (i)))
#define col_double(st, i)	((st)->db->drv->column_double((st), (i)))
#define col_ctext(st, i)	((st)->db->drv->column_text((st), (i)))
#define changes(s)		((s)->drv->changes((s)->db))

#ifdef LUDUS_TEST_CLOCK
/*
 * Test builds: the store's failures on demand (store_test_fault).  Every
 * statement step and exec below goes through these; the armed one fails
 * as a full disk or an I/O error without running.  A ROLLBACK is counted
 * but never failed: undoing is what a failure leads to.
 */
static struct {
	long	 at;		/* the call to fail, 0: none */
	long	 count;		/* calls since the last store_test_fault */
	int	 full;
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

void
store_test_fault(long nth, int full)
{
	fault.at = nth;
	fault.count = 0;
	fault.full = full;
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

static const char *
errmsg_of(struct store *s)
{
	if (fault.fired)
		return fault.full ? "database or disk is full" :
		    "disk I/O error";
	return s->drv->errmsg(s->db);
}

static int
step(struct store *s, struct db_stmt *st)
{
	return fault_hit() ? DB_ERROR : s->drv->step(st);
}

static int
exec_raw(struct store *s, const char *sql)
{
	if (strncmp(sql, "ROLLBACK", 8) == 0) {
		if (!fault.off)
			fault.count++;
	} else if (fault_hit())
		return -1;
	return s->drv->exec(s->db, sql);
}
#define FAULT_RDONLY	fault.readonly
#else
#define errmsg_of(s)		((s)->drv->errmsg((s)->db))
#define step(s, st)		((s)->drv->step(st))
#define exec_raw(s, sql)	((s)->drv->exec((s)->db, (sql)))
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


/*
 * PostgreSQL: schema version 18 in one step.  Numbers are BIGINT (SQLite's
 * INTEGER holds 64 bits); a table whose id SQLite numbers itself (max + 1,
 * what store_id_next predicts) gets it from ludus_next_id, not from a
 * sequence, which would differ after a rollback.  The tables whose rows
 * the store reads in insertion order (ORDER BY rowid in SQLite) have a
 * rowid column of their own.
 */
#define PG_ID(t) \
	"CREATE TRIGGER " t "_id BEFORE INSERT ON " t " FOR EACH ROW WHEN " \
	"(NEW.id IS NULL) EXECUTE FUNCTION ludus_next_id();"
#define PG_SCHEMA_18 \
	"CREATE FUNCTION ludus_next_id() RETURNS trigger LANGUAGE plpgsql AS " \
	"$$ BEGIN EXECUTE format('SELECT coalesce(max(id), 0) + 1 FROM %I', " \
	"TG_TABLE_NAME) INTO NEW.id; RETURN NEW; END $$;" \
	"CREATE TABLE players (" \
	"  id BIGINT PRIMARY KEY," \
	"  address TEXT NOT NULL UNIQUE," \
	"  name TEXT," \
	"  language TEXT NOT NULL DEFAULT 'en'," \
	"  notify TEXT NOT NULL DEFAULT 'all'," \
	"  banned BIGINT NOT NULL DEFAULT 0," \
	"  created BIGINT NOT NULL," \
	"  bounces BIGINT NOT NULL DEFAULT 0," \
	"  last_bounce BIGINT," \
	"  last_bounce_reason TEXT," \
	"  vacation_start BIGINT," \
	"  vacation_until BIGINT," \
	"  vacation_used BIGINT NOT NULL DEFAULT 0," \
	"  vacation_year BIGINT NOT NULL DEFAULT 0," \
	"  timezone TEXT," \
	"  public_address BIGINT NOT NULL DEFAULT 0);" \
	PG_ID("players") \
	"CREATE INDEX players_banned ON players(address) WHERE banned != 0;" \
	"CREATE TABLE games (" \
	"  id BIGINT PRIMARY KEY," \
	"  kind TEXT NOT NULL," \
	"  options TEXT NOT NULL," \
	"  seed BYTEA NOT NULL CHECK (length(seed) = 32)," \
	"  state TEXT NOT NULL," \
	"  status TEXT NOT NULL CHECK (status IN" \
	"    ('invited', 'active', 'finished', 'aborted'))," \
	"  result TEXT," \
	"  nmoves BIGINT NOT NULL DEFAULT 0," \
	"  created BIGINT NOT NULL," \
	"  updated BIGINT NOT NULL," \
	"  clock TEXT," \
	"  rated BIGINT NOT NULL DEFAULT 0," \
	"  inviter BIGINT REFERENCES players(id)," \
	"  expires BIGINT," \
	"  deadline BIGINT," \
	"  draw_offer BIGINT NOT NULL DEFAULT 0," \
	"  ended TEXT," \
	"  turn_since BIGINT," \
	"  reminded BIGINT NOT NULL DEFAULT 0);" \
	PG_ID("games") \
	"CREATE INDEX games_status ON games(status);" \
	"CREATE TABLE seats (" \
	"  game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE," \
	"  seat BIGINT NOT NULL CHECK (seat >= 0 AND seat < 4)," \
	"  player_id BIGINT NOT NULL REFERENCES players(id)," \
	"  accepted BIGINT NOT NULL DEFAULT 0," \
	"  reserve BIGINT NOT NULL DEFAULT 0," \
	"  PRIMARY KEY (game_id, seat));" \
	"CREATE INDEX seats_player ON seats(player_id);" \
	"CREATE TABLE moves (" \
	"  game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE," \
	"  ply BIGINT NOT NULL CHECK (ply > 0)," \
	"  seat BIGINT NOT NULL," \
	"  notation TEXT NOT NULL," \
	"  created BIGINT NOT NULL," \
	"  PRIMARY KEY (game_id, ply));" \
	"CREATE TABLE processed (" \
	"  rowid BIGINT GENERATED ALWAYS AS IDENTITY," \
	"  key TEXT PRIMARY KEY," \
	"  received BIGINT NOT NULL," \
	"  outcome TEXT," \
	"  sender TEXT," \
	"  commands TEXT);" \
	"CREATE INDEX processed_received ON processed(received);" \
	"CREATE TABLE outbox (" \
	"  id BIGINT PRIMARY KEY," \
	"  message_id TEXT NOT NULL UNIQUE," \
	"  envelope_from TEXT NOT NULL," \
	"  recipients TEXT NOT NULL," \
	"  game_id BIGINT," \
	"  data TEXT NOT NULL," \
	"  created BIGINT NOT NULL," \
	"  attempts BIGINT NOT NULL DEFAULT 0," \
	"  next_try BIGINT NOT NULL," \
	"  sent BIGINT," \
	"  failed TEXT," \
	"  last_error TEXT);" \
	PG_ID("outbox") \
	"CREATE INDEX outbox_due ON outbox(next_try)" \
	"  WHERE sent IS NULL AND failed IS NULL;" \
	"CREATE INDEX outbox_done ON outbox(created)" \
	"  WHERE sent IS NOT NULL OR failed IS NOT NULL;" \
	"CREATE TABLE timers (" \
	"  id BIGINT PRIMARY KEY," \
	"  due BIGINT NOT NULL," \
	"  kind TEXT NOT NULL," \
	"  game_id BIGINT REFERENCES games(id) ON DELETE CASCADE," \
	"  player_id BIGINT REFERENCES players(id)," \
	"  data TEXT);" \
	PG_ID("timers") \
	"CREATE INDEX timers_due ON timers(due);" \
	"CREATE INDEX timers_game ON timers(game_id, kind);" \
	"CREATE INDEX timers_player ON timers(player_id, kind);" \
	"CREATE TABLE replies (" \
	"  rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY," \
	"  sender TEXT NOT NULL," \
	"  at BIGINT NOT NULL);" \
	"CREATE INDEX replies_sender ON replies(sender, at);" \
	"CREATE INDEX replies_at ON replies(at);" \
	"CREATE TABLE events (" \
	"  rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY," \
	"  game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE," \
	"  after_ply BIGINT NOT NULL CHECK (after_ply >= 0)," \
	"  player_id BIGINT REFERENCES players(id)," \
	"  kind TEXT NOT NULL," \
	"  text TEXT," \
	"  created BIGINT NOT NULL);" \
	"CREATE INDEX events_game ON events(game_id);" \
	"CREATE TABLE observers (" \
	"  rowid BIGINT GENERATED ALWAYS AS IDENTITY," \
	"  game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE," \
	"  player_id BIGINT NOT NULL REFERENCES players(id)," \
	"  since BIGINT NOT NULL DEFAULT (extract(epoch FROM now())::bigint)," \
	"  PRIMARY KEY (game_id, player_id));" \
	"CREATE TABLE thanks (" \
	"  game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE," \
	"  from_player BIGINT NOT NULL REFERENCES players(id)," \
	"  to_player BIGINT NOT NULL REFERENCES players(id)," \
	"  created BIGINT NOT NULL," \
	"  PRIMARY KEY (game_id, from_player, to_player));" \
	"CREATE INDEX thanks_to ON thanks(to_player);" \
	"CREATE TABLE reports (" \
	"  id BIGINT PRIMARY KEY," \
	"  game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE," \
	"  reporter BIGINT NOT NULL REFERENCES players(id)," \
	"  text TEXT NOT NULL," \
	"  created BIGINT NOT NULL," \
	"  resolved BIGINT," \
	"  resolution TEXT);" \
	PG_ID("reports") \
	"CREATE INDEX reports_open ON reports(created) WHERE resolved IS NULL;" \
	"CREATE TABLE confirmations (" \
	"  cookie TEXT PRIMARY KEY," \
	"  player_id BIGINT NOT NULL REFERENCES players(id)," \
	"  command TEXT NOT NULL," \
	"  created BIGINT NOT NULL," \
	"  expires BIGINT NOT NULL," \
	"  used BIGINT);" \
	"CREATE INDEX confirmations_expires ON confirmations(expires);" \
	"CREATE INDEX confirmations_player ON confirmations(player_id, " \
	"  expires) WHERE used IS NULL;" \
	"CREATE TABLE actions (" \
	"  player_id BIGINT NOT NULL REFERENCES players(id)," \
	"  kind TEXT NOT NULL," \
	"  at BIGINT NOT NULL);" \
	"CREATE INDEX actions_player ON actions(player_id, kind, at);" \
	"CREATE TABLE ratings (" \
	"  player_id BIGINT NOT NULL REFERENCES players(id)," \
	"  kind TEXT NOT NULL," \
	"  r DOUBLE PRECISION NOT NULL," \
	"  rd DOUBLE PRECISION NOT NULL," \
	"  sigma DOUBLE PRECISION NOT NULL," \
	"  last BIGINT NOT NULL," \
	"  games BIGINT NOT NULL DEFAULT 0," \
	"  PRIMARY KEY (player_id, kind));" \
	"CREATE TABLE ladders (" \
	"  id BIGINT PRIMARY KEY," \
	"  name TEXT NOT NULL UNIQUE," \
	"  kind TEXT NOT NULL," \
	"  options TEXT NOT NULL DEFAULT ''," \
	"  clock TEXT," \
	"  list TEXT," \
	"  pairs BIGINT NOT NULL DEFAULT 0," \
	"  reach BIGINT NOT NULL," \
	"  accept BIGINT NOT NULL," \
	"  open_cap BIGINT NOT NULL," \
	"  cooldown BIGINT NOT NULL," \
	"  idle BIGINT NOT NULL," \
	"  created BIGINT NOT NULL," \
	"  closed BIGINT);" \
	PG_ID("ladders") \
	"CREATE TABLE rungs (" \
	"  ladder_id BIGINT NOT NULL REFERENCES ladders(id) ON DELETE CASCADE," \
	"  position BIGINT NOT NULL CHECK (position > 0)," \
	"  player_id BIGINT NOT NULL REFERENCES players(id)," \
	"  partner_id BIGINT REFERENCES players(id)," \
	"  active BIGINT NOT NULL," \
	"  PRIMARY KEY (ladder_id, position));" \
	"CREATE UNIQUE INDEX rungs_player ON rungs(ladder_id, player_id);" \
	"CREATE TABLE challenges (" \
	"  id BIGINT PRIMARY KEY," \
	"  ladder_id BIGINT NOT NULL REFERENCES ladders(id) ON DELETE CASCADE," \
	"  challenger BIGINT NOT NULL REFERENCES players(id)," \
	"  challenged BIGINT NOT NULL REFERENCES players(id)," \
	"  game_id BIGINT REFERENCES games(id)," \
	"  status TEXT NOT NULL," \
	"  created BIGINT NOT NULL," \
	"  decided BIGINT);" \
	PG_ID("challenges") \
	"CREATE INDEX challenges_game ON challenges(game_id);" \
	"CREATE INDEX challenges_ladder ON challenges(ladder_id, status);" \
	"CREATE TABLE rating_changes (" \
	"  game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE," \
	"  seat BIGINT NOT NULL," \
	"  player_id BIGINT NOT NULL REFERENCES players(id)," \
	"  r_old DOUBLE PRECISION NOT NULL," \
	"  r_new DOUBLE PRECISION NOT NULL," \
	"  PRIMARY KEY (game_id, seat));" \
	"CREATE TABLE site_changes (" \
	"  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY," \
	"  kind TEXT NOT NULL," \
	"  id BIGINT NOT NULL);" \
	"CREATE UNIQUE INDEX site_changes_what ON site_changes(kind, id);" \
	"CREATE TABLE decks (" \
	"  name TEXT PRIMARY KEY," \
	"  cycle BIGINT NOT NULL," \
	"  cards TEXT NOT NULL);" \
	"CREATE TABLE deck_deals (" \
	"  game_id BIGINT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE," \
	"  deck TEXT NOT NULL," \
	"  cycle BIGINT NOT NULL," \
	"  turn BIGINT NOT NULL DEFAULT 0," \
	"  cards TEXT NOT NULL);" \
	"CREATE TABLE seeks (" \
	"  id BIGINT PRIMARY KEY," \
	"  kind TEXT NOT NULL," \
	"  words TEXT NOT NULL DEFAULT ''," \
	"  clock TEXT," \
	"  rated BIGINT NOT NULL DEFAULT 1," \
	"  nseats BIGINT NOT NULL CHECK (nseats >= 2 AND nseats <= 4)," \
	"  player_id BIGINT NOT NULL REFERENCES players(id)," \
	"  seat1 BIGINT REFERENCES players(id)," \
	"  seat2 BIGINT REFERENCES players(id)," \
	"  seat3 BIGINT REFERENCES players(id)," \
	"  ladder_id BIGINT REFERENCES ladders(id)," \
	"  rating_min BIGINT," \
	"  rating_max BIGINT," \
	"  status TEXT NOT NULL," \
	"  created BIGINT NOT NULL," \
	"  expires BIGINT NOT NULL," \
	"  game_id BIGINT);" \
	PG_ID("seeks") \
	"CREATE INDEX seeks_status ON seeks(status);" \
	"CREATE TABLE conditions (" \
	"  game_id BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE," \
	"  seat BIGINT NOT NULL," \
	"  line BIGINT NOT NULL," \
	"  moves TEXT NOT NULL," \
	"  PRIMARY KEY (game_id, seat, line));" \
	"CREATE TABLE takebacks (" \
	"  game_id BIGINT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE," \
	"  seats BIGINT NOT NULL," \
	"  at_ply BIGINT NOT NULL," \
	"  created BIGINT NOT NULL);" \
	"CREATE TABLE robot_waits (" \
	"  id BIGINT PRIMARY KEY," \
	"  game_id BIGINT NOT NULL," \
	"  pid BIGINT NOT NULL," \
	"  since BIGINT NOT NULL," \
	"  thinking BIGINT NOT NULL DEFAULT 0);" \
	PG_ID("robot_waits") \
	"CREATE TABLE counters (" \
	"  name TEXT PRIMARY KEY," \
	"  value BIGINT NOT NULL);"

/*
 * The same schema in PostgreSQL's dialect.  A PostgreSQL database begins
 * at schema version 18, made in one step; NULL: folded into the next
 * entry.  Every later migration is given for both engines.
 */
static const char *const pg_migrations[] = {
	NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	NULL, NULL, NULL, NULL, NULL,
	/* 18 */
	PG_SCHEMA_18,
	/* 19 */
	"CREATE TABLE inbound ("
	"  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
	"  key TEXT NOT NULL UNIQUE,"
	"  route TEXT NOT NULL,"
	"  arrived BIGINT NOT NULL,"
	"  raw BYTEA NOT NULL,"
	"  attempts BIGINT NOT NULL DEFAULT 0,"
	"  next_try BIGINT NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'waiting',"
	"  cause TEXT);"
	"CREATE INDEX inbound_state ON inbound(state, id);",
};

_Static_assert(nitems(pg_migrations) == STORE_SCHEMA_VERSION,
    "one PostgreSQL migration per schema version");

static const char *
migration_sql(const struct store *s, int v)
{
	return s->drv->dialect == DB_PG ? pg_migrations[v] : migrations[v];
}

static int
store_fail(struct store *s, const char *what)
{
	s->conflict = s->drv->conflict(s->db);
	snprintf(s->errmsg, sizeof(s->errmsg), "%s: %s", what, errmsg_of(s));
	return -1;
}

const char *
store_errmsg(const struct store *s)
{
	return s->errmsg;
}

int
store_conflict(const struct store *s)
{
	return s->conflict;
}

static int
exec(struct store *s, const char *sql)
{
	if (exec_raw(s, sql) == -1) {
		s->conflict = s->drv->conflict(s->db);
		snprintf(s->errmsg, sizeof(s->errmsg), "%s", errmsg_of(s));
		return -1;
	}
	return 0;
}

static struct db_stmt *
prepare(struct store *s, const char *sql)
{
	struct db_stmt *st;
	int i;

	for (i = 0; i < s->nstmts; i++)
		if (s->stmts[i].sql == sql && !s->stmts[i].busy) {
			s->stmts[i].busy = 1;
			return s->stmts[i].st;
		}
	if ((st = s->drv->prepare(s->db, sql, s->nstmts < STORE_STMTS)) ==
	    NULL) {
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
done(struct store *s, struct db_stmt *st)
{
	int i;

	if (st == NULL)
		return;
	for (i = 0; i < s->nstmts; i++)
		if (s->stmts[i].st == st) {
			s->drv->reset(st);
			s->stmts[i].busy = 0;
			return;
		}
	s->drv->finalize(st);
}

/* Bind by a small format: i = int64, d = double, t = text (NULL ok),
 * b = blob (ptr,len). */
static int
bind(struct store *s, struct db_stmt *st, const char *fmt, va_list ap)
{
	const struct db_driver *d = s->drv;
	int i, rc = 0;

	if ((size_t)d->nparams(st) != strlen(fmt))
		fatal("store: %s has %d parameters, %zu bound", d->sql(st),
		    d->nparams(st), strlen(fmt));
	for (i = 1; *fmt && rc == 0; fmt++, i++) {
		switch (*fmt) {
		case 'i':
			rc = d->bind_int64(st, i, va_arg(ap, int64_t));
			break;
		case 'd':
			rc = d->bind_double(st, i, va_arg(ap, double));
			break;
		case 't':
			rc = d->bind_text(st, i, va_arg(ap, const char *));
			break;
		case 'b': {
			const void *p = va_arg(ap, const void *);
			int len = va_arg(ap, int);

			rc = d->bind_blob(st, i, p, len);
			break;
		}
		default:
			fatal("store: bad bind format %c", *fmt);
		}
	}
	if (rc != 0)
		return store_fail(s, "bind");
	return 0;
}

/* Run a statement that returns no rows. */
static int
run(struct store *s, const char *sql, const char *fmt, ...)
{
	struct db_stmt *st;
	va_list ap;
	int rc;

	if ((st = prepare(s, sql)) == NULL)
		return -1;
	va_start(ap, fmt);
	rc = bind(s, st, fmt, ap);
	va_end(ap);
	if (rc == 0 && step(s, st) != DB_DONE)
		rc = store_fail(s, "step");
	done(s, st);
	return rc;
}

/* Prepare and bind a query; the caller steps and finalizes. */
static struct db_stmt *
query(struct store *s, const char *sql, const char *fmt, ...)
{
	struct db_stmt *st;
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
 * Every row of a query st (prepared, or NULL when that failed) read by
 * `row` into a growing array of elements of `size` bytes, *out (owned) and
 * *n.  On failure the rows read are cleared by `clear` (NULL: nothing to
 * free in one), the array freed, and *n is 0.  The one loop every list of
 * the store reads through.
 */
static int
collect(struct store *s, struct db_stmt *st, const char *what, size_t size,
    void (*row)(struct db_stmt *, void *), void (*clear)(void *), void *out,
    int *n)
{
	char *v = NULL;
	int i, rc, cap = 0;

	memcpy(out, &v, sizeof(v));
	*n = 0;
	if (st == NULL)
		return -1;
	while ((rc = step(s, st)) == DB_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			v = xreallocarray(v, (size_t)cap, size);
		}
		memset(v + (size_t)*n * size, 0, size);
		row(st, v + (size_t)*n * size);
		(*n)++;
	}
	done(s, st);
	if (rc != DB_DONE) {
		for (i = 0; clear != NULL && i < *n; i++)
			clear(v + (size_t)i * size);
		free(v);
		*n = 0;
		return store_fail(s, what);
	}
	memcpy(out, &v, sizeof(v));
	return 0;
}

/* Run an INSERT ... RETURNING id: *id the new row's. */
static int
run_id(struct store *s, int64_t *id, const char *sql, const char *fmt, ...)
{
	struct db_stmt *st;
	va_list ap;
	int rc;

	if ((st = prepare(s, sql)) == NULL)
		return -1;
	va_start(ap, fmt);
	rc = bind(s, st, fmt, ap);
	va_end(ap);
	if (rc == 0) {
		if (step(s, st) == DB_ROW)
			*id = col_int64(st, 0);
		else
			rc = store_fail(s, "insert");
	}
	done(s, st);
	return rc;
}

/*
 * What the public site shows changed: kind g a game, G a game begun or
 * over, n a player's name or public address, p a player's thanks, l a
 * ladder, s a seek.  A thing has one row, renumbered at each change (the
 * daemon takes them in order; the numbers never repeat).  Recorded with
 * the write, in its transaction, when that changed a row (a change of
 * name or status is found before the update, from the old row): the old
 * row deleted, a new one inserted (what SQLite's INSERT OR REPLACE did).
 */
static int
site_changed(struct store *s, const char *kind, int64_t id)
{
	if (run(s, "DELETE FROM site_changes WHERE kind = ? AND id = ?", "ti",
	    kind, id) == -1)
		return -1;
	return run(s, "INSERT INTO site_changes (kind, id) VALUES (?, ?)",
	    "ti", kind, id);
}

/* site_changed for the id the query st gives, when it gives a row. */
static int
site_changed_by(struct store *s, const char *kind, struct db_stmt *st)
{
	int64_t id = 0;
	int rc;

	if (st == NULL)
		return -1;
	if ((rc = step(s, st)) == DB_ROW)
		id = col_int64(st, 0);
	done(s, st);
	if (rc == DB_ERROR)
		return store_fail(s, "site change");
	return rc == DB_ROW ? site_changed(s, kind, id) : 0;
}

static char *
col_text(struct db_stmt *st, int i)
{
	const char *t = col_ctext(st, i);

	return t ? xstrdup(t) : NULL;
}

int
store_schema_version(struct store *s)
{
	int v;

	if ((v = s->drv->version(s->db)) < 0)
		store_fail(s, "schema version");
	return v;
}

static int
migrate(struct store *s, int target)
{
	const char *sql;
	char why[sizeof(s->errmsg)];
	int v, to;

	if ((v = store_schema_version(s)) < 0)
		return -1;
	if (v > (int)nitems(migrations)) {
		snprintf(s->errmsg, sizeof(s->errmsg), "the database has "
		    "schema version %d, newer than this ludus understands "
		    "(%d): upgrade ludus", v, (int)nitems(migrations));
		return -1;
	}
	while (v < target) {
		/* A migration the dialect folds into a later one (PostgreSQL
		 * starts at a later schema) is taken with it. */
		for (to = v; to < target && migration_sql(s, to) == NULL; to++)
			;
		if (to == target) {
			snprintf(s->errmsg, sizeof(s->errmsg), "no %s "
			    "migration to version %d", s->drv->name, target);
			return -1;
		}
		sql = migration_sql(s, to);
		/* Each migration, with its version bump, in its own
		 * transaction: a crash leaves the database at a version. */
		if (store_begin(s) == -1)
			return -1;
		if (exec(s, sql) == -1 ||
		    s->drv->set_version(s->db, to + 1) == -1) {
			if (s->errmsg[0] == '\0')
				store_fail(s, "version");
			memcpy(why, s->errmsg, sizeof(why));
			store_rollback(s);
			snprintf(s->errmsg, sizeof(s->errmsg),
			    "migration to version %d: %s", to + 1, why);
			return -1;
		}
		if (store_commit(s) == -1)
			return -1;
		v = to + 1;
	}
	return 0;
}

/*
 * The driver a database's name asks for: postgresql://, postgres:// or a
 * key=value connection string (host=..., dbname=...) for PostgreSQL;
 * sqlite://PATH or a plain path for SQLite.
 */
#define is_pg(name)	store_is_server(name)

const struct db_driver *
db_driver_for(const char *name, const char **target, char *err,
    size_t errlen)
{
	if (is_pg(name)) {
		*target = name;
#ifdef HAVE_LIBPQ
		return &db_pg;
#else
		util_err(err, errlen, "a PostgreSQL database, but this ludus "
		    "was built without PostgreSQL support (libpq)");
		return NULL;
#endif
	}
	(void)err;
	(void)errlen;
	*target = strncmp(name, "sqlite://", 9) == 0 ? name + 9 : name;
	return &db_sqlite;
}

/* The path of a SQLite database's name; NULL for another engine's. */
static const char *
sqlite_path(const char *name)
{
	if (is_pg(name))
		return NULL;
	return strncmp(name, "sqlite://", 9) == 0 ? name + 9 : name;
}

/* The files SQLite and ludusd keep beside a database, by suffix. */
static const char *const own_suffixes[] = { "", "-wal", "-shm", "-journal",
	".lock" };

int
store_own_file(const char *dbname, const char *path)
{
	const char *dbpath = sqlite_path(dbname);
	size_t i;
	char *f;
	int same = 0;

	for (i = 0; dbpath != NULL && i < nitems(own_suffixes) && !same; i++) {
		f = xasprintf("%s%s", dbpath, own_suffixes[i]);
		same = util_same_file(path, f);
		free(f);
	}
	return same;
}

int
store_backup(struct store *s, const char *path, char *err, size_t errlen)
{
	if (s->drv->backup == NULL) {
		util_err(err, errlen, "%s: a %s database is backed up with "
		    "its own tools (pg_dump)", path, s->drv->name);
		return -1;
	}
	/* A copy renamed over the live database (or its WAL) would take
	 * every commit since with it: the writers keep the old inode. */
	if (s->path != NULL) {
		char *tmp = xasprintf("%s.tmp", path);
		int own = store_own_file(s->path, path) ||
		    store_own_file(s->path, tmp);

		free(tmp);
		if (own) {
			util_err(err, errlen, "%s: that is the database %s or "
			    "one of its own files: back up to another file",
			    path, s->path);
			return -1;
		}
	}
	return s->drv->backup(s->db, path, err, errlen);
}

/*
 * The daemon's lock: a POSIX record lock on PATH.lock.  The kernel drops
 * it when the holder dies, however it dies, and tells who holds it
 * (F_GETLK), so the file holds nothing and a stale one is never in the
 * way.  Such a lock is not inherited by a forked child (the robot
 * workers) and goes with any close of the file by its holder: only these
 * functions open it.  A PostgreSQL database has no such lock.
 */
int
store_lock(const char *name, int *fd, long *holder, char *err, size_t errlen)
{
	const char *path = sqlite_path(name);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char *lock;
	int f, rc = -1;

	*fd = -1;
	*holder = 0;
	if (path == NULL)
		return 0;
	lock = xasprintf("%s.lock", path);
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
store_lock_holder(const char *name)
{
	const char *path = sqlite_path(name);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char *lock;
	int f;

	if (path == NULL)
		return 0;
	lock = xasprintf("%s.lock", path);
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

int
store_check(const char *name, int *version, char *err, size_t errlen)
{
	const struct db_driver *drv;
	struct store *s;
	const char *target;

	if ((drv = db_driver_for(name, &target, err, errlen)) == NULL)
		return -1;
	if (drv->check != NULL)
		return drv->check(target, (int)nitems(migrations), version,
		    err, errlen);
	/* A server's database: it answers and holds a schema this ludus
	 * knows (or none yet: made at the first start). */
	if (store_open_at(name, -1, &s, err, errlen) == -1)
		return -1;
	*version = store_schema_version(s);
	store_close(s);
	return 0;
}

int
store_restore(const char *name, const char *from, const char *aside,
    int *version, char *err, size_t errlen)
{
	const struct db_driver *drv;
	const char *target;

	if ((drv = db_driver_for(name, &target, err, errlen)) == NULL)
		return -1;
	if (drv->restore == NULL) {
		util_err(err, errlen, "%s: a %s database is restored with its "
		    "own tools (pg_restore)", from, drv->name);
		return -1;
	}
	return drv->restore(target, from, aside, (int)nitems(migrations),
	    version, err, errlen);
}

/*
 * version: migrate up to this schema version; -1 migrates nothing and
 * refuses only a newer schema (store_check on a server).
 */
int
store_open_at(const char *name, int version, struct store **out, char *err,
    size_t errlen)
{
	const struct db_driver *drv;
	struct store *s;
	const char *target;
	char *bak = NULL;
	int v;

	if ((drv = db_driver_for(name, &target, err, errlen)) == NULL)
		return -1;
	s = xcalloc(1, sizeof(*s));
	s->drv = drv;
	if (drv->open(target, store_password, FAULT_RDONLY, &s->db, err,
	    errlen) == -1) {
		free(s);
		return -1;
	}
	if (drv->backup != NULL)
		s->path = xstrdup(name);
	if ((v = store_schema_version(s)) < 0) {
		util_err(err, errlen, "%s: %s", target, s->errmsg);
		store_close(s);
		return -1;
	}
	if (version == -1) {
		if (v > (int)nitems(migrations)) {
			util_err(err, errlen, "%s database: schema version %d, "
			    "newer than this ludus understands (%d)",
			    drv->name, v, (int)nitems(migrations));
			store_close(s);
			return -1;
		}
		*out = s;
		return 0;
	}
	/* An existing database is copied before a migration changes it:
	 * PATH.vN.bak holds it as schema version N had it. */
	if (drv->backup != NULL && v > 0 && v < version &&
	    v <= (int)nitems(migrations)) {
		bak = xasprintf("%s.v%d.bak", target, v);
		if (store_backup(s, bak, err, errlen) == -1) {
			free(bak);
			store_close(s);
			return -1;
		}
	}
	if (migrate(s, version) == -1) {
		util_err(err, errlen, "%s: %s", drv->backup ? target :
		    drv->name, s->errmsg);
		free(bak);
		store_close(s);
		return -1;
	}
	if (bak != NULL)
		log_info("database %s: schema version %d migrated to %d; as it "
		    "was before: %s", target, v, version, bak);
	free(bak);
	*out = s;
	return 0;
}

void
store_set_password(const char *password)
{
	if (store_password != NULL)
		explicit_bzero(store_password, strlen(store_password));
	free(store_password);
	store_password = password ? xstrdup(password) : NULL;
}

int
store_open(const char *name, struct store **out, char *err, size_t errlen)
{
	return store_open_at(name, (int)nitems(migrations), out, err, errlen);
}

void
store_close(struct store *s)
{
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nstmts; i++)
		s->drv->finalize(s->stmts[i].st);
	s->drv->close(s->db);
	free(s->path);
	free(s);
}

int
store_begin(struct store *s)
{
	/* What failed is told of the transaction it failed in. */
	s->errmsg[0] = '\0';
	s->conflict = 0;
#ifdef LUDUS_TEST_CLOCK
	if (fault_hit()) {
		snprintf(s->errmsg, sizeof(s->errmsg), "%s", errmsg_of(s));
		return -1;
	}
#endif
	if (s->drv->begin(s->db) == -1) {
		s->conflict = s->drv->conflict(s->db);
		snprintf(s->errmsg, sizeof(s->errmsg), "%s", errmsg_of(s));
		return -1;
	}
	return 0;
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
	if (s->drv->sync(s->db) == -1) {
		snprintf(s->errmsg, sizeof(s->errmsg), "%s", errmsg_of(s));
		return -1;
	}
	return 0;
}

void
store_rollback(struct store *s)
{
	char keep[sizeof(s->errmsg)];
	int conflict = s->conflict;

	/* Keep the error that made us roll back. */
	memcpy(keep, s->errmsg, sizeof(keep));
	if (s->drv->in_transaction(s->db))
		exec(s, "ROLLBACK");
	/* A transaction undone for a conflict with another writer is tried
	 * again by the caller: counted, outside it. */
	if (conflict)
		store_counter_add(s, "store.retries", 1);
	memcpy(s->errmsg, keep, sizeof(keep));
	s->conflict = conflict;
}

int
store_player_id(struct store *s, const char *address, int create,
    int64_t now, int64_t *id)
{
	struct db_stmt *st;
	int rc;

	if ((st = query(s, "SELECT id FROM players WHERE address = ?", "t",
	    address)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		*id = col_int64(st, 0);
		done(s, st);
		return 0;
	}
	done(s, st);
	if (rc != DB_DONE)
		return store_fail(s, "player lookup");
	if (!create)
		return 1;
	return run_id(s, id, "INSERT INTO players (address, created) VALUES "
	    "(?, ?) RETURNING id", "ti", address, now);
}

/* Fill p from a row of PLAYER_COLUMNS; 1 when there is none. */
#define PLAYER_COLUMNS	"id, address, name, language, notify, banned, " \
	"coalesce(vacation_start, 0), coalesce(vacation_until, 0), " \
	"vacation_used, vacation_year, timezone, public_address"

static int
player_row(struct store *s, struct db_stmt *st, struct store_player *p)
{
	int rc;

	memset(p, 0, sizeof(*p));
	if (st == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		p->id = col_int64(st, 0);
		p->address = col_text(st, 1);
		p->name = col_text(st, 2);
		p->language = col_text(st, 3);
		p->notify = col_text(st, 4);
		p->banned = col_int(st, 5);
		p->vacation_start = col_int64(st, 6);
		p->vacation_until = col_int64(st, 7);
		p->vacation_used = col_int64(st, 8);
		p->vacation_year = col_int(st, 9);
		p->timezone = col_text(st, 10);
		p->public_address = col_int(st, 11);
		rc = 0;
	} else
		rc = rc == DB_DONE ? 1 : store_fail(s, "player load");
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
	if (site_changed_by(s, "n", query(s, "SELECT id FROM players WHERE "
	    "id = ? AND (name IS DISTINCT FROM ? OR public_address IS "
	    "DISTINCT FROM ?)", "iti", p->id, p->name,
	    (int64_t)(p->public_address != 0))) == -1)
		return -1;
	if (run(s, "UPDATE players SET name = ?, language = ?, notify = ?, "
	    "vacation_start = NULLIF(?, 0), vacation_until = NULLIF(?, 0), "
	    "vacation_used = ?, vacation_year = ?, timezone = ?, "
	    "public_address = ? WHERE id = ?",
	    "tttiiiitii", p->name, p->language, p->notify, p->vacation_start,
	    p->vacation_until, p->vacation_used, (int64_t)p->vacation_year,
	    p->timezone, (int64_t)(p->public_address != 0), p->id) == -1)
		return -1;
	if (changes(s) != 1) {
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
next_id(struct store *s, struct db_stmt *st, int64_t *id)
{
	int rc;

	if (st == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW)
		*id = col_int64(st, 0);
	done(s, st);
	return rc == DB_ROW ? 0 : store_fail(s, "next id");
}

/* The next number for a game or a seek. */
static int
next_game_id(struct store *s, int64_t *id)
{
	return next_id(s, query(s, "SELECT coalesce(max(id), 0) + 1 FROM "
	    "(SELECT max(id) AS id FROM games UNION ALL SELECT max(id) FROM "
	    "seeks) AS ids", ""), id);
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
	struct db_stmt *st;
	int rc, seat;

	memset(g, 0, sizeof(*g));
	if ((st = query(s, "SELECT kind, options, seed, state, status, "
	    "result, nmoves, created, updated, clock, rated, coalesce(inviter, "
	    "0), coalesce(expires, 0), coalesce(deadline, 0), draw_offer, ended, "
	    "coalesce(turn_since, 0), reminded FROM games WHERE id = ?", "i",
	    id)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc != DB_ROW) {
		done(s, st);
		return rc == DB_DONE ? 1 : store_fail(s, "game load");
	}
	g->id = id;
	g->kind = col_text(st, 0);
	g->options = col_text(st, 1);
	{
		int len;
		const void *seed = st->db->drv->column_blob(st, 2, &len);

		if (len == RNG_SEED_LEN)
			memcpy(g->seed, seed, RNG_SEED_LEN);
	}
	g->state = col_text(st, 3);
	g->status = col_text(st, 4);
	g->result = col_text(st, 5);
	g->nmoves = col_int(st, 6);
	g->created = col_int64(st, 7);
	g->updated = col_int64(st, 8);
	g->clock = col_text(st, 9);
	g->rated = col_int(st, 10);
	g->inviter = col_int64(st, 11);
	g->expires = col_int64(st, 12);
	g->deadline = col_int64(st, 13);
	g->draw_offer = (unsigned)col_int64(st, 14);
	g->ended = col_text(st, 15);
	g->turn_since = col_int64(st, 16);
	g->reminded = (unsigned)col_int64(st, 17);
	done(s, st);

	if ((st = query(s, "SELECT seat, player_id, accepted, reserve FROM "
	    "seats WHERE game_id = ? ORDER BY seat", "i", id)) == NULL) {
		store_game_free(g);
		return -1;
	}
	while ((rc = step(s, st)) == DB_ROW) {
		seat = col_int(st, 0);
		if (seat < 0 || seat >= STORE_MAX_SEATS)
			continue;
		g->player[seat] = col_int64(st, 1);
		g->accepted[seat] = col_int(st, 2);
		g->reserve[seat] = col_int64(st, 3);
		if (seat + 1 > g->nseats)
			g->nseats = seat + 1;
	}
	done(s, st);
	if (rc != DB_DONE) {
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
	if (site_changed_by(s, "G", query(s, "SELECT id FROM games WHERE id = "
	    "? AND status IS DISTINCT FROM ?", "it", g->id, g->status)) == -1)
		return -1;
	if (run(s, "UPDATE games SET state = ?, status = ?, result = ?, "
	    "nmoves = ?, updated = ?, expires = NULLIF(?, 0), deadline = "
	    "NULLIF(?, 0), draw_offer = ?, ended = ?, turn_since = "
	    "NULLIF(?, 0), reminded = ? WHERE id = ?", "tttiiiiitiii",
	    g->state, g->status, g->result, (int64_t)g->nmoves, g->updated,
	    g->expires, g->deadline, (int64_t)g->draw_offer, g->ended,
	    g->turn_since, (int64_t)g->reminded, g->id) == -1)
		return -1;
	if (changes(s) != 1) {
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

static void
string_row(struct db_stmt *st, void *p)
{
	char *v = col_text(st, 0);

	memcpy(p, &v, sizeof(v));
}

static void
string_clear(void *p)
{
	char *v;

	memcpy(&v, p, sizeof(v));
	free(v);
}

/* The first column of every row of st, as owned strings. */
static int
collect_strings(struct store *s, struct db_stmt *st, const char *what,
    char ***out, int *n)
{
	return collect(s, st, what, sizeof(**out), string_row, string_clear,
	    out, n);
}

static void
id_row(struct db_stmt *st, void *p)
{
	*(int64_t *)p = col_int64(st, 0);
}

static int
collect_ids(struct store *s, struct db_stmt *st, int64_t **ids, int *n)
{
	return collect(s, st, "list", sizeof(**ids), id_row, NULL, ids, n);
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

static void
move_row(struct db_stmt *st, void *p)
{
	struct store_move *m = p;

	m->ply = col_int(st, 0);
	m->seat = col_int(st, 1);
	m->notation = col_text(st, 2);
	m->created = col_int64(st, 3);
}

static void
move_clear(void *p)
{
	free(((struct store_move *)p)->notation);
}

int
store_moves(struct store *s, int64_t game, struct store_move **out, int *n)
{
	return collect(s, query(s, "SELECT ply, seat, notation, created FROM "
	    "moves WHERE game_id = ? ORDER BY ply", "i", game), "moves",
	    sizeof(**out), move_row, move_clear, out, n);
}

void
store_moves_free(struct store_move *m, int n)
{
	int i;

	for (i = 0; i < n; i++)
		move_clear(&m[i]);
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
	return changes(s) == 0 ? 1 : 0;
}

int
store_outbox_add_once(struct store *s, const struct store_mail *m,
    int64_t now)
{
	if (run(s, "INSERT INTO outbox (message_id, envelope_from, "
	    "recipients, game_id, data, created, next_try) VALUES (?, ?, ?, "
	    "NULLIF(?, 0), ?, ?, ?) ON CONFLICT DO NOTHING", "tttitii", m->message_id,
	    m->envelope_from, m->recipients, m->game, m->data, now,
	    m->next_try ? m->next_try : now) == -1)
		return -1;
	return changes(s) == 0 ? 1 : 0;
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

static void
mail_row(struct db_stmt *st, void *p)
{
	struct store_mail *m = p;

	m->id = col_int64(st, 0);
	m->message_id = col_text(st, 1);
	m->envelope_from = col_text(st, 2);
	m->recipients = col_text(st, 3);
	m->data = col_text(st, 4);
	m->game = col_int64(st, 5);
	m->attempts = col_int(st, 6);
	m->next_try = col_int64(st, 7);
	m->created = col_int64(st, 8);
	m->last_error = col_text(st, 9);
	m->failed = col_text(st, 10);
}

static void
mail_clear(void *p)
{
	struct store_mail *m = p;

	free(m->last_error);
	free(m->failed);
	free(m->message_id);
	free(m->envelope_from);
	free(m->recipients);
	free(m->data);
}

/* Outbox rows of a query with two integer parameters, the second its
 * LIMIT. */
static int
outbox_rows(struct store *s, const char *sql, int64_t a, int max,
    struct store_mail **out, int *n)
{
	return collect(s, query(s, sql, "ii", a, (int64_t)max), "outbox",
	    sizeof(**out), mail_row, mail_clear, out, n);
}

#define OUTBOX_COLUMNS	"id, message_id, envelope_from, recipients, data, " \
	"coalesce(game_id, 0), attempts, next_try, created, last_error, failed"

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
	    "ON CONFLICT (name) DO UPDATE SET value = counters.value + "
	    "excluded.value",
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
	struct db_stmt *st;
	const char *name;
	int rc, i;

	memset(out, 0, sizeof(*out));
	if ((st = query(s, "SELECT name, value FROM counters", "")) == NULL)
		return -1;
	while ((rc = step(s, st)) == DB_ROW) {
		name = col_ctext(st, 0);
		if (name == NULL)
			continue;
		for (i = 0; i < STORE_NOUTCOMES; i++)
			if (strncmp(name, "messages.", 9) == 0 &&
			    strcmp(name + 9, store_outcomes[i]) == 0)
				out->messages[i] = col_int64(st, 1);
		if (strcmp(name, "send.failures") == 0)
			out->send_failures = col_int64(st, 1);
		else if (strcmp(name, "imap.contact") == 0)
			out->imap_contact = col_int64(st, 1);
		else if (strcmp(name, "store.retries") == 0)
			out->retries = col_int64(st, 1);
	}
	done(s, st);
	if (rc != DB_DONE)
		return store_fail(s, "counters");
	/* The queue as the outbox holds it (its partial index, not the
	 * sent rows); robots and games as they are now. */
	if ((st = query(s, "SELECT count(*), coalesce(min(created), 0) FROM "
	    "outbox WHERE sent IS NULL AND failed IS NULL", "")) == NULL)
		return -1;
	if ((rc = step(s, st)) == DB_ROW) {
		out->queue = col_int64(st, 0);
		out->queue_oldest = col_int64(st, 1);
	}
	done(s, st);
	if (rc != DB_ROW)
		return store_fail(s, "outbox");
	if ((st = query(s, "SELECT (SELECT count(*) FROM robot_waits), "
	    "(SELECT count(*) FROM games WHERE status = 'active'), "
	    "(SELECT count(*) FROM outbox WHERE failed IS NOT NULL AND "
	    "sent IS NULL)", "")) == NULL)
		return -1;
	if ((rc = step(s, st)) == DB_ROW) {
		out->robot_backlog = col_int64(st, 0);
		out->games_active = col_int64(st, 1);
		out->given_up = col_int64(st, 2);
	}
	done(s, st);
	if (rc != DB_ROW)
		return store_fail(s, "stats");
	return store_inbound_counts(s, &out->inbound, &out->inbound_dead);
}

int
store_outbox_counts(struct store *s, int *waiting, int *sent, int *failed)
{
	struct db_stmt *st;
	int rc;

	if ((st = query(s, "SELECT count(*) FILTER (WHERE sent IS NULL AND "
	    "failed IS NULL), count(sent), count(failed) FROM outbox", "")) ==
	    NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		*waiting = col_int(st, 0);
		*sent = col_int(st, 1);
		*failed = col_int(st, 2);
	}
	done(s, st);
	return rc == DB_ROW ? 0 : store_fail(s, "outbox counts");
}

int
store_robot_wait_add(struct store *s, int64_t game, int pid, int64_t since,
    int thinking, int64_t *id)
{
	return run_id(s, id, "INSERT INTO robot_waits (game_id, pid, since, "
	    "thinking) VALUES (?, ?, ?, ?) RETURNING id", "iiii", game,
	    (int64_t)pid, since, (int64_t)thinking);
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

static void
robot_wait_row(struct db_stmt *st, void *p)
{
	struct store_robot_wait *w = p;

	w->id = col_int64(st, 0);
	w->game = col_int64(st, 1);
	w->pid = col_int(st, 2);
	w->since = col_int64(st, 3);
	w->thinking = col_int(st, 4);
}

int
store_robot_waits(struct store *s, struct store_robot_wait **out, int *n)
{
	return collect(s, query(s, "SELECT id, game_id, pid, since, thinking "
	    "FROM robot_waits ORDER BY since, id", ""), "robot waits",
	    sizeof(**out), robot_wait_row, NULL, out, n);
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
	*dup = changes(s) == 0;
	return 0;
}

/* A row of inbound's columns in the order the queries below name them;
 * the message's bytes only with_raw (its length always). */
static void
inbound_fill(struct db_stmt *st, struct store_inbound *r, int with_raw)
{
	const char *state = col_ctext(st, 6);
	const void *raw;
	int len;

	r->id = col_int64(st, 0);
	r->key = col_text(st, 1);
	r->route = col_text(st, 2);
	r->arrived = col_int64(st, 3);
	r->attempts = col_int(st, 4);
	r->next_try = col_int64(st, 5);
	r->dead = state != NULL && strcmp(state, "dead") == 0;
	r->cause = col_text(st, 7);
	raw = st->db->drv->column_blob(st, 8, &len);
	r->len = len > 0 ? (size_t)len : 0;
	r->raw = NULL;
	if (with_raw) {
		r->raw = xmalloc(r->len + 1);
		if (r->len > 0)
			memcpy(r->raw, raw, r->len);
		r->raw[r->len] = '\0';
	}
}

static void
inbound_row(struct db_stmt *st, void *p)
{
	inbound_fill(st, p, 0);
}

static void
inbound_clear(void *p)
{
	store_inbound_clear(p);
}

int
store_inbound_next(struct store *s, int64_t after, struct store_inbound *r)
{
	struct db_stmt *st;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((st = query(s, "SELECT id, key, route, arrived, attempts, "
	    "next_try, state, cause, raw FROM inbound WHERE state = 'waiting' "
	    "AND id > ? ORDER BY state, id LIMIT 1", "i", after)) == NULL)
		return -1;
	if ((rc = step(s, st)) == DB_ROW)
		inbound_fill(st, r, 1);
	done(s, st);
	if (rc == DB_DONE)
		return 1;
	return rc == DB_ROW ? 0 : store_fail(s, "inbound");
}

int
store_inbound_list(struct store *s, struct store_inbound **out, int *n)
{
	return collect(s, query(s, "SELECT id, key, route, arrived, "
	    "attempts, next_try, state, cause, raw FROM inbound ORDER BY id",
	    ""), "inbound", sizeof(**out), inbound_row, inbound_clear, out, n);
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
	*changed = changes(s);
	return 0;
}

int
store_inbound_counts(struct store *s, int64_t *waiting, int64_t *dead)
{
	struct db_stmt *st;
	int rc;

	*waiting = *dead = 0;
	if ((st = query(s, "SELECT (SELECT count(*) FROM inbound WHERE "
	    "state = 'waiting'), (SELECT count(*) FROM inbound WHERE "
	    "state = 'dead')", "")) == NULL)
		return -1;
	if ((rc = step(s, st)) == DB_ROW) {
		*waiting = col_int64(st, 0);
		*dead = col_int64(st, 1);
	}
	done(s, st);
	return rc == DB_ROW ? 0 : store_fail(s, "inbound");
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
		rc = run(s, "UPDATE outbox SET next_try = ?, created = CASE "
		    "WHEN failed IS NULL THEN created ELSE ? END, failed = "
		    "NULL WHERE id = ? AND sent IS NULL", "iii", now, now, id);
	*changed = rc == 0 ? changes(s) : 0;
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
	*changed = rc == 0 ? changes(s) : 0;
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
	*changed = rc == 0 ? changes(s) : 0;
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
		*deleted += changes(s);
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

	for (i = 0; i < n; i++)
		mail_clear(&m[i]);
	free(m);
}

int
store_timer_add(struct store *s, const struct store_timer *t, int64_t *id)
{
	int64_t dummy;

	return run_id(s, id ? id : &dummy, "INSERT INTO timers (due, kind, "
	    "game_id, player_id, data) VALUES (?, ?, NULLIF(?, 0), "
	    "NULLIF(?, 0), ?) RETURNING id", "itiit", t->due, t->kind, t->game,
	    t->player, t->data);
}

int
store_timer_next(struct store *s, int64_t *due)
{
	struct db_stmt *st;
	int rc;

	if ((st = query(s, "SELECT min(due) FROM timers", "")) == NULL)
		return -1;
	rc = step(s, st);
	if (rc != DB_ROW) {
		done(s, st);
		return store_fail(s, "timers");
	}
	rc = col_null(st, 0) ? 1 : 0;
	if (rc == 0)
		*due = col_int64(st, 0);
	done(s, st);
	return rc;
}

static void
timer_row(struct db_stmt *st, void *p)
{
	struct store_timer *t = p;

	t->id = col_int64(st, 0);
	t->due = col_int64(st, 1);
	t->kind = col_text(st, 2);
	t->game = col_int64(st, 3);
	t->player = col_int64(st, 4);
	t->data = col_text(st, 5);
}

static void
timer_clear(void *p)
{
	struct store_timer *t = p;

	free(t->kind);
	free(t->data);
}

int
store_timer_due(struct store *s, int64_t now, int max,
    struct store_timer **out, int *n)
{
	return collect(s, query(s, "SELECT id, due, kind, coalesce(game_id, "
	    "0), coalesce(player_id, 0), data FROM timers WHERE due <= ? "
	    "ORDER BY due, id LIMIT ?", "ii", now, (int64_t)max), "timers",
	    sizeof(**out), timer_row, timer_clear, out, n);
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
	    "NOT DISTINCT FROM NULLIF(?, 0) AND (? = 0 OR player_id = ?)",
	    "tiii", kind, game, player, player);
}

void
store_timers_free(struct store_timer *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		timer_clear(&t[i]);
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
	struct db_stmt *st;
	int rc;

	if ((st = query(s, "SELECT sender, commands, outcome FROM processed "
	    "WHERE key = ?", "t", key)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		*sender = col_text(st, 0);
		*commands = col_text(st, 1);
		*outcome = col_text(st, 2);
		rc = 0;
	} else
		rc = rc == DB_DONE ? 1 : store_fail(s, "message");
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
	return changes(s) ? 0 : 1;
}

int
store_player_bounces(struct store *s, const char *address, int *bounces)
{
	struct db_stmt *st;
	int rc;

	if ((st = query(s, "SELECT bounces FROM players WHERE address = ?",
	    "t", address)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		*bounces = col_int(st, 0);
		rc = 0;
	} else
		rc = rc == DB_DONE ? 1 : store_fail(s, "bounces");
	done(s, st);
	return rc;
}

int
store_reply_count(struct store *s, const char *sender, int64_t since, int *n)
{
	struct db_stmt *st;
	int rc;

	if ((st = query(s, "SELECT count(*) FROM replies WHERE sender = ? AND "
	    "at >= ?", "ti", sender, since)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW)
		*n = col_int(st, 0);
	done(s, st);
	return rc == DB_ROW ? 0 : store_fail(s, "replies");
}

int
store_reply_oldest(struct store *s, const char *sender, int64_t since,
    int64_t *at)
{
	struct db_stmt *st;
	int rc;

	if ((st = query(s, "SELECT coalesce(min(at), 0) FROM replies WHERE "
	    "sender = ? AND at >= ?", "ti", sender, since)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW)
		*at = col_int64(st, 0);
	done(s, st);
	return rc == DB_ROW ? 0 : store_fail(s, "replies");
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
	struct db_stmt *st;
	int rc;

	if ((st = query(s, "SELECT min(next_try) FROM outbox WHERE sent IS "
	    "NULL AND failed IS NULL AND next_try < ?", "i",
	    (int64_t)STORE_OUTBOX_HELD)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc != DB_ROW) {
		done(s, st);
		return store_fail(s, "outbox");
	}
	rc = col_null(st, 0) ? 1 : 0;
	if (rc == 0)
		*when = col_int64(st, 0);
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
count(struct store *s, struct db_stmt *st, const char *what, int *n)
{
	int rc;

	if (st == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW)
		*n = col_int(st, 0);
	done(s, st);
	return rc == DB_ROW ? 0 : store_fail(s, what);
}

int
store_event_add(struct store *s, int64_t game, int after_ply, int64_t player,
    const char *kind, const char *text, int64_t now)
{
	return run(s, "INSERT INTO events (game_id, after_ply, player_id, "
	    "kind, text, created) VALUES (?, ?, NULLIF(?, 0), ?, ?, ?)",
	    "iiitti", game, (int64_t)after_ply, player, kind, text, now);
}

static void
event_row(struct db_stmt *st, void *p)
{
	struct store_event *e = p;

	e->after_ply = col_int(st, 0);
	e->player = col_int64(st, 1);
	e->kind = col_text(st, 2);
	e->text = col_text(st, 3);
	e->created = col_int64(st, 4);
}

static void
event_clear(void *p)
{
	struct store_event *e = p;

	free(e->kind);
	free(e->text);
}

int
store_events(struct store *s, int64_t game, struct store_event **out, int *n)
{
	/* rowid is the order of insertion: events of one ply, or of one
	 * second, keep the order they happened in. */
	return collect(s, query(s, "SELECT after_ply, coalesce(player_id, 0), "
	    "kind, text, created FROM events WHERE game_id = ? ORDER BY rowid",
	    "i", game), "events", sizeof(**out), event_row, event_clear, out,
	    n);
}

void
store_events_free(struct store_event *e, int n)
{
	int i;

	for (i = 0; i < n; i++)
		event_clear(&e[i]);
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
	return changes(s) == 0 ? 1 : 0;
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
	if (changes(s) == 0)
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
	"coalesce(resolved, 0), resolution"

static void
report_row(struct db_stmt *st, void *p)
{
	struct store_report *r = p;

	r->id = col_int64(st, 0);
	r->game = col_int64(st, 1);
	r->reporter = col_int64(st, 2);
	r->text = col_text(st, 3);
	r->created = col_int64(st, 4);
	r->resolved = col_int64(st, 5);
	r->resolution = col_text(st, 6);
}

int
store_report_add(struct store *s, int64_t game, int64_t reporter,
    const char *text, int64_t now, int64_t *id)
{
	int64_t dummy;

	return run_id(s, id ? id : &dummy, "INSERT INTO reports (game_id, "
	    "reporter, text, created) VALUES (?, ?, ?, ?) RETURNING id", "iiti",
	    game, reporter, text, now);
}

int
store_report_load(struct store *s, int64_t id, struct store_report *r)
{
	struct db_stmt *st;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((st = query(s, "SELECT " REPORT_COLUMNS " FROM reports WHERE id = "
	    "?", "i", id)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		report_row(st, r);
		rc = 0;
	} else
		rc = rc == DB_DONE ? 1 : store_fail(s, "report load");
	done(s, st);
	return rc;
}

static void
report_clear(void *p)
{
	store_report_free(p);
}

int
store_reports_open(struct store *s, struct store_report **out, int *n)
{
	return collect(s, query(s, "SELECT " REPORT_COLUMNS " FROM reports "
	    "WHERE resolved IS NULL ORDER BY created, id", ""), "reports",
	    sizeof(**out), report_row, report_clear, out, n);
}

int
store_report_resolve(struct store *s, int64_t id, const char *text,
    int64_t now)
{
	if (run(s, "UPDATE reports SET resolved = ?, resolution = ? WHERE id "
	    "= ? AND resolved IS NULL", "iti", now, text, id) == -1)
		return -1;
	return changes(s) == 0 ? 1 : 0;
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
	if (changes(s) != 1) {
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
	struct db_stmt *st;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((st = query(s, "SELECT r, rd, sigma, last, games FROM ratings "
	    "WHERE player_id = ? AND kind = ?", "it", player, kind)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		r->r = col_double(st, 0);
		r->rd = col_double(st, 1);
		r->sigma = col_double(st, 2);
		r->last = col_int64(st, 3);
		r->games = col_int(st, 4);
		rc = 0;
	} else
		rc = rc == DB_DONE ? 1 : store_fail(s, "rating");
	done(s, st);
	return rc;
}

int
store_rating_put(struct store *s, int64_t player, const char *kind,
    const struct store_rating *r)
{
	return run(s, "INSERT INTO ratings (player_id, kind, r, rd, sigma, "
	    "last, games) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (player_id, "
	    "kind) DO UPDATE SET r = excluded.r, rd = excluded.rd, sigma = "
	    "excluded.sigma, last = excluded.last, games = excluded.games",
	    "itdddii",
	    player, kind, r->r, r->rd, r->sigma, r->last, (int64_t)r->games);
}

#define LADDER_COLUMNS	"id, name, kind, options, clock, list, pairs, " \
	"reach, accept, open_cap, cooldown, idle, created, coalesce(closed, 0)"

static int
ladder_one(struct store *s, struct db_stmt *st, struct store_ladder *l)
{
	int rc;

	memset(l, 0, sizeof(*l));
	if (st == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		l->id = col_int64(st, 0);
		l->name = col_text(st, 1);
		l->kind = col_text(st, 2);
		l->options = col_text(st, 3);
		l->clock = col_text(st, 4);
		l->list = col_text(st, 5);
		l->pairs = col_int(st, 6);
		l->reach = col_int(st, 7);
		l->accept = col_int64(st, 8);
		l->open_cap = col_int(st, 9);
		l->cooldown = col_int64(st, 10);
		l->idle = col_int64(st, 11);
		l->created = col_int64(st, 12);
		l->closed = col_int64(st, 13);
		rc = 0;
	} else
		rc = rc == DB_DONE ? 1 : store_fail(s, "ladder");
	done(s, st);
	return rc;
}

int
store_ladder_add(struct store *s, struct store_ladder *l)
{
	if (run_id(s, &l->id, "INSERT INTO ladders (name, kind, options, "
	    "clock, list, pairs, reach, accept, open_cap, cooldown, idle, "
	    "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
	    "tttttiiiiiii", l->name,
	    l->kind, l->options ? l->options : "", l->clock, l->list,
	    (int64_t)l->pairs, (int64_t)l->reach, l->accept,
	    (int64_t)l->open_cap, l->cooldown, l->idle, l->created) == -1)
		return -1;
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
	return changes(s) == 0 ? 0 : site_changed(s, "l", id);
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

static void
rung_row(struct db_stmt *st, void *p)
{
	struct store_rung *r = p;

	r->position = col_int(st, 0);
	r->player = col_int64(st, 1);
	r->partner = col_int64(st, 2);
	r->active = col_int64(st, 3);
}

int
store_rungs(struct store *s, int64_t ladder, struct store_rung **out, int *n)
{
	return collect(s, query(s, "SELECT position, player_id, "
	    "coalesce(partner_id, 0), active FROM rungs WHERE ladder_id = ? "
	    "ORDER BY position", "i", ladder), "rungs", sizeof(**out),
	    rung_row, NULL, out, n);
}

int
store_rungs_set(struct store *s, int64_t ladder, const struct store_rung *r,
    int n)
{
	int i, gone;

	if (run(s, "DELETE FROM rungs WHERE ladder_id = ?", "i", ladder) == -1)
		return -1;
	gone = changes(s);
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
	"coalesce(game_id, 0), status, created, coalesce(decided, 0)"

static void
challenge_row(struct db_stmt *st, void *p)
{
	struct store_challenge *c = p;

	c->id = col_int64(st, 0);
	c->ladder = col_int64(st, 1);
	c->challenger = col_int64(st, 2);
	c->challenged = col_int64(st, 3);
	c->game = col_int64(st, 4);
	c->status = col_text(st, 5);
	c->created = col_int64(st, 6);
	c->decided = col_int64(st, 7);
}

int
store_challenge_add(struct store *s, struct store_challenge *c)
{
	if (run_id(s, &c->id, "INSERT INTO challenges (ladder_id, challenger, "
	    "challenged, status, created) VALUES (?, ?, ?, ?, ?) RETURNING id",
	    "iiiti", c->ladder,
	    c->challenger, c->challenged, c->status ? c->status : "open",
	    c->created) == -1)
		return -1;
	return store_challenge_update(s, c);
}

int
store_challenge_update(struct store *s, const struct store_challenge *c)
{
	if (run(s, "UPDATE challenges SET game_id = nullif(?, 0), status = "
	    "?, decided = nullif(?, 0) WHERE id = ?", "itii", c->game,
	    c->status ? c->status : "open", c->decided, c->id) == -1)
		return -1;
	return site_changed_by(s, "l", query(s, "SELECT ladder_id FROM "
	    "challenges WHERE id = ?", "i", c->id));
}

int
store_challenge_by_game(struct store *s, int64_t game,
    struct store_challenge *c)
{
	struct db_stmt *st;
	int rc;

	memset(c, 0, sizeof(*c));
	if ((st = query(s, "SELECT " CHALLENGE_COLUMNS " FROM challenges "
	    "WHERE game_id = ?", "i", game)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		challenge_row(st, c);
		rc = 0;
	} else
		rc = rc == DB_DONE ? 1 : store_fail(s, "challenge");
	done(s, st);
	return rc;
}

static void
challenge_clear(void *p)
{
	store_challenge_free(p);
}

int
store_challenges(struct store *s, int64_t ladder, int64_t player, int open,
    int64_t since, struct store_challenge **out, int *n)
{
	return collect(s, query(s, "SELECT " CHALLENGE_COLUMNS " FROM "
	    "challenges WHERE ladder_id = ? AND (? = 0 OR challenger = ? OR "
	    "challenged = ?) AND (CASE WHEN ? <> 0 THEN status = 'open' ELSE "
	    "status <> 'open' AND decided >= ? END) ORDER BY id", "iiiiii",
	    ladder, player, player, player, (int64_t)(open != 0), since),
	    "challenges", sizeof(**out), challenge_row, challenge_clear, out, n);
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
	struct db_stmt *st;
	int rc, seat;

	*n = 0;
	if ((st = query(s, "SELECT seat, r_old, r_new FROM rating_changes "
	    "WHERE game_id = ? ORDER BY seat", "i", game)) == NULL)
		return -1;
	while ((rc = step(s, st)) == DB_ROW) {
		seat = col_int(st, 0);
		if (seat < 0 || seat >= STORE_MAX_SEATS)
			continue;
		r_old[seat] = col_double(st, 1);
		r_new[seat] = col_double(st, 2);
		(*n)++;
	}
	done(s, st);
	return rc == DB_DONE ? 0 : store_fail(s, "rating changes");
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

static void
rating_point_row(struct db_stmt *st, void *p)
{
	struct store_rating_point *r = p;

	r->game = col_int64(st, 0);
	r->when = col_int64(st, 1);
	r->r_old = col_double(st, 2);
	r->r_new = col_double(st, 3);
}

int
store_rating_history(struct store *s, int64_t player, const char *kind,
    struct store_rating_point **out, int *n)
{
	return collect(s, query(s, "SELECT c.game_id, g.updated, c.r_old, "
	    "c.r_new FROM rating_changes c JOIN games g ON g.id = c.game_id "
	    "WHERE c.player_id = ? AND g.kind = ? ORDER BY g.updated, "
	    "c.game_id", "it", player, kind), "rating history", sizeof(**out),
	    rating_point_row, NULL, out, n);
}

static void
site_change_row(struct db_stmt *st, void *p)
{
	struct store_site_change *c = p;
	const char *k = col_ctext(st, 1);

	c->seq = col_int64(st, 0);
	c->kind = k == NULL ? '?' : (char)k[0];
	c->id = col_int64(st, 2);
}

int
store_site_changes(struct store *s, int max, struct store_site_change **out,
    int *n)
{
	return collect(s, query(s, "SELECT seq, kind, id FROM site_changes "
	    "ORDER BY seq LIMIT ?", "i", (int64_t)max), "site changes",
	    sizeof(**out), site_change_row, NULL, out, n);
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
	struct db_stmt *st;
	int rc;

	*cards = NULL;
	*cycle = 0;
	if ((st = query(s, "SELECT cycle, cards FROM decks WHERE name = ?", "t",
	    name)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		*cycle = col_int(st, 0);
		*cards = col_text(st, 1);
		rc = 0;
	} else
		rc = rc == DB_DONE ? 1 : store_fail(s, "deck");
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
	struct db_stmt *st;
	int rc;

	*cards = NULL;
	*cycle = *turn = 0;
	if ((st = query(s, "SELECT cycle, turn, cards FROM deck_deals WHERE "
	    "game_id = ?", "i", game)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		*cycle = col_int(st, 0);
		*turn = col_int(st, 1);
		*cards = col_text(st, 2);
		rc = 0;
	} else
		rc = rc == DB_DONE ? 1 : store_fail(s, "deck deal");
	done(s, st);
	return rc;
}

/* ---- seeks ---- */

#define SEEK_COLUMNS	"id, kind, words, clock, rated, nseats, player_id, " \
	"coalesce(seat1, 0), coalesce(seat2, 0), coalesce(seat3, 0), " \
	"coalesce(ladder_id, 0), coalesce(rating_min, 0), coalesce(rating_max, 0), " \
	"status, created, expires, coalesce(game_id, 0)"

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
	struct db_stmt *st;
	int rc, i;

	memset(k, 0, sizeof(*k));
	if ((st = query(s, "SELECT " SEEK_COLUMNS " FROM seeks WHERE id = ?",
	    "i", id)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW) {
		k->id = col_int64(st, 0);
		k->kind = col_text(st, 1);
		k->words = col_text(st, 2);
		k->clock = col_text(st, 3);
		k->rated = col_int(st, 4);
		k->nseats = col_int(st, 5);
		for (i = 0; i < STORE_MAX_SEATS; i++)
			k->player[i] = col_int64(st, 6 + i);
		k->ladder = col_int64(st, 10);
		k->rating_min = col_int(st, 11);
		k->rating_max = col_int(st, 12);
		k->status = col_text(st, 13);
		k->created = col_int64(st, 14);
		k->expires = col_int64(st, 15);
		k->game = col_int64(st, 16);
		rc = 0;
	} else
		rc = rc == DB_DONE ? 1 : store_fail(s, "seek");
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
	return changes(s) == 0 ? 0 : site_changed(s, "s", k->id);
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
	struct db_stmt *st;
	int rc;

	*n = 0;
	if ((st = query(s, "SELECT count(*) FROM timers WHERE kind = ?", "t",
	    kind)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW)
		*n = col_int(st, 0);
	done(s, st);
	return rc == DB_ROW ? 0 : store_fail(s, "timers");
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
	struct db_stmt *st;
	int rc;

	if ((st = query(s, "SELECT seats, at_ply FROM takebacks WHERE "
	    "game_id = ?", "i", game)) == NULL)
		return -1;
	if ((rc = step(s, st)) == DB_ROW) {
		*seats = (unsigned)col_int64(st, 0);
		*at_ply = col_int(st, 1);
	}
	done(s, st);
	if (rc == DB_ROW)
		return 0;
	return rc == DB_DONE ? 1 : store_fail(s, "takeback");
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
char *
store_test_dump(struct store *s)
{
	char *d;

	if (s->drv->test_dump == NULL)
		fatal("store dump: not on %s", s->drv->name);
	fault.off++;
	d = s->drv->test_dump(s->db);
	fault.off--;
	return d;
}

int
store_test_restore(struct store *s, const char *path)
{
	if (s->drv->test_restore == NULL)
		return -1;
	return s->drv->test_restore(s->db, path);
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
	struct db_stmt *st;

	switch (series) {
	case STORE_SERIES_GAME:
		return next_game_id(s, id);
	case STORE_SERIES_PLAYER:
		st = query(s, "SELECT coalesce(max(id), 0) + 1 FROM players", "");
		break;
	case STORE_SERIES_REPORT:
		st = query(s, "SELECT coalesce(max(id), 0) + 1 FROM reports", "");
		break;
	case STORE_SERIES_LADDER:
		st = query(s, "SELECT coalesce(max(id), 0) + 1 FROM ladders", "");
		break;
	case STORE_SERIES_CHALLENGE:
		st = query(s, "SELECT coalesce(max(id), 0) + 1 FROM challenges",
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
	struct db_stmt *st;
	int rc;

	if ((st = query(s, "SELECT 1 FROM thanks WHERE game_id = ? AND "
	    "from_player = ? AND to_player = ?", "iii", game, from, to)) ==
	    NULL)
		return -1;
	rc = step(s, st);
	done(s, st);
	if (rc == DB_ROW)
		return 0;
	return rc == DB_DONE ? 1 : store_fail(s, "thanks");
}

int
store_confirm_get(struct store *s, const char *cookie, int64_t player,
    int64_t now, char **command)
{
	struct db_stmt *st;
	int rc;

	*command = NULL;
	if ((st = query(s, "SELECT command FROM confirmations WHERE cookie = ? "
	    "AND player_id = ? AND used IS NULL AND expires > ?", "tii",
	    cookie, player, now)) == NULL)
		return -1;
	rc = step(s, st);
	if (rc == DB_ROW)
		*command = col_text(st, 0);
	done(s, st);
	if (rc == DB_ROW)
		return 0;
	return rc == DB_DONE ? 1 : store_fail(s, "confirmation");
}

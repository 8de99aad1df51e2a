/*
 * refint: how the parts of the referee talk to each other.  Only the
 * ref*.c files, referee.c and site.c (the public pages, views too)
 * include this.
 *
 * Who calls whom: referee.c (the message level) hands each command line
 * to the command table's dispatcher in refcmd.c, which alone calls the
 * commands' run steps, in refself.c, refgame.c, refcond.c, refadmin.c,
 * refladder.c and refseek.c; those call the helpers of refcore.c,
 * refview.c, refclock.c, refrobot.c, refdeck.c and one another, but never
 * refcmd.c or referee.c (tests/callgraph.sh).
 *
 * One incoming message (or one due timer) is one struct ref_msg.  Its
 * commands run in order, each inside a savepoint of the caller's
 * transaction: a command either completes, outgoing mail included, or
 * leaves nothing behind.  A command returns one of three outcomes the
 * caller tells apart, besides REF_OK and REF_ASIDE (a remark, not a
 * command: nothing to do):
 *
 *   REF_FAIL	the player's mistake: res->why says why (never empty),
 *		nothing changed, the sender is answered;
 *   REF_TEMP	a temporary failure (the store failed): the whole message
 *		is rolled back and tried again later, never answered;
 *   REF_TEMP with x->cause set (ref_broken): a broken invariant (a
 *		stored game this referee cannot read, a row that must exist
 *		and does not): logged, the message rolled back and
 *		quarantined (recorded as seen, not applied, not answered)
 *		so that it neither loops nor is lost unseen; a timer is
 *		dropped.  It travels as REF_TEMP's -1 so that every caller
 *		that passes a store failure up passes it up too; the
 *		message level tells the two apart by x->cause.
 *
 * A run step does not write: it reads, decides and records its writes
 * as effects (refeff.h), which the dispatcher applies when it returns
 * REF_OK and drops otherwise; a mail built, a move played or a game made
 * applies what was recorded before it.
 *
 * A store function's 1 ("no such row") is not REF_FAIL by itself: each
 * caller says what a missing row means (ref_must: that it is broken).
 *
 * While a message is handled, its mails are held in the ref_msg and
 * queued when it is done: those to the sender become one answer (see
 * answer_queue in referee.c), the others go as they are, in order.
 */
#ifndef LUDUS_REFINT_H
#define LUDUS_REFINT_H

#include <stdint.h>

#include "command.h"
#include "play.h"
#include "referee.h"
#include "template.h"
#include "i18n.h"
#include "refeff.h"

#define REF_TEMP	(-1)
#define REF_OK		0
#define REF_FAIL	1
#define REF_ASIDE	2

/* Lines of `say` and reports per player per hour; invitations per day. */
#define REF_SAY_PER_HOUR	20
#define REF_REPORT_PER_HOUR	5
#define REF_NEW_PER_DAY		30
/* Confirmations waiting for one address at a time. */
#define REF_CONFIRM_WAITING	3
/* Invitations mailed to one address a day from proposers the mail does
 * not prove; more are held (`bump` fetches them). */
#define REF_INVITED_PER_DAY	3
/* A report still open after this long is mailed to the admins again. */
#define REF_REPORT_RESEND	(4 * 3600)

/* A mail made while a message is handled, held until the end. */
struct ref_out {
	char	*to;		/* owned */
	int	 to_sender;
	int	 part;		/* REF_PART_*, for the sender's answer */
	char	*subject;	/* owned, without the tag */
	char	*body;		/* owned */
	char	*style;		/* owned: a style byte per body byte */
	int	 html;		/* an HTML part even without styles */
	char	*lang;		/* owned: the reader's language */
	int64_t	 game;
	int	 seat;
	int	 notification;	/* a move notification (List-Unsubscribe) */
	const char *auto_submitted;	/* static, or NULL */
	int	 n;		/* its number among the message's mails */
};
#define REF_PART_PLAIN	0
#define REF_PART_INFO	1	/* help, games, list, remarks only */
#define REF_PART_ERROR	2

/* What a move did to conditional moves and takebacks, for the mails of
 * that move (refcond.c). */
struct ref_cond {
	int64_t	 game;		/* 0: nothing */
	int	 owner;		/* the seat whose queue it concerned, or -1 */
	int	 fired;		/* its reply was played at once */
	int	 cleared;	/* its queue was cleared */
	int	 left;		/* lines still queued after the reply */
	char	 after[2 * GAME_MOVE_TEXT];	/* the opponent's turn */
	char	 reply[2 * GAME_MOVE_TEXT];	/* the reply played */
	unsigned tb_declined;	/* seats whose takeback the move declined */
};

struct ref_msg {
	struct referee	*r;
	const struct mail_msg *m;	/* NULL for timers */
	const char	*key;		/* outgoing Message-IDs derive from it */
	int64_t		 now;
	struct store_player me;		/* the sender (owned); id 0 for timers */
	int		 dmarc;		/* From proven by a trusted DMARC pass */
	int		 confirmed;	/* running a confirmed admin command */
	int		 nout;		/* mails queued so far */
	int		 answered;	/* the sender got a mail from this message */
	int		 holding;	/* hold mails in outs until the end */
	struct ref_out	*outs;		/* owned */
	int		 nouts;
	int		 proven;	/* the sender shown to be who From says */
	int		 nseeds;	/* games created so far */
	char		 cause[400];	/* ref_broken: what is broken */
	/* A store call failed where no return value carries it (the
	 * views, the threading of a mail): the message is then rolled
	 * back and retried as for REF_TEMP, never answered with less. */
	int		 failed;
	/* The writes decided and not applied yet (refeff.h). */
	struct ref_effects fx;
};

/* One command line as the table's dispatcher (refcmd.c) hands it to the
 * command's run step. */
struct ref_call {
	const struct command *c;	/* foreign: the line read */
	const char	*line;		/* foreign: the line as written */
	int		 from_tag;	/* c->game is the subject tag's */
	struct play_game *g;		/* foreign: the game, for COMMAND_LOAD;
					 * else NULL */
	int		 seat;		/* the sender's seat, for COMMAND_TOKEN
					 * and COMMAND_SEAT; else -1 */
	/* The command table the line was found in, for the help mail,
	 * which lists it: a run step does not name the table's file. */
	const struct ref_command *table;
};

/* What became of one command. */
struct ref_result {
	char	 why[700];	/* REF_FAIL: the reason, for the reply */
	int	 auth;		/* REF_FAIL for want of the seat's token */
	int64_t	 game;		/* the game concerned, 0 when none */
	int	 legal_seat;	/* show this seat's legal moves, or -1 */
	char	*note;		/* REF_OK: a sentence for the reply (owned) */
	char	*rerun;		/* REF_OK of confirm: the line confirmed,
				 * which the dispatcher runs now (owned) */
};

struct ref_command;
/* A command's run step (its entry in the command table). */
typedef int ref_run_fn(struct ref_msg *, const struct ref_call *,
	    struct ref_result *);

/*
 * The command table (refcmd.c): one entry per mail command, what the
 * referee makes of it; its keyword, form and parse step are the parser's
 * (command.c).  A new command is a kind (command.h), its syntax there,
 * an entry here and its run step.
 */
struct ref_command {
	enum command_kind kind;
	unsigned	 flags;		/* COMMAND_* below */
	ref_run_fn	*run;		/* REF_OK, REF_FAIL, REF_ASIDE or -1 */
	/* When #ID is written: tried before the game is loaded, for a #ID
	 * that may name something else (a seek); REF_NOSEEK hands the line
	 * on to run.  NULL: none. */
	ref_run_fn	*prior;
	/* After the game is loaded and before the seat is checked: is the
	 * line a remark rather than the command?  NULL: never. */
	int		(*remark)(struct ref_msg *, const struct ref_call *);
	/* Its line in the help mail (N_(), translated in the reader's
	 * language); NULL: not listed.  Rows come in the table's order. */
	const char	*help_usage;
	const char	*help_text;
};
#define COMMAND_LOAD	0x02	/* the game (#ID, else the subject tag's)
				 * is loaded before the run step (no #ID
				 * and no tag: "which game?") */
#define COMMAND_TOKEN	0x04	/* for the sender's seat in it, shown by
				 * the seat's reply token or DMARC */
#define COMMAND_SEAT	0x08	/* for the sender's seat in it; From will
				 * do */
#define COMMAND_ADMIN	0x10	/* for the admins only */
#define COMMAND_CONFIRM	0x20	/* admins: run when `confirm COOKIE` comes
				 * back from the From address (the cookie
				 * is mailed there), unless DMARC proves
				 * it */
#define COMMAND_PROOF	0x40	/* acts in the sender's name: run when the
				 * mail proves its sender (the reply token
				 * of its tag's game, or a trusted DMARC
				 * pass), else when `confirm COOKIE` comes
				 * back as for COMMAND_CONFIRM */
#define COMMAND_ACTIVE	0x80	/* needs the game being played: else the
				 * one answer of reflife_need_active */
/* In the help mail's order; ends with an entry of kind CMD_NONE. */
extern const struct ref_command ref_commands[];
/* The entry of a kind; the last (CMD_NONE) for none.  Don't free. */
const struct ref_command *ref_command(enum command_kind);

int	ref_fail(struct ref_result *, const char *fmt, ...) PRINTFLIKE(2, 3);
/* A store call failed in a function that cannot return it: sets
 * x->failed; returns REF_TEMP. */
int	ref_store_failed(struct ref_msg *);
/* Log a broken invariant, keep it in x->cause; returns REF_TEMP. */
int	ref_broken(struct ref_msg *, const char *fmt, ...) PRINTFLIKE(2, 3);
/* The result of a store lookup of a row that must exist (the what of
 * that id): 0 found, REF_TEMP when the store failed or (ref_broken) the
 * row is missing. */
int	ref_must(struct ref_msg *, int rc, const char *what, int64_t id);

/* refcore.c: what every part uses; it calls no command file. */

/* Queue a rendered mail now as the message's n-th (its tag, threading,
 * HTML part); to_sender: an answer to the sender's own mail; html: an
 * HTML part even when the style layer marks nothing. */
int	ref_queue_now(struct ref_msg *, const char *to, int to_sender,
	    const char *subject, const char *body, const char *style,
	    int html, const char *lang, int64_t game, int seat,
	    int notification, const char *auto_submitted, int n);
/* Render LANG/NAME: subject, body and the body's style layer (owned). */
int	ref_render(struct ref_msg *, const char *lang, const char *tmplname,
	    struct tmpl_data *, char **subject, char **body, char **style);

/* Render LANG/NAME for a player and queue it.  game is 0 for mail about
 * no game; seat is the reader's seat (its token goes into the subject tag
 * and the plus address) or -1.  Sets the reader's player.name first. */
int	ref_send(struct ref_msg *, const struct store_player *to,
	    const char *tmplname, struct tmpl_data *, int64_t game, int seat,
	    const char *auto_submitted);
/* The same to an address that need not be a player (admins). */
int	ref_send_addr(struct ref_msg *, const char *addr, const char *tmplname,
	    struct tmpl_data *, int64_t game);
/* Switch the catalogue to the player's language (English for NULL):
 * before building any text a reader will read. */
void	ref_lang(const struct store_player *);
/* A player's name as others see it (don't free; valid while p is; a
 * robot's, named in the language in effect, until the next call). */
const char *ref_name(const struct store_player *);
/* Append player id's ref_name to b; -1 when the player cannot be read. */
int	ref_player_name(struct ref_msg *, int64_t id, struct buf *);
/*
 * A player as strangers may read of them (the public pages, the open
 * seeks): the chosen name, else the address when the player made it
 * public, else the part before the @; a robot in the reader's language.
 * Valid until the next call for a robot; as long as p (or out)
 * otherwise.  REF_NAME_LEN is room enough for out.
 */
#define REF_NAME_LEN	256
const char *ref_public_name(const struct store_player *, char *out,
	    size_t len);
int	ref_player_public(struct ref_msg *, int64_t id, struct buf *);
/* Seat token check: the sender's seat in the game, or -1 with res filled. */
int	ref_seat_auth(struct ref_msg *, const struct play_game *,
	    struct ref_result *);
/* The player of an address, made when new with the configured language
 * (a robot's with its name): found in the store or among the effects
 * not applied yet, else a new row recorded with its id reserved. */
int	ref_player_make(struct ref_msg *, const char *addr, int64_t *id);
/* A new game as play_create_with makes it, recorded as an effect: its
 * seats' players made (ref_player_make) and its id reserved when
 * set->id is 0.  REF_OK, REF_FAIL (the player's mistake, err says which)
 * or REF_TEMP (the store failed). */
int	ref_game_make(struct ref_msg *, const struct gamedef *,
	    const struct play_settings *, char *const *words, int nwords,
	    char *const *addresses, int naddresses,
	    const unsigned char seed[RNG_SEED_LEN], const char *status,
	    struct play_game *, char *err, size_t errlen);
/* Play a line for a seat as play_line does, its moves and the game row
 * recorded and applied at once (the named point "a move is played" of
 * refeff.h): REF_OK (*played, when not NULL, the number of moves),
 * REF_FAIL (the player's mistake, err says which) or REF_TEMP. */
int	ref_play(struct ref_msg *, struct play_game *, int seat,
	    const char *line, int *played, char *err, size_t errlen);
/* Is this address an admin? */
int	ref_is_admin(const struct referee *, const char *addr);
/* Load a game by id, REF_FAIL with res filled when there is none,
 * REF_TEMP when the store failed or (ref_broken) it cannot be read. */
int	ref_load(struct ref_msg *, int64_t id, struct play_game *,
	    struct ref_result *);
/* "2026-11-30 20:32 UTC" */
void	ref_utc(int64_t t, char *out, size_t len);
/* "2026-11-30 23:32 MSK (Europe/Moscow)": t in the player's time zone;
 * "" when the player reads UTC. */
void	ref_local(const struct store_player *, int64_t t, char *out,
	    size_t len);
/* A new game seed, reproducible in test builds (see rng_seed_new). */
void	ref_seed(struct ref_msg *, unsigned char seed[RNG_SEED_LEN]);

/* refself.c: the commands about the sender alone (run steps). */
ref_run_fn	refself_cmd_help, refself_cmd_games, refself_cmd_list,
	    refself_cmd_set, refself_cmd_vacation;

/* refview.c: what templates are rendered from. */

struct ref_seats {
	int	 n;
	struct store_player p[STORE_MAX_SEATS];	/* owned */
};
int	refview_seats(struct ref_msg *, const struct play_game *,
	    struct ref_seats *);
void	refview_seats_free(struct ref_seats *);
/* The game record as viewer (a seat or GAME_PUBLIC) sees it: game.*
 * (game.chance when the seed deals), game.players[] (partner marks the
 * reader's), board (without the engine's turn line), turn.* (turn.again:
 * the game's reason the reader moves again), legal[], example_move,
 * deadline.* (deadline.local in the reader's zone), last_move.*,
 * draw_offer.name and .you, you.* (you.partner.*), seed.hash; a new data
 * tree. */
/* What a mail of a game tells beyond the game as stored: what the move
 * being mailed did to conditional moves and takebacks, and the result
 * the referee decided (a resignation, an agreed draw), which the
 * engine's own result does not know.  A NULL member: none. */
struct refview_about {
	const struct ref_cond		*cond;
	const struct game_result	*ending;
};
/* ab: NULL, or what the mail tells beyond the stored game. */
struct tmpl_data *refview_game(struct ref_msg *, const struct play_game *,
	    const struct ref_seats *, int viewer,
	    const struct refview_about *ab);
/* Is a logged move a ply (an Aluette signal is not)? */
int	refview_is_ply(const struct play_game *, int seat, const char *notation);
/* The number of the next move: turns so far plus one, or the number of
 * the turn that goes on (Aluette signals are no plies; a Spite & Malice
 * turn is several); -1 when the store fails. */
int	refview_move_number(struct ref_msg *, const struct play_game *);
/* The next move as a player writes it in the `N.` guard: the turn, and
 * within a turn that goes on the place of the next ply in it ("7.2", the
 * second action of turn 7; "7" at a turn's first).  Sets *ply to that
 * place (1 at a turn's first); returns the turn, -1 when the store
 * fails. */
int	refview_move_at(struct ref_msg *, const struct play_game *, int *ply,
	    char *label, size_t len);
/* The same over a log: num[i] (when not NULL) gets the turn of log[i], 0
 * for an entry that is no ply. */
int	refview_turns(const struct play_game *, const struct store_move *,
	    int n, int *num);
/* Has seat made the last ply, and does its turn go on (by the engine's
 * ends_turn)?  -1 when the store fails. */
int	refview_turn_open(struct ref_msg *, const struct play_game *, int seat);
/* The last moves as viewer sees them ("2, 1": one seat's run). */
int	refview_last_move(struct ref_msg *, const struct play_game *,
	    int viewer, struct buf *);
/* legal[] and example_move: the seat's legal moves now (marked as moves
 * for the HTML part, the example as the reply it suggests). */
void	refview_legal(struct tmpl_data *, const struct play_game *, int seat);
/* board: render()'s text for the view, with the engine's render_style()
 * as its style layer (mailhtml.h). */
void	refview_set_board(struct tmpl_data *, const struct play_game *,
	    const struct game_view *, const char *board);
/* Mail tmplname about the game to every seat (each its own view; seats
 * by their notify setting when notify is set) and, when observers is set,
 * to every observer (public view).  extra, when not NULL, adds the
 * event's own fields to each reader's data. */
typedef void (*refview_extra_fn)(struct tmpl_data *, void *arg,
	    int viewer);
#define REFVIEW_SEATS		0x1
#define REFVIEW_OBSERVERS	0x2
#define REFVIEW_NOTIFY		0x4	/* honour each seat's notify */
int	refview_fanout(struct ref_msg *, const struct play_game *,
	    const char *tmplname, int flags, refview_extra_fn, void *arg);
/* The same, leaving out the seats whose bit is set in skip, each
 * reader's data made with ab (refview_game). */
int	refview_fanout_about(struct ref_msg *, const struct play_game *,
	    const char *tmplname, int flags, unsigned skip,
	    const struct refview_about *ab, refview_extra_fn, void *arg);
struct ref_rating_change;
/* The end mail to every seat and observer: the result res, `by` the name
 * of who resigned or decided (NULL: the rules), the ratings as ch says
 * (reflife_end decided them), cond what the last move did (or NULL). */
int	refview_end(struct ref_msg *, const struct play_game *,
	    const char *by, const struct game_result *res,
	    const struct ref_rating_change *ch, const struct ref_cond *cond);
/* The result of an ended game in the language in effect (nothing while
 * it goes on): the engine's own words for a game the rules ended, else
 * the deferred text the referee stored (i18n_defer). */
void	refview_result(const struct play_game *, struct buf *);
/* The variant as the options that differ from the defaults (owned). */
char	*refview_variant(const struct play_game *, int deck);
/* A game's status word for people, translated (don't free). */
const char *refview_status(const char *status);
/* A logged move as viewer may read it, by the engine's shown_move:
 * GAME_SHOWN_* with the text in out. */
int	refview_shown(const struct play_game *, int seat, const char *notation,
	    int viewer, char *out, size_t len);
/* May viewer learn of this logged move at all? */
int	refview_move_visible(const struct play_game *, int seat,
	    const char *notation, int viewer);

/* refgame.c: commands on games. */
/* Run steps. */
ref_run_fn	refgame_cmd_new, refgame_cmd_accept, refgame_cmd_move,
	    refgame_cmd_preview, refgame_cmd_signal, refgame_cmd_board,
	    refgame_cmd_history, refgame_cmd_resign, refgame_cmd_draw,
	    refgame_cmd_observe, refgame_cmd_say, refgame_cmd_thanks,
	    refgame_cmd_rematch;
/* A move line that is no move of the game, a sign-off "thanks": a remark
 * to set aside (the table's remark step of move and thanks). */
int	refgame_remark(struct ref_msg *, const struct ref_call *);

/* refadmin.c: admin commands, reports, confirmations, timers. */
ref_run_fn	refadmin_cmd_new, refadmin_cmd_game, refadmin_cmd_ban,
	    refadmin_cmd_reports, refadmin_cmd_resolve, refadmin_cmd_report,
	    refadmin_cmd_confirm;
/* An `invitation` or `report` timer fell due. */
int	refadmin_timer(struct ref_msg *, const struct store_timer *);
/* Mail the sender a cookie that runs line when `confirm COOKIE` comes
 * back (admin: the confirmation of an admin command; else of a player's
 * command that needs proof of the From address). */
int	refadmin_ask(struct ref_msg *, const char *line, int admin,
	    struct ref_result *);

/* reflife.c: a game's life, below the commands that reach it and above
 * the clocks, robots and views it uses. */
/* A game proposed: `new` and `admin new` as read (reflife_proposal), or
 * as a challenge, a rematch or the admin tool's `ludus new` build it.
 * Every pointer foreign. */
struct ref_proposal {
	const char	*game;		/* the game's name as written */
	char *const	*opts;		/* its OPT=VAL words, unchecked */
	int		 nopts;
	const struct command_seat *seats; /* the seats named, in order */
	int		 nseats;
	const char	*clock;		/* clock= as written, or NULL */
	enum command_first first;
	const char	*first_addr;	/* CMD_FIRST_ADDRESS */
	int		 rated;		/* -1 default, 0 no, 1 yes */
	int		 admin;		/* an admin's: no proposer's seat */
	int		 start;		/* an admin's that begins at once,
					 * needing no acceptance */
	const unsigned char *seed;	/* RNG_SEED_LEN bytes; NULL: new */
	int64_t		 invite_for;	/* seconds to accept; 0: the
					 * configured invitation time */
};
/* The proposal a `new` or `admin new` line makes (pointers into c). */
void	reflife_proposal(struct ref_proposal *, const struct command *c);
/* Propose the game: checked, made, the invitations mailed (or held from
 * an unproven proposer), begun at once when every seat has accepted. */
int	reflife_propose(struct ref_msg *, const struct ref_proposal *,
	    struct ref_result *);
/* The invitation of an invited game mailed again to one seat (`bump`:
 * one held back from an unproven proposer). */
int	reflife_invite_again(struct ref_msg *, const struct play_game *,
	    int seat);
/* An invitation declined by the sender (decliner: their id) or lapsed
 * (0): the game aborted, the ladder told, the mail to the proposer, or
 * with none (admin new) to the seats that had accepted; never to the
 * sender, whose own answer says it. */
int	reflife_unplayed(struct ref_msg *, struct play_game *,
	    int64_t decliner);
/* The game begins: active, its clock running, the robots to move
 * played, the event (who: the player it is recorded for, 0 for none)
 * logged, the game-start mail to every seat.  Any invitation timer is
 * cancelled. */
int	reflife_start(struct ref_msg *, struct play_game *, int64_t who,
	    const char *event);
/* seat played (before: the seats that were to move): a draw the other
 * side offered declined, a takeback asked for answered, a conditional
 * reply played, the clock, the robots to move; then the end (reflife_end)
 * or the move mails. */
int	reflife_moved(struct ref_msg *, struct play_game *, int seat,
	    uint32_t before);
/* The game is over: rated, the ladder challenge it was played for
 * decided, the result posted to the ladder's list (refladder_end), then
 * the end mail.  res: the result (the engine's when the rules ended it);
 * by: who resigned or decided, NULL for the rules; cond: what the last
 * move did to conditional moves, or NULL. */
int	reflife_end(struct ref_msg *, const struct play_game *,
	    const char *by, const struct game_result *res,
	    const struct ref_cond *cond);
/* The rules ended the game (the engine's result). */
int	reflife_over(struct ref_msg *, const struct play_game *,
	    const struct ref_cond *cond);
/* End a game other than by the rules (resign, agreement, timeout,
 * admin): winners a bit per seat, how the `ended` word, text the result
 * (i18n_defer), by who decided (NULL: the sender). */
int	reflife_finish(struct ref_msg *, struct play_game *, int draw,
	    unsigned winners, const char *how, const char *text,
	    const char *by);
/* REF_OK when the game is being played, else REF_FAIL with the one
 * sentence every command that needs a game being played answers. */
int	reflife_need_active(const struct play_game *, struct ref_result *);

/* refclock.c: deadlines, reserves, reminders, timeouts, vacations.
 * They change g->row (the caller writes it) and the timers. */
int	refclock_begin_game(struct ref_msg *, struct play_game *);
int	refclock_begin_turn(struct ref_msg *, struct play_game *);
/* After seat moved; before: the seats that were to move. */
int	refclock_after_move(struct ref_msg *, struct play_game *, int seat,
	    uint32_t before);
int	refclock_stop(struct ref_msg *, struct play_game *);
/* Move the deadline (admin extend; a vacation); restarts a stopped clock. */
int	refclock_shift(struct ref_msg *, struct play_game *, int64_t delta);
/* A `timeout` or `reminder` timer fell due. */
int	refclock_timer(struct ref_msg *, const struct store_timer *);
/* vacation DAYS (0: off) for the sender: allowance, deadlines, notices;
 * *left: days of the allowance left. */
int	refclock_vacation(struct ref_msg *, int days, struct ref_result *,
	    int64_t *left);

/* refrobot.c: robot seats. */
/* The address of a robot of a level (owned); the level of an address,
 * 0 for a person. */
char	*refrobot_address(int level, int seat);
int	refrobot_level(const char *address);
unsigned refrobot_seats(const struct play_game *);
/* Let every robot to move play, one move after another, with the clock
 * running; *played counts them. */
int	refrobot_play(struct ref_msg *, struct play_game *, int *played);
/* Does every robot of the game judge its position lost? */
int	refrobot_accepts_draw(const struct play_game *);

/* refladder.c: ratings, ladders, challenges, club list postings. */

/* What an ended game did to the seats' ratings (rounded). */
struct ref_rating_change {
	int	 rated;		/* 1 when ratings moved */
	int	 old[STORE_MAX_SEATS];
	int	 now[STORE_MAX_SEATS];
};
/* A game ended (reflife_end): rate it, decide the
 * ladder challenge it was played for, post the result to the ladder's
 * list.  Called before the end mail, which shows ch.  Only the first call
 * for a game does this; a later one (the end mail made again) fills ch
 * from what was recorded. */
int	refladder_end(struct ref_msg *, const struct play_game *,
	    const struct game_result *, struct ref_rating_change *ch);
/* An invitation declined (decliner: the player) or lapsed (0). */
int	refladder_unplayed(struct ref_msg *, const struct play_game *,
	    int64_t decliner);
/* ladder, ladder join/leave, challenge; the admin ladder commands. */
ref_run_fn	refladder_cmd_ladder, refladder_cmd_join, refladder_cmd_leave,
	    refladder_cmd_challenge, refladder_cmd_admin;
/* Open the ladders of the configuration's ladder.create that do not
 * exist yet (a line that does not make one is logged). */
int	refladder_configured(struct ref_msg *);
/* A `ladder` timer: inactivity drop-down, standings to the list. */
int	refladder_timer(struct ref_msg *, const struct store_timer *);
/* ratings[] (title, rating, games) of the sender for `list`. */
void	refladder_list(struct ref_msg *, struct tmpl_data *);
/* "1612 ±90" or "unrated": a player's rating now; the games rated (-1
 * when the store fails). */
int	refladder_rating_text(struct ref_msg *, int64_t player,
	    const char *kind, struct buf *);

/* refdeck.c: the server's Almakleh deck (almakleh.cycle_deck). */
struct refdeck_draw {
	const char *deck;	/* foreign: the definition's name */
	int	 cycle;		/* the cycle of the first card dealt */
	int	 turn;		/* where the next cycle began, 0: none */
	char	*cards;		/* owned: the deal= value, NULL: none */
};
/* The deal= word (owned, in *word) for a new game of def from the
 * server's deck, and what was drawn; *word is NULL when the game is not
 * dealt from the deck (cycling off, another game, deal= or cards=discard
 * among the words).  The deck is updated in the store. */
int	refdeck_deal(struct ref_msg *, const struct gamedef *,
	    char *const *words, int nwords,
	    const unsigned char seed[RNG_SEED_LEN], char **word,
	    struct refdeck_draw *);
/* Record the draw for the game made with it (nothing without one). */
int	refdeck_record(struct ref_msg *, int64_t game,
	    const struct refdeck_draw *);
void	refdeck_draw_free(struct refdeck_draw *);
/* 1 when the game was dealt from the deck (its deal= is the deck's, no
 * variant), 0 when not, -1 when the store fails. */
int	refdeck_dealt(struct ref_msg *, const struct gamedef *, int64_t game);

/* refseek.c: open seeks, the lobby by mail. */
#define REF_NOSEEK	3	/* refseek_cmd_answer: #ID is no seek */
/* seek, seeks; and accept #ID, decline #ID of a seek (the prior step
 * of accept and decline: REF_NOSEEK when #ID is no seek). */
ref_run_fn	refseek_cmd_seek, refseek_cmd_seeks, refseek_cmd_answer;
/* A `seek` timer (a seek lapses) or the weekly `seeks` posting. */
int	refseek_timer(struct ref_msg *, const struct store_timer *);
/* The open seeks the sender posted or has a seat in, as seeks[] (the
 * items of the `seeks` mail), for `list`; -1 when the store fails. */
int	refseek_list(struct ref_msg *, struct tmpl_data *);
/* refcond.c: conditional moves and takebacks. */
/* if, conditions, conditions clear, takeback: run steps. */
ref_run_fn	refcond_cmd_if, refcond_cmd_conditions, refcond_cmd_takeback;
/* After *seat moved (before: the seats that were to move then): a
 * takeback asked for is answered; when the other seat's queue expects the
 * turn, its reply is played (the clock told of the first move), *seat and
 * *before then being the reply's; else the queue is cleared.  cond
 * says what happened, for the mails. */
int	refcond_after_move(struct ref_msg *, struct play_game *, int *seat,
	    uint32_t *before, struct ref_cond *cond);
/* After the move mails: the owner of the queue hears of it when those
 * mails passed them by (their notify setting). */
int	refcond_tell(struct ref_msg *, const struct play_game *,
	    const struct ref_cond *cond);
/* conditional.*, conditions.* and takeback.declined for a reader of the
 * mails of the move (refview_game) by what it did (cond, NULL: no
 * move); owner_name names the queue's owner. */
void	refcond_view(const struct play_game *, const struct ref_cond *cond,
	    struct tmpl_data *, int viewer, const char *owner_name);

/* refcmd.c: the command table's dispatcher, the only way to a command's
 * run step.  Run one command line. */
int	ref_run_line(struct ref_msg *, const char *line, struct ref_result *);
/* Fire a due timer by its kind. */
int	ref_run_timer(struct ref_msg *, const struct store_timer *);

#endif

/*
 * command: one line of the mail command language read into a typed value.
 *
 * Pure: no SQL, no mail, no clock.  The referee hands over one command line
 * (UTF-8, as src/mail.c extracted it) and gets the keyword, the game named
 * with #ID, and the arguments checked for form; whether the game exists,
 * the sender may act or a game name is known is the referee's to decide.
 *
 * Keywords are case-insensitive (ASCII and Cyrillic letters; ё reads as е).
 * Aliases in other languages come from games/commands.yaml; every language
 * is understood whatever the player's `set language`.  A line whose first
 * word is no keyword is a move in the tagged game (implicit = 1).
 */
#ifndef LUDUS_COMMAND_H
#define LUDUS_COMMAND_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Longest command line read, in bytes; TEXT arguments at most this long. */
#define COMMAND_LINE_MAX	2000
#define COMMAND_TEXT_MAX	1000
#define COMMAND_NAME_MAX	40	/* `set name`, in characters */
#define COMMAND_HOURS_MAX	8760	/* `admin extend`: a year */
#define COMMAND_DAYS_MAX	365	/* `vacation` */
#define COMMAND_ROBOT_MAX	3	/* robot:1 .. robot:3 */
#define COMMAND_IF_MAX		10	/* `if A then B` pairs in one line */

/* `set name`, `admin new` and friends are kinds of their own: one entry
 * each in the command table below. */
enum command_kind {
	CMD_NONE = 0,
	CMD_HELP,
	CMD_GAMES,
	CMD_NEW,
	CMD_ACCEPT,
	CMD_DECLINE,
	CMD_MOVE,
	CMD_PREVIEW,
	CMD_BOARD,
	CMD_HISTORY,
	CMD_RESIGN,
	CMD_DRAW,
	CMD_SIGNAL,
	CMD_OBSERVE,
	CMD_UNOBSERVE,
	CMD_LIST,
	CMD_BUMP,
	CMD_SET_LANGUAGE,
	CMD_SET_NOTIFY,
	CMD_SET_NAME,
	CMD_SET_TIMEZONE,
	CMD_SET_PUBLIC_ADDRESS,
	CMD_VACATION,
	CMD_SAY,
	CMD_THANKS,
	CMD_REPORT,
	CMD_CONFIRM,
	CMD_ADMIN_NEW,
	CMD_ADMIN_ABORT,
	CMD_ADMIN_ADJUDICATE,
	CMD_ADMIN_EXTEND,
	CMD_ADMIN_BAN,
	CMD_ADMIN_UNBAN,
	CMD_ADMIN_REPORTS,
	CMD_ADMIN_RESOLVE,
	CMD_LADDER,
	CMD_LADDER_JOIN,
	CMD_LADDER_LEAVE,
	CMD_CHALLENGE,
	CMD_ADMIN_LADDER_CREATE,
	CMD_ADMIN_LADDER_CLOSE,
	CMD_ADMIN_LADDER_REMOVE,
	CMD_ADMIN_LADDER_ADJUST,
	CMD_SEEK,
	CMD_SEEKS,
	CMD_IF,
	CMD_CONDITIONS,
	CMD_CONDITIONS_CLEAR,
	CMD_TAKEBACK,
	CMD_REMATCH,
	CMD_NKINDS
};

/* CMD_FIRST_SEATED: the seats are every player in their seats' order, the
 * proposer among them (a rematch the referee builds; never parsed). */
enum command_first { CMD_FIRST_DEFAULT = 0, CMD_FIRST_RANDOM, CMD_FIRST_ME,
	CMD_FIRST_ADDRESS, CMD_FIRST_SEATED };
enum command_notify { CMD_NOTIFY_TURN = 1, CMD_NOTIFY_ALL, CMD_NOTIFY_OFF };
/* admin adjudicate RESULT: `draw`, `1-0`/`0-1` (seat 1 or 2 wins), an
 * address, or a seat's name in that game (South, White, ...). */
enum command_result { CMD_RESULT_NONE = 0, CMD_RESULT_DRAW, CMD_RESULT_SEAT,
	CMD_RESULT_ADDRESS, CMD_RESULT_NAME };

/* One seat named at `new`: an address, or a robot of some level. */
struct command_seat {
	char	*addr;		/* owned, canonical; NULL for a robot */
	int	 robot;		/* 0: a person; 1-3 a level; -1: `robot`
				 * without a level (the referee's default) */
};

/*
 * A command.  The fields marked "owned" belong to the command when
 * command_parse() made it, and command_free() releases them.  A command
 * the referee builds itself to run one on a player's behalf (refladder.c's
 * challenge runs `new` from the ladder's row) fills them with borrowed
 * pointers instead (the ladder row's strings, the challenger's address,
 * one buffer cut into the opts words), frees only what it allocated for
 * them (the seats array, the other seats' addresses, the opts array) and
 * never hands the command to command_free().
 */
struct command {
	enum command_kind kind;
	int	 implicit;	/* a move written without the keyword */
	int64_t	 game;		/* #ID, 0 when not written (take the tag) */
	int	 guard;		/* move/preview `N.`; 0 when not written */
	int	 guard_ply;	/* its ply in the turn, `N.K.`; 0: not written */

	/* The move line (move, preview: untouched but for the trimmed ends,
	 * for game_apply_line), the TEXT of say, report, thanks, set name,
	 * admin resolve, the reason of an admin action, the help topic
	 * (case-folded), the signal name (the engine reads "signal NAME" as
	 * a move), the confirm cookie.  Owned; NULL when absent. */
	char	*text;

	/* new, admin new */
	char	*gamename;	/* owned, case-folded as written: the referee
				 * looks it up with gamedef_find */
	char	**opts;		/* owned: the game's OPT=VAL words, unchecked
				 * (gamedef_resolve checks them) */
	int	 nopts;
	struct command_seat *seats;	/* owned, in the order written */
	int	 nseats;
	char	*clock;		/* owned: clock= as written and checked, or
				 * NULL for the default */
	enum command_first first;
	char	*first_addr;	/* owned, canonical, CMD_FIRST_ADDRESS */
	int	 rated;		/* -1 default, 0 no, 1 yes */

	/* set language: a lower-case code ("en", "ru", "pt-br") */
	char	*lang;		/* owned */
	enum command_notify notify;
	int	 yes;		/* set public-address: 1 yes, 0 no */
	int	 days;		/* vacation: 1-365, 0 for `vacation off` */
	int	 hours;		/* admin extend */
	int64_t	 report;	/* admin resolve N */
	char	*addr;		/* owned: admin ban/unban, result address */
	enum command_result result;
	int	 result_seat;	/* CMD_RESULT_SEAT: 0-based seat that wins */
	char	*result_name;	/* owned: CMD_RESULT_NAME, as written */

	/* Ladders: the name (lower case; NULL when `challenge` names none),
	 * in ladder; the partner of `ladder join NAME with ADDRESS`, the
	 * player of `challenge` and of admin remove-player/adjust in addr;
	 * admin ladder create: the game in gamename, its OPT=VAL words in
	 * opts (the ladder's own settings among them, unchecked). */
	char	*ladder;	/* owned */
	int	 position;	/* admin ladder adjust: 1 = top */

	/* seek GAME [OPT=VAL...]: the game in gamename, its words in opts
	 * and clock, first, rated as for new; ladder=NAME in ladder;
	 * rating=LOW-HIGH (either end may be left out), 0 for no bound. */
	int	 rating_min;
	int	 rating_max;
	/* if MOVE then MOVE [if MOVE then MOVE...]: the opponent's move and
	 * the reply, by turns (cond[0] the first opponent's move, cond[1]
	 * its reply, ...), each as written with its ends trimmed; ncond is
	 * even.  Owned. */
	char	**cond;
	int	 ncond;
};

#define COMMAND_RATING_MAX	4000	/* seek rating= bounds: 1 to this */

#define COMMAND_LADDER_NAME_MAX	40

/*
 * The syntax of each mail command (the table in command.c, by kind): its
 * keyword, its form and its parse step.  What the referee makes of it
 * (who may run it, its run step, its line in the help mail) is the
 * referee's command table (src/referee/refcmd.c), which this file does
 * not know: the parser links without the referee.  A new command is a
 * kind above, its syntax in command.c, and its entry and run step in the
 * referee.
 */
struct command_syntax {
	const char	*name;	/* the English keyword(s); also the key of its
				 * aliases in games/commands.yaml */
	const char	*usage;	/* its form, for the replies to mistakes */
	int		 game;	/* acts on one game: #ID, else the subject
				 * tag's */
	/* Read the arguments after the keyword into cmd: 0, or -1 with a
	 * message in err. */
	int		(*parse)(const char *args, struct command *,
			    char *err, size_t errlen);
};
/* The syntax of a kind (CMD_NONE's for none: name and usage "").  Don't
 * free. */
const struct command_syntax *command_syntax(enum command_kind);

/* The summary in ludus-commands(7): every command's form and who may run
 * it, the players' then the admins', as an mdoc literal display
 * (src/docgen.c; the referee's table says who may). */
void	command_table_man(struct buf *);

/* Parse steps (the arguments after the keyword). */
int	command_args_help(const char *, struct command *, char *, size_t);
int	command_args_none(const char *, struct command *, char *, size_t);
int	command_args_game(const char *, struct command *, char *, size_t);
int	command_args_thanks(const char *, struct command *, char *, size_t);
int	command_args_say(const char *, struct command *, char *, size_t);
int	command_args_report(const char *, struct command *, char *, size_t);
int	command_args_abort(const char *, struct command *, char *, size_t);
int	command_args_seek(const char *, struct command *, char *, size_t);
int	command_args_new(const char *, struct command *, char *, size_t);
int	command_args_moves(const char *, struct command *, char *, size_t);
int	command_args_signal(const char *, struct command *, char *, size_t);
int	command_args_language(const char *, struct command *, char *, size_t);
int	command_args_notify(const char *, struct command *, char *, size_t);
int	command_args_name(const char *, struct command *, char *, size_t);
int	command_args_timezone(const char *, struct command *, char *, size_t);
int	command_args_public_address(const char *, struct command *, char *,
	    size_t);
int	command_args_vacation(const char *, struct command *, char *, size_t);
int	command_args_confirm(const char *, struct command *, char *, size_t);
int	command_args_adjudicate(const char *, struct command *, char *,
	    size_t);
int	command_args_extend(const char *, struct command *, char *, size_t);
int	command_args_ban(const char *, struct command *, char *, size_t);
int	command_args_resolve(const char *, struct command *, char *, size_t);
int	command_args_ladder(const char *, struct command *, char *, size_t);
int	command_args_if(const char *, struct command *, char *, size_t);

/* Keyword aliases read from games/commands.yaml (opaque). */
struct command_aliases;

/* Read the alias file; *out is owned by the caller (command_aliases_free).
 * -1 with "file:line: why" in err. */
int	command_aliases_load(const char *path, struct command_aliases **out,
	    char *err, size_t errlen);
/* The same from text in memory; name is used in messages. */
int	command_aliases_load_text(const char *name, const char *text,
	    size_t len, struct command_aliases **out, char *err,
	    size_t errlen);
void	command_aliases_free(struct command_aliases *);
/* Append the aliases of a command in one language ("ход, ходить"), or
 * nothing when it has none there. */
void	command_aliases_text(const struct command_aliases *,
	    enum command_kind, const char *lang, struct buf *);

/*
 * Read one command line.  aliases may be NULL (English keywords only).
 * 0 on success.  -1 with a message naming the fix in err; cmd->kind and
 * cmd->implicit are then set as far as the line was understood (CMD_NONE
 * when the keyword itself was not), so the reply can add command_usage().
 * Either way call command_free afterwards.
 */
int	command_parse(const struct command_aliases *, const char *line,
	    struct command *cmd, char *err, size_t errlen);
void	command_free(struct command *);

/* "set language", "admin adjudicate"; "" for CMD_NONE.  Don't free. */
const char *command_name(enum command_kind);
/* The command's form, e.g. "move [#ID] [N.] MOVE[, MOVE...]".  Don't free. */
const char *command_usage(enum command_kind);
/* Does the command act on one game (so #ID or the subject tag matters)? */
int	command_game_scoped(enum command_kind);

/* Case-fold UTF-8 as keywords are compared: ASCII and Cyrillic letters to
 * lower case, ё to е; other bytes are copied.  Owned result. */
char	*command_fold(const char *);

#endif

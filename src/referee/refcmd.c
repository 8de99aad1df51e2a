/*
 * refcmd: the command table and its dispatcher, the only way from a
 * command line to the code that carries it out.
 *
 * Each mail command is one entry below (struct command_entry, command.h):
 * its keyword (also the key of its aliases in games/commands.yaml), its
 * form, who may run it (the flags: anyone, the seat's token, the seat,
 * proof of the sender, the admins), its parse step (command.c), its run
 * step (the ref*.c file of its kind) and its line in the help mail.  The
 * dispatcher knows nothing of any command: it reads the line, fills in
 * the game from the subject tag, checks the flags, loads the game and the
 * sender's seat, and calls the run step.  Timers go the same way, by the
 * kind of the timer.
 *
 * This file calls the command files; none of them calls it (the test
 * tests/callgraph.sh holds that).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "refint.h"

/*
 * In the order of the help mail.  A help line may name a neighbour too
 * ("accept / decline"); the one of decline is the seek form of both
 * (accept #ID and decline #ID of a seek: their prior step).
 */
const struct command_entry command_table[] = {
	{ CMD_HELP, "help", "help [GAME|TOPIC]", 0,
	    command_args_help, refself_cmd_help, NULL, NULL,
	    N_("help [GAME]"), N_("this text, or the rules of a game") },
	{ CMD_GAMES, "games", "games", 0,
	    command_args_none, refself_cmd_games, NULL, NULL,
	    N_("games"), N_("the games and their options") },
	{ CMD_NEW, "new", "new GAME [OPT=VAL...] ADDRESS...", 0,
	    command_args_new, refgame_cmd_new, NULL, NULL,
	    N_("new GAME [OPT=VAL] ADDRESS..."), N_("propose a game") },
	{ CMD_ACCEPT, "accept", "accept [#ID]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_game, refgame_cmd_accept, refseek_cmd_answer, NULL,
	    N_("accept / decline"), N_("answer an invitation") },
	{ CMD_MOVE, "move", "move [#ID] [N.] MOVE[, MOVE...]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_moves, refgame_cmd_move, NULL, refgame_remark,
	    N_("move [N.] MOVE[, MOVE]"),
	    N_("play (a line with only the move works too)") },
	{ CMD_PREVIEW, "preview", "preview [#ID] [N.] MOVE[, MOVE...]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_moves, refgame_cmd_preview, NULL, NULL,
	    N_("preview MOVE..."),
	    N_("show the board after moves without playing") },
	{ CMD_BOARD, "board", "board [#ID]", COMMAND_GAME | COMMAND_LOAD,
	    command_args_game, refgame_cmd_board, NULL, NULL,
	    N_("board / history"), N_("the board again / the moves so far") },
	{ CMD_HISTORY, "history", "history [#ID]", COMMAND_GAME | COMMAND_LOAD,
	    command_args_game, refgame_cmd_history, NULL, NULL, NULL, NULL },
	{ CMD_RESIGN, "resign", "resign [#ID]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_game, refgame_cmd_resign, NULL, NULL,
	    N_("resign / draw"), N_("give up / offer or accept a draw") },
	{ CMD_DRAW, "draw", "draw [#ID]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_game, refgame_cmd_draw, NULL, NULL, NULL, NULL },
	{ CMD_TAKEBACK, "takeback", "takeback [#ID]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_game, refcond_cmd_takeback, NULL, NULL,
	    N_("takeback"),
	    N_("take back your last move, if your opponent agrees") },
	{ CMD_IF, "if", "if [#ID] MOVE then MOVE [if MOVE then MOVE...]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_if, refcond_cmd_if, NULL, NULL,
	    N_("if MOVE then MOVE ..."),
	    N_("queue replies to your opponent's next moves") },
	/* The queue goes to the seat's own address: From will do. */
	{ CMD_CONDITIONS, "conditions", "conditions [#ID]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_SEAT,
	    command_args_game, refcond_cmd_conditions, NULL, NULL,
	    N_("conditions [clear]"), N_("the replies queued / clear them") },
	{ CMD_CONDITIONS_CLEAR, "conditions clear", "conditions clear [#ID]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_game, refcond_cmd_conditions_clear, NULL, NULL,
	    NULL, NULL },
	{ CMD_SIGNAL, "signal", "signal [#ID] NAME",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_signal, refgame_cmd_signal, NULL, NULL,
	    N_("signal NAME"), N_("a signal to your partner (Aluette)") },
	{ CMD_SAY, "say", "say [#ID] TEXT",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_say, refgame_cmd_say, NULL, NULL,
	    N_("say TEXT"), N_("a short message to the other players") },
	{ CMD_THANKS, "thanks", "thanks [#ID] [TEXT]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_thanks, refgame_cmd_thanks, NULL, refgame_remark,
	    N_("thanks"), N_("thank your opponents after a game") },
	{ CMD_REMATCH, "rematch", "rematch [#ID]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_game, refgame_cmd_rematch, NULL, NULL,
	    N_("rematch"),
	    N_("after a game, propose it again with seats swapped") },
	{ CMD_REPORT, "report", "report [#ID] TEXT",
	    COMMAND_GAME | COMMAND_PROOF,
	    command_args_report, refadmin_cmd_report, NULL, NULL,
	    N_("report TEXT"), N_("complain to the admins about a game") },
	{ CMD_OBSERVE, "observe", "observe [#ID]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_PROOF,
	    command_args_game, refgame_cmd_observe, NULL, NULL,
	    N_("observe #ID / unobserve #ID"), N_("follow a game, or stop") },
	{ CMD_UNOBSERVE, "unobserve", "unobserve [#ID]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_PROOF,
	    command_args_game, refgame_cmd_unobserve, NULL, NULL, NULL, NULL },
	{ CMD_LIST, "list", "list", 0,
	    command_args_none, refself_cmd_list, NULL, NULL,
	    N_("list / bump"),
	    N_("your games / send again every waiting board") },
	{ CMD_BUMP, "bump", "bump", 0,
	    command_args_none, refself_cmd_bump, NULL, NULL, NULL, NULL },
	{ CMD_SET_LANGUAGE, "set language", "set language CODE",
	    COMMAND_PROOF,
	    command_args_language, refself_cmd_set, NULL, NULL,
	    N_("set language en|ru|ar"), N_("the language of the mails") },
	{ CMD_SET_NOTIFY, "set notify", "set notify turn|all|off",
	    COMMAND_PROOF,
	    command_args_notify, refself_cmd_set, NULL, NULL,
	    N_("set notify turn|all|off"),
	    N_("which moves are mailed to you") },
	{ CMD_SET_NAME, "set name", "set name TEXT", COMMAND_PROOF,
	    command_args_name, refself_cmd_set, NULL, NULL,
	    N_("set name TEXT"), N_("the name others see") },
	{ CMD_SET_TIMEZONE, "set timezone", "set timezone ZONE",
	    COMMAND_PROOF,
	    command_args_timezone, refself_cmd_set, NULL, NULL, NULL, NULL },
	{ CMD_SET_PUBLIC_ADDRESS, "set public-address",
	    "set public-address yes|no", COMMAND_PROOF,
	    command_args_public_address, refself_cmd_set, NULL, NULL,
	    NULL, NULL },
	{ CMD_VACATION, "vacation", "vacation DAYS|off", COMMAND_PROOF,
	    command_args_vacation, refself_cmd_vacation, NULL, NULL,
	    N_("vacation DAYS / vacation off"), N_("pause your clocks") },
	{ CMD_LADDER, "ladder", "ladder NAME", 0,
	    command_args_ladder, refladder_cmd_ladder, NULL, NULL,
	    N_("ladder NAME"), N_("a ladder's standings") },
	{ CMD_LADDER_JOIN, "ladder join", "ladder join NAME [with ADDRESS]",
	    COMMAND_PROOF,
	    command_args_ladder, refladder_cmd_join, NULL, NULL,
	    N_("ladder join NAME [with ADDRESS] / ladder leave NAME"),
	    N_("join or leave it") },
	{ CMD_LADDER_LEAVE, "ladder leave", "ladder leave NAME", COMMAND_PROOF,
	    command_args_ladder, refladder_cmd_leave, NULL, NULL, NULL, NULL },
	{ CMD_CHALLENGE, "challenge", "challenge ADDRESS [LADDER]",
	    COMMAND_PROOF,
	    command_args_ladder, refladder_cmd_challenge, NULL, NULL,
	    N_("challenge ADDRESS [LADDER]"),
	    N_("challenge a rung above yours") },
	{ CMD_SEEK, "seek",
	    "seek GAME [OPT=VAL...] [ladder=NAME] [rating=LOW-HIGH]",
	    COMMAND_PROOF,
	    command_args_seek, refseek_cmd_seek, NULL, NULL,
	    N_("seek GAME [OPT=VAL]"),
	    /* TRANSLATORS: the second line is indented under the first. */
	    N_("offer a game to anyone (ladder=NAME,\n"
	    "rating=LOW-HIGH: who may take it)") },
	{ CMD_SEEKS, "seeks", "seeks", 0,
	    command_args_none, refseek_cmd_seeks, NULL, NULL,
	    N_("seeks"), N_("the open seeks") },
	{ CMD_DECLINE, "decline", "decline [#ID]",
	    COMMAND_GAME | COMMAND_LOAD | COMMAND_TOKEN,
	    command_args_game, refgame_cmd_decline, refseek_cmd_answer, NULL,
	    N_("accept #ID / decline #ID"),
	    /* TRANSLATORS: the second line is indented under the first. */
	    N_("take a seat in a seek, or give it back\n"
	    "(your own seek: withdraw it)") },
	{ CMD_CONFIRM, "confirm", "confirm COOKIE", 0,
	    command_args_confirm, refadmin_cmd_confirm, NULL, NULL,
	    N_("confirm CODE"),
	    N_("carry out a command you were asked to confirm") },
	{ CMD_ADMIN_NEW, "admin new", "admin new GAME [OPT=VAL...] ADDRESS...",
	    COMMAND_ADMIN | COMMAND_CONFIRM,
	    command_args_new, refadmin_cmd_new, NULL, NULL, NULL, NULL },
	{ CMD_ADMIN_ABORT, "admin abort", "admin abort #ID [REASON]",
	    COMMAND_ADMIN | COMMAND_CONFIRM | COMMAND_GAME,
	    command_args_abort, refadmin_cmd_game, NULL, NULL, NULL, NULL },
	{ CMD_ADMIN_ADJUDICATE, "admin adjudicate",
	    "admin adjudicate #ID draw|1-0|0-1|ADDRESS|SEAT [REASON]",
	    COMMAND_ADMIN | COMMAND_CONFIRM | COMMAND_GAME,
	    command_args_adjudicate, refadmin_cmd_game, NULL, NULL,
	    NULL, NULL },
	{ CMD_ADMIN_EXTEND, "admin extend", "admin extend #ID HOURS [REASON]",
	    COMMAND_ADMIN | COMMAND_CONFIRM | COMMAND_GAME,
	    command_args_extend, refadmin_cmd_game, NULL, NULL, NULL, NULL },
	{ CMD_ADMIN_BAN, "admin ban", "admin ban ADDRESS [REASON]",
	    COMMAND_ADMIN | COMMAND_CONFIRM,
	    command_args_ban, refadmin_cmd_ban, NULL, NULL, NULL, NULL },
	{ CMD_ADMIN_UNBAN, "admin unban", "admin unban ADDRESS",
	    COMMAND_ADMIN | COMMAND_CONFIRM,
	    command_args_ban, refadmin_cmd_ban, NULL, NULL, NULL, NULL },
	{ CMD_ADMIN_REPORTS, "admin reports", "admin reports",
	    COMMAND_ADMIN | COMMAND_CONFIRM,
	    command_args_none, refadmin_cmd_reports, NULL, NULL, NULL, NULL },
	{ CMD_ADMIN_RESOLVE, "admin resolve", "admin resolve N TEXT",
	    COMMAND_ADMIN | COMMAND_CONFIRM,
	    command_args_resolve, refadmin_cmd_resolve, NULL, NULL,
	    NULL, NULL },
	{ CMD_ADMIN_LADDER_CREATE, "admin ladder create",
	    "admin ladder create NAME GAME [OPT=VAL...]",
	    COMMAND_ADMIN | COMMAND_CONFIRM,
	    command_args_ladder, refladder_cmd_admin, NULL, NULL, NULL, NULL },
	{ CMD_ADMIN_LADDER_CLOSE, "admin ladder close",
	    "admin ladder close NAME",
	    COMMAND_ADMIN | COMMAND_CONFIRM,
	    command_args_ladder, refladder_cmd_admin, NULL, NULL, NULL, NULL },
	{ CMD_ADMIN_LADDER_REMOVE, "admin ladder remove-player",
	    "admin ladder remove-player NAME ADDRESS",
	    COMMAND_ADMIN | COMMAND_CONFIRM,
	    command_args_ladder, refladder_cmd_admin, NULL, NULL, NULL, NULL },
	{ CMD_ADMIN_LADDER_ADJUST, "admin ladder adjust",
	    "admin ladder adjust NAME ADDRESS POSITION",
	    COMMAND_ADMIN | COMMAND_CONFIRM,
	    command_args_ladder, refladder_cmd_admin, NULL, NULL, NULL, NULL },
	{ CMD_NONE, "", "", 0, NULL, NULL, NULL, NULL, NULL, NULL }
};

/* Who may run an entry, as the summary of ludus-commands(7) says it. */
static const char *
who_may(const struct command_entry *e)
{
	if (e->flags & COMMAND_ADMIN)
		return "admin";
	if (e->flags & COMMAND_TOKEN)
		return "token";
	if (e->flags & COMMAND_SEAT)
		return "seat";
	if (e->flags & COMMAND_PROOF)
		return "proof";
	return "anyone";
}

void
command_table_man(struct buf *b)
{
	const struct command_entry *e;
	int admin, k;

	/* In the order of the kinds (command.h), which keeps a command's
	 * kin together (accept, decline). */
	buf_adds(b, ".Bd -literal -offset indent\n");
	for (admin = 0; admin <= 1; admin++) {
		if (admin)
			buf_adds(b, "\n");
		for (k = CMD_NONE + 1; k < CMD_NKINDS; k++) {
			e = command_entry((enum command_kind)k);
			if (!(e->flags & COMMAND_ADMIN) == !admin)
				buf_printf(b, "%-7s%s\n", who_may(e),
				    e->usage);
		}
	}
	buf_adds(b, ".Ed\n");
}

/* The timers, by kind: each fires in the file that set it. */
static const struct {
	const char	*kind;
	int		(*fire)(struct ref_msg *, const struct store_timer *);
} timers[] = {
	{ "invitation", refadmin_timer },
	{ "report", refadmin_timer },
	{ "timeout", refclock_timer },
	{ "reminder", refclock_timer },
	{ "ladder", refladder_timer },
	{ "seek", refseek_timer },
	{ "seeks", refseek_timer },
};

int
ref_run_timer(struct ref_msg *x, const struct store_timer *t)
{
	size_t i;

	int rc;

	for (i = 0; i < nitems(timers); i++)
		if (strcmp(t->kind, timers[i].kind) == 0) {
			/* Its writes are applied when it fired (refeff.h). */
			if ((rc = timers[i].fire(x, t)) == REF_OK)
				return refeff_apply(x);
			refeff_discard(x);
			return rc;
		}
	log_warn("timer %lld of unknown kind %s dropped", (long long)t->id,
	    t->kind);
	return 0;
}

/* The entry's checks before its run step: the game loaded (k->g) and the
 * sender's seat (k->seat); REF_OK to go on. */
static int
load_game(struct ref_msg *x, const struct command_entry *e,
    struct ref_call *k, struct play_game *g, struct ref_result *res)
{
	const struct command *c = k->c;
	int rc;

	if (c->implicit && c->game == 0)
		return ref_fail(res, _("`%.60s` is not a command; send "
		    "`help` for the commands"), k->line);
	if (c->game == 0)
		return ref_fail(res, _("which game? Write #ID after `%s`, "
		    "or reply to a mail of the game"), command_name(c->kind));
	if ((rc = ref_load(x, c->game, g, res)) != REF_OK)
		return rc;
	k->g = g;
	if (e->remark != NULL && e->remark(x, k))
		return REF_ASIDE;
	if (e->flags & COMMAND_TOKEN) {
		if ((k->seat = ref_seat_auth(x, g, res)) < 0)
			return REF_FAIL;
	} else if (e->flags & COMMAND_SEAT) {
		if ((k->seat = play_seat(g, x->me.address)) < 0)
			return ref_fail(res, _("you have no seat in game "
			    "#%lld"), (long long)g->row.id);
	}
	return REF_OK;
}

int
ref_run_line(struct ref_msg *x, const char *line, struct ref_result *res)
{
	const struct command_entry *e;
	struct command c;
	struct ref_call k;
	struct play_game g;
	char err[600], *again;
	int rc;

	if (command_parse(x->r->aliases, line, &c, err, sizeof(err)) == -1) {
		if (c.kind == CMD_NONE)
			ref_fail(res, _("%s; send `help` for the commands"),
			    err);
		else
			ref_fail(res, _("%s (write it as `%s`)"), err,
			    command_usage(c.kind));
		command_free(&c);
		return REF_FAIL;
	}
	e = command_entry(c.kind);
	memset(&k, 0, sizeof(k));
	k.c = &c;
	k.line = line;
	k.seat = -1;
	if ((e->flags & COMMAND_GAME) && c.game == 0 && x->m != NULL) {
		c.game = x->m->tag_game;
		k.from_tag = 1;
	}
	if ((e->flags & COMMAND_ADMIN) && !ref_is_admin(x->r, x->me.address)) {
		rc = ref_fail(res, _("admin commands are for the admins of "
		    "this referee"));
		goto out;
	}
	/* Who may: an admin's command needs DMARC or the round trip; one
	 * that acts in the sender's name needs any proof of the sender (a
	 * token of the tag's game too) or the round trip. */
	if (!x->confirmed && (((e->flags & COMMAND_CONFIRM) && !x->dmarc) ||
	    ((e->flags & COMMAND_PROOF) && !x->proven))) {
		rc = refadmin_ask(x, line, (e->flags & COMMAND_ADMIN) != 0,
		    res);
		goto out;
	}
	if (e->prior != NULL && c.game != 0 && !k.from_tag &&
	    (rc = e->prior(x, &k, res)) != REF_NOSEEK)
		goto out;
	if ((e->flags & COMMAND_LOAD) &&
	    (rc = load_game(x, e, &k, &g, res)) != REF_OK)
		goto out;
	rc = e->run(x, &k, res);
	/* The run step decided; what it decided is applied now, inside the
	 * command's savepoint, or dropped when it failed (refeff.h). */
	if (rc == REF_OK && (rc = refeff_apply(x)) != REF_OK) {
		free(res->rerun);
		res->rerun = NULL;
	}
	if (rc == REF_OK && res->rerun != NULL) {
		/* confirm COOKIE: the line it confirms, now confirmed. */
		again = res->rerun;
		res->rerun = NULL;
		x->confirmed = 1;
		rc = ref_run_line(x, again, res);
		x->confirmed = 0;
		if (rc == REF_OK && res->note == NULL)
			res->note = xasprintf(_("confirmed: %s"), again);
		free(again);
	}
out:
	/* The prior step's writes (a seek answered), or none. */
	if (rc == REF_OK)
		rc = refeff_apply(x);
	else
		refeff_discard(x);
	if (k.g != NULL)
		play_free(&g);
	command_free(&c);
	return rc;
}

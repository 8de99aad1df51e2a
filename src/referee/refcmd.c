/*
 * refcmd: the command table and its dispatcher, the only way from a
 * command line to the code that carries it out.
 *
 * Each mail command is one entry below (struct ref_command, refint.h):
 * who may run it and what it needs (the flags: anyone, the seat's token,
 * the seat, proof of the sender, the admins; a game loaded, a game being
 * played), its run step (the ref*.c file of its kind) and its line in the
 * help mail; its keyword, form and parse step are the parser's
 * (command.c).  The dispatcher knows nothing of any command: it reads the
 * line, fills in the game from the subject tag, checks the flags, loads
 * the game and the sender's seat, and calls the run step.  Timers go the
 * same way, by the kind of the timer.
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
const struct ref_command ref_commands[] = {
	{ .kind = CMD_HELP,
	    .run = refself_cmd_help,
	    .help_usage = N_("help [GAME]"),
	    .help_text = N_("this text, or the rules of a game") },
	{ .kind = CMD_GAMES,
	    .run = refself_cmd_games,
	    .help_usage = N_("games"),
	    .help_text = N_("the games and their options") },
	{ .kind = CMD_NEW,
	    .run = refgame_cmd_new,
	    .help_usage = N_("new GAME [OPT=VAL] ADDRESS..."),
	    .help_text = N_("propose a game") },
	{ .kind = CMD_ACCEPT,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN,
	    .run = refgame_cmd_accept,
	    .prior = refseek_cmd_answer,
	    .help_usage = N_("accept / decline"),
	    .help_text = N_("answer an invitation") },
	{ .kind = CMD_MOVE,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN | COMMAND_ACTIVE,
	    .run = refgame_cmd_move,
	    .remark = refgame_remark,
	    .help_usage = N_("move [N.] MOVE[, MOVE]"),
	    .help_text = N_("play (a line with only the move works too)") },
	{ .kind = CMD_PREVIEW,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN | COMMAND_ACTIVE,
	    .run = refgame_cmd_preview,
	    .help_usage = N_("preview MOVE..."),
	    .help_text = N_("show the board after moves without playing") },
	{ .kind = CMD_BOARD,
	    .flags = COMMAND_LOAD,
	    .run = refgame_cmd_board,
	    .help_usage = N_("board / history"),
	    .help_text = N_("the board again / the moves so far") },
	{ .kind = CMD_HISTORY,
	    .flags = COMMAND_LOAD,
	    .run = refgame_cmd_history },
	{ .kind = CMD_RESIGN,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN | COMMAND_ACTIVE,
	    .run = refgame_cmd_resign,
	    .help_usage = N_("resign / draw"),
	    .help_text = N_("give up / offer or accept a draw") },
	{ .kind = CMD_DRAW,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN | COMMAND_ACTIVE,
	    .run = refgame_cmd_draw },
	{ .kind = CMD_TAKEBACK,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN | COMMAND_ACTIVE,
	    .run = refcond_cmd_takeback,
	    .help_usage = N_("takeback"),
	    .help_text = N_("take back your last move, if your opponent agrees") },
	{ .kind = CMD_IF,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN | COMMAND_ACTIVE,
	    .run = refcond_cmd_if,
	    .help_usage = N_("if MOVE then MOVE ..."),
	    .help_text = N_("queue replies to your opponent's next moves") },
	/* The queue goes to the seat's own address: From will do. */
	{ .kind = CMD_CONDITIONS,
	    .flags = COMMAND_LOAD | COMMAND_SEAT,
	    .run = refcond_cmd_conditions,
	    .help_usage = N_("conditions [clear]"),
	    .help_text = N_("the replies queued / clear them") },
	{ .kind = CMD_CONDITIONS_CLEAR,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN,
	    .run = refcond_cmd_conditions },
	{ .kind = CMD_SIGNAL,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN,
	    .run = refgame_cmd_signal,
	    .help_usage = N_("signal NAME"),
	    .help_text = N_("a signal to your partner (Aluette)") },
	{ .kind = CMD_SAY,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN,
	    .run = refgame_cmd_say,
	    .help_usage = N_("say TEXT"),
	    .help_text = N_("a short message to the other players") },
	{ .kind = CMD_THANKS,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN,
	    .run = refgame_cmd_thanks,
	    .remark = refgame_remark,
	    .help_usage = N_("thanks"),
	    .help_text = N_("thank your opponents after a game") },
	{ .kind = CMD_REMATCH,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN,
	    .run = refgame_cmd_rematch,
	    .help_usage = N_("rematch"),
	    .help_text = N_("after a game, propose it again with seats swapped") },
	{ .kind = CMD_REPORT,
	    .flags = COMMAND_PROOF,
	    .run = refadmin_cmd_report,
	    .help_usage = N_("report TEXT"),
	    .help_text = N_("complain to the admins about a game") },
	{ .kind = CMD_OBSERVE,
	    .flags = COMMAND_LOAD | COMMAND_PROOF,
	    .run = refgame_cmd_observe,
	    .help_usage = N_("observe #ID / unobserve #ID"),
	    .help_text = N_("follow a game, or stop") },
	{ .kind = CMD_UNOBSERVE,
	    .flags = COMMAND_LOAD | COMMAND_PROOF,
	    .run = refgame_cmd_observe },
	{ .kind = CMD_LIST,
	    .run = refself_cmd_list,
	    .help_usage = N_("list / bump"),
	    .help_text = N_("your games / send again every waiting board") },
	{ .kind = CMD_BUMP,
	    .run = refself_cmd_list },
	{ .kind = CMD_SET_LANGUAGE,
	    .flags = COMMAND_PROOF,
	    .run = refself_cmd_set,
	    .help_usage = N_("set language en|ru|ar"),
	    .help_text = N_("the language of the mails") },
	{ .kind = CMD_SET_NOTIFY,
	    .flags = COMMAND_PROOF,
	    .run = refself_cmd_set,
	    .help_usage = N_("set notify turn|all|off"),
	    .help_text = N_("which moves are mailed to you") },
	{ .kind = CMD_SET_NAME,
	    .flags = COMMAND_PROOF,
	    .run = refself_cmd_set,
	    .help_usage = N_("set name TEXT"),
	    .help_text = N_("the name others see") },
	{ .kind = CMD_SET_TIMEZONE,
	    .flags = COMMAND_PROOF,
	    .run = refself_cmd_set },
	{ .kind = CMD_SET_PUBLIC_ADDRESS,
	    .flags = COMMAND_PROOF,
	    .run = refself_cmd_set },
	{ .kind = CMD_VACATION,
	    .flags = COMMAND_PROOF,
	    .run = refself_cmd_vacation,
	    .help_usage = N_("vacation DAYS / vacation off"),
	    .help_text = N_("pause your clocks") },
	{ .kind = CMD_LADDER,
	    .run = refladder_cmd_ladder,
	    .help_usage = N_("ladder NAME"),
	    .help_text = N_("a ladder's standings") },
	{ .kind = CMD_LADDER_JOIN,
	    .flags = COMMAND_PROOF,
	    .run = refladder_cmd_join,
	    .help_usage = N_("ladder join NAME [with ADDRESS] / ladder leave NAME"),
	    .help_text = N_("join or leave it") },
	{ .kind = CMD_LADDER_LEAVE,
	    .flags = COMMAND_PROOF,
	    .run = refladder_cmd_leave },
	{ .kind = CMD_CHALLENGE,
	    .flags = COMMAND_PROOF,
	    .run = refladder_cmd_challenge,
	    .help_usage = N_("challenge ADDRESS [LADDER]"),
	    .help_text = N_("challenge a rung above yours") },
	{ .kind = CMD_SEEK,
	    .flags = COMMAND_PROOF,
	    .run = refseek_cmd_seek,
	    .help_usage = N_("seek GAME [OPT=VAL]"),
	    .help_text =
	    /* TRANSLATORS: the second line is indented under the first. */
	    N_("offer a game to anyone (ladder=NAME,\n"
	    "rating=LOW-HIGH: who may take it)") },
	{ .kind = CMD_SEEKS,
	    .run = refseek_cmd_seeks,
	    .help_usage = N_("seeks"),
	    .help_text = N_("the open seeks") },
	{ .kind = CMD_DECLINE,
	    .flags = COMMAND_LOAD | COMMAND_TOKEN,
	    .run = refgame_cmd_accept,
	    .prior = refseek_cmd_answer,
	    .help_usage = N_("accept #ID / decline #ID"),
	    .help_text =
	    /* TRANSLATORS: the second line is indented under the first. */
	    N_("take a seat in a seek, or give it back\n"
	    "(your own seek: withdraw it)") },
	{ .kind = CMD_CONFIRM,
	    .run = refadmin_cmd_confirm,
	    .help_usage = N_("confirm CODE"),
	    .help_text = N_("carry out a command you were asked to confirm") },
	{ .kind = CMD_ADMIN_NEW,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refadmin_cmd_new },
	{ .kind = CMD_ADMIN_ABORT,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refadmin_cmd_game },
	{ .kind = CMD_ADMIN_ADJUDICATE,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refadmin_cmd_game },
	{ .kind = CMD_ADMIN_EXTEND,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refadmin_cmd_game },
	{ .kind = CMD_ADMIN_BAN,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refadmin_cmd_ban },
	{ .kind = CMD_ADMIN_UNBAN,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refadmin_cmd_ban },
	{ .kind = CMD_ADMIN_REPORTS,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refadmin_cmd_reports },
	{ .kind = CMD_ADMIN_RESOLVE,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refadmin_cmd_resolve },
	{ .kind = CMD_ADMIN_LADDER_CREATE,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refladder_cmd_admin },
	{ .kind = CMD_ADMIN_LADDER_CLOSE,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refladder_cmd_admin },
	{ .kind = CMD_ADMIN_LADDER_REMOVE,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refladder_cmd_admin },
	{ .kind = CMD_ADMIN_LADDER_ADJUST,
	    .flags = COMMAND_ADMIN | COMMAND_CONFIRM,
	    .run = refladder_cmd_admin },
	{ .kind = CMD_NONE }
};

const struct ref_command *
ref_command(enum command_kind k)
{
	static const struct ref_command *bykind[CMD_NKINDS];
	const struct ref_command *e;

	/* The table is in the help mail's order: indexed by kind on first
	 * use. */
	if (bykind[CMD_NONE] == NULL) {
		for (e = ref_commands; e->kind != CMD_NONE; e++)
			bykind[e->kind] = e;
		bykind[CMD_NONE] = e;
	}
	if ((int)k < 0 || k >= CMD_NKINDS || bykind[k] == NULL)
		return bykind[CMD_NONE];
	return bykind[k];
}

/* Who may run an entry, as the summary of ludus-commands(7) says it. */
static const char *
who_may(const struct ref_command *e)
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
	const struct ref_command *e;
	int admin, k;

	/* In the order of the kinds (command.h), which keeps a command's
	 * kin together (accept, decline). */
	buf_adds(b, ".Bd -literal -offset indent\n");
	for (admin = 0; admin <= 1; admin++) {
		if (admin)
			buf_adds(b, "\n");
		for (k = CMD_NONE + 1; k < CMD_NKINDS; k++) {
			e = ref_command((enum command_kind)k);
			if (!(e->flags & COMMAND_ADMIN) == !admin)
				buf_printf(b, "%-7s%s\n", who_may(e),
				    command_usage((enum command_kind)k));
		}
	}
	buf_adds(b, ".Ed\n");
}

/* The timers, by kind: each fires in the file that set it. */
static const struct {
	const char	*kind;
	int		(*fire)(struct ref_msg *, const struct store_timer *);
} timers[] = {
	{ .kind = "invitation", .fire = refadmin_timer },
	{ .kind = "report", .fire = refadmin_timer },
	{ .kind = "timeout", .fire = refclock_timer },
	{ .kind = "reminder", .fire = refclock_timer },
	{ .kind = "ladder", .fire = refladder_timer },
	{ .kind = "seek", .fire = refseek_timer },
	{ .kind = "seeks", .fire = refseek_timer },
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
load_game(struct ref_msg *x, const struct ref_command *e,
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
	if (e->flags & COMMAND_ACTIVE)
		return reflife_need_active(g, res);
	return REF_OK;
}

int
ref_run_line(struct ref_msg *x, const char *line, struct ref_result *res)
{
	const struct ref_command *e;
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
	e = ref_command(c.kind);
	memset(&k, 0, sizeof(k));
	k.c = &c;
	k.line = line;
	k.seat = -1;
	k.table = ref_commands;
	if (command_game_scoped(c.kind) && c.game == 0 && x->m != NULL) {
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

/*
 * spite: Spite & Malice as rules.md settles it.
 *
 * Suits play no role, so a card is its rank, 1 (Ace) to 13 (King); the
 * deck is eight cards of each rank.  Every pile is an array from bottom to
 * top: the last card is the one that is played or drawn.  A centre stack
 * of n cards needs rank n + 1 next, so a King's place in its stack says
 * which rank it stands for and needs no extra field.
 *
 * A move is one action.  The turn passes only on a discard to a side stack
 * or `end`; the opponent's draw happens at once, inside apply(), so the
 * state between turns always shows the hand the next player holds.
 * Whatever randomness comes after the first deal (a completed stack
 * shuffled into the stock, the next round's deal) is drawn from the rng
 * kept in the state.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "spite.h"
#include "../i18n.h"

static const char *const seat_names[] = { N_("South"), N_("North") };
static const char *const seat_keys[] = { "south", "north" };
static const char *const rank_names[] = { "?", "A", "2", "3", "4", "5", "6",
	"7", "8", "9", "10", "J", "Q", "K" };

static const char *
spite_rank(int r)
{
	return r >= 1 && r <= SPITE_RANKS ? rank_names[r] : "?";
}

/* A rank as players write it: A or 1, 2-10, T, J, Q, K.  0 if none. */
static int
spite_parse_rank(const char *s)
{
	int r;

	if (util_strcaseeq(s, "t"))
		return 10;
	if (util_strcaseeq(s, "1"))
		return 1;
	for (r = 1; r <= SPITE_RANKS; r++)
		if (util_strcaseeq(s, rank_names[r]))
			return r;
	return 0;
}

static const uint8_t *
spite_side(const struct spite *s, int seat, int k)
{
	return s->side + spite_side_at(s, seat, k);
}

/* The top card of a side stack that is not empty. */
static int
spite_side_top(const struct spite *s, int seat, int k)
{
	return s->side[spite_side_at(s, seat, k + 1) - 1];
}

/* The cards above a stack's top move up or down by one; they are few, so
 * a loop beats a call of memmove(). */
static void
spite_side_push(struct spite *s, int seat, int k, uint8_t card)
{
	int end = spite_side_at(s, seat, k + 1), i;

	for (i = spite_side_at(s, 1, SPITE_SIDES); i > end; i--)
		s->side[i] = s->side[i - 1];
	s->side[end] = card;
	s->p[seat].nside[k]++;
}

static uint8_t
spite_side_pop(struct spite *s, int seat, int k)
{
	int end = spite_side_at(s, seat, k + 1);
	int total = spite_side_at(s, 1, SPITE_SIDES), i;
	uint8_t card = s->side[end - 1];

	for (i = end; i < total; i++)
		s->side[i - 1] = s->side[i];
	s->side[total - 1] = 0;
	s->p[seat].nside[k]--;
	return card;
}

static int
spite_seats(const struct game_opts *o)
{
	(void)o;
	return 2;
}

static const char *
spite_seat_name(const void *st, int seat)
{
	(void)st;
	return seat >= 0 && seat < 2 ? seat_names[seat] : "?";
}

static void
spite_hand_add(struct spite_seat *p, uint8_t card)
{
	int i = p->nhand++;

	while (i > 0 && p->hand[i - 1] > card) {
		p->hand[i] = p->hand[i - 1];
		i--;
	}
	p->hand[i] = card;
}

static int
spite_hand_find(const struct spite_seat *p, int rank)
{
	int i;

	for (i = 0; i < p->nhand; i++)
		if (p->hand[i] == rank)
			return i;
	return -1;
}

static void
spite_hand_remove(struct spite_seat *p, int idx)
{
	int i;

	/* A hand is a few cards: a loop beats a call of memmove(). */
	for (i = idx + 1; i < p->nhand; i++)
		p->hand[i - 1] = p->hand[i];
	p->nhand--;
}

/* Shuffle the whole deck and deal payoff piles, hands and the stock. */
static void
spite_deal(struct spite *s)
{
	uint8_t deck[SPITE_CARDS];
	int i, seat, k = 0;

	for (i = 0; i < SPITE_CARDS; i++)
		deck[i] = (uint8_t)(i % SPITE_RANKS + 1);
	rng_shuffle(&s->rng, deck, SPITE_CARDS, 1);
	memset(s->p, 0, sizeof(s->p));
	memset(s->side, 0, sizeof(s->side));
	memset(s->ncentre, 0, sizeof(s->ncentre));
	memset(s->kings, 0, sizeof(s->kings));
	for (seat = 0; seat < 2; seat++) {
		for (i = 0; i < s->opt_payoff; i++)
			s->p[seat].pay[i] = deck[k++];
		s->p[seat].npay = s->opt_payoff;
	}
	for (seat = 0; seat < 2; seat++)
		for (i = 0; i < s->opt_hand; i++)
			spite_hand_add(&s->p[seat], deck[k++]);
	s->nstock = (uint8_t)(SPITE_CARDS - k);
	memcpy(s->stock, deck + k, s->nstock);
}

/* Draw until the hand is full; -1 when the stock runs out first. */
static int
spite_draw(struct spite *s, int seat)
{
	struct spite_seat *p = &s->p[seat];

	while (p->nhand < s->opt_hand) {
		if (s->nstock == 0)
			return -1;
		spite_hand_add(p, s->stock[--s->nstock]);
	}
	return 0;
}

static int
spite_centre_takes(const struct spite *s, int c, int card)
{
	return s->ncentre[c] < SPITE_QUEEN &&
	    (card == SPITE_KING || card == s->ncentre[c] + 1);
}

/* The cards of centre stack c, bottom to top, into out; their number. */
static int
spite_centre_cards(const struct spite *s, int c, uint8_t out[SPITE_QUEEN])
{
	int i;

	for (i = 0; i < s->ncentre[c]; i++)
		out[i] = (uint8_t)(s->kings[c] >> i & 1 ? SPITE_KING : i + 1);
	return s->ncentre[c];
}

/* A completed stack's twelve cards are shuffled and put under the stock,
 * so the cards already waiting to be drawn keep their order. */
static void
spite_centre_push(struct spite *s, int c, uint8_t card)
{
	uint8_t done[SPITE_QUEEN];

	if (card == SPITE_KING)
		s->kings[c] |= (uint16_t)(1u << s->ncentre[c]);
	if (++s->ncentre[c] < SPITE_QUEEN)
		return;
	spite_centre_cards(s, c, done);
	s->kings[c] = 0;
	rng_shuffle(&s->rng, done, SPITE_QUEEN, 1);
	memmove(s->stock + SPITE_QUEEN, s->stock, s->nstock);
	memcpy(s->stock, done, SPITE_QUEEN);
	s->nstock += SPITE_QUEEN;
	s->ncentre[c] = 0;
}

/* The round is over: scorer is the seat that emptied its payoff pile, or
 * -1 when the stock ran out.  Either the match ends or the next round is
 * dealt. */
static void
spite_round_end(struct spite *s, int scorer)
{
	int next;

	if (scorer >= 0) {
		s->prev = (int8_t)scorer;
		s->prev_points = s->p[!scorer].npay;
		s->score[scorer] += s->prev_points;
		s->dry = 0;
		if (s->score[scorer] >= s->opt_target) {
			s->over = 1;
			s->winner = (int8_t)scorer;
			return;
		}
		next = !scorer;
	} else {
		s->prev = PREV_DRY;
		s->prev_points = 0;
		s->dry++;
		if (s->opt_dry > 0 && s->dry >= s->opt_dry) {
			s->over = 1;
			s->winner = -1;
			return;
		}
		next = !s->starter;
	}
	s->round++;
	spite_deal(s);
	s->starter = s->turn = (uint8_t)next;
}

static int
spite_create(void *st, const struct game_opts *o,
    const unsigned char seed[RNG_SEED_LEN], int nseats, char *err,
    size_t errlen)
{
	struct spite *s = st;
	long long payoff = game_opt_int(o, "payoff");
	long long hand = game_opt_int(o, "hand");
	long long centre = game_opt_int(o, "centre");
	long long target = game_opt_int(o, "target");
	long long dry = game_opt_int(o, "dry_rounds");
	int a, b;

	if (nseats != 2) {
		util_err(err, errlen, _("Spite & Malice is for 2 players, not %d"),
		    nseats);
		return -1;
	}
	if (payoff < 1 || payoff > SPITE_MAXPAYOFF || hand < 1 ||
	    hand > SPITE_MAXHAND || centre < 1 || centre > SPITE_MAXCENTRE ||
	    target < 1 || target > SPITE_MAXTARGET || dry < 0 ||
	    dry > SPITE_MAXDRY) {
		util_err(err, errlen, _("payoff must be 1-%d, hand 1-%d, "
		    "centre 1-%d, target 1-%d and dry_rounds 0-%d"),
		    SPITE_MAXPAYOFF, SPITE_MAXHAND, SPITE_MAXCENTRE,
		    SPITE_MAXTARGET, SPITE_MAXDRY);
		return -1;
	}
	memset(s, 0, sizeof(*s));
	s->opt_payoff = (uint8_t)payoff;
	s->opt_hand = (uint8_t)hand;
	s->opt_centre = (uint8_t)centre;
	s->opt_refill = game_opt_int(o, "refill_empty_hand") != 0;
	s->opt_target = (uint16_t)target;
	s->opt_dry = (uint16_t)dry;
	s->round = 1;
	s->winner = -1;
	s->prev = PREV_NONE;
	rng_init_sub(&s->rng, seed, "spite");
	spite_deal(s);
	/* The higher payoff top starts, Ace low and King high. */
	a = s->p[0].pay[s->p[0].npay - 1];
	b = s->p[1].pay[s->p[1].npay - 1];
	if (a != b)
		s->starter = a > b ? 0 : 1;
	else
		s->starter = (uint8_t)rng_below(&s->rng, 2);
	s->turn = s->starter;
	return 0;
}

static uint32_t
spite_to_move(const void *st)
{
	const struct spite *s = st;

	return s->over ? 0 : 1u << s->turn;
}

static void
spite_move_set(struct game_move *m, int src, int si, int dst, int di)
{
	memset(m, 0, sizeof(*m));
	m->len = 4;
	m->d[0] = (uint8_t)src;
	m->d[1] = (uint8_t)si;
	m->d[2] = (uint8_t)dst;
	m->d[3] = (uint8_t)di;
}

static int
spite_legal(const void *st, int seat, struct game_move *out, int max)
{
	const struct spite *s = st;
	const struct spite_seat *p;
	int n = 0, c, i, k, card;

	if (s->over || seat != s->turn)
		return 0;
	p = &s->p[seat];
#define ADD(src, si, dst, di) do {					\
	if (n < max)							\
		spite_move_set(&out[n++], (src), (si), (dst), (di));	\
} while (0)
	card = p->pay[p->npay - 1];
	for (c = 0; c < s->opt_centre; c++)
		if (spite_centre_takes(s, c, card))
			ADD(SRC_PAYOFF, 0, DST_CENTRE, c);
	for (k = 0; k < SPITE_SIDES; k++) {
		if (p->nside[k] == 0)
			continue;
		card = spite_side_top(s, seat, k);
		for (c = 0; c < s->opt_centre; c++)
			if (spite_centre_takes(s, c, card))
				ADD(SRC_SIDE, k, DST_CENTRE, c);
	}
	/* The hand is sorted, so equal ranks are neighbours: one move each. */
	for (i = 0; i < p->nhand; i++) {
		if (i > 0 && p->hand[i] == p->hand[i - 1])
			continue;
		for (c = 0; c < s->opt_centre; c++)
			if (spite_centre_takes(s, c, p->hand[i]))
				ADD(SRC_HAND, p->hand[i], DST_CENTRE, c);
	}
	for (i = 0; i < p->nhand; i++) {
		if (i > 0 && p->hand[i] == p->hand[i - 1])
			continue;
		for (k = 0; k < SPITE_SIDES; k++)
			ADD(SRC_HAND, p->hand[i], DST_SIDE, k);
	}
	if (p->nhand == 0)
		ADD(SRC_END, 0, 0, 0);
#undef ADD
	return n;
}

/*
 * The number of actions spite_legal() lists, without listing them: each
 * card that may go to the centre counts once per stack that takes it, a
 * hand rank also once per side stack.  How many stacks take rank r is
 * kept in two bits at bit 2r of one word (at most three stacks need the
 * same rank; a King goes on any stack short of a Queen).
 */
static int
spite_count_legal(const void *st, int seat)
{
	const struct spite *s = st;
	const struct spite_seat *p;
	uint32_t takes = 0;
	int n, c, k, i, at;

	if (s->over || seat != s->turn)
		return 0;
	p = &s->p[seat];
	for (c = 0; c < s->opt_centre; c++)
		if (s->ncentre[c] < SPITE_QUEEN)
			takes += 1u << 2 * (s->ncentre[c] + 1) |
			    1u << 2 * SPITE_KING;
#define TAKES(r)	((int)(takes >> 2 * (r) & 3))
	if (s->opt_centre > 3) {
		/* Four or more stacks may need one rank: count them. */
		n = 0;
		for (c = 0; c < s->opt_centre; c++)
			n += spite_centre_takes(s, c, p->pay[p->npay - 1]);
		for (k = 0; k < SPITE_SIDES; k++)
			if (p->nside[k] > 0)
				for (c = 0; c < s->opt_centre; c++)
					n += spite_centre_takes(s, c,
					    spite_side_top(s, seat, k));
		for (i = 0; i < p->nhand; i++)
			if (i == 0 || p->hand[i] != p->hand[i - 1]) {
				for (c = 0; c < s->opt_centre; c++)
					n += spite_centre_takes(s, c,
					    p->hand[i]);
				n += SPITE_SIDES;
			}
		return p->nhand == 0 ? n + 1 : n;
	}
	n = TAKES(p->pay[p->npay - 1]);
	for (k = 0, at = spite_side_at(s, seat, 0); k < SPITE_SIDES; k++) {
		at += p->nside[k];
		if (p->nside[k] > 0)
			n += TAKES(s->side[at - 1]);
	}
	/* The hand is sorted: equal ranks are neighbours. */
	for (i = 0; i < p->nhand; i++)
		if (i == 0 || p->hand[i] != p->hand[i - 1])
			n += TAKES(p->hand[i]) + SPITE_SIDES;
#undef TAKES
	return p->nhand == 0 ? n + 1 : n;
}

static int
spite_over(const void *st)
{
	return ((const struct spite *)st)->over;
}

static void
spite_format_move(const void *st, int seat, const struct game_move *m,
    char *out, size_t len)
{
	char text[16];
	const char *r;
	size_t n = 0;

	(void)st;
	(void)seat;
	switch (m->d[0]) {
	case SRC_END:
		util_strlcpy(out, "end", len);
		return;
	case SRC_PAYOFF:
		text[n++] = 'p';
		break;
	case SRC_SIDE:
		text[n++] = 's';
		text[n++] = (char)('1' + m->d[1]);
		break;
	default:
		for (r = spite_rank(m->d[1]); *r; r++)
			text[n++] = *r;
		break;
	}
	text[n++] = ' ';
	text[n++] = m->d[2] == DST_CENTRE ? 'c' : 's';
	text[n++] = (char)('1' + m->d[3]);
	text[n] = '\0';
	util_strlcpy(out, text, len);
}

static void
spite_hand_text(const struct spite_seat *p, char *out, size_t len)
{
	size_t used = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < p->nhand && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s",
		    i ? " " : "", spite_rank(p->hand[i]));
	if (p->nhand == 0)
		snprintf(out, len, "empty");
}

/* "s3" style stack names: the index 0..max-1, or -1. */
static int
spite_parse_stack(const char *tok, int letter, int max)
{
	/* One letter and one digit, as ludus-games(7) writes them. */
	if (tolower((unsigned char)tok[0]) != letter || tok[1] < '1' ||
	    tok[1] > '0' + max || tok[2] != '\0')
		return -1;
	return tok[1] - '1';
}

static void
spite_needs_text(const struct spite *s, int c, char *out, size_t len)
{
	if (s->ncentre[c] == 0)
		snprintf(out, len, _("c%d is empty and takes only an Ace (or a "
		    "King as Ace)"), c + 1);
	else
		snprintf(out, len, _("c%d needs a %s (or a King)"), c + 1,
		    spite_rank(s->ncentre[c] + 1));
}

static int
spite_parse_move(const void *st, int seat, const char *text,
    struct game_move *m, char *err, size_t errlen)
{
	const struct spite *s = st;
	const struct spite_seat *p;
	char copy[GAME_MOVE_TEXT], *tok[3], *save = NULL, *t, hand[64],
	    needs[96];
	int ntok = 0, src, si = 0, dst, di, card;

	if (s->over) {
		util_err(err, errlen, _("the match is over"));
		return -1;
	}
	if (seat != s->turn) {
		util_err(err, errlen, _("it is %s's turn, not %s's"),
		    _(seat_names[s->turn]), _(spite_seat_name(st, seat)));
		return -1;
	}
	p = &s->p[seat];
	util_strlcpy(copy, text, sizeof(copy));
	for (t = strtok_r(copy, " \t\r", &save); t != NULL;
	    t = strtok_r(NULL, " \t\r", &save)) {
		if (ntok == 3)
			break;
		tok[ntok++] = t;
	}
	if (ntok == 1 && util_strcaseeq(tok[0], "end")) {
		if (p->nhand > 0) {
			util_err(err, errlen, P_("you still hold %d card: a "
			    "turn ends by placing a hand card on one of your "
			    "side stacks (e.g. `%s s1`)", "you still hold %d "
			    "cards: a turn ends by placing a hand card on one "
			    "of your side stacks (e.g. `%s s1`)", p->nhand),
			    p->nhand, spite_rank(p->hand[0]));
			return -1;
		}
		spite_move_set(m, SRC_END, 0, 0, 0);
		return 0;
	}
	if (ntok != 2) {
		util_err(err, errlen, _("`%s` is not an action: give SOURCE "
		    "TARGET (e.g. `p c1`, `7 c2`, `s3 c1`, `9 s4`) or `end`"),
		    text);
		return -1;
	}

	/* Source. */
	if (util_strcaseeq(tok[0], "p")) {
		src = SRC_PAYOFF;
		card = p->pay[p->npay - 1];
	} else if ((si = spite_parse_stack(tok[0], 's', SPITE_SIDES)) >= 0) {
		src = SRC_SIDE;
		if (p->nside[si] == 0) {
			util_err(err, errlen, _("your side stack s%d is empty"),
			    si + 1);
			return -1;
		}
		card = spite_side_top(s, seat, si);
	} else if ((card = spite_parse_rank(tok[0])) != 0) {
		src = SRC_HAND;
		si = card;
		if (spite_hand_find(p, card) == -1) {
			spite_hand_text(p, hand, sizeof(hand));
			util_err(err, errlen, _("you hold no %s (your hand: %s)"),
			    spite_rank(card), hand);
			return -1;
		}
	} else {
		util_err(err, errlen, _("`%s` is not a source: give p (payoff), "
		    "s1-s4 (side stack) or a rank from your hand (A 2 ... 10 "
		    "J Q K)"), tok[0]);
		return -1;
	}

	/* Target. */
	if ((di = spite_parse_stack(tok[1], 'c', s->opt_centre)) >= 0) {
		dst = DST_CENTRE;
		if (!spite_centre_takes(s, di, card)) {
			spite_needs_text(s, di, needs, sizeof(needs));
			util_err(err, errlen, _("%s, not a %s"), needs,
			    spite_rank(card));
			return -1;
		}
	} else if ((di = spite_parse_stack(tok[1], 's', SPITE_SIDES)) >= 0) {
		dst = DST_SIDE;
		if (src != SRC_HAND) {
			util_err(err, errlen, _("only a card from your hand goes "
			    "to a side stack; payoff and side-stack cards go to "
			    "the centre"));
			return -1;
		}
	} else {
		util_err(err, errlen, _("`%s` is not a target: give c1-c%d "
		    "(centre) or s1-s4 (your side stacks)"), tok[1],
		    s->opt_centre);
		return -1;
	}
	spite_move_set(m, src, si, dst, di);
	return 0;
}

static void
spite_pass_turn(struct spite *s, int seat)
{
	s->turn = (uint8_t)!seat;
	if (spite_draw(s, s->turn) == -1)
		spite_round_end(s, -1);
}

static void
spite_apply(void *st, int seat, const struct game_move *m)
{
	struct spite *s = st;
	struct spite_seat *p = &s->p[seat];
	uint8_t card;
	int k;

	switch (m->d[0]) {
	case SRC_END:
		spite_pass_turn(s, seat);
		return;
	case SRC_PAYOFF:
		card = p->pay[--p->npay];
		spite_centre_push(s, m->d[3], card);
		if (p->npay == 0)
			spite_round_end(s, seat);
		return;
	case SRC_SIDE:
		k = m->d[1];
		card = spite_side_pop(s, seat, k);
		spite_centre_push(s, m->d[3], card);
		return;
	default:
		card = m->d[1];
		spite_hand_remove(p, spite_hand_find(p, card));
		if (m->d[2] == DST_SIDE) {
			k = m->d[3];
			spite_side_push(s, seat, k, card);
			spite_pass_turn(s, seat);
			return;
		}
		spite_centre_push(s, m->d[3], card);
		if (p->nhand == 0 && s->opt_refill &&
		    spite_draw(s, seat) == -1)
			spite_round_end(s, -1);
		return;
	}
}

static void
spite_result(const void *st, struct game_result *r)
{
	const struct spite *s = st;

	memset(r, 0, sizeof(*r));
	r->score[0] = s->score[0];
	r->score[1] = s->score[1];
	if (!s->over)
		return;
	r->over = 1;
	if (s->winner < 0) {
		r->draw = 1;
		snprintf(r->text, sizeof(r->text), P_("draw after %d round "
		    "without a score, %d-%d", "draw after %d rounds in a row "
		    "without a score, %d-%d", s->dry), s->dry, s->score[0],
		    s->score[1]);
	} else {
		int w = s->winner;

		r->winners = 1u << w;
		snprintf(r->text, sizeof(r->text), _("%s wins %d-%d"),
		    _(seat_names[w]), s->score[w], s->score[!w]);
	}
}

static const char *
spite_view_name(const struct game_view *v, int seat)
{
	return v->names[seat] ? v->names[seat] : _(seat_names[seat]);
}

/* " A 2 K" or " -": built in place and appended once, since serialise
 * calls this for every pile of every stored state. */
static void
spite_render_cards(struct buf *b, const uint8_t *c, int n)
{
	char text[SPITE_CARDS * 3 + 3];
	size_t len = 0;
	int i;

	if (n == 0) {
		buf_adds(b, " -");
		return;
	}
	for (i = 0; i < n; i++) {
		const char *r = spite_rank(c[i]);

		text[len++] = ' ';
		text[len++] = r[0];
		if (r[1] != '\0')
			text[len++] = r[1];
	}
	buf_add(b, text, len);
}

static void
spite_render_seat(const struct spite *s, const struct game_view *v,
    int seat, struct buf *b)
{
	const struct spite_seat *p = &s->p[seat];
	int k;

	buf_printf(b, "%s (%s)", spite_view_name(v, seat), _(seat_names[seat]));
	if (v->viewer == seat)
		buf_printf(b, ", %s", _("you"));
	buf_adds(b, ": ");
	buf_printf(b, P_("payoff %d card", "payoff %d cards", p->npay),
	    p->npay);
	if (p->npay > 0) {
		buf_adds(b, ", ");
		buf_printf(b, _("top %s"), spite_rank(p->pay[p->npay - 1]));
	}
	buf_adds(b, "; ");
	buf_printf(b, P_("hand %d card", "hand %d cards", p->nhand), p->nhand);
	buf_addc(b, '\n');
	for (k = 0; k < SPITE_SIDES; k++) {
		buf_printf(b, "  s%d:", k + 1);
		spite_render_cards(b, spite_side(s, seat, k), p->nside[k]);
		buf_addc(b, '\n');
	}
}

/*
 * The look of spite_render()'s text: the piles as monospace lines, each
 * card a face, a king (wild, written K or K=rank) in its own colour, the
 * pile names and what a centre stack needs dim; headings and the lines
 * about rounds and turns running text.
 */
/* Does the line start with a translated heading, up to its colon
 * ("Stock:" of "Stock: %d cards")? */
static int
heading_at(const char *line, const char *tr)
{
	size_t n = strcspn(tr, ":");

	return tr[n] == ':' && strncmp(line, tr, n + 1) == 0;
}

static void
spite_render_style(const void *st, const struct game_view *v,
    const char *text, size_t len, char *style)
{
	size_t at = 0, end, i, j;
	const char *colon;
	int stock;

	(void)st;
	(void)v;
	for (; at < len; at = end + 1) {
		end = at + strcspn(text + at, "\n");
		if (end > len)
			end = len;
		if (end == at)
			continue;
		colon = memchr(text + at, ':', end - at);
		stock = heading_at(text + at, P_("Stock: %d card",
		    "Stock: %d cards", 2)) || heading_at(text + at,
		    _("Centre:"));
		if (text[at] != ' ' && !stock && !heading_at(text + at,
		    _("Your hand:"))) {
			style[at] |= GAME_STYLE_TEXT;
			continue;
		}
		if (colon == NULL)
			continue;
		for (i = at; i <= (size_t)(colon - text); i++)
			style[i] = text[i] == ' ' ? 0 : GAME_STYLE_DIM;
		if (stock)
			continue;
		for (i = (size_t)(colon - text) + 1; i < end; i = j) {
			if (text[i] == ' ') {
				j = i + 1;
				continue;
			}
			if (text[i] == '(') {
				for (j = i; j < end; j++)
					style[j] = GAME_STYLE_DIM;
				break;
			}
			for (j = i; j < end && text[j] != ' '; j++)
				style[j] = text[i] == 'K' ? GAME_STYLE_WILD |
				    GAME_STYLE_BOLD : text[i] == '-' ?
				    GAME_STYLE_DIM : GAME_STYLE_CARD;
		}
	}
}

/*
 * The opponent at the top, the centre and stock in the middle, the viewer
 * (South for the public) at the bottom, and the viewer's hand last.  Only
 * counts of the hands and the stock are shown, except the viewer's hand.
 */
static void
spite_render(const void *st, const struct game_view *v, struct buf *b)
{
	const struct spite *s = st;
	int me = v->viewer == 1 ? 1 : 0, c, i;

	buf_printf(b, _("Round %d.  Match score: %s %d, %s %d (target %d).\n"),
	    s->round, spite_view_name(v, 0), s->score[0],
	    spite_view_name(v, 1), s->score[1], s->opt_target);
	if (s->prev == PREV_DRY)
		buf_printf(b, _("Round %d ended without a score: the stock ran "
		    "out.\n"), s->round - (s->over ? 0 : 1));
	else if (s->prev >= 0)
		buf_printf(b, _("Round %d went to %s (%s), who scored %d.\n"),
		    s->round - (s->over ? 0 : 1), spite_view_name(v, s->prev),
		    _(seat_names[s->prev]), s->prev_points);
	buf_addc(b, '\n');
	spite_render_seat(s, v, !me, b);
	buf_printf(b, "\n%s\n", _("Centre:"));
	for (c = 0; c < s->opt_centre; c++) {
		buf_printf(b, "  c%d:", c + 1);
		if (s->ncentre[c] == 0)
			buf_adds(b, " -");
		for (i = 0; i < s->ncentre[c]; i++) {
			if (s->kings[c] >> i & 1)
				buf_printf(b, " K=%s", spite_rank(i + 1));
			else
				buf_printf(b, " %s",
				    spite_rank(i + 1));
		}
		buf_adds(b, "  ");
		buf_printf(b, _("(needs %s)"), spite_rank(s->ncentre[c] + 1));
		buf_addc(b, '\n');
	}
	buf_printf(b, P_("Stock: %d card", "Stock: %d cards", s->nstock),
	    s->nstock);
	buf_adds(b, "\n\n");
	spite_render_seat(s, v, me, b);
	if (v->viewer == me) {
		buf_adds(b, _("Your hand:"));
		spite_render_cards(b, s->p[me].hand, s->p[me].nhand);
		buf_addc(b, '\n');
	}
	if (s->over) {
		struct game_result r;

		spite_result(st, &r);
		buf_addc(b, '\n');
		buf_printf(b, _("Match over: %s.\n"), r.text);
	} else if (!v->no_turn) {
		buf_addc(b, '\n');
		buf_printf(b, _("%s (%s) to play.\n"),
		    spite_view_name(v, s->turn), _(seat_names[s->turn]));
	}
}

/* A Spite & Malice card as the drawing shows it: the rank, a King (wild)
 * in its own colour. */
static void
spite_pic_card(struct game_pic *pic, struct game_grid *g, int row, int col,
    int rank)
{
	game_pic_set(pic, g, row, col, GAME_CELL_CARD, rank == SPITE_KING ?
	    GAME_STYLE_WILD | GAME_STYLE_BOLD : GAME_STYLE_CARD,
	    spite_rank(rank));
}

/* A seat's piles: the payoff stack's top and count, then s1-s4 with every
 * card, bottom first, as the text lists them. */
static void
spite_pic_seat(const struct spite *s, int seat, int block,
    struct game_pic *pic)
{
	const struct spite_seat *p = &s->p[seat];
	struct game_grid *g;
	int k, i, cols = 2;
	char t[8];

	for (k = 0; k < SPITE_SIDES; k++)
		if (p->nside[k] > cols)
			cols = p->nside[k];
	if ((g = game_pic_grid(pic, GAME_GRID_CARDS, 1 + SPITE_SIDES,
	    1 + cols, block, NULL)) == NULL)
		return;
	game_pic_set(pic, g, 0, 0, GAME_CELL_LABEL, GAME_STYLE_DIM, "p");
	if (p->npay > 0)
		spite_pic_card(pic, g, 0, 1, p->pay[p->npay - 1]);
	else
		game_pic_set(pic, g, 0, 1, GAME_CELL_BACK, GAME_STYLE_DIM, "-");
	snprintf(t, sizeof(t), "%d", p->npay);
	game_pic_set(pic, g, 0, 2, GAME_CELL_BACK, GAME_STYLE_DIM, t);
	for (k = 0; k < SPITE_SIDES; k++) {
		snprintf(t, sizeof(t), "s%d", k + 1);
		game_pic_set(pic, g, 1 + k, 0, GAME_CELL_LABEL, GAME_STYLE_DIM,
		    t);
		if (p->nside[k] == 0)
			game_pic_set(pic, g, 1 + k, 1, GAME_CELL_BACK,
			    GAME_STYLE_DIM, "-");
		for (i = 0; i < p->nside[k]; i++)
			spite_pic_card(pic, g, 1 + k, 1 + i,
			    spite_side(s, seat, k)[i]);
	}
}

/*
 * The drawing, one grid for each diagram of spite_render(): the
 * opponent's piles, the centre stacks (each one's top and the rank it
 * needs next) with the stock, the reader's piles and hand.
 */
static void
spite_picture(const void *st, const struct game_view *v, struct game_pic *pic)
{
	const struct spite *s = st;
	int me = v->viewer == 1 ? 1 : 0, c, i, top;
	struct game_grid *g;
	char t[16];

	spite_pic_seat(s, !me, 0, pic);
	g = game_pic_grid(pic, GAME_GRID_CARDS, s->opt_centre, 3, 1,
	    _("Centre:"));
	for (c = 0; g != NULL && c < s->opt_centre; c++) {
		snprintf(t, sizeof(t), "c%d", c + 1);
		game_pic_set(pic, g, c, 0, GAME_CELL_LABEL, GAME_STYLE_DIM, t);
		top = s->ncentre[c];
		if (top == 0)
			game_pic_set(pic, g, c, 1, GAME_CELL_BACK,
			    GAME_STYLE_DIM, "-");
		else if (s->kings[c] >> (top - 1) & 1) {
			snprintf(t, sizeof(t), "K=%s", spite_rank(top));
			game_pic_set(pic, g, c, 1, GAME_CELL_CARD,
			    GAME_STYLE_WILD | GAME_STYLE_BOLD, t);
		} else
			spite_pic_card(pic, g, c, 1, top);
		/* The rank it needs next, after an arrow. */
		snprintf(t, sizeof(t), "\u2192 %s", spite_rank(top + 1));
		game_pic_set(pic, g, c, 2, GAME_CELL_LABEL, GAME_STYLE_DIM, t);
	}
	snprintf(t, sizeof(t), "%d", s->nstock);
	g = game_pic_grid(pic, GAME_GRID_CARDS, 1, 1, 1, NULL);
	if (g != NULL) {
		snprintf(g->caption, sizeof(g->caption), P_("Stock: %d card",
		    "Stock: %d cards", s->nstock), s->nstock);
		game_pic_set(pic, g, 0, 0, GAME_CELL_BACK, GAME_STYLE_DIM, t);
	}
	spite_pic_seat(s, me, 2, pic);
	if (v->viewer == me && s->p[me].nhand > 0 &&
	    (g = game_pic_grid(pic, GAME_GRID_CARDS, 1, s->p[me].nhand, 2,
	    _("Your hand:"))) != NULL)
		for (i = 0; i < s->p[me].nhand; i++)
			spite_pic_card(pic, g, 0, i, s->p[me].hand[i]);
}

static void
spite_ser_pile(struct buf *b, const char *who, const char *name,
    const uint8_t *c, int n)
{
	if (who != NULL) {
		buf_adds(b, who);
		buf_addc(b, ' ');
	}
	buf_adds(b, name);
	buf_addc(b, ':');
	spite_render_cards(b, c, n);
	buf_addc(b, '\n');
}

/* Called for every stored move, so it keeps to plain appends. */
static void
spite_serialise(const void *st, struct buf *b)
{
	static const char *const centre_names[] = { "c1", "c2", "c3", "c4",
		"c5", "c6" };
	static const char *const side_names[] = { "s1", "s2", "s3", "s4" };
	const struct spite *s = st;
	char rng[RNG_TEXT_LEN];
	uint8_t cards[SPITE_QUEEN];
	int seat, c, k;

	buf_printf(b, "spite payoff=%d hand=%d centre=%d target=%d "
	    "refill_empty_hand=%d dry_rounds=%d\n"
	    "round=%d starter=%d turn=%d over=%d winner=%d "
	    "score=%d:%d dry=%d prev=", s->opt_payoff, s->opt_hand,
	    s->opt_centre, s->opt_target, s->opt_refill, s->opt_dry, s->round,
	    s->starter, s->turn, s->over, s->winner, s->score[0], s->score[1],
	    s->dry);
	if (s->prev == PREV_NONE)
		buf_adds(b, "none\n");
	else if (s->prev == PREV_DRY)
		buf_adds(b, "dry\n");
	else
		buf_printf(b, "%d:%d\n", s->prev, s->prev_points);
	rng_format(&s->rng, rng);
	buf_adds(b, "rng ");
	buf_adds(b, rng);
	buf_addc(b, '\n');
	spite_ser_pile(b, NULL, "stock", s->stock, s->nstock);
	for (c = 0; c < s->opt_centre; c++)
		spite_ser_pile(b, NULL, centre_names[c], cards,
		    spite_centre_cards(s, c, cards));
	for (seat = 0; seat < 2; seat++) {
		const struct spite_seat *p = &s->p[seat];

		spite_ser_pile(b, seat_keys[seat], "payoff", p->pay, p->npay);
		spite_ser_pile(b, seat_keys[seat], "hand", p->hand, p->nhand);
		for (k = 0; k < SPITE_SIDES; k++)
			spite_ser_pile(b, seat_keys[seat], side_names[k],
			    spite_side(s, seat, k), p->nside[k]);
	}
}

/* "name: A 2 K" or "name: -" into out (at most max cards); -1 if wrong. */
static int
spite_parse_pile(char *line, const char *name, uint8_t *out, int max,
    uint8_t *n, int counts[SPITE_RANKS + 1])
{
	size_t nl = strlen(name);
	char *t, *save = NULL;
	int r, k = 0;

	if (strncmp(line, name, nl) != 0 || line[nl] != ':')
		return -1;
	for (t = strtok_r(line + nl + 1, " ", &save); t != NULL;
	    t = strtok_r(NULL, " ", &save)) {
		if (strcmp(t, "-") == 0 && k == 0 &&
		    strtok_r(NULL, " ", &save) == NULL)
			break;
		if ((r = spite_parse_rank(t)) == 0 || k >= max)
			return -1;
		out[k++] = (uint8_t)r;
		counts[r]++;
	}
	*n = (uint8_t)k;
	return 0;
}

static int
spite_parse_state(void *st, const char *text, char *err, size_t errlen)
{
	struct spite s;
	char *copy, *line[64], *p, name[32], prev[16];
	int n = 0, rc = -1, end, a[6], round, starter, turn, over, winner, s0,
	    s1, dry, seat, c, k, i, counts[SPITE_RANKS + 1] = { 0 }, pseat,
	    ppts;
	const char *why = "malformed header";

	memset(&s, 0, sizeof(s));
	copy = xstrdup(text);
	for (p = copy; n < (int)nitems(line) && p != NULL && *p != '\0'; n++) {
		line[n] = p;
		if ((p = strchr(p, '\n')) != NULL)
			*p++ = '\0';
	}
	if (n < 3 || sscanf(line[0], "spite payoff=%d hand=%d centre=%d "
	    "target=%d refill_empty_hand=%d dry_rounds=%d%n", &a[0], &a[1],
	    &a[2], &a[3], &a[4], &a[5], &end) != 6 || line[0][end] != '\0' ||
	    a[0] < 1 || a[0] > SPITE_MAXPAYOFF || a[1] < 1 ||
	    a[1] > SPITE_MAXHAND || a[2] < 1 || a[2] > SPITE_MAXCENTRE ||
	    a[3] < 1 || a[3] > SPITE_MAXTARGET || a[4] < 0 || a[4] > 1 ||
	    a[5] < 0 || a[5] > SPITE_MAXDRY)
		goto bad;
	s.opt_payoff = (uint8_t)a[0];
	s.opt_hand = (uint8_t)a[1];
	s.opt_centre = (uint8_t)a[2];
	s.opt_target = (uint16_t)a[3];
	s.opt_refill = (uint8_t)a[4];
	s.opt_dry = (uint16_t)a[5];
	why = "malformed round line";
	if (sscanf(line[1], "round=%d starter=%d turn=%d over=%d winner=%d "
	    "score=%d:%d dry=%d prev=%15s%n", &round, &starter, &turn, &over,
	    &winner, &s0, &s1, &dry, prev, &end) != 9 ||
	    line[1][end] != '\0' || round < 1 || round > 65535 ||
	    starter < 0 || starter > 1 || turn < 0 || turn > 1 || over < 0 ||
	    over > 1 || winner < -1 || winner > 1 || s0 < 0 || s1 < 0 ||
	    s0 > 65535 || s1 > 65535 || dry < 0 || dry > 65535)
		goto bad;
	s.round = (uint16_t)round;
	s.starter = (uint8_t)starter;
	s.turn = (uint8_t)turn;
	s.over = (uint8_t)over;
	s.winner = (int8_t)(over ? winner : -1);
	s.score[0] = (uint16_t)s0;
	s.score[1] = (uint16_t)s1;
	s.dry = (uint16_t)dry;
	if (strcmp(prev, "none") == 0)
		s.prev = PREV_NONE;
	else if (strcmp(prev, "dry") == 0)
		s.prev = PREV_DRY;
	else if (sscanf(prev, "%d:%d%n", &pseat, &ppts, &end) == 2 &&
	    prev[end] == '\0' && pseat >= 0 && pseat <= 1 && ppts >= 0 &&
	    ppts <= SPITE_MAXPAYOFF) {
		s.prev = (int8_t)pseat;
		s.prev_points = (uint16_t)ppts;
	} else
		goto bad;
	why = "malformed rng line";
	if (strncmp(line[2], "rng ", 4) != 0 ||
	    rng_parse(&s.rng, line[2] + 4) == -1)
		goto bad;
	why = "wrong number of lines";
	if (n != 4 + s.opt_centre + 2 * (2 + SPITE_SIDES))
		goto bad;
	why = "malformed stock";
	if (spite_parse_pile(line[3], "stock", s.stock, SPITE_CARDS,
	    &s.nstock, counts) == -1)
		goto bad;
	i = 4;
	why = "malformed centre stack";
	for (c = 0; c < s.opt_centre; c++) {
		uint8_t cards[SPITE_QUEEN];

		snprintf(name, sizeof(name), "c%d", c + 1);
		if (spite_parse_pile(line[i++], name, cards,
		    SPITE_QUEEN - 1, &s.ncentre[c], counts) == -1)
			goto bad;
		for (k = 0; k < s.ncentre[c]; k++) {
			if (cards[k] == SPITE_KING)
				s.kings[c] |= (uint16_t)(1u << k);
			else if (cards[k] != k + 1)
				goto bad;
		}
	}
	for (seat = 0; seat < 2; seat++) {
		struct spite_seat *ps = &s.p[seat];
		uint8_t hand[SPITE_MAXHAND], nhand;

		why = "malformed payoff pile";
		snprintf(name, sizeof(name), "%s payoff", seat_keys[seat]);
		if (spite_parse_pile(line[i++], name, ps->pay,
		    SPITE_MAXPAYOFF, &ps->npay, counts) == -1 ||
		    (ps->npay == 0 && !s.over))
			goto bad;
		why = "malformed hand";
		snprintf(name, sizeof(name), "%s hand", seat_keys[seat]);
		if (spite_parse_pile(line[i++], name, hand, s.opt_hand,
		    &nhand, counts) == -1)
			goto bad;
		for (k = 0; k < nhand; k++)
			spite_hand_add(ps, hand[k]);
		why = "malformed side stack";
		for (k = 0; k < SPITE_SIDES; k++) {
			uint8_t cards[SPITE_CARDS], ncards;
			int at = spite_side_at(&s, seat, k);

			snprintf(name, sizeof(name), "%s s%d", seat_keys[seat],
			    k + 1);
			if (spite_parse_pile(line[i++], name, cards,
			    SPITE_CARDS - at, &ncards, counts) == -1)
				goto bad;
			memcpy(s.side + at, cards, ncards);
			ps->nside[k] = ncards;
		}
	}
	why = "the cards are not two packs (eight of each rank)";
	for (k = 1; k <= SPITE_RANKS; k++)
		if (counts[k] != SPITE_COPIES)
			goto bad;
	memcpy(st, &s, sizeof(s));
	rc = 0;
bad:
	if (rc == -1)
		util_err(err, errlen, "malformed Spite & Malice state: %s",
		    why);
	free(copy);
	return rc;
}

static void
spite_json_cards(struct buf *b, const uint8_t *c, int n)
{
	int i;

	buf_addc(b, '[');
	for (i = 0; i < n; i++)
		buf_printf(b, "%s\"%s\"", i ? "," : "", spite_rank(c[i]));
	buf_addc(b, ']');
}

static void
spite_export_json(const void *st, struct buf *b)
{
	const struct spite *s = st;
	char rng[RNG_TEXT_LEN];
	uint8_t cards[SPITE_QUEEN];
	int seat, c, k;

	buf_printf(b, "{\"game\":\"spite\",\"options\":{\"payoff\":%d,"
	    "\"hand\":%d,\"centre\":%d,\"target\":%d,"
	    "\"refill_empty_hand\":%s,\"dry_rounds\":%d},", s->opt_payoff,
	    s->opt_hand, s->opt_centre, s->opt_target,
	    s->opt_refill ? "true" : "false", s->opt_dry);
	buf_printf(b, "\"round\":%d,\"starter\":\"%s\",\"to_move\":", s->round,
	    seat_names[s->starter]);
	if (s->over)
		buf_adds(b, "null");
	else
		buf_printf(b, "\"%s\"", seat_names[s->turn]);
	buf_printf(b, ",\"over\":%s,\"winner\":", s->over ? "true" : "false");
	if (s->over && s->winner >= 0)
		buf_printf(b, "\"%s\"", seat_names[s->winner]);
	else
		buf_adds(b, "null");
	buf_printf(b, ",\"score\":[%d,%d],\"dry_rounds_in_a_row\":%d,"
	    "\"previous_round\":", s->score[0], s->score[1], s->dry);
	if (s->prev == PREV_NONE)
		buf_adds(b, "null");
	else if (s->prev == PREV_DRY)
		buf_adds(b, "{\"scorer\":null,\"points\":0}");
	else
		buf_printf(b, "{\"scorer\":\"%s\",\"points\":%d}",
		    seat_names[s->prev], s->prev_points);
	buf_adds(b, ",\"stock\":");
	spite_json_cards(b, s->stock, s->nstock);
	buf_adds(b, ",\"centre\":[");
	for (c = 0; c < s->opt_centre; c++) {
		if (c)
			buf_addc(b, ',');
		spite_json_cards(b, cards, spite_centre_cards(s, c, cards));
	}
	buf_adds(b, "],\"seats\":[");
	for (seat = 0; seat < 2; seat++) {
		const struct spite_seat *p = &s->p[seat];

		buf_printf(b, "%s{\"seat\":\"%s\",\"payoff\":", seat ? "," : "",
		    seat_names[seat]);
		spite_json_cards(b, p->pay, p->npay);
		buf_adds(b, ",\"hand\":");
		spite_json_cards(b, p->hand, p->nhand);
		buf_adds(b, ",\"side\":[");
		for (k = 0; k < SPITE_SIDES; k++) {
			if (k)
				buf_addc(b, ',');
			spite_json_cards(b, spite_side(s, seat, k),
			    p->nside[k]);
		}
		buf_adds(b, "]}");
	}
	rng_format(&s->rng, rng);
	buf_printf(b, "],\"rng\":\"%s\"}", rng);
}

/*
 * A Fisher-Yates shuffle for determinize(), which runs at every iteration
 * of a search: several draws come from one 32-bit number (batched ranged
 * integers, Brackett-Rozinsky and Lemire), each range multiplied into what
 * the previous left, as long as the product of the ranges stays below
 * 2^28; a number whose final remainder falls in the uneven part is drawn
 * again, so every order is equally likely.  Eighty cards take about one
 * keystream block of the generator in place of five.
 */
static void
spite_shuffle(struct rng *rng, uint8_t *a, int n)
{
	uint32_t idx[16], lo, prod, t;
	uint64_t m;
	uint8_t tmp;
	int i = n, k, j;

	while (i > 1) {
		prod = (uint32_t)i;
		for (k = 1; k < 16 && i - k > 1 &&
		    (uint64_t)prod * (uint32_t)(i - k) < (1u << 28); k++)
			prod *= (uint32_t)(i - k);
		t = (uint32_t)(-prod) % prod;	/* 2^32 mod prod */
		do {
			lo = rng_u32(rng);
			for (j = 0; j < k; j++) {
				m = (uint64_t)lo * (uint32_t)(i - j);
				idx[j] = (uint32_t)(m >> 32);
				lo = (uint32_t)m;
			}
		} while (lo < t);
		for (j = 0; j < k; j++) {
			tmp = a[i - 1 - j];
			a[i - 1 - j] = a[idx[j]];
			a[idx[j]] = tmp;
		}
		i -= k;
	}
}

/*
 * What a seat sees: the centre, both players' side stacks and payoff tops,
 * its own hand, and the counts of everything else.  The cards hidden from
 * it (the opponent's hand, the stock, both payoff piles under their tops)
 * are the two packs less the visible ones; they are dealt afresh, in rank
 * order shuffled, so the result depends on nothing the seat cannot see.
 * A completed stack's cards sit at the bottom of the stock, which the
 * state does not record once they are there; they are dealt like the rest.
 */
static void
spite_determinize(void *st, int seat, struct rng *rng)
{
	struct spite *s = st;
	struct spite_seat *op;
	uint8_t pool[SPITE_CARDS], nhand;
	int left[SPITE_RANKS + 1], n = 0, r, k, c, i, who;

	if (seat < 0 || seat > 1)
		return;
	op = &s->p[!seat];
	for (r = 1; r <= SPITE_RANKS; r++)
		left[r] = SPITE_COPIES;
	for (c = 0; c < s->opt_centre; c++)
		for (i = 0; i < s->ncentre[c]; i++)
			left[s->kings[c] >> i & 1 ? SPITE_KING : i + 1]--;
	for (who = 0; who < 2; who++) {
		const struct spite_seat *p = &s->p[who];

		for (k = 0; k < SPITE_SIDES; k++)
			for (i = 0; i < p->nside[k]; i++)
				left[spite_side(s, who, k)[i]]--;
		if (p->npay > 0)
			left[p->pay[p->npay - 1]]--;
	}
	for (i = 0; i < s->p[seat].nhand; i++)
		left[s->p[seat].hand[i]]--;
	for (r = 1; r <= SPITE_RANKS; r++)
		for (k = 0; k < left[r]; k++)
			pool[n++] = (uint8_t)r;
	spite_shuffle(rng, pool, n);
	n = 0;
	for (who = 0; who < 2; who++)
		for (i = 0; i + 1 < s->p[who].npay; i++)
			s->p[who].pay[i] = pool[n++];
	nhand = op->nhand;
	op->nhand = 0;
	for (i = 0; i < nhand; i++)
		spite_hand_add(op, pool[n++]);
	for (i = 0; i < s->nstock; i++)
		s->stock[i] = pool[n++];
	rng_init_from(&s->rng, rng);
}

/* p, s1-s4 and c1-c3 (any number: `s5` is a mistyped stack), a rank,
 * end. */
static int
spite_move_word(const void *st, const char *w)
{
	size_t n = strlen(w);

	(void)st;
	if (strcmp(w, "p") == 0 || strcmp(w, "end") == 0 ||
	    spite_parse_rank(w) != 0)
		return 1;
	if (n > 0 && n <= 3 && strspn(w, "0123456789") == n)
		return 1;
	return n >= 2 && (w[0] == 's' || w[0] == 'c') &&
	    strspn(w + 1, "0123456789") == n - 1;
}

/* A turn is any number of plays and ends with the discard to a side
 * stack (or `end` with an empty hand): "9 s4", "end". */
static int
spite_ends_turn(int seat, const char *notation)
{
	const char *sp = strrchr(notation, ' ');

	(void)seat;
	if (sp == NULL)
		return util_strcaseeq(notation, "end");
	return sp[1] == 's' || sp[1] == 'S';
}

/* Only a side-stack card to the centre shows nothing new: side stacks
 * are face up.  A hand card comes into view, the payoff pile turns up its
 * next card, and the end of a turn has the next player draw. */
static int
spite_reveals(const void *st, int seat, const struct game_move *m)
{
	(void)st;
	(void)seat;
	return m->d[0] != SRC_SIDE;
}

const struct game_ops spite_ops = {
	.name = "spite",
	.title = "Spite & Malice",
	.state_size = sizeof(struct spite),
	.create = spite_create,
	.seats = spite_seats,
	.seat_name = spite_seat_name,
	.to_move = spite_to_move,
	.legal = spite_legal,
	.parse_move = spite_parse_move,
	.format_move = spite_format_move,
	.apply = spite_apply,
	.result = spite_result,
	.render = spite_render,
	.render_style = spite_render_style,
	.draw = spite_picture,
	.serialise = spite_serialise,
	.parse_state = spite_parse_state,
	.export_json = spite_export_json,
	.determinize = spite_determinize,
	.move_word = spite_move_word,
	.ends_turn = spite_ends_turn,
	.reveals = spite_reveals,
	.chance = 1,
	.over = spite_over,
	.count_legal = spite_count_legal,
};

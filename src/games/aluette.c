/*
 * aluette: the four-player partnership trick-taking game as rules.md
 * settles it.
 *
 * Cards are numbered suit * 12 + rank index, suits coins, cups, swords,
 * clubs and rank indices 0..11 for 1..9, jack, cavalier, king.  A card is
 * in a seat's hand, the undealt stock, a seat's changer discards, the
 * trick on the table or, when it is in none of these, the tricks already
 * played this hand: every card is in exactly one place, so the 48 are
 * conserved by construction and parse_state checks it.  The hands are
 * bit sets kept as cards move (card_loc() and set_locs() turn the places
 * into one location per card and back, for the rarer uses).
 *
 * Seats are the players in the order given at `new`; table[] holds them in
 * table order, each player's left being the next.  Table positions 0..3 are
 * named South, West, North, East, so partners (positions 0 and 2, 1 and 3)
 * sit opposite and the partnerships are North-South and East-West.
 *
 * Signals are events, not plies: they are recorded in the state with the
 * number of tricks played when they were made, shown by render() to whom
 * the `signals` option allows, never listed by legal() and never pass the
 * turn.  A seat may signal at any time while the game goes on, out of turn
 * included (during the changer round too); the signals of a hand are
 * cleared when the next hand is dealt.  At most ALUETTE_MAXSIG per seat
 * per hand, because the state has a fixed size.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "aluette.h"
#include "../i18n.h"

#if defined(__GNUC__)
#define NOINLINE	__attribute__((noinline))	/* out of the hot path */
#else
#define NOINLINE
#endif

static const char *const seat_names[] = { N_("South"), N_("West"), N_("North"),
	N_("East") };
static const char *const team_names[] = { N_("North-South"), N_("East-West") };
static const char *const suit_text[] = { "co", "cu", "sw", "cl" };
static const char rank_text[] = "123456789JCK";
static const char *const phase_names[] = { "ask", "discard", "play", "over" };
static const char *const signal_opt[] = { "partner", "table", "off" };

/* The named cards, high to low, with the name players may write. */
static const struct {
	uint8_t	card;
	const char *name;	/* notation */
	const char *squashed;	/* the notation as squash() leaves it */
	const char *title;	/* as rendered */
} named[] = {
	{ 0 * 12 + 2, "monsieur", "monsieur", "Monsieur" },
	{ 1 * 12 + 2, "madame", "madame", "Madame" },
	{ 0 * 12 + 1, "borgne", "borgne", "Borgne" },
	{ 1 * 12 + 1, "vache", "vache", "Vache" },
	{ 1 * 12 + 8, "grand-neuf", "grandneuf", "Grand-neuf" },
	{ 0 * 12 + 8, "petit-neuf", "petitneuf", "Petit-neuf" },
	{ 3 * 12 + 1, "deux-de-chene", "deuxdechene", "Deux-de-chene" },
	{ 2 * 12 + 1, "deux-decrit", "deuxdecrit", "Deux-decrit" },
};

/* Signal codes 0..7 are the named cards in the order above. */
static const char *const signal_names[] = { "monsieur", "madame", "borgne",
	"vache", "grand-neuf", "petit-neuf", "deux-de-chene", "deux-decrit",
	"useless", "mordienne", "aces-1", "aces-2", "aces-3", "aces-4" };
#define NSIGNALS ((int)nitems(signal_names))

/*
 * The ranking class of a card, 1 (Monsieur) to 19 (3sw, 3cl), as numbered
 * in rules.md; equal classes tie.
 */
static int
card_class(int c)
{
	int s = c / 12, r = c % 12;

	switch (r) {
	case 2:		/* threes */
		return s == 0 ? 1 : s == 1 ? 2 : 19;
	case 1:		/* twos */
		return s == 0 ? 3 : s == 1 ? 4 : s == 3 ? 7 : 8;
	case 8:		/* nines */
		return s == 1 ? 5 : s == 0 ? 6 : 13;
	case 0:
		return 9;	/* aces */
	case 11:
		return 10;	/* kings */
	case 10:
		return 11;	/* cavaliers */
	case 9:
		return 12;	/* jacks */
	default:	/* 4..8: eights 14 down to fours 18 */
		return 14 + (7 - r);
	}
}

static const char *
card_title(int c)
{
	size_t i;

	for (i = 0; i < nitems(named); i++)
		if (named[i].card == c)
			return named[i].title;
	return NULL;
}

static void
card_text(int c, char out[4])
{
	out[0] = rank_text[c % 12];
	memcpy(out + 1, suit_text[c / 12], 2);
	out[3] = '\0';
}

/*
 * A name as players write it, squashed: lower case, with blanks, hyphens
 * and apostrophes (' and U+2019) dropped and é, ê (either case) read as e,
 * so that "Deux d'écrit" and "deux-decrit" are the same name.  Any other
 * character makes it no name: out is then empty.
 */
static void
squash(const char *in, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t n = 0;

	while (*p && n + 1 < len) {
		if (p[0] == 0xc3 && (p[1] == 0xa9 || p[1] == 0xaa ||
		    p[1] == 0x89 || p[1] == 0x8a)) {
			out[n++] = 'e';
			p += 2;
			continue;
		}
		if (p[0] == 0xe2 && p[1] == 0x80 && p[2] == 0x99) {
			p += 3;
			continue;
		}
		if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
			out[n++] = (char)*p;
		else if (*p >= 'A' && *p <= 'Z')
			out[n++] = (char)(*p - 'A' + 'a');
		else if (*p != ' ' && *p != '\t' && *p != '-' && *p != '\'') {
			n = 0;
			break;
		}
		p++;
	}
	out[n] = '\0';
}

/* A card from its notation (rank and suit, exactly three characters,
 * either case) or its name; -1 if it is neither. */
static int
card_parse(const char *text)
{
	char sq[48], suit[3];
	const char *r;
	size_t i;
	int s, rank;

	squash(text, sq, sizeof(sq));
	for (i = 0; i < nitems(named); i++)
		if (sq[0] != '\0' && strcmp(sq, named[i].squashed) == 0)
			return named[i].card;
	if (strlen(text) != 3)
		return -1;
	rank = toupper((unsigned char)text[0]);
	if (rank == 'A')	/* the ace, as players also write it */
		r = rank_text;
	else if ((r = strchr(rank_text, rank)) == NULL || rank == '\0')
		return -1;
	suit[0] = (char)tolower((unsigned char)text[1]);
	suit[1] = (char)tolower((unsigned char)text[2]);
	suit[2] = '\0';
	for (s = 0; s < 4; s++)
		if (strcmp(suit, suit_text[s]) == 0)
			return s * 12 + (int)(r - rank_text);
	return -1;
}

static int
pos_of(const struct aluette *a, int seat)
{
	return seat >= 0 && seat < NSEATS ? a->pos[seat] : 0;
}

/* pos[] from table[]: a seat's first place there, 0 for one not named;
 * left[] from both. */
static void
set_pos(struct aluette *a)
{
	int p;

	memset(a->pos, 0, sizeof(a->pos));
	for (p = NSEATS - 1; p >= 0; p--)
		if (a->table[p] < NSEATS)
			a->pos[a->table[p]] = (uint8_t)p;
	for (p = 0; p < NSEATS; p++)
		a->left[p] = a->table[(a->pos[p] + 1) % NSEATS];
}

static int
left_of(const struct aluette *a, int seat)
{
	return a->table[(pos_of(a, seat) + 1) % NSEATS];
}

static int
partner_of(const struct aluette *a, int seat)
{
	return a->table[(pos_of(a, seat) + 2) % NSEATS];
}

static int
team_of(const struct aluette *a, int seat)
{
	return pos_of(a, seat) % 2;
}

static int
eldest(const struct aluette *a)
{
	return left_of(a, a->dealer);
}

/* The seat whose card is the i-th of the current trick. */
static int
trick_seat(const struct aluette *a, int i)
{
	return a->table[(pos_of(a, a->leader) + i) % NSEATS];
}

static int
last_seat(const struct aluette *a, int i)
{
	return a->table[(pos_of(a, a->last_leader) + i) % NSEATS];
}

static int
asked_seat(const struct aluette *a)
{
	return a->table[(pos_of(a, a->dealer) + 1 + a->asked) % NSEATS];
}

/* The seat's cards, strongest first (stronger first; equal ranks by
 * suit, so a hand always reads the same), into out; returns the count. */
static int
hand_cards(const struct aluette *a, int seat, uint8_t *out)
{
	uint64_t m;
	int n = 0;

	for (m = a->hand[seat]; m != 0; m &= m - 1)
		out[n++] = card_at[__builtin_ctzll(m)];
	return n;
}

static int
hand_count(const struct aluette *a, int seat)
{
	return a->nhand[seat];
}

/* Where each card is, one LOC_ value per card. */
static void
card_loc(const struct aluette *a, uint8_t loc[NCARDS])
{
	int c, s, i;

	for (c = 0; c < NCARDS; c++) {
		loc[c] = LOC_PLAYED;
		for (s = 0; s < NSEATS; s++)
			if (a->hand[s] & CARD_BIT(c))
				loc[c] = (uint8_t)(LOC_HAND + s);
			else if (a->disc[s] >> c & 1)
				loc[c] = (uint8_t)(LOC_DISCARD + s);
	}
	for (i = 0; i < a->nstock; i++)
		loc[a->stock[i]] = LOC_STOCK;
	for (i = 0; i < a->ntrick; i++)
		loc[a->trick[i]] = LOC_TRICK;
}

/* The hands and discards from one location per card (the stock and the
 * trick are in their own lists). */
static void
set_locs(struct aluette *a, const uint8_t loc[NCARDS])
{
	int c, s;

	memset(a->hand, 0, sizeof(a->hand));
	memset(a->nhand, 0, sizeof(a->nhand));
	memset(a->disc, 0, sizeof(a->disc));
	for (c = 0; c < NCARDS; c++) {
		s = loc[c] - LOC_HAND;
		if (loc[c] < LOC_STOCK) {
			a->hand[s] |= CARD_BIT(c);
			a->nhand[s]++;
		} else if (loc[c] >= LOC_DISCARD && loc[c] < LOC_TRICK)
			a->disc[loc[c] - LOC_DISCARD] |= (uint64_t)1 << c;
	}
}

/* The seat to play, once the phase is PH_PLAY. */
static void
set_turn(struct aluette *a)
{
	a->turn = a->table[(pos_of(a, a->leader) + a->ntrick) % NSEATS];
}

static int
popcount9(unsigned m)
{
	int n = 0;

	for (m &= ALLTRICKS; m; m &= m - 1)
		n++;
	return n;
}

/* The trick (0-based) in which a seat won its n-th trick. */
static int
reached_at(unsigned mask, int n)
{
	int t, k = 0;

	for (t = 0; t < NTRICKS; t++)
		if ((mask >> t) & 1 && ++k == n)
			return t;
	return NTRICKS;
}

/* The player who won most tricks, the earliest to reach that number on a
 * tie; NOBODY when no trick was won. */
static int
hand_winner(const uint16_t won[NSEATS])
{
	int s, best = NOBODY, bn = 0, n;

	for (s = 0; s < NSEATS; s++) {
		n = popcount9(won[s]);
		if (n == 0)
			continue;
		if (best == NOBODY || n > bn || (n == bn &&
		    reached_at(won[s], n) < reached_at(won[best], n))) {
			best = s;
			bn = n;
		}
	}
	return best;
}

/* Tricks k..9 for some k >= 2, and no other. */
static int
is_mordienne(unsigned mask)
{
	mask &= ALLTRICKS;
	return mask != 0 && !(mask & 1) && mask + (mask & -mask) ==
	    ALLTRICKS + 1;
}

static void
deal_hand(struct aluette *a)
{
	uint8_t deck[NCARDS];
	int i, round, p, k, first = pos_of(a, a->dealer) + 1;

	for (i = 0; i < NCARDS; i++)
		deck[i] = (uint8_t)i;
	rng_shuffle(&a->rng, deck, NCARDS, 1);
	memset(a->hand, 0, sizeof(a->hand));
	memset(a->disc, 0, sizeof(a->disc));
	i = 0;
	for (round = 0; round < HANDSIZE / 3; round++)
		for (p = 0; p < NSEATS; p++)
			for (k = 0; k < 3; k++)
				a->hand[a->table[(first + p) % NSEATS]] |=
				    CARD_BIT(deck[i++]);
	for (p = 0; p < NSEATS; p++)
		a->nhand[p] = HANDSIZE;
	a->nstock = NSTOCK;
	for (k = 0; k < NSTOCK; k++)
		a->stock[k] = deck[i++];
	a->phase = a->changer ? PH_ASK : PH_PLAY;
	a->asked = 0;
	a->leader = (uint8_t)eldest(a);
	a->ntrick = 0;
	a->ndone = 0;
	set_turn(a);
	memset(a->won, 0, sizeof(a->won));
	a->nsig = 0;
}

/* Deal face up round the players in their given order until each holds one
 * of the four top cards: fills who got which and returns how many cards it
 * took, or -1 if the cards run out first. */
static int
faceup_deal(const uint8_t *cards, int ncards, int top_holder[4])
{
	int n = 0, seat = 0, have[NSEATS] = { 0 }, out = 0, t;

	for (t = 0; t < 4; t++)
		top_holder[t] = -1;
	while (out < 4 && n < ncards) {
		while (have[seat])
			seat = (seat + 1) % NSEATS;
		t = card_class(cards[n]) - 1;
		if (t < 4) {
			top_holder[t] = seat;
			have[seat] = 1;
			out++;
		}
		n++;
		seat = (seat + 1) % NSEATS;
	}
	return out == 4 ? n : -1;
}

/* Table order and first dealer from who holds the top cards: Monsieur and
 * Madame partners, Borgne and Vache partners, Madame deals. */
static void
faceup_table(const int top[4], uint8_t table[NSEATS], uint8_t *dealer)
{
	int t, partner0 = -1, other = -1, rest = -1, s;

	for (t = 0; t < 4; t++)
		if (top[t] == 0)
			partner0 = top[t ^ 1];
	for (s = 1; s < NSEATS; s++) {
		if (s == partner0)
			continue;
		if (other == -1)
			other = s;
		else
			rest = s;
	}
	table[0] = 0;
	table[1] = (uint8_t)other;
	table[2] = (uint8_t)partner0;
	table[3] = (uint8_t)rest;
	*dealer = (uint8_t)top[1];
}

static int
aluette_seats(const struct game_opts *o)
{
	(void)o;
	return NSEATS;
}

static const char *
aluette_seat_name(const void *st, int seat)
{
	const struct aluette *a = st;

	if (seat < 0 || seat >= NSEATS)
		return "?";
	return seat_names[pos_of(a, seat)];
}

static int
signal_mode(const char *s)
{
	int i;

	for (i = 0; i < (int)nitems(signal_opt); i++)
		if (util_strcaseeq(s, signal_opt[i]))
			return i;
	return -1;
}

static int
aluette_create(void *st, const struct game_opts *o,
    const unsigned char seed[RNG_SEED_LEN], int nseats, char *err,
    size_t errlen)
{
	struct aluette *a = st;
	const char *teams = game_opt_str(o, "teams");
	int sig = signal_mode(game_opt_str(o, "signals")), i, top[4];
	uint8_t deck[NCARDS];

	if (nseats != NSEATS) {
		util_err(err, errlen, _("Aluette is for 4 players, not %d"),
		    nseats);
		return -1;
	}
	if (sig == -1 || (!util_strcaseeq(teams, "faceup") &&
	    !util_strcaseeq(teams, "fixed"))) {
		util_err(err, errlen, _("teams must be faceup or fixed and "
		    "signals partner, table or off"));
		return -1;
	}
	memset(a, 0, sizeof(*a));
	rng_init(&a->rng, seed);
	a->teams_fixed = util_strcaseeq(teams, "fixed");
	a->changer = game_opt_int(o, "changer") != 0;
	a->mordienne = game_opt_int(o, "mordienne") != 0;
	a->signals = (uint8_t)sig;
	a->last_winner = NOBODY;
	for (i = 0; i < NHANDS; i++)
		a->hist_winner[i] = NOBODY;
	if (a->teams_fixed) {
		for (i = 0; i < NSEATS; i++)
			a->table[i] = (uint8_t)i;
		a->first_dealer = (uint8_t)rng_below(&a->rng, NSEATS);
	} else {
		for (i = 0; i < NCARDS; i++)
			deck[i] = (uint8_t)i;
		rng_shuffle(&a->rng, deck, NCARDS, 1);
		a->nfaceup = (uint8_t)faceup_deal(deck, NCARDS, top);
		memcpy(a->faceup, deck, a->nfaceup);
		faceup_table(top, a->table, &a->first_dealer);
	}
	set_pos(a);
	a->dealer = a->first_dealer;
	a->handno = 1;
	deal_hand(a);
	return 0;
}

static uint32_t
aluette_to_move(const void *st)
{
	const struct aluette *a = st;
	uint32_t m = 0;

	if (a->phase == PH_PLAY)
		return 1u << a->turn;
	switch (a->phase) {
	case PH_ASK:
		return 1u << asked_seat(a);
	case PH_DISCARD:
		if (hand_count(a, eldest(a)) > HANDSIZE)
			m |= 1u << eldest(a);
		if (hand_count(a, a->dealer) > HANDSIZE)
			m |= 1u << a->dealer;
		return m;
	default:
		return 0;
	}
}

static int
aluette_over(const void *st)
{
	return ((const struct aluette *)st)->phase == PH_OVER;
}

static void
set_move(struct game_move *m, int kind, int arg)
{
	memset(m, 0, sizeof(*m));
	m->len = 2;
	m->d[0] = (uint8_t)kind;
	m->d[1] = (uint8_t)arg;
}

static int
aluette_legal(const void *st, int seat, struct game_move *out, int max)
{
	const struct aluette *a = st;
	uint64_t h;
	int n = 0, kind;

	if (seat < 0 || seat >= NSEATS ||
	    !(aluette_to_move(st) & (1u << seat)) || max < 2)
		return 0;
	if (a->phase == PH_ASK) {
		set_move(&out[0], MV_CHANGE, 0);
		set_move(&out[1], MV_NOCHANGE, 0);
		return 2;
	}
	kind = a->phase == PH_PLAY ? MV_PLAY : MV_DISCARD;
	/* The hand's cards strongest first. */
	for (h = a->hand[seat]; h != 0 && n < max; h &= h - 1)
		set_move(&out[n++], kind, card_at[__builtin_ctzll(h)]);
	return n;
}

/* What aluette_legal() returns with room for every move, counted. */
static int
aluette_count_legal(const void *st, int seat)
{
	const struct aluette *a = st;

	if (a->phase == PH_PLAY)
		return seat == a->turn ? a->nhand[seat] : 0;
	if (seat < 0 || seat >= NSEATS ||
	    !(aluette_to_move(st) & (1u << seat)))
		return 0;
	return a->phase == PH_ASK ? 2 : a->nhand[seat];
}

static void
aluette_format_move(const void *st, int seat, const struct game_move *m,
    char *out, size_t len)
{
	char c[4];

	(void)st;
	(void)seat;
	switch (m->d[0]) {
	case MV_PLAY:
		card_text(m->d[1], c);
		snprintf(out, len, "%s", c);
		break;
	case MV_DISCARD:
		card_text(m->d[1], c);
		snprintf(out, len, "discard %s", c);
		break;
	case MV_CHANGE:
		snprintf(out, len, "change");
		break;
	case MV_NOCHANGE:
		snprintf(out, len, "nochange");
		break;
	case MV_SIGNAL:
		snprintf(out, len, "signal %s", m->d[1] < NSIGNALS ?
		    signal_names[m->d[1]] : "?");
		break;
	default:
		snprintf(out, len, "?");
	}
}

static int
signals_made(const struct aluette *a, int seat)
{
	int i, n = 0;

	for (i = 0; i < a->nsig; i++)
		n += a->sig[i].seat == seat;
	return n;
}

static int
parse_signal(const struct aluette *a, int seat, const char *name,
    struct game_move *m, char *err, size_t errlen)
{
	char sq[48], want[32];
	int i;

	if (a->signals == SIG_OFF) {
		util_err(err, errlen, _("signals are off in this game "
		    "(signals=off)"));
		return -1;
	}
	squash(name, sq, sizeof(sq));
	for (i = 0; i < NSIGNALS; i++) {
		squash(signal_names[i], want, sizeof(want));
		if (strcmp(sq, want) == 0)
			break;
	}
	if (i == NSIGNALS) {
		util_err(err, errlen, _("`%s` is not a signal: give one of "
		    "monsieur, madame, borgne, vache, grand-neuf, petit-neuf, "
		    "deux-de-chene, deux-decrit, aces-1 to aces-4, useless, "
		    "mordienne"), name);
		return -1;
	}
	if (signals_made(a, seat) >= ALUETTE_MAXSIG) {
		util_err(err, errlen, _("you have made %d signals this hand, "
		    "the most there may be"), ALUETTE_MAXSIG);
		return -1;
	}
	set_move(m, MV_SIGNAL, i);
	return 0;
}

static void
hand_list(const struct aluette *a, int seat, char *out, size_t len)
{
	uint8_t cards[NCARDS];
	char c[4];
	size_t used = 0;
	int n, i;

	out[0] = '\0';
	n = hand_cards(a, seat, cards);
	for (i = 0; i < n && used < len; i++) {
		card_text(cards[i], c);
		used += (size_t)snprintf(out + used, len - used, "%s%s",
		    i ? " " : "", c);
	}
}

static int
aluette_parse_move(const void *st, int seat, const char *text,
    struct game_move *m, char *err, size_t errlen)
{
	const struct aluette *a = st;
	char buf[GAME_MOVE_TEXT * 2], whole[GAME_MOVE_TEXT * 2], *word, *rest;
	char hand[64];
	int card, kind, answer;

	if (a->phase == PH_OVER) {
		util_err(err, errlen, _("the game is over"));
		return -1;
	}
	if (seat < 0 || seat >= NSEATS) {
		util_err(err, errlen, _("no such seat"));
		return -1;
	}
	util_strlcpy(buf, text, sizeof(buf));
	util_strlcpy(whole, text, sizeof(whole));
	word = util_trim(buf);
	rest = word + strcspn(word, " \t");
	if (*rest != '\0')
		*rest++ = '\0';
	rest = util_trim(rest);

	if (util_strcaseeq(word, "signal"))
		return parse_signal(a, seat, rest, m, err, errlen);
	answer = 0;
	if (util_strcaseeq(word, "change") && *rest == '\0')
		answer = MV_CHANGE;
	else if (((util_strcaseeq(word, "nochange") ||
	    util_strcaseeq(word, "no-change")) && *rest == '\0') ||
	    (util_strcaseeq(word, "no") && util_strcaseeq(rest, "change")))
		answer = MV_NOCHANGE;
	if (answer) {
		if (a->phase != PH_ASK) {
			util_err(err, errlen, _("nobody is asked to change now"));
			return -1;
		}
		if (seat != asked_seat(a)) {
			util_err(err, errlen, _("it is %s's turn to answer "
			    "change or nochange, not %s's"),
			    _(aluette_seat_name(a, asked_seat(a))),
			    _(aluette_seat_name(a, seat)));
			return -1;
		}
		set_move(m, answer, 0);
		return 0;
	}
	if (a->phase == PH_ASK) {
		util_err(err, errlen, _("first the changer round: %s answers "
		    "`change` or `nochange`"), _(aluette_seat_name(a,
		    asked_seat(a))));
		return -1;
	}
	kind = a->phase == PH_PLAY ? MV_PLAY : MV_DISCARD;
	if (util_strcaseeq(word, "play") || util_strcaseeq(word, "discard")) {
		if (util_strcaseeq(word, "play") != (kind == MV_PLAY)) {
			util_err(err, errlen, "%s", kind == MV_PLAY ?
			    _("the changer is over: play a card") :
			    _("first the discards: `discard CARD`"));
			return -1;
		}
		if (*rest == '\0') {
			util_err(err, errlen, _("which card? e.g. `%s 3co`"),
			    word);
			return -1;
		}
	} else
		rest = util_trim(whole);	/* a bare card, or a name */
	if ((card = card_parse(rest)) == -1) {
		util_err(err, errlen, _("`%s` is not a card: write rank and suit "
		    "(3co, Kcl, Jsw, 1cu; suits co cu sw cl) or a name "
		    "(monsieur, madame, borgne, vache, grand-neuf, petit-neuf, "
		    "deux-de-chene, deux-decrit)"), rest);
		return -1;
	}
	if (!(aluette_to_move(a) & (1u << seat))) {
		if (kind == MV_PLAY)
			util_err(err, errlen, _("it is %s's turn, not %s's"),
			    _(aluette_seat_name(a, trick_seat(a, a->ntrick))),
			    _(aluette_seat_name(a, seat)));
		else
			util_err(err, errlen, _("you have nothing to discard"));
		return -1;
	}
	if (!(a->hand[seat] & CARD_BIT(card))) {
		char c[4];

		card_text(card, c);
		hand_list(a, seat, hand, sizeof(hand));
		util_err(err, errlen, _("you do not hold %s (your hand: %s)"), c,
		    hand);
		return -1;
	}
	set_move(m, kind, card);
	return 0;
}

static void NOINLINE
score_hand(struct aluette *a)
{
	int w = hand_winner(a->won), pts = 0, h = a->handno - 1;

	if (w != NOBODY) {
		pts = a->mordienne && is_mordienne(a->won[w]) ? 2 : 1;
		a->points[team_of(a, w)] += (uint8_t)pts;
		a->hist_tricks[h] = (uint8_t)popcount9(a->won[w]);
	}
	a->hist_winner[h] = (uint8_t)w;
	a->hist_points[h] = (uint8_t)pts;
	if (a->handno == NHANDS) {
		a->phase = PH_OVER;
		return;
	}
	a->handno++;
	a->dealer = (uint8_t)left_of(a, a->dealer);
	deal_hand(a);
}

/*
 * The trick's fourth card, card, falls: the first three are in trick[].
 * The fourth comes from a register, not trick[3], and the cards are read
 * one by one: a wide read of bytes just written one by one would wait for
 * the writes to reach the cache (it is the commonest move of a search).
 */
static void
finish_trick(struct aluette *a, int card)
{
	uint8_t c0 = a->trick[0], c1 = a->trick[1], c2 = a->trick[2];
	unsigned k0 = class_of[c0], k1 = class_of[c1], k2 = class_of[c2];
	unsigned k3 = class_of[card], m01, m23, m;
	int best, tie, w;

	/* The strongest card (the least class, each class with the card's
	 * place in its two low bits) and whether another is as strong,
	 * without a branch that guesses; the cards go to the tricks played
	 * by leaving the table. */
	m01 = k0 << 2 < (k1 << 2 | 1) ? k0 << 2 : k1 << 2 | 1;
	m23 = (k2 << 2 | 2) < (k3 << 2 | 3) ? k2 << 2 | 2 : k3 << 2 | 3;
	m = m01 < m23 ? m01 : m23;
	best = (int)(m & 3);
	m >>= 2;
	tie = (k0 == m) + (k1 == m) + (k2 == m) + (k3 == m) > 1;
	a->last[0] = c0;
	a->last[1] = c1;
	a->last[2] = c2;
	a->last[3] = (uint8_t)card;
	a->last_leader = a->leader;
	a->last_hand = a->handno;
	if (tie)
		a->last_winner = NOBODY;	/* spoiled: the leader again */
	else {
		w = trick_seat(a, best);
		a->last_winner = (uint8_t)w;
		a->won[w] |= (uint16_t)(1u << a->ndone);
		a->leader = (uint8_t)w;
	}
	a->ntrick = 0;
	a->turn = a->leader;
	if (++a->ndone == NTRICKS)
		score_hand(a);
}

/*
 * What the hand's last card, card, scores, without playing it (the
 * robots' simulations stop at the end of a hand, and playing the card
 * would deal the next): the points, 0 when nobody won a trick, and in
 * *seats a bit for each seat of the side that scores them.
 */
int
aluette_last_card_points(const struct aluette *a, int card, uint32_t *seats)
{
	uint16_t won[NSEATS];
	int cls[NSEATS], i, best = 0, tie = 0, w, pts;

	for (i = 0; i < NSEATS; i++)
		cls[i] = class_of[i < NSEATS - 1 ? a->trick[i] : card];
	for (i = 1; i < NSEATS; i++)
		if (cls[i] < cls[best]) {
			best = i;
			tie = 0;
		} else if (cls[i] == cls[best])
			tie = 1;
	memcpy(won, a->won, sizeof(won));
	if (!tie)
		won[trick_seat(a, best)] |= (uint16_t)(1u << a->ndone);
	*seats = 0;
	if ((w = hand_winner(won)) == NOBODY)
		return 0;
	pts = a->mordienne && is_mordienne(won[w]) ? 2 : 1;
	*seats = 1u << w | 1u << partner_of(a, w);
	return pts;
}

/* The moves other than a card played to a trick. */
static void NOINLINE
apply_other(struct aluette *a, int seat, const struct game_move *m)
{
	int k, s;

	switch (m->d[0]) {
	case MV_SIGNAL:
		if (a->nsig < nitems(a->sig)) {
			a->sig[a->nsig].seat = (uint8_t)seat;
			a->sig[a->nsig].code = m->d[1];
			a->sig[a->nsig].tricks = a->ndone;
			a->nsig++;
		}
		break;
	case MV_NOCHANGE:
		a->phase = PH_PLAY;
		set_turn(a);
		break;
	case MV_CHANGE:
		if (++a->asked < NSEATS)
			break;
		for (k = 0; k < NSTOCK; k++) {
			s = k < CHANGE_TAKE ? eldest(a) : a->dealer;
			a->hand[s] |= CARD_BIT(a->stock[k]);
			a->nhand[s]++;
		}
		a->nstock = 0;
		a->phase = PH_DISCARD;
		break;
	case MV_DISCARD:
		a->hand[seat] &= ~CARD_BIT(m->d[1]);
		a->nhand[seat]--;
		a->disc[seat] |= (uint64_t)1 << m->d[1];
		if (hand_count(a, eldest(a)) == HANDSIZE &&
		    hand_count(a, a->dealer) == HANDSIZE) {
			a->phase = PH_PLAY;
			set_turn(a);
		}
		break;
	}
}

static void
aluette_apply(void *st, int seat, const struct game_move *m)
{
	struct aluette *a = st;
	int card = m->d[1];

	if (m->d[0] != MV_PLAY) {
		apply_other(a, seat, m);
		return;
	}
	a->hand[seat] &= ~CARD_BIT(card);
	a->nhand[seat]--;
	if (a->ntrick == NSEATS - 1)
		finish_trick(a, card);
	else {
		a->trick[a->ntrick++] = (uint8_t)card;
		a->turn = a->left[seat];
	}
}

/* A card played changes only the fields before table[], unless it is the
 * hand's last (the score and the next deal); the other moves anything. */
static size_t
aluette_apply_span(const void *st)
{
	const struct aluette *a = st;

	if (a->phase == PH_PLAY && (a->ndone < NTRICKS - 1 ||
	    a->ntrick < NSEATS - 1))
		return offsetof(struct aluette, table);
	return sizeof(*a);
}

/*
 * The leaves two plies below st (game_ops count_after) in the play of a
 * trick: the seat to play has n cards, and after each of them the next
 * seat plays from its own hand: the one on the left mid-trick, and once
 * the trick is complete its winner or its leader, who like every seat
 * then holds n - 1.  Not known here where that trick ends the hand (the
 * score, the next deal or the end of the game), nor outside trick play
 * (the changer round, the discards).
 */
static uint64_t
aluette_count_after(const void *st)
{
	const struct aluette *a = st;
	unsigned n, t, left;

	if (a->phase != PH_PLAY)
		return GAME_PERFT_UNKNOWN;
	t = a->turn;
	n = a->nhand[t];
	left = a->left[t];
	if (a->ntrick < NSEATS - 1)
		return (uint64_t)n * a->nhand[left];
	if (a->ndone + 1 >= NTRICKS || n == 0 || a->nhand[left] != n - 1 ||
	    a->nhand[a->left[left]] != n - 1 ||
	    a->nhand[a->left[a->left[left]]] != n - 1)
		return GAME_PERFT_UNKNOWN;
	return (uint64_t)n * (n - 1);
}

static void
aluette_result(const void *st, struct game_result *r)
{
	const struct aluette *a = st;
	int s, ns = a->points[0], ew = a->points[1], win;

	/* Asked after every ply of a search: the text, a long field, only
	 * once the game is over. */
	if (a->phase != PH_OVER) {
		memset(r, 0, offsetof(struct game_result, text));
		r->text[0] = '\0';
		for (s = 0; s < NSEATS; s++)
			r->score[s] = a->points[team_of(a, s)];
		return;
	}
	memset(r, 0, sizeof(*r));
	for (s = 0; s < NSEATS; s++)
		r->score[s] = a->points[team_of(a, s)];
	r->over = 1;
	if (ns == ew) {
		r->draw = 1;
		snprintf(r->text, sizeof(r->text), _("draw, %d-%d"), ns, ew);
		return;
	}
	win = ns > ew ? 0 : 1;
	r->winners = (1u << a->table[win]) | (1u << a->table[win + 2]);
	snprintf(r->text, sizeof(r->text), _("%s win %d-%d"), _(team_names[win]),
	    win ? ew : ns, win ? ns : ew);
}

/* Rendering. */

static const char *
view_name(const struct aluette *a, const struct game_view *v, int seat)
{
	return v->names[seat] ? v->names[seat] : _(seat_names[pos_of(a, seat)]);
}

static void
who(struct buf *b, const struct aluette *a, const struct game_view *v,
    int seat)
{
	if (v->names[seat])
		buf_printf(b, "%s (%s)", v->names[seat],
		    _(seat_names[pos_of(a, seat)]));
	else
		buf_adds(b, _(seat_names[pos_of(a, seat)]));
}

static void
card_named(struct buf *b, int c)
{
	char t[4];
	const char *title = card_title(c);

	card_text(c, t);
	if (title)
		buf_printf(b, "%s %s", t, title);
	else
		buf_adds(b, t);
}

/*
 * The face-up deal, each player's cards in the order received (one card
 * each in turn from the first player named, a top card ends a player's
 * share: the order of the whole deal follows from that), then who holds
 * which top card.  Only shown before the first card of the game is
 * played: it decided the partnerships once, and every later mail names
 * the partner instead.
 */
static void
render_faceup(const struct aluette *a, const struct game_view *v,
    struct buf *b)
{
	int top[4], seat = 0, have[NSEATS] = { 0 }, i, t, s, n;
	static const char *const topname[] = { "Monsieur", "Madame",
		"Borgne", "Vache" };
	uint8_t got[NSEATS][NCARDS];
	int ngot[NSEATS] = { 0 };
	char c[4];

	if (a->teams_fixed) {
		buf_printf(b, _("Partnerships as named (teams=fixed); first "
		    "dealer drawn by lot: %s.\n"), view_name(a, v,
		    a->first_dealer));
		return;
	}
	for (i = 0; i < a->nfaceup; i++) {
		while (have[seat])
			seat = (seat + 1) % NSEATS;
		got[seat][ngot[seat]++] = a->faceup[i];
		if (card_class(a->faceup[i]) <= 4)
			have[seat] = 1;
		seat = (seat + 1) % NSEATS;
	}
	buf_adds(b, _("Face-up deal:"));
	for (s = 0; s < NSEATS; s++) {
		buf_printf(b, "%s %s", s ? ";" : "", view_name(a, v, s));
		for (n = 0; n < ngot[s]; n++) {
			card_text(got[s][n], c);
			buf_printf(b, " %s", c);
		}
	}
	buf_adds(b, ".\n");
	faceup_deal(a->faceup, a->nfaceup, top);
	buf_adds(b, _("Face-up deal result:"));
	for (t = 0; t < 4; t++)
		buf_printf(b, "%s %s %s", t ? "," : "", topname[t],
		    view_name(a, v, top[t]));
	buf_adds(b, "; ");
	buf_printf(b, _("%s deals first.\n"), view_name(a, v, top[1]));
}

/* The ranking in one line, for the reader's hand. */
static const char rank_legend[] = N_("Ranks, high to low: 3co 3cu 2co 2cu "
    "9cu 9co 2cl 2sw, 1, K, C, J, 9sw=9cl, 8, 7, 6, 5, 4, 3sw=3cl.\n");

static int
may_see_signal(const struct aluette *a, int viewer, int from)
{
	if (a->signals == SIG_TABLE)
		return 1;
	if (a->signals == SIG_OFF || viewer == GAME_PUBLIC)
		return 0;
	return viewer == from || viewer == partner_of(a, from);
}

/* Lines longer than RENDER_WIDTH are broken at spaces, continuing
 * indented by two, so a board reads well in any mail client. */
#define RENDER_WIDTH	72

/* Characters, not bytes: a translated board is UTF-8. */
static size_t
columns(const char *s, const char *end)
{
	size_t n = 0;

	for (; s < end; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void
wrap_lines(const char *in, struct buf *out)
{
	const char *line = in, *end, *brk, *p;
	size_t width = RENDER_WIDTH;

	while (*line) {
		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		while (columns(line, end) > width) {
			brk = NULL;
			for (p = line; p < end && columns(line, p) < width; p++)
				if (*p == ' ')
					brk = p;
			if (brk == NULL || brk == line)
				break;
			buf_add(out, line, (size_t)(brk - line));
			buf_adds(out, "\n  ");
			line = brk + 1;
			width = RENDER_WIDTH - 2;
		}
		buf_add(out, line, (size_t)(end - line));
		buf_addc(out, '\n');
		line = *end ? end + 1 : end;
		width = RENDER_WIDTH;
	}
}

static void render_board(const struct aluette *, const struct game_view *,
    struct buf *);

/* The suit a card written at text[i] has (GAME_STYLE_COINS...), or 0 when
 * no card starts there. */
static int
card_suit_at(const char *text, size_t i, size_t len)
{
	static const char *const suits[] = { "co", "cu", "sw", "cl" };
	static const int looks[] = { GAME_STYLE_COINS, GAME_STYLE_CUPS,
	    GAME_STYLE_SWORDS, GAME_STYLE_CLUBS };
	unsigned char prev = i > 0 ? (unsigned char)text[i - 1] : ' ';
	size_t k;

	if (i + 3 > len || strchr("123456789JCK", text[i]) == NULL ||
	    isalnum(prev) || prev == '@' || prev == '.' ||
	    (i + 3 < len && isalnum((unsigned char)text[i + 3])))
		return 0;
	for (k = 0; k < nitems(suits); k++)
		if (strncmp(text + i + 1, suits[k], 2) == 0)
			return looks[k];
	return 0;
}

/*
 * The look of aluette_render()'s text: running text throughout, each card
 * in its suit's colour (coins gold, cups red, swords blue, clubs green:
 * the colours of the Spanish pack), the cards on the table highlighted.
 */
static void
aluette_render_style(const void *st, const struct game_view *v,
    const char *text, size_t len, char *style)
{
	size_t at = 0, end, i;
	int suit, table = 0;

	(void)st;
	(void)v;
	for (; at < len; at = end + 1) {
		end = at + strcspn(text + at, "\n");
		if (end > len)
			end = len;
		if (end == at)
			continue;
		style[at] |= GAME_STYLE_TEXT;
		/* A continuation line starts with blanks. */
		if (text[at] != ' ')
			table = strncmp(text + at, _("On the table:"),
			    strlen(_("On the table:"))) == 0;
		for (i = at; i < end; i++)
			if ((suit = card_suit_at(text, i, end)) != 0) {
				suit |= GAME_STYLE_BOLD;
				if (table)
					suit |= GAME_STYLE_LAST;
				style[i] |= (char)suit;
				style[i + 1] |= (char)suit;
				style[i + 2] |= (char)suit;
				i += 2;
			}
	}
}

static void
aluette_render(const void *st, const struct game_view *v, struct buf *b)
{
	struct buf tmp = { 0 };

	render_board(st, v, &tmp);
	wrap_lines(buf_str(&tmp), b);
	buf_free(&tmp);
}

/* A card's look: its suit's colour (as aluette_render_style gives it). */
static int
card_look(int c)
{
	static const int looks[] = { GAME_STYLE_COINS, GAME_STYLE_CUPS,
	    GAME_STYLE_SWORDS, GAME_STYLE_CLUBS };

	return looks[c / 12 % 4] | GAME_STYLE_BOLD;
}

/*
 * The drawing: the cards on the table (each over its player's name) after
 * the line that lists them, the reader's hand after the line that lists
 * it, as card faces in the order of the text.
 */
static void
aluette_draw(const void *st, const struct game_view *v, struct game_pic *pic)
{
	const struct aluette *a = st;
	uint8_t cards[NCARDS];
	struct game_grid *g;
	char t[4];
	int i, n;

	if (a->phase == PH_PLAY && a->ntrick > 0 &&
	    (g = game_pic_grid(pic, GAME_GRID_CARDS, 2, a->ntrick, 0,
	    NULL)) != NULL) {
		util_strlcpy(g->after, _("On the table:"), sizeof(g->after));
		for (i = 0; i < a->ntrick; i++) {
			card_text(a->trick[i], t);
			game_pic_set(pic, g, 0, i, GAME_CELL_CARD,
			    card_look(a->trick[i]) | GAME_STYLE_LAST, t);
			game_pic_set(pic, g, 1, i, GAME_CELL_LABEL,
			    GAME_STYLE_DIM, view_name(a, v, trick_seat(a, i)));
		}
	}
	/* At the end no card is on the table nor in a hand: the last
	 * trick, the winner's card marked, is what is left to see. */
	if (a->phase == PH_OVER && a->last_hand && (g = game_pic_grid(pic,
	    GAME_GRID_CARDS, 2, NSEATS, 0, NULL)) != NULL) {
		snprintf(g->after, sizeof(g->after), _("Last trick of hand %d:"),
		    a->last_hand);
		for (i = 0; i < NSEATS; i++) {
			card_text(a->last[i], t);
			game_pic_set(pic, g, 0, i, GAME_CELL_CARD,
			    card_look(a->last[i]) | (last_seat(a, i) ==
			    a->last_winner ? GAME_STYLE_LAST : 0), t);
			game_pic_set(pic, g, 1, i, GAME_CELL_LABEL,
			    GAME_STYLE_DIM, view_name(a, v, last_seat(a, i)));
		}
	}
	if (v->viewer >= 0 && v->viewer < NSEATS && a->phase != PH_OVER &&
	    (n = hand_cards(a, v->viewer, cards)) > 0 &&
	    (g = game_pic_grid(pic, GAME_GRID_CARDS, 1, n, 0, NULL)) != NULL) {
		util_strlcpy(g->after, _("Your hand:"), sizeof(g->after));
		for (i = 0; i < n; i++) {
			card_text(cards[i], t);
			game_pic_set(pic, g, 0, i, GAME_CELL_CARD,
			    card_look(cards[i]), t);
		}
	}
}

static void
render_board(const struct aluette *a, const struct game_view *v,
    struct buf *b)
{
	uint8_t cards[NCARDS];
	int s, i, n, shown = 0, h, w;
	uint32_t mask = aluette_to_move(a);

	if (a->phase == PH_PLAY)
		buf_printf(b, _("Aluette, hand %d of %d, trick %d of %d."),
		    a->handno, NHANDS, a->ndone + 1, NTRICKS);
	else
		buf_printf(b, _("Aluette, hand %d of %d."), a->handno, NHANDS);
	buf_adds(b, "  ");
	buf_printf(b, _("Points: %s %d, %s %d."), _(team_names[0]),
	    a->points[0], _(team_names[1]), a->points[1]);
	buf_addc(b, '\n');
	buf_adds(b, _("Table:"));
	for (i = 0; i < NSEATS; i++) {
		buf_adds(b, i ? ", " : " ");
		who(b, a, v, a->table[i]);
	}
	if (a->phase != PH_OVER) {
		buf_adds(b, "; ");
		buf_printf(b, _("dealer %s, eldest %s"), view_name(a, v,
		    a->dealer), view_name(a, v, eldest(a)));
	}
	buf_adds(b, ".\n");
	if (a->handno == 1 && a->ndone == 0 && a->ntrick == 0)
		render_faceup(a, v, b);
	/* The hands played, in one paragraph. */
	for (h = 0; h < NHANDS && h < a->handno - (a->phase != PH_OVER);
	    h++) {
		if (h)
			buf_adds(b, "; ");
		buf_printf(b, h ? _("hand %d: ") : _("Hand %d: "), h + 1);
		if ((w = a->hist_winner[h]) == NOBODY) {
			buf_adds(b, _("all nine tricks spoiled, no point"));
			continue;
		}
		buf_printf(b, P_("%s, %d trick, +%d %s", "%s, %d tricks, +%d %s",
		    a->hist_tricks[h]), view_name(a, v, w), a->hist_tricks[h],
		    a->hist_points[h], _(team_names[team_of(a, w)]));
	}
	if (h > 0)
		buf_adds(b, ".\n");

	if (a->ndone > 0) {
		buf_adds(b, _("Tricks this hand:"));
		buf_addc(b, ' ');
		for (i = 0, n = 0; i < NSEATS; i++) {
			s = a->table[i];
			n += popcount9(a->won[s]);
			buf_printf(b, "%s %d, ", view_name(a, v, s),
			    popcount9(a->won[s]));
		}
		buf_printf(b, _("spoiled %d.\n"), a->ndone - n);
	}
	if (a->last_hand) {
		char t[4];

		if (a->last_hand != a->handno || a->phase == PH_OVER)
			buf_printf(b, _("Last trick of hand %d:"), a->last_hand);
		else
			buf_adds(b, _("Last trick:"));
		for (i = 0; i < NSEATS; i++) {
			card_text(a->last[i], t);
			buf_printf(b, "%s %s %s", i ? "," : "",
			    view_name(a, v, last_seat(a, i)), t);
		}
		if (a->last_winner == NOBODY)
			buf_printf(b, _(": spoiled by a tie, %s leads again.\n"),
			    view_name(a, v, a->last_leader));
		else
			buf_printf(b, _(": %s won.\n"),
			    view_name(a, v, a->last_winner));
	}
	if (a->phase == PH_PLAY) {
		if (a->ntrick == 0)
			buf_printf(b, _("On the table: nothing yet, %s to "
			    "lead.\n"), view_name(a, v, a->leader));
		else {
			buf_adds(b, _("On the table:"));
			for (i = 0; i < a->ntrick; i++) {
				buf_adds(b, i ? ", " : " ");
				buf_printf(b, i ? _("%s played") : _("%s led"),
				    view_name(a, v, trick_seat(a, i)));
				buf_addc(b, ' ');
				card_named(b, a->trick[i]);
			}
			buf_adds(b, ".\n");
		}
	}
	if (a->phase == PH_ASK) {
		buf_adds(b, _("Changer:"));
		buf_addc(b, ' ');
		for (i = 0; i < a->asked; i++) {
			buf_printf(b, _("%s said change"), view_name(a, v,
			    a->table[(pos_of(a, a->dealer) + 1 + i) % 4]));
			buf_adds(b, ", ");
		}
		buf_printf(b, _("%s to answer change or nochange.\n"),
		    view_name(a, v, asked_seat(a)));
	}
	if (a->phase == PH_DISCARD) {
		buf_adds(b, _("Changer: all four said change; to discard:"));
		buf_addc(b, ' ');
		for (i = 0; i < 2; i++) {
			s = i ? a->dealer : eldest(a);
			buf_printf(b, "%s%s %d", i ? ", " : "",
			    view_name(a, v, s), hand_count(a, s) - HANDSIZE);
		}
		buf_adds(b, ".\n");
	}
	for (i = 0; i < a->nsig; i++) {
		if (!may_see_signal(a, v->viewer, a->sig[i].seat))
			continue;
		if (shown++)
			buf_adds(b, ", ");
		else {
			buf_adds(b, _("Signals this hand:"));
			buf_addc(b, ' ');
		}
		buf_printf(b, P_("%s after %d trick: %s",
		    "%s after %d tricks: %s", a->sig[i].tricks),
		    view_name(a, v, a->sig[i].seat), a->sig[i].tricks,
		    signal_names[a->sig[i].code]);
	}
	if (shown)
		buf_adds(b, ".\n");
	if (v->viewer >= 0 && v->viewer < NSEATS && a->phase != PH_OVER) {
		n = hand_cards(a, v->viewer, cards);
		buf_adds(b, _("Your hand:"));
		for (i = 0; i < n; i++) {
			char t[4];

			card_text(cards[i], t);
			buf_printf(b, "%s %s", i ? "," : "", t);
		}
		if (n)
			buf_adds(b, ".\n");
		else
			buf_printf(b, " %s\n", _("empty."));
		buf_adds(b, _(rank_legend));
	}
	if (a->phase == PH_OVER) {
		struct game_result r;

		aluette_result(a, &r);
		buf_printf(b, _("Game over: %s.\n"), r.text);
		return;
	}
	if (v->no_turn)
		return;
	{
		struct buf names = { 0 };

		for (s = 0, n = 0; s < NSEATS; s++) {
			if (!(mask & (1u << s)))
				continue;
			buf_adds(&names, n++ ? ", " : "");
			buf_adds(&names, view_name(a, v, s));
		}
		buf_printf(b, a->phase == PH_ASK ? _("%s to answer.\n") :
		    a->phase == PH_DISCARD ? _("%s to discard.\n") :
		    _("%s to play.\n"), buf_str(&names));
		buf_free(&names);
	}
}

/* The text form. */

static void
cards_line(struct buf *b, const char *key, const uint8_t *cards, int n)
{
	char t[5];
	int i;

	buf_adds(b, key);
	t[0] = ' ';
	for (i = 0; i < n; i++) {
		card_text(cards[i], t + 1);
		buf_add(b, t, 4);
	}
	if (n == 0)
		buf_adds(b, " -");
	buf_addc(b, '\n');
}

static int
cards_at(const struct aluette *a, int loc, uint8_t *out)
{
	uint8_t where[NCARDS];
	int c, n = 0;

	card_loc(a, where);
	for (c = 0; c < NCARDS; c++)
		if (where[c] == loc)
			out[n++] = (uint8_t)c;
	return n;
}

static void
aluette_serialise(const void *st, struct buf *b)
{
	const struct aluette *a = st;
	char rtext[RNG_TEXT_LEN], key[32];
	uint8_t cards[NCARDS];
	int s, i, n;

	rng_format(&a->rng, rtext);
	buf_printf(b, "aluette teams=%s changer=%d mordienne=%d signals=%s\n",
	    a->teams_fixed ? "fixed" : "faceup", a->changer, a->mordienne,
	    signal_opt[a->signals]);
	buf_printf(b, "rng %s\n", rtext);
	cards_line(b, "faceup", a->faceup, a->nfaceup);
	buf_printf(b, "table %d %d %d %d\nfirst_dealer %d\n", a->table[0],
	    a->table[1], a->table[2], a->table[3], a->first_dealer);
	buf_printf(b, "hand %d dealer %d phase %s asked %d\n", a->handno,
	    a->dealer, phase_names[a->phase], a->asked);
	buf_printf(b, "points %d %d\n", a->points[0], a->points[1]);
	buf_adds(b, "history");
	for (i = 0; i < a->handno - (a->phase != PH_OVER); i++) {
		if (a->hist_winner[i] == NOBODY)
			buf_adds(b, " -");
		else
			buf_printf(b, " %d:%d:%d", a->hist_winner[i],
			    a->hist_tricks[i], a->hist_points[i]);
	}
	buf_addc(b, '\n');
	for (s = 0; s < NSEATS; s++) {
		n = hand_cards(a, s, cards);
		snprintf(key, sizeof(key), "seat %d hand", s);
		cards_line(b, key, cards, n);
		n = cards_at(a, LOC_DISCARD + s, cards);
		snprintf(key, sizeof(key), "seat %d discards", s);
		cards_line(b, key, cards, n);
		buf_printf(b, "seat %d won", s);
		for (i = 0; i < NTRICKS; i++)
			if (a->won[s] >> i & 1)
				buf_printf(b, " %d", i + 1);
		buf_adds(b, a->won[s] ? "\n" : " -\n");
	}
	cards_line(b, "stock", a->stock, a->nstock);
	buf_printf(b, "trick %d", a->leader);
	cards_line(b, "", a->trick, a->ntrick);
	n = cards_at(a, LOC_PLAYED, cards);
	cards_line(b, "played", cards, n);
	if (a->last_hand) {
		buf_printf(b, "last %d %d ", a->last_hand, a->last_leader);
		if (a->last_winner == NOBODY)
			buf_adds(b, "-");
		else
			buf_printf(b, "%d", a->last_winner);
		cards_line(b, "", a->last, NSEATS);
	} else
		buf_adds(b, "last -\n");
	buf_adds(b, "signals");
	for (i = 0; i < a->nsig; i++)
		buf_printf(b, " %d:%d:%s", a->sig[i].seat, a->sig[i].tricks,
		    signal_names[a->sig[i].code]);
	buf_adds(b, a->nsig ? "\n" : " -\n");
}

/*
 * parse_state reads what serialise writes, lines in any order after the
 * first.  For positions written by hand it allows omissions: no `rng`
 * line means `rng seed 1`; no `faceup` line means none; no `table` line
 * means 0 1 2 3, or the table the face-up deal forms; no `played` line
 * puts every card not placed elsewhere among the played tricks.
 */

struct parse {
	struct aluette *a;
	char	*err;
	size_t	 errlen;
	int	 placed[NCARDS];
	uint8_t	 loc[NCARDS];	/* LOC_ of each card as the lines place it */
	int	 lineno;
	int	 nhist;		/* hands in the `history` line */
	unsigned seen;		/* SEEN_* bits: the lines given */
};

#define SEEN_RNG	0x01
#define SEEN_TABLE	0x02
#define SEEN_DEALER	0x04
#define SEEN_HAND	0x08
#define SEEN_PLAYED	0x10

static int
perr(struct parse *p, const char *what)
{
	util_err(p->err, p->errlen, "Aluette state line %d: %s", p->lineno,
	    what);
	return -1;
}

/* Cards of a line (or "-") into out; each card may be placed once. */
static int
parse_cards(struct parse *p, char *s, uint8_t *out, int max, int loc)
{
	int seen[NCARDS] = { 0 }, *placed = loc == -1 ? seen : p->placed;

	char *tok, *save = NULL;
	int n = 0, c;

	for (tok = strtok_r(s, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save)) {
		if (strcmp(tok, "-") == 0 && n == 0)
			continue;
		if ((c = card_parse(tok)) == -1)
			return perr(p, "not a card");
		if (placed[c])
			return perr(p, "a card placed twice");
		if (n >= max)
			return perr(p, "too many cards");
		placed[c] = 1;
		if (loc >= 0)
			p->loc[c] = (uint8_t)loc;
		if (out)
			out[n] = (uint8_t)c;
		n++;
	}
	return n;
}

static int
parse_int(const char *s, int min, int max, int *out)
{
	long long v;

	if (util_parse_int(s, min, max, &v) == -1)
		return -1;
	*out = (int)v;
	return 0;
}

/* Split s into at most max words in place; returns the count. */
static int
words(char *s, char **w, int max)
{
	char *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(s, " \t", &save); tok != NULL && n < max;
	    tok = strtok_r(NULL, " \t", &save))
		w[n++] = tok;
	return n;
}

static int
parse_header(struct parse *p, char *line)
{
	char t[16], sig[16];
	int ch, mo, end = 0;

	if (sscanf(line, "aluette teams=%15s changer=%d mordienne=%d "
	    "signals=%15s%n", t, &ch, &mo, sig, &end) != 4 ||
	    line[end] != '\0' || (ch != 0 && ch != 1) || (mo != 0 && mo != 1) ||
	    (strcmp(t, "faceup") != 0 && strcmp(t, "fixed") != 0) ||
	    signal_mode(sig) == -1)
		return perr(p, "want `aluette teams=faceup|fixed changer=0|1 "
		    "mordienne=0|1 signals=partner|table|off`");
	p->a->teams_fixed = strcmp(t, "fixed") == 0;
	p->a->changer = (uint8_t)ch;
	p->a->mordienne = (uint8_t)mo;
	p->a->signals = (uint8_t)signal_mode(sig);
	return 0;
}

static int
parse_seat_line(struct parse *p, char *rest)
{
	struct aluette *a = p->a;
	uint8_t dummy[NCARDS];
	char what[16], *save = NULL, *tok;
	int seat, t, end = 0;

	if (sscanf(rest, " %d %15s %n", &seat, what, &end) != 2 || seat < 0 ||
	    seat > 3)
		return perr(p, "want `seat N hand|discards|won ...`");
	rest += end;
	if (strcmp(what, "hand") == 0) {
		if (parse_cards(p, rest, dummy, NCARDS, LOC_HAND + seat) == -1)
			return -1;
	} else if (strcmp(what, "discards") == 0) {
		if (parse_cards(p, rest, dummy, NCARDS, LOC_DISCARD + seat) ==
		    -1)
			return -1;
	} else if (strcmp(what, "won") == 0) {
		a->won[seat] = 0;
		for (tok = strtok_r(rest, " \t", &save); tok != NULL;
		    tok = strtok_r(NULL, " \t", &save)) {
			if (strcmp(tok, "-") == 0)
				continue;
			if (parse_int(tok, 1, NTRICKS, &t) == -1)
				return perr(p, "tricks won are 1-9");
			a->won[seat] |= (uint16_t)(1u << (t - 1));
		}
	} else
		return perr(p, "want `seat N hand|discards|won ...`");
	return 0;
}

static int
parse_hist(struct parse *p, char *rest)
{
	struct aluette *a = p->a;
	char *w[NHANDS + 1];
	int n = words(rest, w, NHANDS + 1), i, ws, tr, pt, end;

	if (n > NHANDS)
		return perr(p, "more than five hands in the history");
	for (i = 0; i < n; i++) {
		if (strcmp(w[i], "-") == 0) {
			a->hist_winner[i] = NOBODY;
			continue;
		}
		end = 0;
		if (sscanf(w[i], "%d:%d:%d%n", &ws, &tr, &pt, &end) != 3 ||
		    w[i][end] != '\0' || ws < 0 || ws > 3 || tr < 1 ||
		    tr > NTRICKS || pt < 1 || pt > 2)
			return perr(p, "a hand's result is SEAT:TRICKS:POINTS "
			    "or -");
		a->hist_winner[i] = (uint8_t)ws;
		a->hist_tricks[i] = (uint8_t)tr;
		a->hist_points[i] = (uint8_t)pt;
	}
	p->nhist = n;
	return 0;
}

static int
parse_signals(struct parse *p, char *rest)
{
	struct aluette *a = p->a;
	char *w[NSEATS * ALUETTE_MAXSIG + 1], name[32];
	int n = words(rest, w, (int)nitems(w)), i, k, s, t, end;

	a->nsig = 0;
	for (i = 0; i < n; i++) {
		if (strcmp(w[i], "-") == 0 && n == 1)
			break;
		end = 0;
		if (a->nsig >= nitems(a->sig) || sscanf(w[i], "%d:%d:%31s%n",
		    &s, &t, name, &end) != 3 || w[i][end] != '\0' || s < 0 ||
		    s > 3 || t < 0 || t >= NTRICKS)
			return perr(p, "a signal is SEAT:TRICKS:NAME");
		for (k = 0; k < NSIGNALS; k++)
			if (strcmp(name, signal_names[k]) == 0)
				break;
		if (k == NSIGNALS)
			return perr(p, "unknown signal");
		a->sig[a->nsig].seat = (uint8_t)s;
		a->sig[a->nsig].tricks = (uint8_t)t;
		a->sig[a->nsig].code = (uint8_t)k;
		a->nsig++;
	}
	return 0;
}

static int
parse_line(struct parse *p, char *line)
{
	struct aluette *a = p->a;
	char *w[8], *rest, copy[1024];
	uint8_t dummy[NCARDS];
	int n, v[4], i;

	if (util_strlcpy(copy, line, sizeof(copy)) >= sizeof(copy))
		return perr(p, "line too long");
	n = words(copy, w, 8);
	if (n == 0)
		return 0;
	rest = line + (w[0] - copy) + strlen(w[0]);
	if (strcmp(w[0], "rng") == 0) {
		if (n == 3 && strcmp(w[1], "seed") == 0) {
			unsigned char seed[RNG_SEED_LEN];

			if (parse_int(w[2], 0, 1 << 30, &v[0]) == -1)
				return perr(p, "bad seed");
			rng_seed_from_u64(seed, (uint64_t)v[0]);
			rng_init(&a->rng, seed);
		} else if (n != 2 || rng_parse(&a->rng, w[1]) == -1)
			return perr(p, "bad generator state");
		p->seen |= SEEN_RNG;
	} else if (strcmp(w[0], "faceup") == 0) {
		if ((n = parse_cards(p, rest, a->faceup, NCARDS, -1)) == -1)
			return -1;
		a->nfaceup = (uint8_t)n;
	} else if (strcmp(w[0], "table") == 0) {
		if (n != 5)
			return perr(p, "want `table S S S S`");
		for (i = 0; i < 4; i++) {
			if (parse_int(w[i + 1], 0, 3, &v[i]) == -1)
				return perr(p, "seats are 0-3");
			a->table[i] = (uint8_t)v[i];
		}
		p->seen |= SEEN_TABLE;
	} else if (strcmp(w[0], "first_dealer") == 0) {
		if (n != 2 || parse_int(w[1], 0, 3, &v[0]) == -1)
			return perr(p, "want `first_dealer SEAT`");
		a->first_dealer = (uint8_t)v[0];
		p->seen |= SEEN_DEALER;
	} else if (strcmp(w[0], "hand") == 0) {
		if (n != 8 || strcmp(w[2], "dealer") != 0 ||
		    strcmp(w[4], "phase") != 0 || strcmp(w[6], "asked") != 0 ||
		    parse_int(w[1], 1, NHANDS, &v[0]) == -1 ||
		    parse_int(w[3], 0, 3, &v[1]) == -1 ||
		    parse_int(w[7], 0, NSEATS, &v[3]) == -1)
			return perr(p, "want `hand N dealer SEAT phase "
			    "ask|discard|play|over asked N`");
		for (v[2] = 0; v[2] < 4; v[2]++)
			if (strcmp(w[5], phase_names[v[2]]) == 0)
				break;
		if (v[2] == 4)
			return perr(p, "phase is ask, discard, play or over");
		a->handno = (uint8_t)v[0];
		a->dealer = (uint8_t)v[1];
		a->phase = (uint8_t)v[2];
		a->asked = (uint8_t)v[3];
		p->seen |= SEEN_HAND;
	} else if (strcmp(w[0], "points") == 0) {
		if (n != 3 || parse_int(w[1], 0, 2 * NHANDS, &v[0]) == -1 ||
		    parse_int(w[2], 0, 2 * NHANDS, &v[1]) == -1)
			return perr(p, "want `points NS EW`");
		a->points[0] = (uint8_t)v[0];
		a->points[1] = (uint8_t)v[1];
	} else if (strcmp(w[0], "history") == 0) {
		return parse_hist(p, rest);
	} else if (strcmp(w[0], "seat") == 0) {
		return parse_seat_line(p, rest);
	} else if (strcmp(w[0], "stock") == 0) {
		if ((n = parse_cards(p, rest, a->stock, NSTOCK, LOC_STOCK)) ==
		    -1)
			return -1;
		a->nstock = (uint8_t)n;
	} else if (strcmp(w[0], "trick") == 0) {
		if (n < 2 || parse_int(w[1], 0, 3, &v[0]) == -1)
			return perr(p, "want `trick LEADER CARD...`");
		a->leader = (uint8_t)v[0];
		rest = strstr(rest, w[1]) + strlen(w[1]);
		if ((n = parse_cards(p, rest, a->trick, NSEATS - 1,
		    LOC_TRICK)) == -1)
			return -1;
		a->ntrick = (uint8_t)n;
	} else if (strcmp(w[0], "played") == 0) {
		if (parse_cards(p, rest, dummy, NCARDS, LOC_PLAYED) == -1)
			return -1;
		p->seen |= SEEN_PLAYED;
	} else if (strcmp(w[0], "last") == 0) {
		if (n == 2 && strcmp(w[1], "-") == 0) {
			a->last_hand = 0;
			return 0;
		}
		if (n != 8 || parse_int(w[1], 1, NHANDS, &v[0]) == -1 ||
		    parse_int(w[2], 0, 3, &v[1]) == -1 ||
		    (strcmp(w[3], "-") != 0 && parse_int(w[3], 0, 3, &v[2]) ==
		    -1))
			return perr(p, "want `last HAND LEADER WINNER|- CARD "
			    "CARD CARD CARD`");
		a->last_hand = (uint8_t)v[0];
		a->last_leader = (uint8_t)v[1];
		a->last_winner = strcmp(w[3], "-") == 0 ? NOBODY :
		    (uint8_t)v[2];
		for (i = 0; i < NSEATS; i++)
			if ((v[3] = card_parse(w[4 + i])) == -1)
				return perr(p, "not a card");
			else
				a->last[i] = (uint8_t)v[3];
	} else if (strcmp(w[0], "signals") == 0) {
		return parse_signals(p, rest);
	} else
		return perr(p, "unknown line");
	return 0;
}

/* What the rules let a state be; a position written by hand is checked
 * against it so tests cannot start from the impossible. */
static int
check_state(struct parse *p)
{
	struct aluette *a = p->a;
	int s, i, pts[2] = { 0, 0 }, seen[NSEATS] = { 0 }, top[4];
	int played = 0, inhand[NSEATS], disc[NSEATS], stock = 0, trick = 0;
	uint8_t tab[NSEATS], dealer;

	for (i = 0; i < NSEATS; i++) {
		if (seen[a->table[i]]++)
			return perr(p, "the table names a seat twice");
	}
	if (!a->teams_fixed) {
		if (a->nfaceup == 0 || faceup_deal(a->faceup, a->nfaceup,
		    top) != a->nfaceup)
			return perr(p, "the face-up deal must end with its "
			    "fourth top card");
		faceup_table(top, tab, &dealer);
		if (memcmp(tab, a->table, NSEATS) != 0 ||
		    dealer != a->first_dealer)
			return perr(p, "table or first dealer differ from "
			    "what the face-up deal formed");
	} else if (a->nfaceup)
		return perr(p, "no face-up deal with teams=fixed");
	for (s = 0; s < NSEATS; s++)
		inhand[s] = disc[s] = 0;
	for (i = 0; i < NCARDS; i++) {
		if (p->loc[i] < LOC_STOCK)
			inhand[p->loc[i]]++;
		else if (p->loc[i] == LOC_STOCK)
			stock++;
		else if (p->loc[i] < LOC_TRICK)
			disc[p->loc[i] - LOC_DISCARD]++;
		else if (p->loc[i] == LOC_TRICK)
			trick++;
		else
			played++;
	}
	if (stock != a->nstock || trick != a->ntrick)
		return perr(p, "stock or trick miscounted");
	if (p->nhist != a->handno - (a->phase != PH_OVER))
		return perr(p, "the history must hold every finished hand");
	for (i = 0; i < p->nhist; i++)
		if (a->hist_winner[i] != NOBODY)
			pts[team_of(a, a->hist_winner[i])] +=
			    a->hist_points[i];
	if (pts[0] != a->points[0] || pts[1] != a->points[1])
		return perr(p, "points differ from the history");
	for (s = 0; s < NSEATS; s++) {
		if (a->won[s] >> a->ndone)
			return perr(p, "a trick won that was not played");
		for (i = s + 1; i < NSEATS; i++)
			if (a->won[s] & a->won[i])
				return perr(p, "a trick won twice");
	}
	if (a->last_hand > a->handno || (a->last_hand == 0 && a->ndone) ||
	    (a->ndone && a->last_hand != a->handno))
		return perr(p, "the last trick does not match the hand");
	for (s = 0; s < NSEATS; s++) {
		int want = HANDSIZE - a->ndone, d = s == a->dealer ||
		    s == eldest(a);

		if (a->phase == PH_PLAY)
			for (i = 0; i < a->ntrick; i++)
				want -= trick_seat(a, i) == s;
		if (a->phase == PH_OVER)
			want = 0;
		if (a->phase == PH_DISCARD && d) {
			if (inhand[s] < HANDSIZE ||
			    inhand[s] + disc[s] != HANDSIZE + CHANGE_TAKE)
				return perr(p, "the changers hold the wrong "
				    "number of cards");
			continue;
		}
		if (inhand[s] != want || (disc[s] && (!d || a->nstock)))
			return perr(p, "a hand holds the wrong number of "
			    "cards");
	}
	if ((a->phase == PH_ASK || a->phase == PH_DISCARD) && (!a->changer ||
	    a->ndone || a->ntrick))
		return perr(p, "the changer round is before the first lead");
	if (a->phase == PH_DISCARD && (a->nstock != 0 || a->asked != NSEATS))
		return perr(p, "the changer round needs all four to agree");
	if (a->phase == PH_ASK && a->asked >= NSEATS)
		return perr(p, "four answers end the asking");
	if ((!a->changer && a->asked) || (a->phase == PH_PLAY &&
	    (a->asked == NSEATS) != (a->nstock == 0)))
		return perr(p, "the changer answers do not match the stock");
	if (a->phase == PH_PLAY && a->ndone == 0 && a->leader != eldest(a))
		return perr(p, "eldest leads the first trick");
	if (a->phase == PH_PLAY && a->nstock != 0 && a->nstock != NSTOCK)
		return perr(p, "twelve cards stay undealt or none");
	if (a->phase == PH_OVER && (a->handno != NHANDS || a->ndone != NTRICKS))
		return perr(p, "the game ends after five hands");
	if (a->phase != PH_OVER && a->ndone >= NTRICKS)
		return perr(p, "a hand is nine tricks");
	for (i = 0; i < a->nsig; i++)
		if (a->sig[i].tricks > a->ndone)
			return perr(p, "a signal after the tricks played");
	return 0;
}

static int
aluette_parse_state(void *st, const char *text, char *err, size_t errlen)
{
	struct aluette a;
	struct parse p = { &a, err, errlen, { 0 }, { 0 }, 0, 0, 0 };
	char *copy, *line, *next;
	int i, top[4], rc = -1, nplayed;
	uint8_t tab[NSEATS], dealer;

	memset(&a, 0, sizeof(a));
	a.last_winner = NOBODY;
	for (i = 0; i < NHANDS; i++)
		a.hist_winner[i] = NOBODY;
	for (i = 0; i < NCARDS; i++)
		p.loc[i] = LOC_PLAYED;
	copy = xstrdup(text);
	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		p.lineno++;
		if (p.lineno == 1) {
			if (parse_header(&p, line) == -1)
				goto out;
			continue;
		}
		if (parse_line(&p, line) == -1)
			goto out;
	}
	if (p.lineno == 0 || !(p.seen & SEEN_HAND)) {
		perr(&p, "a state needs its header and a `hand` line");
		goto out;
	}
	if (!(p.seen & SEEN_RNG)) {
		unsigned char seed[RNG_SEED_LEN];

		rng_seed_from_u64(seed, 1);
		rng_init(&a.rng, seed);
	}
	if (!a.teams_fixed && a.nfaceup &&
	    faceup_deal(a.faceup, a.nfaceup, top) == a.nfaceup) {
		faceup_table(top, tab, &dealer);
		if (!(p.seen & SEEN_TABLE))
			memcpy(a.table, tab, NSEATS);
		if (!(p.seen & SEEN_DEALER))
			a.first_dealer = dealer;
	} else if (!(p.seen & SEEN_TABLE))
		for (i = 0; i < NSEATS; i++)
			a.table[i] = (uint8_t)i;
	if (p.seen & SEEN_PLAYED)
		for (i = 0; i < NCARDS; i++)
			if (!p.placed[i]) {
				perr(&p, "a card is missing: the 48 must all "
				    "be placed");
				goto out;
			}
	for (i = 0, nplayed = 0; i < NCARDS; i++)
		nplayed += p.loc[i] == LOC_PLAYED;
	if (nplayed % NSEATS || nplayed > NSEATS * NTRICKS) {
		perr(&p, "the played cards are not whole tricks of a hand");
		goto out;
	}
	a.ndone = (uint8_t)(nplayed / NSEATS);
	set_locs(&a, p.loc);
	set_pos(&a);
	set_turn(&a);
	p.lineno = 0;
	if (check_state(&p) == -1)
		goto out;
	memcpy(st, &a, sizeof(a));
	rc = 0;
out:
	free(copy);
	return rc;
}

/* JSON: everything, hidden cards included. */

static void
json_cards(struct buf *b, const uint8_t *cards, int n)
{
	char t[4];
	int i;

	buf_addc(b, '[');
	for (i = 0; i < n; i++) {
		card_text(cards[i], t);
		buf_printf(b, "%s\"%s\"", i ? "," : "", t);
	}
	buf_addc(b, ']');
}

static void
aluette_export_json(const void *st, struct buf *b)
{
	const struct aluette *a = st;
	uint8_t cards[NCARDS];
	uint32_t mask = aluette_to_move(st);
	int s, i, n, first;
	struct game_result r;

	buf_printf(b, "{\"game\":\"aluette\",\"teams\":\"%s\",\"changer\":%s,"
	    "\"mordienne\":%s,\"signals\":\"%s\",\"phase\":\"%s\","
	    "\"hand\":%d,\"dealer\":%d,\"first_dealer\":%d,\"eldest\":%d,"
	    "\"table\":[%d,%d,%d,%d]", a->teams_fixed ? "fixed" : "faceup",
	    a->changer ? "true" : "false", a->mordienne ? "true" : "false",
	    signal_opt[a->signals], phase_names[a->phase], a->handno,
	    a->dealer, a->first_dealer, eldest(a), a->table[0], a->table[1],
	    a->table[2], a->table[3]);
	buf_adds(b, ",\"faceup\":");
	json_cards(b, a->faceup, a->nfaceup);
	buf_printf(b, ",\"points\":{\"North-South\":%d,\"East-West\":%d}",
	    a->points[0], a->points[1]);
	buf_adds(b, ",\"history\":[");
	for (i = 0; i < a->handno - (a->phase != PH_OVER); i++) {
		buf_adds(b, i ? "," : "");
		if (a->hist_winner[i] == NOBODY)
			buf_adds(b, "{\"winner\":null,\"points\":0}");
		else
			buf_printf(b, "{\"winner\":%d,\"tricks\":%d,"
			    "\"points\":%d}", a->hist_winner[i],
			    a->hist_tricks[i], a->hist_points[i]);
	}
	buf_adds(b, "],\"seats\":[");
	for (s = 0; s < NSEATS; s++) {
		buf_printf(b, "%s{\"seat\":%d,\"name\":\"%s\",\"partner\":%d,"
		    "\"hand\":", s ? "," : "", s, seat_names[pos_of(a, s)],
		    partner_of(a, s));
		n = hand_cards(a, s, cards);
		json_cards(b, cards, n);
		buf_adds(b, ",\"discards\":");
		n = cards_at(a, LOC_DISCARD + s, cards);
		json_cards(b, cards, n);
		buf_adds(b, ",\"won\":[");
		for (i = 0, first = 1; i < NTRICKS; i++)
			if (a->won[s] >> i & 1) {
				buf_printf(b, "%s%d", first ? "" : ",", i + 1);
				first = 0;
			}
		buf_adds(b, "]}");
	}
	buf_adds(b, "],\"stock\":");
	json_cards(b, a->stock, a->nstock);
	buf_printf(b, ",\"trick\":{\"leader\":%d,\"cards\":", a->leader);
	json_cards(b, a->trick, a->ntrick);
	buf_adds(b, "},\"played\":");
	n = cards_at(a, LOC_PLAYED, cards);
	json_cards(b, cards, n);
	if (a->last_hand) {
		buf_printf(b, ",\"last_trick\":{\"hand\":%d,\"leader\":%d,"
		    "\"winner\":", a->last_hand, a->last_leader);
		if (a->last_winner == NOBODY)
			buf_adds(b, "null");
		else
			buf_printf(b, "%d", a->last_winner);
		buf_adds(b, ",\"cards\":");
		json_cards(b, a->last, NSEATS);
		buf_addc(b, '}');
	}
	buf_adds(b, ",\"signals\":[");
	for (i = 0; i < a->nsig; i++)
		buf_printf(b, "%s{\"seat\":%d,\"tricks\":%d,\"signal\":\"%s\"}",
		    i ? "," : "", a->sig[i].seat, a->sig[i].tricks,
		    signal_names[a->sig[i].code]);
	buf_adds(b, "],\"to_move\":[");
	for (s = 0, first = 1; s < NSEATS; s++)
		if (mask & (1u << s)) {
			buf_printf(b, "%s%d", first ? "" : ",", s);
			first = 0;
		}
	aluette_result(st, &r);
	buf_printf(b, "],\"over\":%s", r.over ? "true" : "false");
	if (r.over) {
		buf_adds(b, ",\"result\":");
		util_json_str(b, r.text);
	}
	buf_addc(b, '}');
}

/*
 * A seat sees its own hand and discards, the trick on the table and the
 * tricks played; the other hands, the other changer's discards and the
 * undealt cards are hidden, and only their counts are known.  The hidden
 * cards are taken as one set in the order of strength, shuffled, and
 * dealt back into the same places in a fixed order of places (the other
 * hands, the other discards, then the stock in its order), so the counts
 * per place stay and the result depends only on what the seat sees.
 * Which of the undealt cards a changer took is not kept in the state once
 * they are in the hand, so it is no constraint here.
 */
static void
aluette_determinize(void *st, int seat, struct rng *rng)
{
	struct aluette *a = st;
	struct rng_bytes b = { 0, 0 };
	uint8_t pool[NCARDS], t;
	uint64_t hidden = 0, m;
	int s, n = 0, i, j, k;

	if (seat < 0 || seat >= NSEATS)
		return;
	for (s = 0; s < NSEATS; s++) {
		if (s == seat)
			continue;
		hidden |= a->hand[s];
		for (m = a->disc[s]; m != 0; m &= m - 1)
			hidden |= CARD_BIT(__builtin_ctzll(m));
	}
	for (i = 0; i < a->nstock; i++)
		hidden |= CARD_BIT(a->stock[i]);
	for (m = hidden; m != 0; m &= m - 1)
		pool[n++] = card_at[__builtin_ctzll(m)];
	for (i = n; i > 1; i--) {
		j = (int)rng_byte_below(rng, &b, (uint32_t)i);
		t = pool[i - 1];
		pool[i - 1] = pool[j];
		pool[j] = t;
	}
	k = 0;
	for (s = 0; s < NSEATS; s++) {
		if (s == seat)
			continue;
		a->hand[s] = 0;
		for (i = 0; i < a->nhand[s]; i++)
			a->hand[s] |= CARD_BIT(pool[k++]);
	}
	for (s = 0; s < NSEATS; s++) {
		if (s == seat || a->disc[s] == 0)
			continue;
		n = __builtin_popcountll(a->disc[s]);
		a->disc[s] = 0;
		for (i = 0; i < n; i++)
			a->disc[s] |= (uint64_t)1 << pool[k++];
	}
	for (i = 0; i < a->nstock; i++)
		a->stock[i] = pool[k++];
	/* The later deals are hidden too: they come from the robot's
	 * generator as it is now (a copy, which draws nothing; the robots'
	 * simulations end with the hand and never deal). */
	a->rng = *rng;
}

static int
aluette_partner(const void *st, int seat)
{
	return partner_of(st, seat);
}

/* Signals are no plies and reach whom signals= says; a changer discard
 * is face down to everyone but the one who made it. */
static int
aluette_shown_move(const void *st, int seat, const char *notation,
    int viewer, char *out, size_t len)
{
	if (util_strncaseeq(notation, "signal ", 7)) {
		if (viewer != seat && !may_see_signal(st, viewer, seat))
			return GAME_SHOWN_NONE;
		util_strlcpy(out, notation, len);
		return GAME_SHOWN_EVENT;
	}
	util_strlcpy(out, viewer != seat && util_strncaseeq(notation,
	    "discard ", 8) ? _("discard (face down)") : notation, len);
	return GAME_SHOWN_PLY;
}

/* A card as rank and suit, even a wrong one (`3co`, `Kcl`, `3cp`, `10co`:
 * a rank, then two letters of which the first is a suit's c or s), a
 * bare rank, a card's or a signal's name, and the words of the
 * notation. */
static int
aluette_move_word(const void *st, const char *w)
{
	static const char *const words[] = { "play", "discard", "signal",
	    "change", "nochange", "no-change" };
	char sq[48], want[32];
	size_t i, n = strspn(w, "0123456789");

	(void)st;
	for (i = 0; i < nitems(words); i++)
		if (strcmp(w, words[i]) == 0)
			return 1;
	if (card_parse(w) != -1)
		return 1;
	squash(w, sq, sizeof(sq));
	for (i = 0; i < (size_t)NSIGNALS; i++) {
		squash(signal_names[i], want, sizeof(want));
		if (strcmp(sq, want) == 0)
			return 1;
	}
	if (n == 0 && w[0] != '\0' && strchr("jck", w[0]) != NULL)
		n = 1;
	if (n > 2)
		return 0;
	if (n > 0 && w[n] == '\0')
		return 1;
	return n > 0 && strlen(w + n) == 2 && (w[n] == 'c' || w[n] == 's');
}

/* A card played to a trick leaves its hand face up; the last `change`
 * hands the changers the face-down stock.  A discard goes face down and
 * an answer or a signal shows no card. */
static int
aluette_reveals(const void *st, int seat, const struct game_move *m)
{
	const struct aluette *a = st;

	(void)seat;
	if (m->d[0] == MV_PLAY)
		return 1;
	return m->d[0] == MV_CHANGE && a->asked + 1 >= NSEATS;
}

const struct game_ops aluette_ops = {
	.name = "aluette",
	.title = "Aluette",
	.state_size = sizeof(struct aluette),
	.create = aluette_create,
	.seats = aluette_seats,
	.seat_name = aluette_seat_name,
	.to_move = aluette_to_move,
	.legal = aluette_legal,
	.parse_move = aluette_parse_move,
	.format_move = aluette_format_move,
	.apply = aluette_apply,
	.result = aluette_result,
	.render = aluette_render,
	.render_style = aluette_render_style,
	.draw = aluette_draw,
	.serialise = aluette_serialise,
	.parse_state = aluette_parse_state,
	.export_json = aluette_export_json,
	.determinize = aluette_determinize,
	.partner = aluette_partner,
	.shown_move = aluette_shown_move,
	.reveals = aluette_reveals,
	.move_word = aluette_move_word,
	.chance = 1,
	.over = aluette_over,
	.count_legal = aluette_count_legal,
	.apply_span = aluette_apply_span,
	.count_after = aluette_count_after,
};

/*
 * almakleh: the master-and-pupil card game as rules.md settles it.
 *
 * Squares are numbered rank * 5 + file, rank 0 being the first player's
 * home rank (rank 1 in notation).  A card's offsets are read from its
 * holder's side, dx to the right and dy forward; the second player's are
 * negated, which is the card rotated 180 degrees.
 *
 * The deck comes from the definition's data block.  Its names and offsets,
 * and the tables of target squares made from them, live in a table shared
 * by every state of the process (alm_decks, filled when a game is created
 * or read); a state holds only the deck's index there, so it stays small to
 * copy, and a serialised game still carries the whole deck, so it needs
 * nothing else to be read back.  A card is an index into the deck and bit
 * card of face says which side is up.  In pass mode the five dealt cards
 * sit in the two hands (3 with the seat to move, 2 with the other) and
 * `fresh` is the card the seat to move has just received; the other cards
 * are out of play.  In discard mode each hand holds three and the rest are
 * in the draw pile (top last) or among the discards.  The board is a
 * bitboard of each seat's pieces and the square of each master.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"
#include "../i18n.h"

#define ALM_MAXCARDS	16
#define ALM_NAMELEN	16
#define ALM_MAXOFF	8
#define ALM_SQ		25
#define ALM_NONE	0xff
#define ALM_CENTRE	12	/* c3 */
#define ALM_PLY_MAX	65535
/* Different decks one process can hold (each game's definition, each
 * deck read back from a state): every deck an installation has used. */
#define ALM_MAXDECKS	64

enum { SOUTH, NORTH };
enum { EMPTY, PAWN0, MASTER0, PAWN1, MASTER1 };
enum { MV_NONE, MV_MOVE, MV_PASS, MV_REDEAL };
enum { WIN_NONE, WIN_PORTAL, WIN_CAPTURE, WIN_CENTRE };

struct alm_side {
	char	name[ALM_NAMELEN];	/* lower case, letters only */
	uint8_t	n;
	int8_t	dx[ALM_MAXOFF], dy[ALM_MAXOFF];
	uint8_t	code[ALM_MAXOFF];	/* (dx + 2) * 5 + dy + 2, for alm_step */
};

/* A deck as its text says it (zero beyond what is used, so that equal
 * decks are equal bytes). */
struct alm_deckdef {
	uint8_t	ncards;
	struct alm_side side[ALM_MAXCARDS][2];
};

/* A deck in play: the text's content and, for each card, side, seat and
 * square, the squares its moves reach on the board, as a bit set and as a
 * list in the order of the side's offsets (ended by ALM_NONE). */
struct alm_deck {
	struct alm_deckdef def;
	uint32_t reach[ALM_MAXCARDS][2][2][ALM_SQ];
	uint8_t	to[ALM_MAXCARDS][2][2][ALM_SQ][ALM_MAXOFF + 1];
};

static struct alm_deck alm_decks[ALM_MAXDECKS];
static int alm_ndecks;
/* The square a seat's piece on a square reaches with an offset (by code),
 * or -1 off the board; filled with the first deck. */
static int8_t alm_step[2][ALM_SQ][25];

struct almakleh {
	uint32_t occ[2];		/* bit per square of each seat's pieces */
	uint8_t	master[2];		/* each seat's master's square, or NONE */
	uint8_t	turn;
	uint8_t	fresh;			/* just received by `turn`, or NONE */
	uint8_t	hand[2][3];
	uint8_t	nhand[2];
	uint8_t	deck;			/* index in alm_decks */
	uint8_t	over;
	uint8_t	winner;
	uint8_t	how;			/* WIN_* */
	uint8_t	hold_seat;		/* whose piece stands on c3, or NONE */
	uint8_t	hold_count;		/* opponent moves it has stood through */
	uint8_t	last_seat, last_kind, last_card, last_from, last_to, last_took;
	uint8_t	discard;		/* cards=discard */
	uint8_t	centre;			/* centre=true */
	uint8_t	classic;		/* opening=classic */
	uint8_t	redeals;		/* redeals left */
	uint8_t	asked;			/* bit per seat that sent `redeal` */
	uint8_t	colour[2];		/* each seat's faction colour, COLOUR_* */
	uint16_t ply;
	uint16_t face;			/* bit per card: its side 1 is up */
	uint8_t	npile;
	uint8_t	ndisc;
	uint8_t	pile[ALM_MAXCARDS];
	uint8_t	disc[ALM_MAXCARDS];
	struct rng rng;			/* redeals and reshuffles */
};

static const char *const seat_names[] = { N_("South"), N_("North") };

/* The faction colours of rules.md, in the order GAME_STYLE_SEAT shows
 * them; a seat without a chosen one gets the first not taken. */
enum { COLOUR_RED, COLOUR_BLUE, COLOUR_GREEN, COLOUR_ORANGE, NCOLOURS };
static const char *const colour_names[NCOLOURS] = { N_("red"), N_("blue"),
	N_("green"), N_("orange") };

/* colours=FIRST,SECOND as the options give it, either may be empty. */
static int
colours_read(struct almakleh *a, const char *text, char *err, size_t errlen)
{
	char *copy = xstrdup(text), *p = copy, *name;
	int want[2] = { -1, -1 }, seat, c, rc = -1;

	for (seat = 0; seat < 2 && p != NULL; seat++) {
		name = p;
		if ((p = strchr(p, ',')) != NULL)
			*p++ = '\0';
		name = util_trim(name);
		if (*name == '\0')
			continue;
		for (c = 0; c < NCOLOURS; c++)
			if (util_strcaseeq(name, colour_names[c]))
				break;
		if (c == NCOLOURS) {
			util_err(err, errlen, _("colour `%s`: the colours are "
			    "red, blue, green and orange"), name);
			goto out;
		}
		want[seat] = c;
	}
	if (p != NULL) {
		util_err(err, errlen, _("colours: one colour for each of the "
		    "two players, as colours=red,blue"));
		goto out;
	}
	if (want[0] >= 0 && want[0] == want[1]) {
		util_err(err, errlen, _("both players cannot be %s: give them "
		    "two colours"), _(colour_names[want[0]]));
		goto out;
	}
	for (seat = 0; seat < 2; seat++) {
		for (c = 0; want[seat] < 0 && c < NCOLOURS; c++)
			if (c != want[!seat])
				want[seat] = c;
		a->colour[seat] = (uint8_t)want[seat];
	}
	rc = 0;
out:
	free(copy);
	return rc;
}
static const char piece_chars[] = ".PMpm";

static int
owner(uint8_t p)
{
	return p == EMPTY ? -1 : (p - 1) / 2;
}

static int
is_master(uint8_t p)
{
	return p == MASTER0 || p == MASTER1;
}

static int
portal(int seat)
{
	return seat == SOUTH ? 2 : 22;
}

static const struct alm_deckdef *
deck_of(const struct almakleh *a)
{
	return &alm_decks[a->deck].def;
}

static int
face_up(const struct almakleh *a, uint8_t card)
{
	return (a->face >> card) & 1;
}

static void
set_face(struct almakleh *a, uint8_t card, int f)
{
	a->face = (uint16_t)((a->face & ~(1u << card)) | ((unsigned)f << card));
}

static const struct alm_side *
face_of(const struct almakleh *a, uint8_t card)
{
	return &deck_of(a)->side[card][face_up(a, card)];
}

/* The squares the card, as it lies, reaches for the seat from each square. */
static const uint32_t *
reach_of(const struct almakleh *a, uint8_t card, int seat)
{
	return alm_decks[a->deck].reach[card][face_up(a, card)][seat];
}

static const char *
card_name(const struct almakleh *a, uint8_t card)
{
	return face_of(a, card)->name;
}

/* The piece on a square: EMPTY, PAWN0, ... */
static uint8_t
piece_at(const struct almakleh *a, int sq)
{
	uint32_t bit = 1u << sq;

	if (a->occ[SOUTH] & bit)
		return a->master[SOUTH] == sq ? MASTER0 : PAWN0;
	if (a->occ[NORTH] & bit)
		return a->master[NORTH] == sq ? MASTER1 : PAWN1;
	return EMPTY;
}

/* The seat whose piece stands on a square, or -1. */
static int
sq_owner(const struct almakleh *a, int sq)
{
	return (a->occ[SOUTH] >> sq) & 1 ? SOUTH : (a->occ[NORTH] >> sq) & 1 ?
	    NORTH : -1;
}

static void
sq_name(int sq, char out[3])
{
	out[0] = (char)('a' + sq % 5);
	out[1] = (char)('1' + sq / 5);
	out[2] = '\0';
}

/* The square a seat's piece on sq reaches with offset k of side s, or -1. */
static int
target(const struct alm_side *s, int k, int seat, int sq)
{
	return alm_step[seat][sq][s->code[k]];
}

static int
in_hand(const struct almakleh *a, int seat, uint8_t card)
{
	int i;

	for (i = 0; i < a->nhand[seat]; i++)
		if (a->hand[seat][i] == card)
			return 1;
	return 0;
}

static int
usable(const struct almakleh *a, int seat, uint8_t card)
{
	return in_hand(a, seat, card) && !(seat == a->turn && card == a->fresh);
}

/*
 * Deck lines: `card NAME DX,DY ... | NAME DX,DY ...`; blank lines and lines
 * starting with # are skipped.  Also the form serialise() writes.
 */
static int
deck_side(struct alm_side *s, char *text, int line, char *err, size_t errlen)
{
	char *tok, *p = text, *end, *ystart;
	long dx, dy;
	int i;

	memset(s, 0, sizeof(*s));
	if ((tok = strtok_r(p, " \t", &p)) == NULL) {
		util_err(err, errlen, "deck line %d: a side needs a name",
		    line);
		return -1;
	}
	if (strlen(tok) < 3 || strlen(tok) >= ALM_NAMELEN) {
		util_err(err, errlen, "deck line %d: side name `%s` must have "
		    "3-%d letters", line, tok, ALM_NAMELEN - 1);
		return -1;
	}
	for (i = 0; tok[i]; i++)
		if (!isalpha((unsigned char)tok[i])) {
			util_err(err, errlen, "deck line %d: side name `%s` "
			    "must be letters only", line, tok);
			return -1;
		}
	util_strlcpy(s->name, tok, sizeof(s->name));
	util_lower(s->name);
	if (strcmp(s->name, "pass") == 0 || strcmp(s->name, "redeal") == 0) {
		util_err(err, errlen, "deck line %d: `%s` is a word of the "
		    "notation, not a side name", line, s->name);
		return -1;
	}
	while ((tok = strtok_r(p, " \t", &p)) != NULL) {
		dx = strtol(tok, &end, 10);
		if (end == tok || *end != ',')
			goto bad;
		ystart = end + 1;
		dy = strtol(ystart, &end, 10);
		if (end == ystart || *end != '\0' || dx < -2 || dx > 2 ||
		    dy < -2 || dy > 2 || (dx == 0 && dy == 0))
			goto bad;
		for (i = 0; i < s->n; i++)
			if (s->dx[i] == dx && s->dy[i] == dy) {
				util_err(err, errlen, "deck line %d: %s has "
				    "%ld,%ld twice", line, s->name, dx, dy);
				return -1;
			}
		if (s->n == ALM_MAXOFF) {
			util_err(err, errlen, "deck line %d: %s has more than "
			    "%d moves", line, s->name, ALM_MAXOFF);
			return -1;
		}
		s->dx[s->n] = (int8_t)dx;
		s->dy[s->n] = (int8_t)dy;
		s->code[s->n] = (uint8_t)((dx + 2) * 5 + dy + 2);
		s->n++;
	}
	if (s->n == 0) {
		util_err(err, errlen, "deck line %d: %s has no moves", line,
		    s->name);
		return -1;
	}
	return 0;
bad:
	util_err(err, errlen, "deck line %d: `%s` is not an offset DX,DY with "
	    "both in -2..2 (and not 0,0)", line, tok);
	return -1;
}

static int
deck_card(struct alm_deckdef *a, char *text, int line, char *err,
    size_t errlen)
{
	const struct alm_side *new;
	char *bar;
	int i, j;

	if (a->ncards == ALM_MAXCARDS) {
		util_err(err, errlen, "deck line %d: more than %d cards", line,
		    ALM_MAXCARDS);
		return -1;
	}
	if ((bar = strchr(text, '|')) == NULL || strchr(bar + 1, '|')) {
		util_err(err, errlen, "deck line %d: a card is `card SIDE "
		    "OFFSETS | SIDE OFFSETS`", line);
		return -1;
	}
	*bar = '\0';
	if (deck_side(&a->side[a->ncards][0], text, line, err, errlen) == -1 ||
	    deck_side(&a->side[a->ncards][1], bar + 1, line, err, errlen) == -1)
		return -1;
	new = a->side[a->ncards];
	if (strcmp(new[0].name, new[1].name) == 0) {
		util_err(err, errlen, "deck line %d: side name %s is used twice",
		    line, new[0].name);
		return -1;
	}
	for (i = 0; i < a->ncards; i++)
		for (j = 0; j < 4; j++)
			if (strcmp(a->side[i][j / 2].name, new[j % 2].name) == 0) {
				util_err(err, errlen, "deck line %d: side name "
				    "%s is used twice", line, new[j % 2].name);
				return -1;
			}
	a->ncards++;
	return 0;
}

static int
deck_parse(struct alm_deckdef *a, const char *data, char *err, size_t errlen)
{
	char *copy = xstrdup(data), *p = copy, *line, *s;
	int no = 0, rc = -1;

	a->ncards = 0;
	while (p != NULL) {
		line = p;
		if ((p = strchr(p, '\n')) != NULL)
			*p++ = '\0';
		no++;
		s = util_trim(line);
		if (*s == '\0' || *s == '#')
			continue;
		if (strncmp(s, "card", 4) != 0 || !isspace((unsigned char)s[4])) {
			util_err(err, errlen, "deck line %d: expected `card SIDE "
			    "OFFSETS | SIDE OFFSETS`", no);
			goto out;
		}
		if (deck_card(a, s + 5, no, err, errlen) == -1)
			goto out;
	}
	if (a->ncards < 5) {
		util_err(err, errlen, "the deck has %d cards; at least 5 are "
		    "needed", a->ncards);
		goto out;
	}
	rc = 0;
out:
	free(copy);
	return rc;
}

/* A side by name (case-insensitive): card index and face, or -1. */
static int
find_side(const struct alm_deckdef *a, const char *name, int *face)
{
	int c, f;

	for (c = 0; c < a->ncards; c++)
		for (f = 0; f < 2; f++)
			if (util_strcaseeq(a->side[c][f].name, name)) {
				*face = f;
				return c;
			}
	return -1;
}

static void
deck_names(const struct alm_deckdef *a, struct buf *b)
{
	int c, f;

	for (c = 0; c < a->ncards; c++)
		for (f = 0; f < 2; f++)
			buf_printf(b, "%s%s", c || f ? ", " : "",
			    a->side[c][f].name);
}

static void
step_init(void)
{
	int seat, sq, dx, dy, f, r;

	for (seat = 0; seat < 2; seat++)
		for (sq = 0; sq < ALM_SQ; sq++)
			for (dx = -2; dx <= 2; dx++)
				for (dy = -2; dy <= 2; dy++) {
					f = sq % 5 + (seat == SOUTH ? dx : -dx);
					r = sq / 5 + (seat == SOUTH ? dy : -dy);
					alm_step[seat][sq][(dx + 2) * 5 + dy + 2] =
					    (int8_t)(f < 0 || f > 4 || r < 0 ||
					    r > 4 ? -1 : r * 5 + f);
				}
}

/*
 * The deck's index in alm_decks, added with its tables when it is new;
 * -1 with err set when the table is full.  def is zero beyond its
 * content.  Only create() and parse_state() add, and nothing is ever
 * removed, so an index in a state stays good for the life of the process
 * (and of the robots' workers ludusd forks, which inherit the table; the
 * programs run no threads).  Other processes read the state from its text,
 * which carries the deck.
 */
static int
deck_intern(const struct alm_deckdef *def, char *err, size_t errlen)
{
	struct alm_deck *d;
	const struct alm_side *s;
	int i, c, f, seat, sq, k, to, n;

	for (i = 0; i < alm_ndecks; i++)
		if (memcmp(&alm_decks[i].def, def, sizeof(*def)) == 0)
			return i;
	if (alm_ndecks == ALM_MAXDECKS) {
		util_err(err, errlen, "more than %d different Almakleh decks "
		    "in one process", ALM_MAXDECKS);
		return -1;
	}
	if (alm_ndecks == 0)
		step_init();
	d = &alm_decks[alm_ndecks];
	memset(d, 0, sizeof(*d));
	d->def = *def;
	for (c = 0; c < def->ncards; c++)
		for (f = 0; f < 2; f++) {
			s = &def->side[c][f];
			for (seat = 0; seat < 2; seat++)
				for (sq = 0; sq < ALM_SQ; sq++) {
					for (k = 0, n = 0; k < s->n; k++) {
						to = alm_step[seat][sq][s->code[k]];
						if (to < 0)
							continue;
						d->reach[c][f][seat][sq] |= 1u << to;
						d->to[c][f][seat][sq][n++] =
						    (uint8_t)to;
					}
					d->to[c][f][seat][sq][n] = ALM_NONE;
				}
		}
	return alm_ndecks++;
}

/* Out-of-play cards show side 0, so equal positions serialise equally. */
static void
tidy_faces(struct almakleh *a)
{
	int c;

	if (a->discard)
		return;
	for (c = 0; c < deck_of(a)->ncards; c++)
		if (!in_hand(a, SOUTH, (uint8_t)c) &&
		    !in_hand(a, NORTH, (uint8_t)c))
			set_face(a, (uint8_t)c, 0);
}

static void
deal_random(struct almakleh *a)
{
	uint8_t order[ALM_MAXCARDS];
	int i, k = 0, seat, ncards = deck_of(a)->ncards;

	for (i = 0; i < ncards; i++)
		order[i] = (uint8_t)i;
	rng_shuffle(&a->rng, order, (size_t)ncards, 1);
	for (i = 0; i < ncards; i++)
		set_face(a, (uint8_t)i, (int)rng_below(&a->rng, 2));
	memset(a->hand, 0, sizeof(a->hand));
	for (seat = 0; seat < 2; seat++) {
		a->nhand[seat] = seat == NORTH && !a->discard ? 2 : 3;
		for (i = 0; i < a->nhand[seat]; i++)
			a->hand[seat][i] = order[k++];
	}
	memset(a->pile, 0, sizeof(a->pile));
	memset(a->disc, 0, sizeof(a->disc));
	a->npile = 0;
	a->ndisc = 0;
	if (a->discard)
		while (k < ncards)
			a->pile[a->npile++] = order[k++];
	tidy_faces(a);
	a->fresh = a->classic ? a->hand[SOUTH][2] : ALM_NONE;
}

static int
deal_fixed(struct almakleh *a, const char *text, char *err, size_t errlen)
{
	const struct alm_deckdef *d = deck_of(a);
	char *copy = xstrdup(text), *half[2], *p, *name;
	uint8_t used[ALM_MAXCARDS] = { 0 }, rest[ALM_MAXCARDS];
	int want[2] = { 3, a->discard ? 3 : 2 }, seat, c, f, i, n, rc = -1;

	half[0] = copy;
	if ((p = strchr(copy, '/')) == NULL || strchr(p + 1, '/') != NULL)
		goto shape;
	*p = '\0';
	half[1] = p + 1;
	for (seat = 0; seat < 2; seat++) {
		a->nhand[seat] = 0;
		for (p = half[seat]; (name = strtok_r(p, ",", &p)) != NULL;) {
			name = util_trim(name);
			if ((c = find_side(d, name, &f)) == -1) {
				struct buf b = { 0 };

				deck_names(d, &b);
				util_err(err, errlen, _("deal: no card side "
				    "called `%s` (the sides: %s)"), name,
				    buf_str(&b));
				buf_free(&b);
				goto out;
			}
			if (used[c]) {
				if (face_up(a, (uint8_t)c) == f)
					util_err(err, errlen, _("deal: %s is "
					    "named twice"), d->side[c][f].name);
				else
					util_err(err, errlen, _("deal: %s and %s "
					    "are the two sides of one card"),
					    d->side[c][!f].name,
					    d->side[c][f].name);
				goto out;
			}
			if (a->nhand[seat] == want[seat])
				goto shape;
			used[c] = 1;
			set_face(a, (uint8_t)c, f);
			a->hand[seat][a->nhand[seat]++] = (uint8_t)c;
		}
		if (a->nhand[seat] != want[seat])
			goto shape;
	}
	memset(a->pile, 0, sizeof(a->pile));
	memset(a->disc, 0, sizeof(a->disc));
	a->npile = 0;
	a->ndisc = 0;
	if (a->discard) {
		for (c = 0, n = 0; c < d->ncards; c++)
			if (!used[c])
				rest[n++] = (uint8_t)c;
		rng_shuffle(&a->rng, rest, (size_t)n, 1);
		for (i = 0; i < n; i++) {
			set_face(a, rest[i], (int)rng_below(&a->rng, 2));
			a->pile[a->npile++] = rest[i];
		}
	}
	tidy_faces(a);
	a->fresh = a->classic ? a->hand[SOUTH][2] : ALM_NONE;
	rc = 0;
	goto out;
shape:
	util_err(err, errlen, _("deal must name %d cards for the first player "
	    "and %d for the second: NAME,NAME,NAME/NAME,NAME%s"), want[0],
	    want[1], a->discard ? ",NAME" : "");
out:
	free(copy);
	return rc;
}

static int
almakleh_seats(const struct game_opts *o)
{
	(void)o;
	return 2;
}

static const char *
almakleh_seat_name(const void *st, int seat)
{
	(void)st;
	return seat >= 0 && seat < 2 ? seat_names[seat] : "?";
}

static void
setup_board(struct almakleh *a)
{
	a->occ[SOUTH] = 0x1fu;
	a->occ[NORTH] = 0x1fu << 20;
	a->master[SOUTH] = 2;
	a->master[NORTH] = 22;
}

static int
almakleh_create(void *st, const struct game_opts *o,
    const unsigned char seed[RNG_SEED_LEN], int nseats, char *err,
    size_t errlen)
{
	struct almakleh *a = st;
	struct alm_deckdef def;
	long long redeals = game_opt_int(o, "redeals");
	const char *deal = game_opt_str(o, "deal");
	int d;

	memset(a, 0, sizeof(*a));
	if (colours_read(a, game_opt_str(o, "colours"), err, errlen) == -1)
		return -1;
	if (nseats != 2) {
		util_err(err, errlen, _("Almakleh is for 2 players, not %d"),
		    nseats);
		return -1;
	}
	if (o->data == NULL) {
		util_err(err, errlen, _("the Almakleh definition has no deck "
		    "(its data block is missing)"));
		return -1;
	}
	memset(&def, 0, sizeof(def));
	if (deck_parse(&def, o->data, err, errlen) == -1 ||
	    (d = deck_intern(&def, err, errlen)) == -1)
		return -1;
	a->deck = (uint8_t)d;
	a->discard = strcmp(game_opt_str(o, "cards"), "discard") == 0;
	a->centre = game_opt_int(o, "centre") != 0;
	a->classic = strcmp(game_opt_str(o, "opening"), "classic") == 0;
	if (redeals < 0 || redeals > 9) {
		util_err(err, errlen, _("redeals must be 0-9"));
		return -1;
	}
	a->redeals = (uint8_t)redeals;
	if (a->discard && def.ncards < 6) {
		util_err(err, errlen, _("cards=discard needs a deck of at least "
		    "6 cards"));
		return -1;
	}
	setup_board(a);
	rng_init_sub(&a->rng, seed, "almakleh");
	if (*deal != '\0') {
		if (deal_fixed(a, deal, err, errlen) == -1)
			return -1;
	} else
		deal_random(a);
	a->turn = SOUTH;
	a->hold_seat = ALM_NONE;
	a->last_card = ALM_NONE;
	return 0;
}

static uint32_t
almakleh_to_move(const void *st)
{
	const struct almakleh *a = st;

	return a->over ? 0 : 1u << a->turn;
}

static void
set_move(struct game_move *m, int kind, int card, int from, int to)
{
	memset(m, 0, sizeof(*m));
	m->len = 4;
	m->d[0] = (uint8_t)kind;
	m->d[1] = (uint8_t)card;
	m->d[2] = (uint8_t)from;
	m->d[3] = (uint8_t)to;
}

/* The moves one card gives, card by card in hand order, from the squares
 * in order, each in the order of its side's offsets; then, when there are
 * none at all, one pass per usable card. */
static int
almakleh_legal(const void *st, int seat, struct game_move *out, int max)
{
	const struct almakleh *a = st;
	const uint8_t (*to)[ALM_MAXOFF + 1], *t;
	uint32_t own, b;
	int i, sq, n = 0;
	uint8_t c;

	if (a->over || seat != a->turn)
		return 0;
	own = a->occ[seat];
	for (i = 0; i < a->nhand[seat]; i++) {
		c = a->hand[seat][i];
		if (c == a->fresh)
			continue;
		to = alm_decks[a->deck].to[c][face_up(a, c)][seat];
		for (b = own; b != 0; b &= b - 1) {
			sq = __builtin_ctz(b);
			for (t = to[sq]; *t != ALM_NONE; t++) {
				if ((own >> *t) & 1)
					continue;
				if (n < max)
					out[n] = (struct game_move){ .len = 4,
					    .d = { MV_MOVE, c, (uint8_t)sq,
					    *t } };
				n++;
			}
		}
	}
	if (n == 0)
		for (i = 0; i < a->nhand[seat]; i++) {
			c = a->hand[seat][i];
			if (c == a->fresh)
				continue;
			if (n < max)
				set_move(&out[n], MV_PASS, c, 0, 0);
			n++;
		}
	return n < max ? n : max;
}

/* The bits set in a word, written out rather than a call to the
 * compiler's library; compilers read it as one instruction where the
 * processor has one. */
static inline int
bits64(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (int)((x * 0x0101010101010101ull) >> 56);
}

/*
 * The number of moves legal() gives, without making them: a sum of counts
 * of target squares.  On x86-64 with glibc a second copy uses the POPCNT
 * instruction where the processor has it (chosen once, when the program
 * is loaded).
 */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
__attribute__((target_clones("popcnt", "default")))
#endif
#endif
static int
almakleh_count_legal(const void *st, int seat)
{
	const struct almakleh *a = st;
	const uint32_t *r[3];
	uint32_t own, b;
	uint64_t free2;
	int i, n = 0, cards = 0, sq;
	uint8_t c;

	if (a->over || seat != a->turn)
		return 0;
	for (i = 0; i < a->nhand[seat]; i++)
		if ((c = a->hand[seat][i]) != a->fresh)
			r[cards++] = reach_of(a, c, seat);
	own = a->occ[seat];
	if (cards == 2) {
		/* The usual case: both cards' targets from a square in one
		 * word, counted at once. */
		free2 = (uint64_t)~own << 32 | ~own;
		for (b = own; b != 0; b &= b - 1) {
			sq = __builtin_ctz(b);
			n += bits64(((uint64_t)r[1][sq] << 32 | r[0][sq]) &
			    free2);
		}
	} else
		for (i = 0; i < cards; i++)
			for (b = own; b != 0; b &= b - 1)
				n += bits64(r[i][__builtin_ctz(b)] & ~own);
	return n > 0 ? n : cards;
}

static int
almakleh_over(const void *st)
{
	const struct almakleh *a = st;

	return a->over;
}

static void
almakleh_format_move(const void *st, int seat, const struct game_move *m,
    char *out, size_t len)
{
	const struct almakleh *a = st;
	char from[3], to[3];

	(void)seat;
	switch (m->d[0]) {
	case MV_MOVE:
		sq_name(m->d[2], from);
		sq_name(m->d[3], to);
		snprintf(out, len, "%s %s-%s", card_name(a, m->d[1]), from, to);
		break;
	case MV_PASS:
		snprintf(out, len, "pass %s", card_name(a, m->d[1]));
		break;
	case MV_REDEAL:
		snprintf(out, len, "redeal");
		break;
	default:
		snprintf(out, len, "?");
	}
}

/* Take a card the seat holds out of its hand, the others moving up. */
static void
remove_from_hand(struct almakleh *a, int seat, uint8_t card)
{
	uint8_t *h = a->hand[seat];
	int i, n = a->nhand[seat];

	for (i = 0; i < n && h[i] != card; i++)
		;
	if (i == n)
		return;
	for (; i + 1 < n; i++)
		h[i] = h[i + 1];
	h[i] = 0;
	a->nhand[seat] = (uint8_t)i;
}

/* Discard mode: an empty draw pile takes all discards, shuffled and each
 * turned to a random side, as at the deal. */
static void
draw_card(struct almakleh *a, int seat)
{
	int i;

	/* Unused slots stay zero, so equal positions are equal bytes. */
	if (a->npile == 0) {
		memcpy(a->pile, a->disc, a->ndisc);
		memset(a->disc, 0, sizeof(a->disc));
		a->npile = a->ndisc;
		a->ndisc = 0;
		rng_shuffle(&a->rng, a->pile, a->npile, 1);
		for (i = 0; i < a->npile; i++)
			set_face(a, a->pile[i], (int)rng_below(&a->rng, 2));
	}
	if (a->npile > 0) {
		a->hand[seat][a->nhand[seat]++] = a->pile[--a->npile];
		a->pile[a->npile] = 0;
	}
}

/* `redeal`: the cards are dealt again once both seats asked. */
static __attribute__((noinline)) void
apply_redeal(struct almakleh *a, int seat)
{
	a->asked |= (uint8_t)(1u << seat);
	if (a->asked == 3) {
		deal_random(a);
		a->asked = 0;
		a->redeals--;
		a->last_kind = MV_REDEAL;
		a->last_seat = (uint8_t)seat;
	}
}

/* The card used goes to the discards and one is drawn (discard mode), or
 * to the opponent. */
static __attribute__((noinline)) void
apply_card(struct almakleh *a, int seat, uint8_t card)
{
	remove_from_hand(a, seat, card);
	if (a->discard) {
		a->disc[a->ndisc++] = card;
		draw_card(a, seat);
		a->fresh = ALM_NONE;
	} else {
		a->hand[!seat][a->nhand[!seat]++] = card;
		a->fresh = card;
	}
}

static void
almakleh_apply(void *st, int seat, const struct game_move *m)
{
	struct almakleh *a = st;
	uint8_t kind = m->d[0], card = m->d[1], from = m->d[2], to = m->d[3];
	uint8_t took = EMPTY, *h, x, y;
	int opp = !seat;

	if (kind == MV_REDEAL) {
		apply_redeal(a, seat);
		return;
	}
	if (kind == MV_MOVE) {
		uint32_t tb = 1u << to;

		if (a->occ[opp] & tb) {
			a->occ[opp] &= ~tb;
			if (a->master[opp] == to) {
				took = (uint8_t)(MASTER0 + 2 * opp);
				a->master[opp] = ALM_NONE;
				a->over = 1;
				a->winner = (uint8_t)seat;
				a->how = WIN_CAPTURE;
			} else
				took = (uint8_t)(PAWN0 + 2 * opp);
		}
		a->occ[seat] ^= (1u << from) | tb;
		if (a->master[seat] == from) {
			a->master[seat] = to;
			if (to == portal(opp) && !a->over) {
				a->over = 1;
				a->winner = (uint8_t)seat;
				a->how = WIN_PORTAL;
			}
		}
		if (from == ALM_CENTRE) {
			a->hold_seat = ALM_NONE;
			a->hold_count = 0;
		}
		if (to == ALM_CENTRE) {
			a->hold_seat = (uint8_t)seat;
			a->hold_count = 0;
		}
	} else
		from = to = 0;
	if (a->hold_seat == opp && a->hold_count < 255)
		a->hold_count++;

	a->last_seat = (uint8_t)seat;
	a->last_kind = kind;
	a->last_card = card;
	a->last_from = from;
	a->last_to = to;
	a->last_took = took;
	a->asked = 0;
	if (a->ply < ALM_PLY_MAX)
		a->ply++;
	a->turn = (uint8_t)opp;
	if (a->centre && !a->over && a->hold_seat == opp &&
	    a->hold_count >= 2) {
		a->over = 1;
		a->winner = (uint8_t)opp;
		a->how = WIN_CENTRE;
	}
	/* The cards last, so that a call is the function's end. */
	if (!a->discard && a->nhand[seat] == 3) {
		/* The pass game's hand of three gives the card away. */
		h = a->hand[seat];
		x = h[0];
		y = h[1];
		h[0] = x == card ? y : x;
		h[1] = x == card || y == card ? h[2] : y;
		h[2] = 0;
		a->nhand[seat] = 2;
		a->hand[opp][a->nhand[opp]++] = card;
		a->fresh = card;
	} else
		apply_card(a, seat, card);
}

static void
almakleh_result(const void *st, struct game_result *r)
{
	const struct almakleh *a = st;

	memset(r, 0, sizeof(*r));
	r->score[SOUTH] = bits64(a->occ[SOUTH]);
	r->score[NORTH] = bits64(a->occ[NORTH]);
	if (!a->over)
		return;
	r->over = 1;
	r->winners = 1u << a->winner;
	switch (a->how) {
	case WIN_PORTAL:
		snprintf(r->text, sizeof(r->text), _("%s wins: master on %s's "
		    "portal"), _(seat_names[a->winner]),
		    _(seat_names[!a->winner]));
		break;
	case WIN_CAPTURE:
		snprintf(r->text, sizeof(r->text), _("%s wins: %s's master "
		    "captured"), _(seat_names[a->winner]),
		    _(seat_names[!a->winner]));
		break;
	default:
		snprintf(r->text, sizeof(r->text), _("%s wins: held the centre"),
		    _(seat_names[a->winner]));
	}
}

/* "a2, c2": where the card takes the piece on from; the count. */
static int
dest_list(const struct almakleh *a, int seat, uint8_t card, int from,
    struct buf *b)
{
	const struct alm_side *s = face_of(a, card);
	char sq[3];
	int k, to, n = 0;

	for (k = 0; k < s->n; k++) {
		to = target(s, k, seat, from);
		if (to < 0 || sq_owner(a, to) == seat)
			continue;
		sq_name(to, sq);
		buf_printf(b, "%s%s", n++ ? ", " : "", sq);
	}
	return n;
}

static void
hand_list(const struct almakleh *a, int seat, int only_usable, struct buf *b)
{
	int i, n = 0;

	for (i = 0; i < a->nhand[seat]; i++) {
		if (only_usable && !usable(a, seat, a->hand[seat][i]))
			continue;
		buf_printf(b, "%s%s", n++ ? ", " : "",
		    card_name(a, a->hand[seat][i]));
	}
}

/* The card named by a player for a seat: its index, or -1 with err set. */
static int
parse_card(const struct almakleh *a, int seat, const char *name, char *err,
    size_t errlen)
{
	struct buf b = { 0 };
	int c, f;

	c = find_side(deck_of(a), name, &f);
	if (c != -1 && face_up(a, (uint8_t)c) == f && usable(a, seat, (uint8_t)c))
		return c;
	hand_list(a, seat, 1, &b);
	if (c == -1)
		util_err(err, errlen, _("there is no card called %s (your usable "
		    "cards: %s)"), name, buf_str(&b));
	else if (face_up(a, (uint8_t)c) != f && (in_hand(a, seat, (uint8_t)c) ||
	    in_hand(a, !seat, (uint8_t)c)))
		util_err(err, errlen, _("%s is not in play: its card shows %s "
		    "(your usable cards: %s)"), deck_of(a)->side[c][f].name,
		    deck_of(a)->side[c][!f].name, buf_str(&b));
	else if (in_hand(a, seat, (uint8_t)c))
		util_err(err, errlen, _("%s is not usable this turn: you just "
		    "received it"), deck_of(a)->side[c][f].name);
	else if (in_hand(a, !seat, (uint8_t)c))
		util_err(err, errlen, _("%s is %s's card (your usable cards: %s)"),
		    deck_of(a)->side[c][f].name, _(seat_names[!seat]),
		    buf_str(&b));
	else
		util_err(err, errlen, _("%s is not in your hand (your usable "
		    "cards: %s)"), deck_of(a)->side[c][f].name, buf_str(&b));
	buf_free(&b);
	return -1;
}

static int
parse_redeal(const struct almakleh *a, int seat, struct game_move *m,
    char *err, size_t errlen)
{
	if (a->ply > 0) {
		util_err(err, errlen, _("a redeal is only possible before the "
		    "first move"));
		return -1;
	}
	if (a->redeals == 0) {
		util_err(err, errlen, _("no redeal is left in this game"));
		return -1;
	}
	if (a->asked & (1u << seat)) {
		util_err(err, errlen, _("you have already asked for a redeal: "
		    "it happens when %s asks too"), _(seat_names[!seat]));
		return -1;
	}
	set_move(m, MV_REDEAL, 0, 0, 0);
	return 0;
}

static int
parse_pass(const struct almakleh *a, int seat, const char *name,
    struct game_move *m, char *err, size_t errlen)
{
	struct game_move moves[GAME_MAX_MOVES];
	char text[GAME_MOVE_TEXT];
	int c;

	if ((c = parse_card(a, seat, name, err, errlen)) == -1)
		return -1;
	if (almakleh_legal(a, seat, moves, GAME_MAX_MOVES) > 0 &&
	    moves[0].d[0] == MV_MOVE) {
		almakleh_format_move(a, seat, &moves[0], text, sizeof(text));
		util_err(err, errlen, _("you may only pass when no card gives a "
		    "move, and you have one (e.g. `%s`)"), text);
		return -1;
	}
	set_move(m, MV_PASS, c, 0, 0);
	return 0;
}

/* FROM-TO with the card given (c >= 0) or to be found (c == -1). */
static int
parse_step(const struct almakleh *a, int seat, int c, int from, int to,
    struct game_move *m, char *err, size_t errlen)
{
	const struct alm_side *s;
	struct buf b = { 0 };
	char fs[3], ts[3];
	int i, k, nfound = 0, rc = -1;
	uint8_t card, cards[3];

	sq_name(from, fs);
	sq_name(to, ts);
	if (sq_owner(a, from) != seat) {
		util_err(err, errlen, _("there is no piece of yours on %s"), fs);
		return -1;
	}
	if (sq_owner(a, to) == seat) {
		util_err(err, errlen, _("%s is taken by a piece of yours"), ts);
		return -1;
	}
	for (i = 0; i < a->nhand[seat]; i++) {
		card = a->hand[seat][i];
		if (!usable(a, seat, card) || (c >= 0 && card != c))
			continue;
		s = face_of(a, card);
		for (k = 0; k < s->n; k++)
			if (target(s, k, seat, from) == to)
				cards[nfound++] = card;
	}
	if (nfound == 1) {
		set_move(m, MV_MOVE, cards[0], from, to);
		return 0;
	}
	if (nfound > 1) {
		for (i = 0; i < nfound; i++)
			buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 < nfound ?
			    ", " : _(" and "), card_name(a, cards[i]));
		util_err(err, errlen, _("%s-%s is possible with %s: say which, "
		    "e.g. `%s %s-%s`"), fs, ts, buf_str(&b),
		    card_name(a, cards[0]), fs, ts);
		goto out;
	}
	if (c >= 0) {
		if (dest_list(a, seat, (uint8_t)c, from, &b) > 0)
			util_err(err, errlen, _("%s does not move %s to %s: "
			    "from %s it goes to %s"), card_name(a, (uint8_t)c),
			    fs, ts, fs, buf_str(&b));
		else
			util_err(err, errlen, _("%s does not move %s to %s: "
			    "it has no move from %s"), card_name(a, (uint8_t)c),
			    fs, ts, fs);
		goto out;
	}
	for (i = 0, k = 0; i < a->nhand[seat]; i++) {
		card = a->hand[seat][i];
		if (!usable(a, seat, card))
			continue;
		struct buf d = { 0 };

		if (k++)
			buf_adds(&b, ", ");
		if (dest_list(a, seat, card, from, &d) > 0)
			buf_printf(&b, _("%s goes to %s"), card_name(a, card),
			    buf_str(&d));
		else
			buf_printf(&b, _("%s has no move from there"),
			    card_name(a, card));
		buf_free(&d);
	}
	util_err(err, errlen, _("no usable card moves %s to %s: %s"), fs, ts,
	    buf_str(&b));
out:
	buf_free(&b);
	return rc;
}

/* A square as FROM-TO names it: a letter a-e (either case) and a digit
 * 1-5, nothing between them; -1 if it is none. */
static int
read_square(const char *p)
{
	int f = tolower((unsigned char)p[0]);

	if (f < 'a' || f > 'e' || p[1] < '1' || p[1] > '5')
		return -1;
	return (p[1] - '1') * 5 + (f - 'a');
}

/* FROM-TO as ludus-games(7) writes it: a square, a dash (or x, or :) with
 * blanks around it or none, a square, and nothing more. */
static int
read_from_to(const char *p, int *from, int *to)
{
	p += strspn(p, " \t");
	if ((*from = read_square(p)) == -1)
		return -1;
	p += 2;
	p += strspn(p, " \t");
	if (*p == '\0' || strchr("-xX:", *p) == NULL)
		return -1;
	p++;
	p += strspn(p, " \t");
	if ((*to = read_square(p)) == -1)
		return -1;
	p += 2;
	p += strspn(p, " \t");
	return *p == '\0' ? 0 : -1;
}

static int
almakleh_parse_move(const void *st, int seat, const char *text,
    struct game_move *m, char *err, size_t errlen)
{
	const struct almakleh *a = st;
	char word[64], name[64];
	size_t wl = 0, nl;
	const char *p = text, *rest;
	int c = -1, from, to;

	if (seat < 0 || seat > 1) {
		util_err(err, errlen, _("no such seat"));
		return -1;
	}
	if (a->over) {
		util_err(err, errlen, _("the game is over"));
		return -1;
	}
	while (isspace((unsigned char)*p))
		p++;
	/* A leading word of two letters or more is a card name or a
	 * keyword, ended by a blank; a square is one letter and one
	 * digit. */
	while (isalpha((unsigned char)p[wl]) && wl < sizeof(word) - 1) {
		word[wl] = (char)tolower((unsigned char)p[wl]);
		wl++;
	}
	word[wl] = '\0';
	if (wl < 2) {
		wl = 0;
		word[0] = '\0';
	}
	rest = p + wl;
	rest += strspn(rest, " \t");

	if (strcmp(word, "redeal") == 0 && *rest == '\0')
		return parse_redeal(a, seat, m, err, errlen);
	if (seat != a->turn) {
		util_err(err, errlen, _("it is %s's turn, not %s's"),
		    _(seat_names[a->turn]), _(seat_names[seat]));
		return -1;
	}
	/* A word is ended by a blank. */
	if (wl > 0 && p[wl] != '\0' && !isspace((unsigned char)p[wl]))
		goto bad;
	if (strcmp(word, "pass") == 0) {
		/* One word, the card's name. */
		nl = strcspn(rest, " \t");
		if (nl == 0) {
			util_err(err, errlen, _("pass which card? `pass NAME`"));
			return -1;
		}
		if (nl >= sizeof(name) || rest[nl + strspn(rest + nl,
		    " \t")] != '\0')
			goto bad;
		memcpy(name, rest, nl);
		name[nl] = '\0';
		return parse_pass(a, seat, name, m, err, errlen);
	}
	if (wl > 0 && (c = parse_card(a, seat, word, err, errlen)) == -1)
		return -1;
	if (read_from_to(rest, &from, &to) == 0)
		return parse_step(a, seat, c, from, to, m, err, errlen);
bad:
	util_err(err, errlen, _("`%s` is not a move: write CARD FROM-TO "
	    "(`%s b1-b2`), FROM-TO, or `pass CARD`"), text,
	    card_name(a, a->hand[seat][0] == a->fresh ?
	    a->hand[seat][1] : a->hand[seat][0]));
	return -1;
}

/* "alice (South)", or "South" when the view names nobody. */
static const char *
view_name(const struct game_view *v, int seat, char *out, size_t len)
{
	if (v->names[seat] == NULL)
		return _(seat_names[seat]);
	snprintf(out, len, "%s (%s)", v->names[seat], _(seat_names[seat]));
	return out;
}

/* A side as the board's legend names it, with its faction colour:
 * "ann (North, blue)", or "North (blue)" without the players' names. */
static const char *
legend_name(const struct game_view *v, const struct almakleh *a, int seat,
    char *out, size_t len)
{
	/* TRANSLATORS: a side in the board's legend: its seat (its
	 * faction colour). */
	if (v->names[seat] == NULL)
		snprintf(out, len, _("%s (%s)"), _(seat_names[seat]),
		    _(colour_names[a->colour[seat]]));
	/* TRANSLATORS: a side in the board's legend: the player's name
	 * (the seat, the faction colour). */
	else
		snprintf(out, len, _("%s (%s, %s)"), v->names[seat],
		    _(seat_names[seat]), _(colour_names[a->colour[seat]]));
	return out;
}

static int
side_has(const struct alm_side *s, int dx, int dy)
{
	int k;

	for (k = 0; k < s->n; k++)
		if (s->dx[k] == dx && s->dy[k] == dy)
			return 1;
	return 0;
}

/* Columns a card takes in a row: its 9-column diagram and a gap.  A row of
 * three ("scorpion (not now)" the widest name) stays within a phone's 57. */
#define CARD_COL	18

/* A row of 5x5 card diagrams, as their holder's moves look on a board
 * drawn with `bottom` at the bottom: rotated for the other seat. */
static void
render_cards(struct buf *b, const struct almakleh *a, const uint8_t *cards,
    int n, int holder, int bottom)
{
	char cell[CARD_COL + 8];
	int i, x, y, dx, dy, len;

	buf_adds(b, "  ");
	for (i = 0; i < n; i++) {
		len = snprintf(cell, sizeof(cell), "%s%s",
		    card_name(a, cards[i]),
		    holder == a->turn && cards[i] == a->fresh && !a->over ?
		    _(" (not now)") : "");
		/* A name as wide as the column still gets a space. */
		buf_printf(b, "%-*s", i + 1 < n ? (len < CARD_COL ? CARD_COL :
		    len + 1) : len, cell);
	}
	buf_addc(b, '\n');
	for (y = 2; y >= -2; y--) {
		buf_adds(b, "  ");
		for (i = 0; i < n; i++) {
			for (x = -2; x <= 2; x++) {
				dx = holder == bottom ? x : -x;
				dy = holder == bottom ? y : -y;
				buf_addc(b, x == 0 && y == 0 ? 'o' :
				    side_has(face_of(a, cards[i]), dx, dy) ?
				    'x' : '.');
				if (x < 2)
					buf_addc(b, ' ');
			}
			if (i + 1 < n)
				buf_printf(b, "%*s", CARD_COL - 9, "");
		}
		buf_addc(b, '\n');
	}
}

static void
render_cell(struct buf *b, const struct almakleh *a, int sq)
{
	char c = sq == a->last_from && a->last_kind == MV_MOVE ? '.' : ' ';
	char l = ' ', r = ' ';

	if (piece_at(a, sq) != EMPTY)
		c = piece_chars[piece_at(a, sq)];
	if (a->last_kind == MV_MOVE && sq == a->last_to) {
		l = '(';
		r = ')';
	}
	if (sq == portal(SOUTH) || sq == portal(NORTH)) {
		l = '[';
		r = ']';
	}
	buf_printf(b, "%c%c%c|", l, c, r);
}

/*
 * Does the line fit a translated format with one %s: its text before %s
 * starts the line, its text after (to the new line) ends it?
 */
static int
fmt_fits(const char *line, size_t len, const char *fmt)
{
	const char *s = strstr(fmt, "%s"), *t;
	size_t pre, post;

	if (s == NULL)
		return 0;
	pre = (size_t)(s - fmt);
	t = s + 2;
	post = strcspn(t, "\n");
	return len >= pre + post && strncmp(line, fmt, pre) == 0 &&
	    strncmp(line + len - post, t, post) == 0;
}

/*
 * The look of almakleh_render()'s text: pieces in their side's faction
 * colour (red for South, blue for North unless the players chose), the
 * colour's name in the legend too, the last move's squares highlighted (the text marks them "."
 * and "( )"), grid and coordinates dim, the moves on each card in its
 * holder's colour, and every other line running text.
 */
static void
almakleh_render_style(const void *st, const struct game_view *v,
    const char *text, size_t len, char *style)
{
	const struct almakleh *a = st;
	int me = v->viewer == NORTH ? NORTH : SOUTH, holder = -1, held = 0;
	int rank, file, col, sq, hands = 0;
	size_t at = 0, end, i, nmid;
	const char *p, *legend = _("%s: master %c, pawns %c\n"), *mid;
	char master[64];

	/* The words between the name and the master's letter, as the
	 * reader's language writes them (": master "). */
	mid = strstr(legend, "%s");
	mid = mid ? mid + 2 : legend;
	nmid = strcspn(mid, "%");
	if (nmid >= sizeof(master))
		nmid = sizeof(master) - 1;
	memcpy(master, mid, nmid);
	master[nmid] = '\0';

	for (; at < len; at = end + 1) {
		end = at + strcspn(text + at, "\n");
		if (end > len)
			end = len;
		if (end == at) {
			holder = -1;
			continue;
		}
		if (end - at > 4 && text[at] == ' ' && text[at + 1] >= '1' &&
		    text[at + 1] <= '5' && text[at + 3] == '|') {
			/* A rank: " 5 | p | p |[m]| p | p | 5". */
			rank = text[at + 1] - '1';
			for (i = at; i < end; i++)
				style[i] = text[i] == ' ' ? 0 : GAME_STYLE_DIM;
			for (col = 0; col < 5 && at + 4 * (size_t)col + 7 <=
			    end; col++) {
				file = me == SOUTH ? col : 4 - col;
				sq = rank * 5 + file;
				i = at + 4 + 4 * (size_t)col;
				style[i] = style[i + 2] = text[i] == ' ' ? 0 :
				    GAME_STYLE_BOLD;
				style[i + 1] = (char)(strchr("PM", text[i + 1]) ?
				    GAME_STYLE_SEAT(a->colour[SOUTH]) |
				    GAME_STYLE_BOLD : strchr("pm", text[i + 1]) ?
				    GAME_STYLE_SEAT(a->colour[NORTH]) |
				    GAME_STYLE_BOLD : 0);
				if (a->last_kind == MV_MOVE && sq ==
				    a->last_to && a->last_took != EMPTY) {
					/* A capture: the square is marked
					 * taken (the text says so too). */
					style[i] = style[i + 1] = style[i + 2] =
					    GAME_STYLE_TAKEN;
				} else if (a->last_kind == MV_MOVE && (sq ==
				    a->last_from || sq == a->last_to)) {
					style[i] |= GAME_STYLE_LAST;
					style[i + 1] |= GAME_STYLE_LAST;
					style[i + 2] |= GAME_STYLE_LAST;
				}
			}
			continue;
		}
		if (strncmp(text + at, "   +-", 5) == 0 ||
		    strncmp(text + at, "     a   b", 10) == 0 ||
		    strncmp(text + at, "     e   d", 10) == 0) {
			for (i = at; i < end; i++)
				style[i] = text[i] == ' ' ? 0 : GAME_STYLE_DIM;
			continue;
		}
		if (strncmp(text + at, "        ", 8) == 0 && nmid > 0 &&
		    (p = strstr(text + at, master)) != NULL &&
		    (size_t)(p - text) + nmid < end) {
			/* A legend: "NAME (North, blue): master m, pawns
			 * p", the colour's name in its colour. */
			int seat = text[end - 1] == 'P' ? SOUTH : NORTH;
			char colour = (char)(GAME_STYLE_SEAT(a->colour[seat]) |
			    GAME_STYLE_BOLD);
			const char *cn = _(colour_names[a->colour[seat]]), *q;
			size_t cl = strlen(cn);

			style[p - text + nmid] = style[end - 1] = colour;
			for (q = text + at; (q = strstr(q, cn)) != NULL &&
			    q + cl <= p; q++)
				if (q + cl < p && (q[cl] == ')' ||
				    q[cl] == ',')) {
					memset(style + (q - text), colour, cl);
					break;
				}
			/* Text, so that a long name does not widen the
			 * board. */
			style[at] |= GAME_STYLE_TEXT;
			continue;
		}
		if (holder >= 0 && strncmp(text + at, "  ", 2) == 0) {
			/* A row of card names, then the diagrams. */
			for (i = at; i < end; i++) {
				if (held == 0)
					style[i] = GAME_STYLE_BOLD;
				else if (text[i] == 'x')
					style[i] = (char)(GAME_STYLE_SEAT(
					    a->colour[holder]) | GAME_STYLE_BOLD);
				else if (text[i] == 'o')
					style[i] = GAME_STYLE_BOLD;
				else if (text[i] == '.')
					style[i] = GAME_STYLE_DIM;
			}
			held++;
			continue;
		}
		style[at] |= GAME_STYLE_TEXT;
		if (fmt_fits(text + at, end - at, _("%s holds:\n")) ||
		    fmt_fits(text + at, end - at, _("%s holds, to move:\n"))) {
			/* The first hand listed is the seat to move's. */
			holder = hands++ == 0 ? a->turn : !a->turn;
			held = 0;
		}
	}
}

static void
almakleh_render(const void *st, const struct game_view *v, struct buf *b)
{
	const struct almakleh *a = st;
	int me = v->viewer == NORTH ? NORTH : SOUTH, them = !me, row, col;
	int rank, file, seat, i;
	const char *files = me == SOUTH ? "a   b   c   d   e" :
	    "e   d   c   b   a", *name[2];
	char nbuf[2][96], lbuf[128];

	for (seat = 0; seat < 2; seat++)
		name[seat] = view_name(v, seat, nbuf[seat], sizeof(nbuf[seat]));
	buf_adds(b, "        ");
	buf_printf(b, _("%s: master %c, pawns %c\n"),
	    legend_name(v, a, them, lbuf, sizeof(lbuf)),
	    them == SOUTH ? 'M' : 'm', them == SOUTH ? 'P' : 'p');
	buf_printf(b, "     %s\n", files);
	for (row = 0; row < 5; row++) {
		rank = me == SOUTH ? 4 - row : row;
		buf_adds(b, "   +---+---+---+---+---+\n");
		buf_printf(b, " %d |", rank + 1);
		for (col = 0; col < 5; col++) {
			file = me == SOUTH ? col : 4 - col;
			render_cell(b, a, rank * 5 + file);
		}
		buf_printf(b, " %d\n", rank + 1);
	}
	buf_adds(b, "   +---+---+---+---+---+\n");
	buf_printf(b, "     %s\n", files);
	buf_adds(b, "        ");
	buf_printf(b, _("%s: master %c, pawns %c\n"),
	    legend_name(v, a, me, lbuf, sizeof(lbuf)),
	    me == SOUTH ? 'M' : 'm', me == SOUTH ? 'P' : 'p');
	buf_addc(b, '\n');
	buf_adds(b, _("Portals: [c1] South's, [c5] North's.\n"
	    "Cards: o is the piece, x where it may go.\n"));

	if (a->last_kind == MV_MOVE) {
		char fs[3], ts[3];

		sq_name(a->last_from, fs);
		sq_name(a->last_to, ts);
		if (a->last_took == EMPTY)
			buf_printf(b, _("Last move: %s %s %s-%s, marked ( ).\n"),
			    name[a->last_seat], card_name(a, a->last_card),
			    fs, ts);
		else if (is_master(a->last_took))
			buf_printf(b, _("Last move: %s %s %s-%s, taking the "
			    "master, marked ( ).\n"), name[a->last_seat],
			    card_name(a, a->last_card), fs, ts);
		else
			buf_printf(b, _("Last move: %s %s %s-%s, taking a "
			    "pawn, marked ( ).\n"), name[a->last_seat],
			    card_name(a, a->last_card), fs, ts);
	} else if (a->last_kind == MV_PASS)
		buf_printf(b, _("Last move: %s passed %s.\n"),
		    name[a->last_seat], card_name(a, a->last_card));
	else if (a->last_kind == MV_REDEAL)
		buf_adds(b, _("The cards were dealt again; no move yet.\n"));
	else
		buf_printf(b, "%s\n", _("No move yet."));

	for (i = 0; i < 2; i++) {
		seat = i == 0 ? a->turn : !a->turn;
		buf_addc(b, '\n');
		if (seat == a->turn && !a->over)
			buf_printf(b, _("%s holds, to move:\n"), name[seat]);
		else
			buf_printf(b, _("%s holds:\n"), name[seat]);
		render_cards(b, a, a->hand[seat], a->nhand[seat], seat, me);
	}
	buf_addc(b, '\n');
	if (a->fresh != ALM_NONE && !a->over) {
		if (a->ply == 0)
			buf_printf(b, _("%s may not use %s on the first move "
			    "(the classic opening).\n"), _(seat_names[a->turn]),
			    card_name(a, a->fresh));
		else
			buf_printf(b, _("In transit: %s, passed by %s; %s may "
			    "use it from its next turn.\n"),
			    card_name(a, a->fresh), _(seat_names[!a->turn]),
			    _(seat_names[a->turn]));
	}
	if (a->discard) {
		buf_printf(b, P_("Draw pile: %d card.", "Draw pile: %d cards.",
		    a->npile), a->npile);
		buf_adds(b, "  ");
		buf_adds(b, _("Discards:"));
		buf_addc(b, ' ');
		if (a->ndisc == 0)
			buf_adds(b, _("none"));
		for (i = 0; i < a->ndisc; i++)
			buf_printf(b, "%s%s", i ? ", " : "",
			    card_name(a, a->disc[i]));
		buf_adds(b, ".\n");
	}
	if (a->centre && a->hold_seat != ALM_NONE && !a->over)
		buf_printf(b, P_("%s holds c3 (through %d opponent move).\n",
		    "%s holds c3 (through %d opponent moves).\n",
		    a->hold_count), _(seat_names[a->hold_seat]),
		    a->hold_count);
	if (a->ply == 0 && a->redeals > 0 && !a->over) {
		buf_printf(b, _("Before the first move, if both players send "
		    "`redeal`, the cards are dealt again (%d left).\n"),
		    a->redeals);
		if (a->asked)
			buf_printf(b, _("%s has asked for a redeal.\n"),
			    _(seat_names[a->asked & 1 ? SOUTH : NORTH]));
	}
	if (a->over) {
		struct game_result r;

		almakleh_result(st, &r);
		buf_printf(b, _("Game over: %s.\n"), r.text);
	} else if (!v->no_turn)
		buf_printf(b, _("%s to move.\n"), name[a->turn]);
}

/*
 * The drawing: the board from the reader's side as almakleh_render()
 * turns it, pieces in their faction's colour (the letters of the text:
 * M and P for South, m and p for North), the portals framed, the last
 * move's squares marked; then each hand's cards as move diagrams,
 * the hand of the seat to move first, turned as the board is.
 */
static void
almakleh_draw(const void *st, const struct game_view *v, struct game_pic *pic)
{
	const struct almakleh *a = st;
	int me = v->viewer == NORTH ? NORTH : SOUTH, row, col, rank, file, sq;
	int i, k, seat, x, y, dx, dy, look, who;
	struct game_grid *g;
	char t[GAME_CELL_TEXT], cap[64];
	uint8_t p;

	g = game_pic_grid(pic, GAME_GRID_BOARD, 6, 6, 0, NULL);
	if (g == NULL)
		return;
	for (row = 0; row < 5; row++) {
		rank = me == SOUTH ? 4 - row : row;
		snprintf(t, sizeof(t), "%d", rank + 1);
		game_pic_set(pic, g, row, 0, GAME_CELL_LABEL, GAME_STYLE_DIM, t);
		for (col = 0; col < 5; col++) {
			file = me == SOUTH ? col : 4 - col;
			if (row == 0) {
				snprintf(t, sizeof(t), "%c", 'a' + file);
				game_pic_set(pic, g, 5, col + 1,
				    GAME_CELL_LABEL, GAME_STYLE_DIM, t);
			}
			sq = rank * 5 + file;
			p = piece_at(a, sq);
			who = owner(p);
			look = who >= 0 ? GAME_STYLE_SEAT(a->colour[who]) : 0;
			if (a->last_kind == MV_MOVE && (sq == a->last_from ||
			    sq == a->last_to))
				look |= GAME_STYLE_LAST;
			/* A portal is framed (bold), its owner's letter
			 * small in it when it is empty. */
			if (sq == portal(SOUTH) || sq == portal(NORTH))
				look |= GAME_STYLE_BOLD;
			t[0] = piece_chars[p];
			t[1] = '\0';
			if (p != EMPTY)
				game_pic_set(pic, g, row, col + 1,
				    GAME_CELL_PIECE, look, t);
			else
				game_pic_set(pic, g, row, col + 1,
				    GAME_CELL_POINT, look, "");
		}
	}
	for (i = 0; i < 2; i++) {
		seat = i == 0 ? a->turn : !a->turn;
		for (k = 0; k < a->nhand[seat]; k++) {
			snprintf(cap, sizeof(cap), "%s%s",
			    card_name(a, a->hand[seat][k]),
			    seat == a->turn && a->hand[seat][k] == a->fresh &&
			    !a->over ? _(" (not now)") : "");
			g = game_pic_grid(pic, GAME_GRID_MOVES, 5, 5, 1 + i,
			    cap);
			for (y = 2; y >= -2; y--)
				for (x = -2; x <= 2; x++) {
					dx = seat == me ? x : -x;
					dy = seat == me ? y : -y;
					if (x == 0 && y == 0)
						game_pic_set(pic, g, 2 - y,
						    x + 2, GAME_CELL_DOT,
						    GAME_STYLE_BOLD, "o");
					else if (side_has(face_of(a,
					    a->hand[seat][k]), dx, dy))
						game_pic_set(pic, g, 2 - y,
						    x + 2, GAME_CELL_DOT,
						    GAME_STYLE_SEAT(
						    a->colour[seat]), "x");
					else
						game_pic_set(pic, g, 2 - y,
						    x + 2, GAME_CELL_DOT,
						    GAME_STYLE_DIM, "");
				}
		}
	}
}

static void
write_side(struct buf *b, const struct alm_side *s)
{
	int k;

	buf_adds(b, s->name);
	for (k = 0; k < s->n; k++)
		buf_printf(b, " %d,%d", s->dx[k], s->dy[k]);
}

static void
write_cards(struct buf *b, const char *label, const struct almakleh *a,
    const uint8_t *cards, int n)
{
	int i;

	buf_adds(b, label);
	if (n == 0)
		buf_adds(b, " -");
	for (i = 0; i < n; i++)
		buf_printf(b, " %s", card_name(a, cards[i]));
	buf_addc(b, '\n');
}

static void
almakleh_serialise(const void *st, struct buf *b)
{
	const struct almakleh *a = st;
	char rng[RNG_TEXT_LEN];
	int c, sq;

	buf_printf(b, "almakleh cards=%s centre=%d opening=%s redeals=%d "
	    "asked=%d", a->discard ? "discard" : "pass", a->centre,
	    a->classic ? "classic" : "normal", a->redeals, a->asked);
	/* Written only when chosen, so states from before colours read
	 * as they always did. */
	if (a->colour[SOUTH] != COLOUR_RED || a->colour[NORTH] != COLOUR_BLUE)
		buf_printf(b, " colours=%s,%s", colour_names[a->colour[SOUTH]],
		    colour_names[a->colour[NORTH]]);
	buf_addc(b, '\n');
	for (c = 0; c < deck_of(a)->ncards; c++) {
		buf_adds(b, "card ");
		write_side(b, &deck_of(a)->side[c][0]);
		buf_adds(b, " | ");
		write_side(b, &deck_of(a)->side[c][1]);
		buf_addc(b, '\n');
	}
	buf_adds(b, "board");
	for (sq = 0; sq < ALM_SQ; sq++) {
		if (sq % 5 == 0)
			buf_addc(b, ' ');
		buf_addc(b, piece_chars[piece_at(a, sq)]);
	}
	buf_addc(b, '\n');
	write_cards(b, "south", a, a->hand[SOUTH], a->nhand[SOUTH]);
	write_cards(b, "north", a, a->hand[NORTH], a->nhand[NORTH]);
	write_cards(b, "fresh", a, &a->fresh, a->fresh != ALM_NONE);
	write_cards(b, "pile", a, a->pile, a->npile);
	write_cards(b, "discard", a, a->disc, a->ndisc);
	buf_printf(b, "turn=%d ply=%d over=%d winner=%d how=%d hold=%d:%d "
	    "last=%d:%d:%d:%d:%d:%d\n", a->turn, a->ply, a->over, a->winner,
	    a->how, a->hold_seat == ALM_NONE ? -1 : a->hold_seat,
	    a->hold_count, a->last_seat, a->last_kind,
	    a->last_card == ALM_NONE ? -1 : a->last_card, a->last_from,
	    a->last_to, a->last_took);
	rng_format(&a->rng, rng);
	buf_printf(b, "rng %s\n", rng);
}

/* A card list line: names of face-up sides after the label, or `-`. */
static int
read_cards(struct almakleh *a, char *line, const char *label, uint8_t *out,
    int max, uint8_t *seen)
{
	char *p, *tok;
	int n = 0, c, f;
	size_t ll = strlen(label);

	if (strncmp(line, label, ll) != 0 || line[ll] != ' ')
		return -1;
	p = line + ll + 1;
	if (strcmp(p, "-") == 0)
		return 0;
	while ((tok = strtok_r(p, " ", &p)) != NULL) {
		if (n == max || (c = find_side(deck_of(a), tok, &f)) == -1 ||
		    seen[c] || strcmp(tok, deck_of(a)->side[c][f].name) != 0)
			return -1;
		seen[c] = 1;
		set_face(a, (uint8_t)c, f);
		out[n++] = (uint8_t)c;
	}
	return n;
}

/* The rest of a state's first line: nothing (red and blue), or
 * " colours=FIRST,SECOND". */
static int
colours_state(struct almakleh *a, const char *rest)
{
	char e[GAME_ERRLEN];

	a->colour[SOUTH] = COLOUR_RED;
	a->colour[NORTH] = COLOUR_BLUE;
	if (*rest == '\0')
		return 0;
	if (strncmp(rest, " colours=", 9) != 0 || strchr(rest + 9, ',') ==
	    NULL || strchr(rest + 9, ' ') != NULL)
		return -1;
	return colours_read(a, rest + 9, e, sizeof(e));
}

static int
almakleh_parse_state(void *st, const char *text, char *err, size_t errlen)
{
	struct almakleh a;
	struct alm_deckdef def;
	char *copy, *lines[64], *p, *q, cardsopt[16], openopt[16];
	uint8_t seen[ALM_MAXCARDS] = { 0 };
	int n = 0, i, k, rc = -1, end, centre, redeals, asked, sq;
	int turn, ply, over, winner, how, hs, hc, ls, lk, lc, lf, lt, lto;
	int fc = -1, ff, masters[2] = { 0, 0 }, pieces[2] = { 0, 0 }, o, d;

	memset(&a, 0, sizeof(a));
	memset(&def, 0, sizeof(def));
	copy = xstrdup(text);
	for (p = copy; p != NULL && *p != '\0' && n < (int)nitems(lines); n++) {
		lines[n] = p;
		if ((p = strchr(p, '\n')) != NULL)
			*p++ = '\0';
	}
	if (n < 1 || sscanf(lines[0], "almakleh cards=%15s centre=%d "
	    "opening=%15s redeals=%d asked=%d%n", cardsopt, &centre, openopt,
	    &redeals, &asked, &end) != 5 ||
	    colours_state(&a, lines[0] + end) == -1 ||
	    (centre != 0 && centre != 1) || redeals < 0 || redeals > 9 ||
	    asked < 0 || asked > 3)
		goto bad;
	if (strcmp(cardsopt, "discard") == 0)
		a.discard = 1;
	else if (strcmp(cardsopt, "pass") != 0)
		goto bad;
	if (strcmp(openopt, "classic") == 0)
		a.classic = 1;
	else if (strcmp(openopt, "normal") != 0)
		goto bad;
	a.centre = (uint8_t)centre;
	a.redeals = (uint8_t)redeals;
	a.asked = (uint8_t)asked;
	for (i = 1; i < n && strncmp(lines[i], "card ", 5) == 0; i++)
		if (deck_card(&def, lines[i] + 5, i, err, errlen) == -1)
			goto bad;
	if (def.ncards < (a.discard ? 6 : 5) || n != i + 8)
		goto bad;
	if ((d = deck_intern(&def, err, errlen)) == -1) {
		free(copy);
		return -1;
	}
	a.deck = (uint8_t)d;
	a.master[SOUTH] = a.master[NORTH] = ALM_NONE;
	p = lines[i++];
	if (strncmp(p, "board", 5) != 0)
		goto bad;
	p += 5;
	for (sq = 0; sq < ALM_SQ; sq++) {
		if (sq % 5 == 0 && *p++ != ' ')
			goto bad;
		if (*p == '\0' || (q = strchr(piece_chars, *p)) == NULL)
			goto bad;
		end = (int)(q - piece_chars);
		if (end != EMPTY) {
			o = owner((uint8_t)end);
			pieces[o]++;
			a.occ[o] |= 1u << sq;
			if (is_master((uint8_t)end)) {
				masters[o]++;
				a.master[o] = (uint8_t)sq;
			}
		}
		p++;
	}
	if (*p != '\0' || masters[0] > 1 || masters[1] > 1 || pieces[0] > 5 ||
	    pieces[1] > 5)
		goto bad;
	if ((k = read_cards(&a, lines[i++], "south", a.hand[SOUTH], 3,
	    seen)) < 0)
		goto bad;
	a.nhand[SOUTH] = (uint8_t)k;
	if ((k = read_cards(&a, lines[i++], "north", a.hand[NORTH], 3,
	    seen)) < 0)
		goto bad;
	a.nhand[NORTH] = (uint8_t)k;
	/* The fresh card is one of the hand cards just read, face up. */
	p = lines[i++];
	if (strncmp(p, "fresh ", 6) != 0)
		goto bad;
	if (strcmp(p + 6, "-") != 0 && ((fc = find_side(&def, p + 6, &ff)) ==
	    -1 || !seen[fc] || face_up(&a, (uint8_t)fc) != ff ||
	    strcmp(p + 6, def.side[fc][ff].name) != 0))
		goto bad;
	if ((k = read_cards(&a, lines[i++], "pile", a.pile, ALM_MAXCARDS,
	    seen)) < 0)
		goto bad;
	a.npile = (uint8_t)k;
	if ((k = read_cards(&a, lines[i++], "discard", a.disc, ALM_MAXCARDS,
	    seen)) < 0)
		goto bad;
	a.ndisc = (uint8_t)k;
	if (sscanf(lines[i++], "turn=%d ply=%d over=%d winner=%d how=%d "
	    "hold=%d:%d last=%d:%d:%d:%d:%d:%d%n", &turn, &ply, &over,
	    &winner, &how, &hs, &hc, &ls, &lk, &lc, &lf, &lt, &lto, &end) !=
	    13 || lines[i - 1][end] != '\0')
		goto bad;
	if (turn < 0 || turn > 1 || ply < 0 || ply > ALM_PLY_MAX ||
	    over < 0 || over > 1 || winner < 0 || winner > 1 || how < 0 ||
	    how > WIN_CENTRE || (over != (how != WIN_NONE)) ||
	    hs < -1 || hs > 1 || hc < 0 || hc > 255 ||
	    (hs == -1 && hc != 0) || ls < 0 || ls > 1 ||
	    lk < MV_NONE || lk > MV_REDEAL || lc < -1 || lc >= def.ncards ||
	    lf < 0 || lf >= ALM_SQ || lt < 0 || lt >= ALM_SQ || lto < EMPTY ||
	    lto > MASTER1)
		goto bad;
	if (strncmp(lines[i], "rng ", 4) != 0 ||
	    rng_parse(&a.rng, lines[i] + 4) == -1)
		goto bad;
	a.turn = (uint8_t)turn;
	a.ply = (uint16_t)ply;
	a.over = (uint8_t)over;
	a.winner = (uint8_t)winner;
	a.how = (uint8_t)how;
	a.hold_seat = hs == -1 ? ALM_NONE : (uint8_t)hs;
	a.hold_count = (uint8_t)hc;
	a.last_seat = (uint8_t)ls;
	a.last_kind = (uint8_t)lk;
	a.last_card = lc == -1 ? ALM_NONE : (uint8_t)lc;
	a.last_from = (uint8_t)lf;
	a.last_to = (uint8_t)lt;
	a.last_took = (uint8_t)lto;
	a.fresh = fc == -1 ? ALM_NONE : (uint8_t)fc;

	/* Hands as the card flow leaves them. */
	if (a.discard) {
		if (a.nhand[0] != 3 || a.nhand[1] != 3 ||
		    a.npile + a.ndisc + 6 != def.ncards)
			goto bad;
		if (a.fresh != ALM_NONE && (ply != 0 || !a.classic))
			goto bad;
	} else if (a.nhand[a.turn] != 3 || a.nhand[!a.turn] != 2 ||
	    a.npile || a.ndisc)
		goto bad;
	if (a.fresh != ALM_NONE && !in_hand(&a, a.turn, a.fresh))
		goto bad;
	if ((lk == MV_MOVE || lk == MV_PASS) && a.last_card == ALM_NONE)
		goto bad;
	if (a.hold_seat != ALM_NONE && sq_owner(&a, ALM_CENTRE) !=
	    a.hold_seat)
		goto bad;
	tidy_faces(&a);
	memcpy(st, &a, sizeof(a));
	rc = 0;
bad:
	if (rc == -1)
		util_err(err, errlen, "malformed Almakleh state");
	free(copy);
	return rc;
}

static void
json_cards(struct buf *b, const struct almakleh *a, const uint8_t *cards,
    int n)
{
	const struct alm_side *s;
	int i, k;

	buf_addc(b, '[');
	for (i = 0; i < n; i++) {
		s = face_of(a, cards[i]);
		buf_printf(b, "%s{\"name\":", i ? "," : "");
		util_json_str(b, s->name);
		buf_adds(b, ",\"moves\":[");
		for (k = 0; k < s->n; k++)
			buf_printf(b, "%s[%d,%d]", k ? "," : "", s->dx[k],
			    s->dy[k]);
		buf_adds(b, "]}");
	}
	buf_addc(b, ']');
}

static void
almakleh_export_json(const void *st, struct buf *b)
{
	const struct almakleh *a = st;
	char row[6], fs[3], ts[3];
	int r, f;

	buf_printf(b, "{\"game\":\"almakleh\",\"cards\":\"%s\",\"centre\":%s,"
	    "\"opening\":\"%s\",\"redeals\":%d,\"ply\":%d,\"to_move\":%s,"
	    "\"over\":%s", a->discard ? "discard" : "pass",
	    a->centre ? "true" : "false", a->classic ? "classic" : "normal",
	    a->redeals, a->ply, a->over ? "null" : a->turn == SOUTH ?
	    "\"South\"" : "\"North\"", a->over ? "true" : "false");
	if (a->over)
		buf_printf(b, ",\"winner\":\"%s\",\"how\":\"%s\"",
		    seat_names[a->winner], a->how == WIN_PORTAL ? "portal" :
		    a->how == WIN_CAPTURE ? "capture" : "centre");
	buf_adds(b, ",\"board\":[");
	for (r = 0; r < 5; r++) {
		for (f = 0; f < 5; f++)
			row[f] = piece_chars[piece_at(a, r * 5 + f)];
		row[5] = '\0';
		buf_printf(b, "%s\"%s\"", r ? "," : "", row);
	}
	buf_adds(b, "],\"south\":");
	json_cards(b, a, a->hand[SOUTH], a->nhand[SOUTH]);
	buf_adds(b, ",\"north\":");
	json_cards(b, a, a->hand[NORTH], a->nhand[NORTH]);
	buf_adds(b, ",\"fresh\":");
	if (a->fresh == ALM_NONE)
		buf_adds(b, "null");
	else
		util_json_str(b, card_name(a, a->fresh));
	buf_adds(b, ",\"pile\":");
	json_cards(b, a, a->pile, a->npile);
	buf_adds(b, ",\"discard\":");
	json_cards(b, a, a->disc, a->ndisc);
	if (a->ply == 0)
		buf_printf(b, ",\"redeal_asked\":{\"South\":%s,\"North\":%s}",
		    a->asked & 1 ? "true" : "false",
		    a->asked & 2 ? "true" : "false");
	if (a->centre)
		buf_printf(b, ",\"hold\":{\"seat\":%s,\"count\":%d}",
		    a->hold_seat == ALM_NONE ? "null" : a->hold_seat == SOUTH ?
		    "\"South\"" : "\"North\"", a->hold_count);
	if (a->last_kind == MV_MOVE || a->last_kind == MV_PASS) {
		buf_printf(b, ",\"last\":{\"seat\":\"%s\",\"card\":",
		    seat_names[a->last_seat]);
		util_json_str(b, card_name(a, a->last_card));
		if (a->last_kind == MV_MOVE) {
			sq_name(a->last_from, fs);
			sq_name(a->last_to, ts);
			buf_printf(b, ",\"from\":\"%s\",\"to\":\"%s\"", fs, ts);
		} else
			buf_adds(b, ",\"pass\":true");
		buf_adds(b, "}");
	}
	buf_adds(b, "}");
}

/*
 * For the robots.  A pawn is the unit of material (a master is the game
 * itself: taking it ends play, which the search sees).  A master near the
 * opponent's portal threatens the other way to win; every square a usable
 * card reaches counts a little; a master within reach of an enemy piece
 * counts much, whoever is to move (the search settles who gets there
 * first).  Every term is counted for both seats alike and subtracted
 * (antisymmetric).  A finished game scores its result.
 */
static int
almakleh_side_value(const struct almakleh *a, int seat)
{
	const uint32_t *r;
	uint32_t own = a->occ[seat], master = 0, enemy = 0, b, t;
	int v, sq, i, df, dr, dist;
	uint8_t c;

	if (a->master[seat] != ALM_NONE)
		master = 1u << a->master[seat];
	if (a->master[!seat] != ALM_NONE)
		enemy = 1u << a->master[!seat];
	v = 100 * bits64(own & ~master);
	if (own & master) {
		sq = a->master[seat];
		df = abs(sq % 5 - portal(!seat) % 5);
		dr = abs(sq / 5 - portal(!seat) / 5);
		dist = df > dr ? df : dr;
		v += 10 * (4 - dist);
	}
	for (i = 0; i < a->nhand[seat]; i++) {
		if (!usable(a, seat, c = a->hand[seat][i]))
			continue;
		r = reach_of(a, c, seat);
		for (b = own; b != 0; b &= b - 1) {
			t = r[__builtin_ctz(b)] & ~own;
			v += 2 * bits64(t);
			if (t & enemy & a->occ[!seat])
				v += 50;
		}
	}
	return v;
}

static int
almakleh_evaluate(const void *st, int seat)
{
	const struct almakleh *a = st;

	if (a->over)
		return a->winner == seat ? 100000 : -100000;
	return almakleh_side_value(a, seat) - almakleh_side_value(a, !seat);
}

/* Squares, the cards of this game's deck (either side), pass, redeal. */
static int
almakleh_move_word(const void *st, const char *w)
{
	int face;

	return game_word_is_points(w) || strcmp(w, "pass") == 0 ||
	    strcmp(w, "redeal") == 0 || find_side(deck_of(st), w, &face) != -1;
}

/* Hands are open; what is hidden is the cards not dealt and, with
 * cards=discard, the draw pile: a move draws from it, and a redeal both
 * seats asked for deals anew. */
static int
almakleh_reveals(const void *st, int seat, const struct game_move *m)
{
	const struct almakleh *a = st;

	if (m->d[0] == MV_REDEAL)
		return (a->asked | (1u << seat)) == 3;
	return a->discard != 0;
}

const struct game_ops almakleh_ops = {
	.name = "almakleh",
	.title = "Almakleh",
	.state_size = sizeof(struct almakleh),
	.create = almakleh_create,
	.seats = almakleh_seats,
	.seat_name = almakleh_seat_name,
	.to_move = almakleh_to_move,
	.legal = almakleh_legal,
	.parse_move = almakleh_parse_move,
	.format_move = almakleh_format_move,
	.apply = almakleh_apply,
	.result = almakleh_result,
	.render = almakleh_render,
	.render_style = almakleh_render_style,
	.draw = almakleh_draw,
	.serialise = almakleh_serialise,
	.parse_state = almakleh_parse_state,
	.export_json = almakleh_export_json,
	.evaluate = almakleh_evaluate,
	.move_word = almakleh_move_word,
	.chance = 1,
	.reveals = almakleh_reveals,
	.shared_deck = "almakleh",
	.over = almakleh_over,
	.count_legal = almakleh_count_legal,
};

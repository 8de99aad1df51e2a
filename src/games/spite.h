/*
 * spite.h: the state of Spite & Malice, shared by the engine (spite.c)
 * and its robot (spite-bot.c) only.
 *
 * The robot reads a position from this struct, not from the serialised
 * text, but only through spite_seen() (spite-bot.c), which takes what a
 * seat may see: the match and round counters, the centre stacks, every
 * side stack, each payoff pile's size and top card, each hand's size,
 * the stock's size, and the seat's own hand.  It never reads the stock's
 * cards, the payoff cards under the tops, the other seat's hand or the
 * generator: those are hidden, and determinize() deals them anew.
 */
#ifndef LUDUS_SPITE_H
#define LUDUS_SPITE_H

#include <stdint.h>

#include "../rng.h"

#define SPITE_RANKS	13
#define SPITE_COPIES	8
#define SPITE_CARDS	(SPITE_RANKS * SPITE_COPIES)
#define SPITE_KING	13
#define SPITE_QUEEN	12
#define SPITE_MAXPAYOFF	30
#define SPITE_MAXHAND	10
#define SPITE_MAXCENTRE	6
#define SPITE_SIDES	4
#define SPITE_MAXTARGET	1000
#define SPITE_MAXDRY	100

/* Move encoding: d[0] source kind, d[1] source index (side stack 0-3 or
 * rank 1-13), d[2] target kind, d[3] target index (0-based). */
enum { SRC_PAYOFF, SRC_SIDE, SRC_HAND, SRC_END };
enum { DST_CENTRE, DST_SIDE };

/* What ended the previous round, for the board mail. */
enum { PREV_NONE = -1, PREV_DRY = 2 };

struct spite_seat {
	uint8_t	 npay;
	uint8_t	 pay[SPITE_MAXPAYOFF];
	uint8_t	 nhand;
	uint8_t	 hand[SPITE_MAXHAND];	/* kept sorted by rank */
	uint8_t	 nside[SPITE_SIDES];	/* cards in side[] of struct spite */
};

struct spite {
	/* options */
	uint8_t	 opt_payoff, opt_hand, opt_centre, opt_refill;
	uint16_t opt_target, opt_dry;

	uint16_t round;		/* 1-based */
	uint8_t	 starter;	/* seat that started this round */
	uint8_t	 turn;
	uint8_t	 over;
	int8_t	 winner;	/* seat, or -1 for a draw (when over) */
	uint16_t score[2];
	uint16_t dry;		/* no-score rounds in a row */
	int8_t	 prev;		/* PREV_NONE, PREV_DRY or the seat that scored */
	uint16_t prev_points;

	uint8_t	 nstock;
	uint8_t	 stock[SPITE_CARDS];
	uint8_t	 ncentre[SPITE_MAXCENTRE];
	/* A centre stack's card i is rank i + 1 or a King standing for it:
	 * bit i says which. */
	uint16_t kings[SPITE_MAXCENTRE];
	struct spite_seat p[2];
	/* The eight side stacks one after the other, South's s1-s4 then
	 * North's, each bottom to top, zeros after the last: together they
	 * hold at most the deck, so the state stays small (it is copied at
	 * every node of a search). */
	uint8_t	 side[SPITE_CARDS];
	struct rng rng;
};

/* Where side stack k of the seat begins in s->side, and where all end. */
static inline int
spite_side_at(const struct spite *s, int seat, int k)
{
	const uint8_t *south = s->p[0].nside, *n = s->p[seat].nside;
	int at = seat ? south[0] + south[1] + south[2] + south[3] : 0;

	switch (k) {
	case 4:
		at += n[3];
		/* FALLTHROUGH */
	case 3:
		at += n[2];
		/* FALLTHROUGH */
	case 2:
		at += n[1];
		/* FALLTHROUGH */
	case 1:
		at += n[0];
		break;
	}
	return at;
}

/* What a seat may see of a position (seat 0 or 1), or, with seat -1, all
 * of it but the stock's cards and the payoff cards under the tops: both
 * hands, for the state of a simulation, whose hidden cards the robot dealt
 * itself (determinize()).  The cards are ranks, piles bottom to top;
 * what is not there is 0. */
struct spite_seen {
	int	round, turn, over, winner, score[2];
	int	ncentre;
	int	centre[SPITE_MAXCENTRE];	/* cards on each centre stack */
	int	npay[2], top[2];
	int	nhand[2];
	int	hand[2][SPITE_MAXHAND];	/* the seat's own (both with -1) */
	int	nstock;
	int	nside[2][SPITE_SIDES];
	unsigned char side[2][SPITE_SIDES][SPITE_CARDS];
};

void	spite_seen(const struct spite *, int seat, struct spite_seen *);

#endif

/*
 * aluette.h: the state of Aluette, shared by the engine (aluette.c) and
 * its robot (aluette-bot.c) only.
 *
 * The robot reads a position from this struct, not from the serialised
 * text, but only through aluette_seen() (aluette-bot.c), which takes what
 * a seat may see: the table, the trick on it, the cards of the tricks
 * already played, and the seat's own hand and discards.  It never reads
 * another seat's hand or discards, nor the stock, card by card: those are
 * hidden, and determinize() deals them anew.  The cards already played
 * are those in none of the places (hands, discards, stock, trick), so
 * aluette_seen() takes the union of the hidden places as one set, which
 * is the same in every deal the seat cannot tell apart, and never which
 * of them holds a card.  The hooks that run inside the search's
 * simulations (aluette-bot.c's play and playout), on a state already
 * determinized, read a few public fields directly instead, the ones
 * aluette_seen() would copy and those it leaves out as nobody's secret:
 * the phase, the trick on the table and its leader, the table's order,
 * the counts of tricks and hands, and through aluette_last_card_points()
 * the tricks won.
 */
#ifndef LUDUS_ALUETTE_H
#define LUDUS_ALUETTE_H

#include <stdint.h>

#include "../rng.h"

#define NCARDS		48
#define NSEATS		4
#define HANDSIZE	9
#define NSTOCK		12
#define NTRICKS		9
#define NHANDS		5
#define CHANGE_TAKE	6
#define ALUETTE_MAXSIG	8
#define NOBODY		255
#define ALLTRICKS	0x1ffu

enum phase { PH_ASK, PH_DISCARD, PH_PLAY, PH_OVER };
enum { LOC_HAND = 0, LOC_STOCK = 4, LOC_DISCARD = 5, LOC_TRICK = 9,
	LOC_PLAYED = 10 };
enum { SIG_PARTNER, SIG_TABLE, SIG_OFF };
enum { MV_PLAY = 1, MV_CHANGE, MV_NOCHANGE, MV_DISCARD, MV_SIGNAL };

struct aluette_sig {
	uint8_t	seat;
	uint8_t	code;		/* index into signal_names */
	uint8_t	tricks;		/* tricks completed when it was made */
};

struct aluette {
	/*
	 * What the play of a card reads and changes comes first, in a few
	 * words: a hand is a bit per card in the order of strength
	 * (card_at[], strongest at bit 0), so its cards come out strongest
	 * first and a card leaves it by clearing one bit; nhand[] counts
	 * them.  A card played changes nothing from table[] on, except the
	 * hand's last (aluette_apply_span()).
	 */
	uint64_t hand[NSEATS];
	uint16_t won[NSEATS];	/* bit t: the seat won trick t + 1 */
	uint8_t	nhand[NSEATS];
	uint8_t	trick[NSEATS];	/* in play order from the leader */
	uint8_t	phase;
	uint8_t	turn;		/* PH_PLAY: the seat to play */
	uint8_t	leader;
	uint8_t	ntrick;		/* cards on the table */
	uint8_t	ndone;		/* tricks completed this hand */
	uint8_t	last_hand;	/* hand of the last completed trick, 0: none */
	uint8_t	last_leader;
	uint8_t	last_winner;	/* NOBODY: spoiled */
	uint8_t	last[NSEATS];
	uint8_t	table[NSEATS];	/* table position -> seat */
	uint8_t	pos[NSEATS];	/* seat -> table position */
	uint8_t	left[NSEATS];	/* seat -> the seat on its left */
	uint64_t disc[NSEATS];	/* changer discards, bit c: card c */
	uint8_t	teams_fixed;
	uint8_t	changer;
	uint8_t	mordienne;
	uint8_t	signals;
	uint8_t	first_dealer;
	uint8_t	handno;		/* 1..NHANDS */
	uint8_t	dealer;
	uint8_t	asked;		/* changer: `change` answers so far */
	uint8_t	nstock;
	uint8_t	stock[NSTOCK];	/* undealt, in deal order */
	uint8_t	points[2];	/* North-South, East-West */
	uint8_t	hist_winner[NHANDS];	/* NOBODY: all nine spoiled */
	uint8_t	hist_points[NHANDS];
	uint8_t	hist_tricks[NHANDS];
	uint8_t	nfaceup;	/* 0 with teams=fixed */
	uint8_t	faceup[NCARDS];	/* the face-up deal, in order */
	uint8_t	nsig;
	struct aluette_sig sig[NSEATS * ALUETTE_MAXSIG];
	struct rng rng;		/* every deal after the first draws here */
};

/* The 48 cards in the order of strength, the strongest first (classes
 * as card_class() says; equal classes by card number), and each card's
 * place in that order, card_ord[card_at[i]] == i: the bit of a card in a
 * hand.  class_of[] is card_class() as a table. */
static const uint8_t card_at[NCARDS] = { 2, 14, 1, 13, 20, 8, 37, 25, 0,
	12, 24, 36, 11, 23, 35, 47, 10, 22, 34, 46, 9, 21, 33, 45, 32, 44, 7,
	19, 31, 43, 6, 18, 30, 42, 5, 17, 29, 41, 4, 16, 28, 40, 3, 15, 27,
	39, 26, 38 };
static const uint8_t card_ord[NCARDS] = { 8, 2, 0, 42, 38, 34, 30, 26, 5,
	20, 16, 12, 9, 3, 1, 43, 39, 35, 31, 27, 4, 21, 17, 13, 10, 7, 46, 44,
	40, 36, 32, 28, 24, 22, 18, 14, 11, 6, 47, 45, 41, 37, 33, 29, 25, 23,
	19, 15 };
static const uint8_t class_of[NCARDS] = { 9, 3, 1, 18, 17, 16, 15, 14, 6,
	12, 11, 10, 9, 4, 2, 18, 17, 16, 15, 14, 5, 12, 11, 10, 9, 8, 19, 18,
	17, 16, 15, 14, 13, 12, 11, 10, 9, 7, 19, 18, 17, 16, 15, 14, 13, 12,
	11, 10 };

#define CARD_BIT(c)	((uint64_t)1 << card_ord[c])

/* What a seat may see of a position.  Cards are suit * 12 + rank index. */
struct aluette_seen {
	int	table[NSEATS];
	int	leader, ntrick, trick[NSEATS];
	int	nhand, hand[NCARDS];	/* the seat's own, strongest first */
	int	unseen;			/* cards the seat has not seen */
	unsigned char seen[NCARDS];
};

void	aluette_seen(const struct aluette *, int seat, struct aluette_seen *);
/* What the hand's last card scores, without playing it (aluette.c): the
 * points and the seats of the side that scores them. */
int	aluette_last_card_points(const struct aluette *, int card,
	    uint32_t *seats);

#endif

/*
 * mancala.h: the state of Kalah, shared by the engine (mancala.c) and its
 * endgame database (mancala-db.c) only.
 *
 * The board is one ring of 2 * pits + 2 holes in sowing order as seen from
 * South: South's pits 1..n, South's store, North's pits 1..n, North's
 * store.  A seat's pit i (1-based) sits at ring[side * (n + 1) + i - 1] and
 * its store at ring[side * (n + 1) + n].
 */
#ifndef LUDUS_MANCALA_H
#define LUDUS_MANCALA_H

#include <stddef.h>
#include <stdint.h>

#define MANCALA_MAXPITS	8
#define MANCALA_RING	(2 * MANCALA_MAXPITS + 2)

struct mancala {
	/* First, so that its words are aligned. */
	uint8_t	 ring[24];	/* MANCALA_RING holes, then zeros */
	uint8_t	 pits;		/* per side */
	uint8_t	 seeds;		/* initial per pit */
	uint8_t	 empty_capture;
	uint8_t	 turn;		/* seat to move */
	uint8_t	 over;
	uint8_t	 last_seat;
	uint8_t	 last_pit;	/* 1-based; 0 = no move yet */
	uint16_t ply;
};

extern const struct game_ops mancala_ops;

/*
 * The endgame database: for every position of a board size and capture
 * rule whose pits hold at most max_seeds seeds between them, the seeds the
 * seat to move gains on the other from here to the end of the game (its
 * store's growth less the other's, the final sweep included) under
 * perfect play by both.  Stores do not matter: what is in them stays.
 *
 * mancala_db_value() answers from the database of the state's size and
 * rule, built in memory at its first use in the process with the seed
 * limit mancala_db_seeds() gives for the size (at most about
 * MANCALA_DB_BYTES bytes, a byte a position); 1 with *gain set, or 0 when
 * the position is not in it (more seeds in the pits, the game over).
 * Building it takes about a second for the largest; it is kept until the
 * process ends.  The engine hands in its own operations (mancala_ops), by
 * which the database plays the moves, so that the database names nothing
 * of the engine's and the two files do not call each other.
 */
#define MANCALA_DB_BYTES	((size_t)1 << 20)

int	 mancala_db_seeds(int pits);
int	 mancala_db_value(const struct game_ops *, const struct mancala *,
	    int *gain);

/*
 * A database of one size, rule and limit, for tests and bench/: NULL
 * when it would take more than max_bytes.  Owned by the caller, freed
 * with mancala_db_free.
 */
struct mancala_db;
struct mancala_db *mancala_db_build(const struct game_ops *, int pits,
	    int empty_capture, int max_seeds, size_t max_bytes);
/* Positions it holds. */
size_t	 mancala_db_size(const struct mancala_db *);
/* As mancala_db_value, from this database. */
int	 mancala_db_probe(const struct mancala_db *, const struct mancala *,
	    int *gain);
void	 mancala_db_free(struct mancala_db *);

#endif

/*
 * rating: Glicko-2, as Glickman's "Example of the Glicko-2 system" (Boston
 * University, 2013 revision) states it, plus what a referee needs around it:
 * deviation growing while a player is idle, and turning an ended game (two
 * players, or two partnerships) into the results the update reads.
 *
 * Every function is pure over small values: no allocation, no clock, no
 * store.  The store keeps one struct rating per (player, game kind) exactly
 * as rating_game() leaves it; what is shown (`list`, standings) is
 * rating_decay() of the stored value at the time of showing, never stored
 * back, so idle periods are counted once.
 *
 * Each rated game is its own rating period, rated when it ends: mail games
 * end at scattered times and the end-of-game mail carries the change.  The
 * idle growth covers the whole periods between a player's rated games.
 */
#ifndef LUDUS_RATING_H
#define LUDUS_RATING_H

#include <stddef.h>
#include <stdint.h>

#define RATING_SCALE		173.7178	/* Glicko-2 step 2 */
#define RATING_INIT_R		1500.0		/* an unrated player (step 1) */
#define RATING_INIT_RD		350.0
#define RATING_INIT_SIGMA	0.06
#define RATING_RD_MAX		350.0		/* never less certain than new */
#define RATING_TAU_DEFAULT	0.5
#define RATING_EPSILON		0.000001	/* step 5's convergence bound */
#define RATING_PERIOD_DEFAULT	(7 * 24 * 3600)	/* seconds */
#define RATING_MAX_SEATS	4	/* as GAME_MAX_SEATS */

/* What the store keeps per (player, game kind). */
struct rating {
	double	r;		/* rating on the Glicko scale (1500 = new) */
	double	rd;		/* deviation as of `last` */
	double	sigma;		/* volatility */
	int64_t	last;		/* unix time of the last rated game; 0: never */
};

/* One game from the rated player's side: the opponent as rated before it. */
struct rating_result {
	double	r;
	double	rd;
	double	score;		/* 1 win, 0.5 draw, 0 loss */
};

/* The intermediate quantities of one update, named as in the paper, for
 * tests and diagnostics. */
struct rating_steps {
	double	mu, phi;	/* step 2 */
	double	v;		/* step 3 */
	double	delta;		/* step 4 */
	double	sigma;		/* step 5: σ' */
	double	phi_star;	/* step 6 */
	double	mu_new, phi_new; /* step 7 */
};

/* An unrated player: 1500, 350, 0.06, never rated. */
void	 rating_init(struct rating *);

/* Step 3's g(φ) and E(μ, μj, φj) on the Glicko-2 scale. */
double	 rating_g(double phi);
double	 rating_e(double mu, double mu_j, double phi_j);

/* Step 5: the new volatility by the Illinois algorithm.  Requires
 * sigma > 0, phi >= 0, v > 0, tau > 0; always returns a finite σ' > 0. */
double	 rating_volatility(double sigma, double phi, double v, double delta,
	    double tau);

/* One rating period without games: φ* = sqrt(φ² + σ²), r and σ unchanged,
 * RD capped at RATING_RD_MAX.  out may be the same as in. */
void	 rating_idle(const struct rating *in, struct rating *out);

/* The rating as of `now`: rating_idle() once per whole `period` seconds
 * since in->last (none if never rated, if now precedes last, or if period
 * is not positive).  `last` is kept.  out may be the same as in. */
void	 rating_decay(const struct rating *in, int64_t now, int64_t period,
	    struct rating *out);

/* What a player reads of a rating as of now, in out: "1662 \xc2\xb1580",
 * r and twice the deviation after rating_decay() by
 * RATING_PERIOD_DEFAULT, rounded (the mails and the public pages alike). */
void	 rating_format(const struct rating *, int64_t now, char *out,
	    size_t outlen);

/* Steps 2-8 for one period of n games (n == 0: rating_idle()).  Requires
 * player->sigma > 0 and tau > 0.  An opponent's RD above RATING_RD_MAX
 * counts as RATING_RD_MAX.  `last` is copied unchanged.  out may be
 * the same as player; games is foreign.  rating_update_steps() also fills
 * the intermediate quantities when steps is not NULL. */
void	 rating_update(const struct rating *player,
	    const struct rating_result *games, int n, double tau,
	    struct rating *out);
void	 rating_update_steps(const struct rating *player,
	    const struct rating_result *games, int n, double tau,
	    struct rating *out, struct rating_steps *steps);

/*
 * The results one seat takes from an ended game.  team[s] names the side of
 * seat s (NULL: every seat is its own side, as in the two-player games;
 * Aluette: the two partnerships).  winners has a bit per seat that won
 * (partners both set, as in struct game_result); 0 is a draw.  Against each
 * other side, the seat gets one result against that side's composite: the
 * mean of its members' r and the root mean square of their RD.  Scores:
 * 1 if the seat won and that side did not, 0 the reverse, 0.5 otherwise.
 * ratings[] are the seats' ratings before the game (already decayed to its
 * end).  Returns the number of results written, at most max.
 */
int	 rating_results(int nseats, const int *team, uint32_t winners,
	    const struct rating *ratings, int seat, struct rating_result *out,
	    int max);

/*
 * Rate an ended game for every seat at time now: decay each seat's stored
 * rating to now, build its results against the decayed others, update with
 * tau, and set last = now.  before[] and after[] hold nseats ratings (after
 * may be the same array).  0, or -1 with err filled when the input cannot
 * be rated (seat count, a single side, tau or a volatility not positive).
 */
int	 rating_game(int nseats, const int *team, uint32_t winners,
	    const struct rating *before, int64_t now, int64_t period,
	    double tau, struct rating *after, char *err, size_t errlen);

#endif

/*
 * rating: Glicko-2 following the steps of Glickman's worked example; the
 * comments name the paper's steps.  Beyond the paper: RD is capped at
 * RATING_RD_MAX (on φ* and on opponents' RD), and two guards inert for any
 * ratings a club can reach (the clamp in logistic() and step 5's iteration
 * caps) keep every result finite on absurd inputs.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "rating.h"
#include "util.h"

/* Logistic arguments beyond this are clamped.  50 on the Glicko-2 scale is
 * over 8000 rating points times g(φ) ≤ 1: no two real ratings are that far
 * apart, and the clamp keeps E(1 - E) above 1e-22, so v stays finite. */
#define LOGISTIC_MAX	50.0
/* Step 5 converges in a handful of iterations; the caps only stop a loop
 * that floating point could otherwise keep alive. */
#define VOL_MAX_ITER	1000
#define VOL_MAX_BRACKET	100000

static double
phi_max(void)
{
	return RATING_RD_MAX / RATING_SCALE;
}

void
rating_init(struct rating *r)
{
	r->r = RATING_INIT_R;
	r->rd = RATING_INIT_RD;
	r->sigma = RATING_INIT_SIGMA;
	r->last = 0;
}

double
rating_g(double phi)
{
	return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

/* E and 1 - E each from its own exponential, so that 1 - E of a near
 * certain result is a tiny number rather than 1.0 - 1.0 = 0. */
static void
logistic(double x, double *e, double *one_minus_e)
{
	if (x > LOGISTIC_MAX)
		x = LOGISTIC_MAX;
	else if (x < -LOGISTIC_MAX)
		x = -LOGISTIC_MAX;
	*e = 1.0 / (1.0 + exp(-x));
	*one_minus_e = 1.0 / (1.0 + exp(x));
}

double
rating_e(double mu, double mu_j, double phi_j)
{
	double e, q;

	logistic(rating_g(phi_j) * (mu - mu_j), &e, &q);
	return e;
}

/* Step 5's f(x). */
struct volf {
	double	a, d2, phi2, v, tau2;
};

static double
volf(const struct volf *p, double x)
{
	double ex = exp(x), den = p->phi2 + p->v + ex;

	return ex * (p->d2 - p->phi2 - p->v - ex) / (2.0 * den * den) -
	    (x - p->a) / p->tau2;
}

double
rating_volatility(double sigma, double phi, double v, double delta,
    double tau)
{
	struct volf p;
	double A, B, C, fA, fB, fC, k, s;
	int i;

	p.a = log(sigma * sigma);
	p.d2 = delta * delta;
	p.phi2 = phi * phi;
	p.v = v;
	p.tau2 = tau * tau;

	/* Step 5.2: the initial bracket. */
	A = p.a;
	if (p.d2 > p.phi2 + p.v)
		B = log(p.d2 - p.phi2 - p.v);
	else {
		k = 1;
		while (volf(&p, p.a - k * tau) < 0 && k < VOL_MAX_BRACKET)
			k++;
		B = p.a - k * tau;
	}
	fA = volf(&p, A);
	fB = volf(&p, B);

	/* Step 5.4: regula falsi with the Illinois halving.  The paper's
	 * "f(C)f(B) <= 0" (not "< 0") matters when C lands exactly on the
	 * root: A then moves onto the root side and the bracket closes. */
	for (i = 0; i < VOL_MAX_ITER && fabs(B - A) > RATING_EPSILON; i++) {
		if (fB == fA)
			break;
		C = A + (A - B) * fA / (fB - fA);
		fC = volf(&p, C);
		if (fC * fB <= 0) {
			A = B;
			fA = fB;
		} else
			fA /= 2.0;
		B = C;
		fB = fC;
	}

	/* Step 5.5. */
	s = exp(A / 2.0);
	if (!isfinite(s) || s <= 0)
		return sigma;
	return s;
}

void
rating_idle(const struct rating *in, struct rating *out)
{
	double phi = in->rd / RATING_SCALE;
	double phi_star = sqrt(phi * phi + in->sigma * in->sigma);

	*out = *in;
	out->rd = fmin(phi_star, phi_max()) * RATING_SCALE;
}

void
rating_decay(const struct rating *in, int64_t now, int64_t period,
    struct rating *out)
{
	double phi, phi2;
	int64_t k;

	*out = *in;
	if (in->last == 0 || period <= 0 || now <= in->last)
		return;
	k = (now - in->last) / period;
	if (k == 0)
		return;
	/* k applications of rating_idle() add k σ² to φ² (σ stays), and the
	 * cap commutes with that since φ only grows: the closed form is the
	 * same value without a loop as long as the idle time. */
	phi = in->rd / RATING_SCALE;
	phi2 = phi * phi + (double)k * in->sigma * in->sigma;
	out->rd = fmin(sqrt(phi2), phi_max()) * RATING_SCALE;
}

void
rating_format(const struct rating *in, int64_t now, char *out, size_t outlen)
{
	struct rating d;

	rating_decay(in, now, RATING_PERIOD_DEFAULT, &d);
	snprintf(out, outlen, "%ld \xc2\xb1%ld", lround(d.r), lround(2 * d.rd));
}

void
rating_update_steps(const struct rating *player,
    const struct rating_result *games, int n, double tau,
    struct rating *out, struct rating_steps *steps)
{
	struct rating_steps st;
	double info = 0, sum = 0, g, e, q, mu_j, phi_j;
	int j;

	/* Step 2. */
	st.mu = (player->r - RATING_INIT_R) / RATING_SCALE;
	st.phi = player->rd / RATING_SCALE;

	if (n <= 0) {
		/* The paper: a player who did not compete keeps μ and σ and
		 * only the deviation grows. */
		rating_idle(player, out);
		st.v = st.delta = 0;
		st.sigma = player->sigma;
		st.phi_star = st.phi_new = out->rd / RATING_SCALE;
		st.mu_new = st.mu;
		if (steps != NULL)
			*steps = st;
		return;
	}

	/* Steps 3 and 4.  An opponent's deviation is capped like the
	 * player's: none is legitimately above it, and it bounds g(φj)
	 * away from 0. */
	for (j = 0; j < n; j++) {
		mu_j = (games[j].r - RATING_INIT_R) / RATING_SCALE;
		phi_j = fmin(games[j].rd / RATING_SCALE, phi_max());
		g = rating_g(phi_j);
		logistic(g * (st.mu - mu_j), &e, &q);
		info += g * g * e * q;
		sum += g * (games[j].score - e);
	}
	st.v = 1.0 / info;
	st.delta = st.v * sum;

	/* Step 5. */
	st.sigma = rating_volatility(player->sigma, st.phi, st.v, st.delta,
	    tau);

	/* Steps 6 and 7; φ* is capped as rating_idle() caps it. */
	st.phi_star = fmin(sqrt(st.phi * st.phi + st.sigma * st.sigma),
	    phi_max());
	st.phi_new = 1.0 / sqrt(1.0 / (st.phi_star * st.phi_star) +
	    1.0 / st.v);
	st.mu_new = st.mu + st.phi_new * st.phi_new * sum;

	/* Step 8. */
	out->r = RATING_SCALE * st.mu_new + RATING_INIT_R;
	out->rd = RATING_SCALE * st.phi_new;
	out->sigma = st.sigma;
	out->last = player->last;
	if (steps != NULL)
		*steps = st;
}

void
rating_update(const struct rating *player,
    const struct rating_result *games, int n, double tau,
    struct rating *out)
{
	rating_update_steps(player, games, n, tau, out, NULL);
}

static int
side_of(const int *team, int seat)
{
	return team != NULL ? team[seat] : seat;
}

/*
 * A partnership result is one result, so each player meets the other side
 * once, as a composite opponent, rather than each opponent separately: two
 * results would count one game as two independent pieces of evidence,
 * moving a partnership player's rating further and shrinking the deviation
 * as if two games had been played.  The composite's RD is the root mean square of the
 * members' (not the smaller deviation of a mean of independent ratings), so
 * two equal opponents count as one such opponent, no more certain.
 */
int
rating_results(int nseats, const int *team, uint32_t winners,
    const struct rating *ratings, int seat, struct rating_result *out,
    int max)
{
	int s, m, t, k, n = 0, side = side_of(team, seat), seen, won, other;
	double r, rd2;

	won = (winners >> seat) & 1;
	for (s = 0; s < nseats && n < max; s++) {
		t = side_of(team, s);
		if (t == side)
			continue;
		seen = 0;
		for (m = 0; m < s; m++)
			if (side_of(team, m) == t)
				seen = 1;
		if (seen)
			continue;
		r = rd2 = 0;
		k = 0;
		other = 0;
		for (m = s; m < nseats; m++) {
			if (side_of(team, m) != t)
				continue;
			r += ratings[m].r;
			rd2 += ratings[m].rd * ratings[m].rd;
			other |= (winners >> m) & 1;
			k++;
		}
		out[n].r = r / k;
		out[n].rd = sqrt(rd2 / k);
		out[n].score = won == other ? 0.5 : won ? 1.0 : 0.0;
		n++;
	}
	return n;
}

int
rating_game(int nseats, const int *team, uint32_t winners,
    const struct rating *before, int64_t now, int64_t period,
    double tau, struct rating *after, char *err, size_t errlen)
{
	struct rating cur[RATING_MAX_SEATS];
	struct rating_result res[RATING_MAX_SEATS];
	int s, n, sides = 0;

	if (nseats < 2 || nseats > RATING_MAX_SEATS) {
		util_err(err, errlen, "cannot rate a game of %d seats", nseats);
		return -1;
	}
	if (!(tau > 0) || !isfinite(tau)) {
		util_err(err, errlen, "the rating constant tau must be positive");
		return -1;
	}
	for (s = 0; s < nseats; s++) {
		if (!(before[s].sigma > 0) || !isfinite(before[s].sigma) ||
		    !isfinite(before[s].r) || !(before[s].rd >= 0) ||
		    !isfinite(before[s].rd)) {
			util_err(err, errlen, "seat %d has no valid rating", s);
			return -1;
		}
		rating_decay(&before[s], now, period, &cur[s]);
	}
	/* Everyone on one side means no opponent: nothing to rate. */
	for (s = 0; s < nseats; s++)
		if (rating_results(nseats, team, winners, cur, s, res,
		    RATING_MAX_SEATS) > 0)
			sides = 1;
	if (!sides) {
		util_err(err, errlen, "a game with one side cannot be rated");
		return -1;
	}
	for (s = 0; s < nseats; s++) {
		n = rating_results(nseats, team, winners, cur, s, res,
		    RATING_MAX_SEATS);
		rating_update(&cur[s], res, n, tau, &after[s]);
		after[s].last = now;
	}
	return 0;
}

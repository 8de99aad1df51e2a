/* Glicko-2: Glickman's worked example with its published numbers, idle
 * growth, the RD cap, properties, extreme inputs, partnerships. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rating.h"
#include "testutil.h"

#define DAY	(24 * 3600)
#define WEEK	(7 * DAY)

static struct rating
mk(double r, double rd, double sigma)
{
	struct rating x;

	x.r = r;
	x.rd = rd;
	x.sigma = sigma;
	x.last = 0;
	return x;
}

/* The paper's example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and
 * to 1700/300, with tau 0.5. */
static const struct rating_result paper_games[] = {
	{ 1400, 30, 1 }, { 1550, 100, 0 }, { 1700, 300, 0 },
};

/*
 * The paper rounds as it goes (g to 4 places, E to 3, v and Δ to 4) and
 * computes each printed number from the rounded ones before it.  So each
 * check allows half a unit in the printed place, widened where a rounded
 * input feeds it: E rounded to 3 places moves v and Δ by up to 0.001, and
 * r' = 173.7178 μ' + 1500 is printed from μ' rounded to 4 places.
 */
START_TEST(rating_paper_intermediates)
{
	struct rating p = mk(1500, 200, 0.06), out;
	struct rating_steps st;
	static const double g_pub[] = { 0.9955, 0.9531, 0.7242 };
	static const double e_pub[] = { 0.639, 0.432, 0.303 };
	int j;

	rating_update_steps(&p, paper_games, 3, 0.5, &out, &st);
	ck_assert_double_eq_tol(st.mu, 0.0, 1e-12);
	ck_assert_double_eq_tol(st.phi, 1.1513, 0.00005);
	for (j = 0; j < 3; j++) {
		double mu_j = (paper_games[j].r - 1500) / 173.7178;
		double phi_j = paper_games[j].rd / 173.7178;

		ck_assert_double_eq_tol(rating_g(phi_j), g_pub[j], 0.00005);
		ck_assert_double_eq_tol(rating_e(st.mu, mu_j, phi_j), e_pub[j],
		    0.0005);
	}
	ck_assert_double_eq_tol(st.v, 1.7785, 0.001);
	ck_assert_double_eq_tol(st.delta, -0.4834, 0.001);
	/* Step 6's φ* = 1.152862 is printed from φ = 1.1513. */
	ck_assert_double_eq_tol(st.phi_star, 1.152862, 0.00005);
}
END_TEST

START_TEST(rating_paper_result)
{
	struct rating p = mk(1500, 200, 0.06), out;
	struct rating_steps st;

	p.last = 12345;
	rating_update_steps(&p, paper_games, 3, 0.5, &out, &st);
	ck_assert_double_eq_tol(st.mu_new, -0.2069, 0.00005);
	ck_assert_double_eq_tol(st.phi_new, 0.8722, 0.00005);
	/* σ' is printed as 0.05999: the paper's last digit. */
	ck_assert_double_eq_tol(st.sigma, 0.05999, 0.00001);
	ck_assert_double_eq(out.sigma, st.sigma);
	ck_assert_double_eq_tol(out.r, 1464.06, 0.00005 * 173.7178 + 0.005);
	ck_assert_double_eq_tol(out.rd, 151.52, 0.005);
	ck_assert_int_eq(out.last, 12345);

	/* rating_update() is the same computation, and may work in place. */
	rating_update(&p, paper_games, 3, 0.5, &p);
	ck_assert_double_eq(p.r, out.r);
	ck_assert_double_eq(p.rd, out.rd);
	ck_assert_double_eq(p.sigma, out.sigma);
}
END_TEST

/* Step 5 alone from the paper's own printed Δ, φ and v. */
START_TEST(rating_paper_volatility)
{
	ck_assert_double_eq_tol(rating_volatility(0.06, 1.1513, 1.7785,
	    -0.4834, 0.5), 0.05999, 0.00001);
}
END_TEST

START_TEST(rating_init_values)
{
	struct rating r;

	memset(&r, 0xff, sizeof(r));
	rating_init(&r);
	ck_assert_double_eq(r.r, 1500);
	ck_assert_double_eq(r.rd, 350);
	ck_assert_double_eq(r.sigma, 0.06);
	ck_assert_int_eq(r.last, 0);
}
END_TEST

/* One period without games: RD' = sqrt(RD² + (173.7178 σ)²). */
START_TEST(rating_no_game_step)
{
	struct rating p = mk(1500, 200, 0.06), out;

	p.last = 99;
	rating_idle(&p, &out);
	ck_assert_double_eq_tol(out.rd, 200.27142, 0.00001);
	ck_assert_double_eq(out.r, 1500);
	ck_assert_double_eq(out.sigma, 0.06);
	ck_assert_int_eq(out.last, 99);

	/* The update with no games is that same step. */
	rating_update(&p, NULL, 0, 0.5, &out);
	ck_assert_double_eq_tol(out.rd, 200.27142, 0.00001);
	ck_assert_double_eq(out.r, 1500);
	ck_assert_double_eq(out.sigma, 0.06);
}
END_TEST

START_TEST(rating_rd_cap)
{
	struct rating p = mk(1700, 345, 0.06), out;
	int i;

	rating_idle(&p, &out);
	ck_assert_double_eq_tol(out.rd, 345.15741, 0.00001);
	p.rd = 349.9;		/* 350.055 uncapped */
	rating_idle(&p, &out);
	ck_assert_double_eq_tol(out.rd, 350, 1e-9);
	p = mk(1500, 350, 0.06);
	for (i = 0; i < 100; i++)
		rating_idle(&p, &p);
	ck_assert_double_eq_tol(p.rd, 350, 1e-9);
	ck_assert_double_eq(p.r, 1500);

	/* In an update, step 6's φ* is capped too: a surprising win raises
	 * σ' above σ, yet the game starts from RD 350, not above it. */
	p = mk(1500, 350, 0.06);
	{
		struct rating_result upset = { 2500, 30, 1 };
		struct rating_steps st;
		double phi_max = 350 / 173.7178;

		rating_update_steps(&p, &upset, 1, 0.5, &out, &st);
		ck_assert(st.sigma > 0.06);
		ck_assert_double_eq_tol(st.phi_star, phi_max, 1e-12);
		ck_assert_double_eq_tol(out.rd, 173.7178 / sqrt(1 / (phi_max *
		    phi_max) + 1 / st.v), 1e-9);
		ck_assert(out.rd < 350);
		ck_assert(out.r > 1500);
	}
}
END_TEST

START_TEST(rating_inactivity_periods)
{
	struct rating p = mk(1620, 200, 0.06), out, step;
	int64_t t0 = 1700000000;
	int i;

	p.last = t0;
	/* Three whole weeks and a day: three steps, by hand
	 * sqrt(200² + 3 (173.7178 × 0.06)²). */
	rating_decay(&p, t0 + 3 * WEEK + DAY, WEEK, &out);
	ck_assert_double_eq_tol(out.rd, 200.81315, 0.00001);
	step = p;
	for (i = 0; i < 3; i++)
		rating_idle(&step, &step);
	ck_assert_double_eq_tol(out.rd, step.rd, 1e-9);
	ck_assert_double_eq(out.r, 1620);
	ck_assert_double_eq(out.sigma, 0.06);
	ck_assert_int_eq(out.last, t0);

	/* Less than a period, a clock behind the last game, no period, or
	 * never rated: unchanged. */
	rating_decay(&p, t0 + WEEK - 1, WEEK, &out);
	ck_assert_double_eq(out.rd, 200);
	rating_decay(&p, t0 + WEEK, WEEK, &out);
	ck_assert_double_eq_tol(out.rd, 200.27142, 0.00001);
	rating_decay(&p, t0 - 10 * WEEK, WEEK, &out);
	ck_assert_double_eq(out.rd, 200);
	rating_decay(&p, t0 + 10 * WEEK, 0, &out);
	ck_assert_double_eq(out.rd, 200);
	p.last = 0;
	rating_decay(&p, t0, WEEK, &out);
	ck_assert_double_eq(out.rd, 200);

	/* A century away reaches the cap, in place, without a loop of 5000
	 * steps mattering. */
	p.last = t0;
	rating_decay(&p, t0 + 100LL * 365 * DAY, WEEK, &p);
	ck_assert_double_eq_tol(p.rd, 350, 1e-9);

	/* Decay matches k single steps for every k up to the cap. */
	for (i = 0; i <= 600; i += 37) {
		int k;

		p = mk(1500, 50, 0.06);
		p.last = t0;
		step = p;
		for (k = 0; k < i; k++)
			rating_idle(&step, &step);
		rating_decay(&p, t0 + (int64_t)i * WEEK, WEEK, &out);
		ck_assert_double_eq_tol(out.rd, step.rd, 1e-9);
	}
}
END_TEST

/* A grid of players and opponents: a win never lowers the rating, a loss
 * never raises it, a game always leaves RD below step 6's φ*.  (Not below
 * rating_idle()'s: a surprising result raises σ, and σ' enters φ*.) */
START_TEST(rating_monotone)
{
	static const double rs[] = { 700, 1200, 1500, 1900, 2700 };
	static const double rds[] = { 20, 90, 200, 350 };
	static const double sigmas[] = { 0.01, 0.06, 0.3 };
	struct rating p, out;
	struct rating_steps st;
	struct rating_result g;
	size_t a, b, c, d, e;
	int cases = 0;

	for (a = 0; a < nitems(rs); a++)
	for (b = 0; b < nitems(rds); b++)
	for (c = 0; c < nitems(sigmas); c++)
	for (d = 0; d < nitems(rs); d++)
	for (e = 0; e < nitems(rds); e++) {
		p = mk(rs[a], rds[b], sigmas[c]);
		g.r = rs[d];
		g.rd = rds[e];
		g.score = 1;
		rating_update_steps(&p, &g, 1, 0.5, &out, &st);
		ck_assert_msg(out.r >= p.r, "win %g/%g vs %g/%g: %g", p.r,
		    p.rd, g.r, g.rd, out.r);
		ck_assert(out.rd < st.phi_star * 173.7178);
		g.score = 0;
		rating_update_steps(&p, &g, 1, 0.5, &out, &st);
		ck_assert_msg(out.r <= p.r, "loss %g/%g vs %g/%g: %g", p.r,
		    p.rd, g.r, g.rd, out.r);
		ck_assert(out.rd < st.phi_star * 173.7178);
		cases++;
	}
	ck_assert_int_eq(cases, 5 * 4 * 3 * 5 * 4);
}
END_TEST

/* Steps 6 and 7 take the new volatility σ', not σ: checked where the two
 * differ widely (a player of steady results beating a far stronger one). */
START_TEST(rating_steps_use_new_volatility)
{
	struct rating p = mk(1500, 80, 0.3), out;
	struct rating_result g = { 2600, 40, 1 };
	struct rating_steps st;
	double e, gg;

	rating_update_steps(&p, &g, 1, 1.2, &out, &st);
	ck_assert(fabs(st.sigma - 0.3) > 0.001);
	ck_assert_double_eq_tol(st.phi_star, sqrt(st.phi * st.phi +
	    st.sigma * st.sigma), 1e-12);
	ck_assert_double_eq_tol(st.phi_new, 1 / sqrt(1 / (st.phi_star *
	    st.phi_star) + 1 / st.v), 1e-12);
	gg = rating_g(40 / 173.7178);
	e = rating_e(st.mu, 1100 / 173.7178, 40 / 173.7178);
	ck_assert_double_eq_tol(st.v, 1 / (gg * gg * e * (1 - e)), 1e-9);
	ck_assert_double_eq_tol(st.delta, st.v * gg * (1 - e), 1e-9);
	ck_assert_double_eq_tol(st.mu_new, st.mu + st.phi_new * st.phi_new *
	    gg * (1 - e), 1e-12);
	ck_assert_double_eq_tol(out.rd, st.phi_new * 173.7178, 1e-9);
	ck_assert_double_eq_tol(out.r, st.mu_new * 173.7178 + 1500, 1e-9);
}
END_TEST

START_TEST(rating_symmetry)
{
	struct rating a = mk(1600, 120, 0.06), b = a, a2, b2;
	struct rating_result ga = { 1600, 120, 0.5 };
	struct rating_result w = { 1600, 120, 1 }, l = { 1600, 120, 0 };

	/* A draw between equals moves neither rating. */
	rating_update(&a, &ga, 1, 0.5, &a2);
	ck_assert_double_eq_tol(a2.r, 1600, 1e-9);
	ck_assert(a2.rd < 120);

	/* Between equals, the winner gains what the loser loses. */
	rating_update(&a, &w, 1, 0.5, &a2);
	rating_update(&b, &l, 1, 0.5, &b2);
	ck_assert(a2.r > 1600);
	ck_assert_double_eq_tol(a2.r - 1600, 1600 - b2.r, 1e-9);
	ck_assert_double_eq_tol(a2.rd, b2.rd, 1e-9);

	/* E is 1/2 between equals and complementary for equal deviations. */
	ck_assert_double_eq_tol(rating_e(0.3, 0.3, 1.0), 0.5, 1e-15);
	ck_assert_double_eq_tol(rating_e(0.7, -0.2, 0.4) +
	    rating_e(-0.2, 0.7, 0.4), 1.0, 1e-15);

	/* Beating a stronger opponent is worth more than a weaker one. */
	{
		struct rating_result weak = { 1300, 120, 1 };
		struct rating_result strong = { 1900, 120, 1 };
		struct rating x, y;

		rating_update(&a, &weak, 1, 0.5, &x);
		rating_update(&a, &strong, 1, 0.5, &y);
		ck_assert(y.r > x.r);
	}
}
END_TEST

/* Step 5's f, written out again here to check the returned root. */
static double
test_f(double x, double sigma, double phi, double v, double delta,
    double tau)
{
	double a = log(sigma * sigma), ex = exp(x);
	double den = phi * phi + v + ex;

	return ex * (delta * delta - phi * phi - v - ex) / (2 * den * den) -
	    (x - a) / (tau * tau);
}

static void
check_root(double sigma, double phi, double v, double delta, double tau)
{
	double s = rating_volatility(sigma, phi, v, delta, tau), x;

	ck_assert_msg(isfinite(s) && s > 0, "σ' %g for Δ %g φ %g v %g", s,
	    delta, phi, v);
	/* f decreases, so the root lies where it changes sign; the paper's
	 * ε bounds the bracket at 1e-6, checked here at 1e-5 around ln σ'². */
	x = log(s * s);
	ck_assert_msg(test_f(x - 1e-5, sigma, phi, v, delta, tau) > 0 &&
	    test_f(x + 1e-5, sigma, phi, v, delta, tau) < 0,
	    "no root near σ' %g (Δ %g φ %g v %g τ %g)", s, delta, phi, v,
	    tau);
}

START_TEST(rating_volatility_extremes)
{
	check_root(0.06, 1.1513, 1.7785, -0.4834, 0.5);
	check_root(0.06, 1e-5, 1e3, 1e6, 0.5);		/* huge Δ */
	check_root(0.06, 1e-5, 1e3, -1e6, 0.5);
	check_root(0.06, 1e-6, 2.0, 0, 0.5);		/* tiny φ, no surprise */
	check_root(1e-6, 0.17, 5.0, 0.1, 0.3);		/* tiny σ */
	check_root(1.5, 2.0, 50.0, 200, 1.2);		/* large σ */
	check_root(0.06, 0.5, 3.0, 40, 0.05);		/* small τ */
	check_root(0.06, 0.5, 1e20, 1e20, 0.5);		/* no information */
}
END_TEST

static void
check_finite(const struct rating *p, const struct rating_result *g, int n,
    double tau)
{
	struct rating out;
	struct rating_steps st;

	rating_update_steps(p, g, n, tau, &out, &st);
	ck_assert_msg(isfinite(out.r) && isfinite(out.rd) &&
	    isfinite(out.sigma), "%g/%g/%g: %g %g %g", p->r, p->rd, p->sigma,
	    out.r, out.rd, out.sigma);
	/* Finite because the steps are, not because a guard gave up: v and
	 * Δ stay finite and σ' is step 5's root for them. */
	ck_assert_msg(isfinite(st.v) && isfinite(st.delta), "v %g Δ %g",
	    st.v, st.delta);
	check_root(p->sigma, st.phi, st.v, st.delta, tau);
	ck_assert(out.rd > 0 && out.rd <= 350);
	ck_assert(out.sigma > 0);
	if (n == 1 && g[0].score == 1)
		ck_assert(out.r >= p->r);
	if (n == 1 && g[0].score == 0)
		ck_assert(out.r <= p->r);
}

START_TEST(rating_update_extremes)
{
	struct rating p;
	struct rating_result g[8];
	int i;

	/* A huge upset with tiny deviations: the largest Δ a game gives. */
	p = mk(200, 5, 0.06);
	g[0] = (struct rating_result){ 4000, 1, 1 };
	check_finite(&p, g, 1, 0.5);
	p = mk(4000, 0.01, 0.06);
	g[0] = (struct rating_result){ 200, 0.01, 0 };
	check_finite(&p, g, 1, 0.5);
	/* The expected result at a distance the logistic clamp covers. */
	p = mk(30000, 1, 0.06);
	g[0] = (struct rating_result){ -30000, 1, 1 };
	check_finite(&p, g, 1, 0.5);
	g[0].score = 0;
	check_finite(&p, g, 1, 0.5);
	p = mk(1e6, 1, 0.06);
	g[0] = (struct rating_result){ -1e6, 1, 0 };
	check_finite(&p, g, 1, 0.5);
	/* Zero deviation, tiny and large volatility, the ends of τ. */
	p = mk(1500, 0, 1e-9);
	g[0] = (struct rating_result){ 1500, 0, 1 };
	check_finite(&p, g, 1, 0.3);
	p = mk(1500, 350, 3.0);
	check_finite(&p, g, 1, 1.2);
	p = mk(1500, 200, 0.06);
	check_finite(&p, g, 1, 0.01);
	/* An opponent deviation far over the cap counts as the cap. */
	g[0] = (struct rating_result){ 1800, 1e9, 0 };
	check_finite(&p, g, 1, 0.5);
	{
		struct rating a, b;

		rating_update(&p, g, 1, 0.5, &a);
		g[0].rd = 350;
		rating_update(&p, g, 1, 0.5, &b);
		ck_assert_double_eq(a.r, b.r);
		ck_assert_double_eq(a.rd, b.rd);
		ck_assert(a.r < p.r);
	}
	/* Many one-sided results at once. */
	for (i = 0; i < 8; i++)
		g[i] = (struct rating_result){ 2800, 10, 1 };
	p = mk(600, 20, 0.06);
	check_finite(&p, g, 8, 0.5);
	/* A long losing streak, one period at a time. */
	p = mk(1500, 350, 0.06);
	g[0] = (struct rating_result){ 1500, 50, 0 };
	for (i = 0; i < 500; i++) {
		struct rating prev = p;

		rating_update(&p, g, 1, 0.5, &p);
		ck_assert(isfinite(p.r) && isfinite(p.rd) && isfinite(p.sigma));
		ck_assert(p.r <= prev.r);
	}
}
END_TEST

START_TEST(rating_results_two_players)
{
	struct rating r[2] = { mk(1500, 100, 0.06), mk(1600, 50, 0.06) };
	struct rating_result out[4];

	ck_assert_int_eq(rating_results(2, NULL, 1u << 0, r, 0, out, 4), 1);
	ck_assert_double_eq(out[0].r, 1600);
	ck_assert_double_eq(out[0].rd, 50);
	ck_assert_double_eq(out[0].score, 1);
	ck_assert_int_eq(rating_results(2, NULL, 1u << 0, r, 1, out, 4), 1);
	ck_assert_double_eq(out[0].r, 1500);
	ck_assert_double_eq(out[0].rd, 100);
	ck_assert_double_eq(out[0].score, 0);
	ck_assert_int_eq(rating_results(2, NULL, 0, r, 1, out, 4), 1);
	ck_assert_double_eq(out[0].score, 0.5);
	ck_assert_int_eq(rating_results(2, NULL, 0, r, 0, out, 0), 0);
}
END_TEST

START_TEST(rating_results_partnerships)
{
	/* Aluette with teams=fixed: seats 0+2 against 1+3. */
	static const int team[4] = { 0, 1, 0, 1 };
	struct rating r[4] = { mk(1500, 100, 0.06), mk(1600, 100, 0.06),
		mk(1400, 200, 0.06), mk(1700, 150, 0.06) };
	struct rating_result out[4];

	ck_assert_int_eq(rating_results(4, team, 0x5, r, 0, out, 4), 1);
	ck_assert_double_eq_tol(out[0].r, 1650, 1e-9);
	/* sqrt((100² + 150²) / 2) */
	ck_assert_double_eq_tol(out[0].rd, 127.47549, 0.00001);
	ck_assert_double_eq(out[0].score, 1);
	ck_assert_int_eq(rating_results(4, team, 0x5, r, 2, out, 4), 1);
	ck_assert_double_eq_tol(out[0].r, 1650, 1e-9);
	ck_assert_double_eq(out[0].score, 1);
	ck_assert_int_eq(rating_results(4, team, 0x5, r, 3, out, 4), 1);
	ck_assert_double_eq_tol(out[0].r, 1450, 1e-9);
	/* sqrt((100² + 200²) / 2) */
	ck_assert_double_eq_tol(out[0].rd, 158.11388, 0.00001);
	ck_assert_double_eq(out[0].score, 0);
	ck_assert_int_eq(rating_results(4, team, 0, r, 1, out, 4), 1);
	ck_assert_double_eq(out[0].score, 0.5);
	/* Partnerships in another seating: 0+1 against 2+3. */
	{
		static const int t2[4] = { 7, 7, 3, 3 };

		ck_assert_int_eq(rating_results(4, t2, 0xc, r, 1, out, 4), 1);
		ck_assert_double_eq_tol(out[0].r, 1550, 1e-9);
		ck_assert_double_eq(out[0].score, 0);
	}
	/* Four sides (no partners): one result against each other seat. */
	ck_assert_int_eq(rating_results(4, NULL, 0x2, r, 0, out, 4), 3);
	ck_assert_double_eq(out[0].r, 1600);
	ck_assert_double_eq(out[0].score, 0);
	ck_assert_double_eq(out[1].r, 1400);
	ck_assert_double_eq(out[1].score, 0.5);
	ck_assert_double_eq(out[2].r, 1700);
	ck_assert_double_eq(out[2].score, 0.5);
}
END_TEST

/* A partnership game against two equal opponents moves a rating exactly as
 * one two-player game against one such opponent: one game, one result. */
START_TEST(rating_partnership_counts_once)
{
	static const int team[4] = { 0, 1, 0, 1 };
	struct rating four[4] = { mk(1500, 200, 0.06), mk(1550, 80, 0.06),
		mk(1450, 120, 0.06), mk(1550, 80, 0.06) };
	struct rating two[2] = { mk(1500, 200, 0.06), mk(1550, 80, 0.06) };
	struct rating a4[4], a2[2];
	char err[128];

	ck_assert_int_eq(rating_game(4, team, 0x5, four, 1000, WEEK, 0.5, a4,
	    err, sizeof(err)), 0);
	ck_assert_int_eq(rating_game(2, NULL, 0x1, two, 1000, WEEK, 0.5, a2,
	    err, sizeof(err)), 0);
	ck_assert_double_eq_tol(a4[0].r, a2[0].r, 1e-9);
	ck_assert_double_eq_tol(a4[0].rd, a2[0].rd, 1e-9);
	ck_assert_double_eq_tol(a4[0].sigma, a2[0].sigma, 1e-12);
	ck_assert(a4[0].r > 1500);
	ck_assert(a4[1].r < 1550 && a4[3].r < 1550);
	ck_assert_double_eq_tol(a4[1].r, a4[3].r, 1e-9);
}
END_TEST

START_TEST(rating_game_whole)
{
	struct rating before[2] = { mk(1500, 200, 0.06), mk(1400, 30, 0.06) };
	struct rating after[2], dec, want;
	struct rating_result g;
	int64_t t0 = 1700000000, now = t0 + 5 * WEEK + 3 * DAY;
	char err[128];

	before[0].last = t0;
	before[1].last = now - DAY;
	ck_assert_int_eq(rating_game(2, NULL, 0x1, before, now, WEEK, 0.5,
	    after, err, sizeof(err)), 0);

	/* Seat 0: five idle weeks first, then the game against seat 1 as it
	 * stands (seat 1 played yesterday: no decay). */
	rating_decay(&before[0], now, WEEK, &dec);
	ck_assert_double_eq_tol(dec.rd, sqrt(200.0 * 200 + 5 * 10.423068 *
	    10.423068), 0.0001);
	g = (struct rating_result){ 1400, 30, 1 };
	rating_update(&dec, &g, 1, 0.5, &want);
	ck_assert_double_eq_tol(after[0].r, want.r, 1e-9);
	ck_assert_double_eq_tol(after[0].rd, want.rd, 1e-9);
	ck_assert_int_eq(after[0].last, now);
	ck_assert_int_eq(after[1].last, now);
	ck_assert(after[1].r < 1400);

	/* In place. */
	ck_assert_int_eq(rating_game(2, NULL, 0x1, before, now, WEEK, 0.5,
	    before, err, sizeof(err)), 0);
	ck_assert_double_eq_tol(before[0].r, want.r, 1e-9);
}
END_TEST

START_TEST(rating_game_errors)
{
	static const int same[2] = { 1, 1 };
	struct rating r[5], out[5];
	char err[128];
	int i;

	for (i = 0; i < 5; i++)
		rating_init(&r[i]);
	ck_assert_int_eq(rating_game(1, NULL, 1, r, 0, WEEK, 0.5, out, err,
	    sizeof(err)), -1);
	ck_assert_int_eq(rating_game(5, NULL, 1, r, 0, WEEK, 0.5, out, err,
	    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "5 seats"));
	ck_assert_int_eq(rating_game(2, same, 1, r, 0, WEEK, 0.5, out, err,
	    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "one side"));
	ck_assert_int_eq(rating_game(2, NULL, 1, r, 0, WEEK, 0, out, err,
	    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "tau"));
	r[1].sigma = 0;
	ck_assert_int_eq(rating_game(2, NULL, 1, r, 0, WEEK, 0.5, out, err,
	    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "seat 1"));
	r[1].sigma = NAN;
	ck_assert_int_eq(rating_game(2, NULL, 1, r, 0, WEEK, 0.5, out, err,
	    sizeof(err)), -1);
}
END_TEST

/* What players read: twice the deviation, decayed to the time shown. */
START_TEST(rating_format_decays)
{
	struct rating r = { 1662.21, 290.23, 0.06, 1800000000 };
	char text[64];

	rating_format(&r, r.last, text, sizeof(text));
	ck_assert_str_eq(text, "1662 \xc2\xb1" "580");
	rating_format(&r, r.last + RATING_PERIOD_DEFAULT - 1, text,
	    sizeof(text));
	ck_assert_str_eq(text, "1662 \xc2\xb1" "580");
	/* 30 idle periods: twice sqrt(290.23^2 + 30 (0.06 * 173.7178)^2) = 591.6 */
	rating_format(&r, r.last + 30 * RATING_PERIOD_DEFAULT, text,
	    sizeof(text));
	ck_assert_str_eq(text, "1662 \xc2\xb1" "592");
}
END_TEST

static Suite *
rating_suite(void)
{
	Suite *s = suite_create("rating");
	TCase *tc = tcase_create("glicko2");

	tcase_add_test(tc, rating_paper_intermediates);
	tcase_add_test(tc, rating_paper_result);
	tcase_add_test(tc, rating_paper_volatility);
	tcase_add_test(tc, rating_init_values);
	tcase_add_test(tc, rating_no_game_step);
	tcase_add_test(tc, rating_rd_cap);
	tcase_add_test(tc, rating_inactivity_periods);
	tcase_add_test(tc, rating_monotone);
	tcase_add_test(tc, rating_steps_use_new_volatility);
	tcase_add_test(tc, rating_symmetry);
	tcase_add_test(tc, rating_volatility_extremes);
	tcase_add_test(tc, rating_update_extremes);
	tcase_add_test(tc, rating_results_two_players);
	tcase_add_test(tc, rating_results_partnerships);
	tcase_add_test(tc, rating_partnership_counts_once);
	tcase_add_test(tc, rating_game_whole);
	tcase_add_test(tc, rating_game_errors);
	tcase_add_test(tc, rating_format_decays);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return tu_run(rating_suite());
}

/*
 * refdeck: the server's Almakleh deck, cycled across games as players do
 * at a table (almakleh.cycle_deck).
 *
 * The deck is the definition's cards (games/almakleh.yaml), shuffled with
 * each card turned to a random side.  Every new game is dealt the next
 * five from what remains, and those are set aside.  When the deck runs
 * out, every card not on the table of the game being dealt is gathered
 * and shuffled again, which starts the next cycle, and the deal goes on
 * from it: within a cycle no card comes twice.  The engine is handed the deal as `deal=`, which
 * the game records with its options: replay and verification need the
 * game alone, never the deck.  The deck's state is one row of the store,
 * so it survives restarts; each game's draw is recorded beside it.
 *
 * The shuffle draws from the new game's seed exactly as the engine's own
 * deal does (the same sub-generator, the same order of draws), so a deck
 * shuffled for a game deals that game what a fresh shuffle would have.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "refint.h"

#define DECK_MAX	16	/* the engine's ALM_MAXCARDS */
#define DECK_NAMELEN	16
#define DEAL_FIRST	3	/* cards=pass: 3 to the first player, */
#define DEAL_SECOND	2	/* 2 to the second */

struct deck {
	int	 n;
	char	 side[DECK_MAX][2][DECK_NAMELEN];
};

/* The cards of the definition's data block: `card SIDE ... | SIDE ...`. */
static int
deck_read(const char *data, struct deck *d)
{
	char *copy = xstrdup(data), *p = copy, *line, *tok, *save;
	int f;

	d->n = 0;
	while (p != NULL) {
		line = p;
		if ((p = strchr(p, '\n')) != NULL)
			*p++ = '\0';
		if ((tok = strtok_r(line, " \t", &save)) == NULL ||
		    strcmp(tok, "card") != 0)
			continue;
		if (d->n == DECK_MAX)
			break;
		f = 0;
		if ((tok = strtok_r(NULL, " \t", &save)) == NULL)
			break;
		util_strlcpy(d->side[d->n][f++], tok, DECK_NAMELEN);
		while ((tok = strtok_r(NULL, " \t", &save)) != NULL)
			if (strcmp(tok, "|") == 0) {
				tok = strtok_r(NULL, " \t", &save);
				break;
			}
		if (tok == NULL)
			break;
		util_strlcpy(d->side[d->n][f], tok, DECK_NAMELEN);
		d->n++;
	}
	free(copy);
	return d->n >= DEAL_FIRST + DEAL_SECOND ? 0 : -1;
}

/* The card a side name belongs to, or -1. */
static int
deck_card(const struct deck *d, const char *name)
{
	int c;

	for (c = 0; c < d->n; c++)
		if (strcmp(d->side[c][0], name) == 0 ||
		    strcmp(d->side[c][1], name) == 0)
			return c;
	return -1;
}

/* A new cycle: the cards not in `taken` shuffled with the generator,
 * each turned to a random side, as almakleh.c's deal_random draws them
 * (so a whole deck shuffled for a game deals what the engine would):
 * their up sides' names into left, in draw order. */
static void
deck_shuffle(const struct deck *d, struct rng *r, const int *taken,
    char left[][DECK_NAMELEN], int *n)
{
	uint8_t order[DECK_MAX], face[DECK_MAX];
	int i, m = 0;

	for (i = 0; i < d->n; i++)
		if (!taken[i])
			order[m++] = (uint8_t)i;
	rng_shuffle(r, order, (size_t)m, 1);
	for (i = 0; i < d->n; i++)
		face[i] = taken[i] ? 0 : (uint8_t)rng_below(r, 2);
	for (i = 0; i < m; i++)
		util_strlcpy(left[i], d->side[order[i]][face[order[i]]],
		    DECK_NAMELEN);
	*n = m;
}

/* The stored cards, in draw order; -1 when one is no side of the deck or
 * a card comes twice (the definition changed since). */
static int
deck_left(const struct deck *d, const char *cards, char left[][DECK_NAMELEN],
    int *n)
{
	int seen[DECK_MAX] = { 0 }, c;
	char *copy = xstrdup(cards), *tok, *save;

	*n = 0;
	for (tok = strtok_r(copy, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save)) {
		if ((c = deck_card(d, tok)) == -1 || seen[c]++ ||
		    *n == DECK_MAX) {
			free(copy);
			return -1;
		}
		util_strlcpy(left[(*n)++], tok, DECK_NAMELEN);
	}
	free(copy);
	return 0;
}

/* The value of a word's option when it is key= (case-insensitive). */
static const char *
word_value(char *const *words, int nwords, const char *key)
{
	size_t kl = strlen(key);
	int i;

	for (i = 0; i < nwords; i++)
		if (util_strncaseeq(words[i], key, kl))
			return words[i] + kl;
	return NULL;
}

int
refdeck_deal(struct ref_msg *x, const struct gamedef *def,
    char *const *words, int nwords, const unsigned char seed[RNG_SEED_LEN],
    char **word, struct refdeck_draw *draw)
{
	struct deck d;
	struct rng r;
	struct buf b = { 0 }, dealt = { 0 };
	char *stored = NULL, left[DECK_MAX][DECK_NAMELEN];
	const char *v;
	int taken[DECK_MAX] = { 0 }, cycle, n = 0, top = 0, i, rc;

	*word = NULL;
	memset(draw, 0, sizeof(*draw));
	if (!x->r->cfg->almakleh.cycle_deck || def->ops == NULL ||
	    def->ops->shared_deck == NULL || def->data == NULL)
		return 0;
	/* A deal given at `new` is a teaching position, not the deck's; a
	 * game of cards=discard brings every card into play anyway. */
	if (((v = word_value(words, nwords, "deal=")) != NULL && *v != '\0') ||
	    ((v = word_value(words, nwords, "cards=")) != NULL &&
	    util_strcaseeq(v, "discard")))
		return 0;
	if (deck_read(def->data, &d) == -1)
		return 0;
	if ((rc = store_deck_get(x->r->store, def->name, &cycle, &stored)) ==
	    -1)
		return -1;
	if (rc == 0 && deck_left(&d, stored, left, &n) == -1) {
		log_warn("the %s deck in the store does not match the "
		    "definition; shuffled again", def->name);
		n = 0;
	}
	free(stored);
	rng_init_sub(&r, seed, def->ops->shared_deck);
	/* Deal from the top; when the deck runs out, the cards not on this
	 * game's table are shuffled into the next cycle. */
	for (i = 0; i < DEAL_FIRST + DEAL_SECOND; i++) {
		if (top == n) {
			deck_shuffle(&d, &r, taken, left, &n);
			top = 0;
			cycle++;
			if (i > 0)
				draw->turn = i;
		}
		if (i == 0)
			draw->cycle = cycle;
		taken[deck_card(&d, left[top])] = 1;
		buf_printf(&dealt, "%s%s", i == 0 ? "" : i == DEAL_FIRST ? "/" :
		    ",", left[top++]);
	}
	for (i = top; i < n; i++)
		buf_printf(&b, "%s%s", i > top ? " " : "", left[i]);
	rc = fx_deck_put(x, def->name, cycle, buf_str(&b));
	buf_free(&b);
	if (rc == -1) {
		buf_free(&dealt);
		return -1;
	}
	draw->deck = def->name;
	draw->cards = buf_steal(&dealt);
	*word = xasprintf("deal=%s", draw->cards);
	return 0;
}

int
refdeck_record(struct ref_msg *x, int64_t game,
    const struct refdeck_draw *draw)
{
	if (draw->cards == NULL)
		return 0;
	return fx_deck_deal_add(x, game, draw->deck, draw->cycle,
	    draw->turn, draw->cards);
}

void
refdeck_draw_free(struct refdeck_draw *draw)
{
	free(draw->cards);
	memset(draw, 0, sizeof(*draw));
}

int
refdeck_dealt(struct ref_msg *x, const struct gamedef *def, int64_t game)
{
	char *cards;
	int cycle, turn, rc;

	/* Only a game with a server deck has a deal to look up. */
	if (def->ops == NULL || def->ops->shared_deck == NULL)
		return 0;
	if ((rc = store_deck_deal(x->r->store, game, &cycle, &turn,
	    &cards)) == -1)
		return -1;
	free(cards);
	return rc == 0;
}

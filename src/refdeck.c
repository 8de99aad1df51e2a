/*
 * refdeck: the server's Almakleh deck, cycled across games as players do
 * at a table (almakleh.cycle_deck).
 *
 * The deck is the definition's cards (games/almakleh.yaml), shuffled with
 * each card turned to a random side.  Every new game is dealt the next
 * five from what remains, and those five are set aside; when fewer than
 * five remain, all the cards are gathered and shuffled again, which
 * starts the next cycle.  The engine is handed the deal as `deal=`, which
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

/* The whole deck shuffled from the seed, each card turned to a random
 * side, as almakleh.c's deal_random draws: the names in draw order. */
static void
deck_shuffle(const struct deck *d, const unsigned char seed[RNG_SEED_LEN],
    struct buf *out)
{
	struct rng r;
	uint8_t order[DECK_MAX], face[DECK_MAX];
	int i;

	for (i = 0; i < d->n; i++)
		order[i] = (uint8_t)i;
	rng_init_sub(&r, seed, "almakleh");
	rng_shuffle(&r, order, (size_t)d->n, 1);
	for (i = 0; i < d->n; i++)
		face[i] = (uint8_t)rng_below(&r, 2);
	for (i = 0; i < d->n; i++)
		buf_printf(out, "%s%s", i ? " " : "",
		    d->side[order[i]][face[order[i]]]);
}

/* Split the stored cards into names; -1 when one is no side of the deck
 * or a card comes twice (the definition changed since). */
static int
deck_left(const struct deck *d, char *cards, char **names, int *n)
{
	int seen[DECK_MAX] = { 0 }, c;
	char *tok, *save;

	*n = 0;
	for (tok = strtok_r(cards, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save)) {
		if ((c = deck_card(d, tok)) == -1 || seen[c]++ || *n == DECK_MAX)
			return -1;
		names[(*n)++] = tok;
	}
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
	struct buf b = { 0 }, dealt = { 0 };
	char *stored = NULL, *names[DECK_MAX];
	const char *v;
	int cycle, n = 0, i, rc, ok;

	*word = NULL;
	memset(draw, 0, sizeof(*draw));
	if (!x->r->cfg->almakleh.cycle_deck || def->ops == NULL ||
	    strcmp(def->ops->name, "almakleh") != 0 || def->data == NULL)
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
	ok = rc == 0 && deck_left(&d, stored, names, &n) == 0;
	if (rc == 0 && !ok)
		log_warn("the %s deck in the store does not match the "
		    "definition; shuffled again", def->name);
	if (!ok || n < DEAL_FIRST + DEAL_SECOND) {
		free(stored);
		deck_shuffle(&d, seed, &b);
		stored = buf_steal(&b);
		cycle++;
		if (deck_left(&d, stored, names, &n) == -1)
			fatal("refdeck: a fresh deck does not read back");
	}
	for (i = 0; i < DEAL_FIRST + DEAL_SECOND; i++)
		buf_printf(&dealt, "%s%s", i == 0 ? "" : i == DEAL_FIRST ? "/" :
		    ",", names[i]);
	for (i = DEAL_FIRST + DEAL_SECOND; i < n; i++)
		buf_printf(&b, "%s%s", b.len ? " " : "", names[i]);
	rc = store_deck_put(x->r->store, def->name, cycle, buf_str(&b));
	buf_free(&b);
	free(stored);
	if (rc == -1) {
		buf_free(&dealt);
		return -1;
	}
	draw->cycle = cycle;
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
	return store_deck_deal_add(x->r->store, game, draw->deck, draw->cycle,
	    draw->cards);
}

void
refdeck_draw_free(struct refdeck_draw *draw)
{
	free(draw->cards);
	memset(draw, 0, sizeof(*draw));
}

int
refdeck_dealt(struct ref_msg *x, int64_t game)
{
	char *cards;
	int cycle, rc;

	if ((rc = store_deck_deal(x->r->store, game, &cycle, &cards)) == -1)
		return -1;
	free(cards);
	return rc == 0;
}

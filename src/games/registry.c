/*
 * registry: the table naming every engine's game_ops, and the card
 * robots' hooks of the games that have them.  Apart from game.c, whose
 * helpers the engines call, and from the engines themselves, so that no
 * engine reaches the table that names it nor its own robot's hooks,
 * which call the engine.
 */
#include "config.h"

#include <stddef.h>

#include "game.h"
#include "../util.h"

extern const struct game_ops mancala_ops;
extern const struct game_ops almakleh_ops;
extern const struct game_ops alquerque_ops;
extern const struct game_ops aluette_ops;
extern const struct game_ops spite_ops;

const struct game_ops *const game_engines[] = {
	&mancala_ops,
	&alquerque_ops,
	&almakleh_ops,
	&aluette_ops,
	&spite_ops,
	NULL
};

const struct game_ops *
game_find(const char *name)
{
	int i;

	for (i = 0; game_engines[i] != NULL; i++)
		if (util_strcaseeq(game_engines[i]->name, name))
			return game_engines[i];
	return NULL;
}

static const struct {
	const struct game_ops	*ops;
	const struct game_cardbot *bot;
} cardbots[] = {
	{ &aluette_ops, &aluette_cardbot },
	{ &spite_ops, &spite_cardbot },
};

const struct game_cardbot *
game_cardbot(const struct game_ops *ops)
{
	size_t i;

	for (i = 0; i < sizeof(cardbots) / sizeof(cardbots[0]); i++)
		if (cardbots[i].ops == ops)
			return cardbots[i].bot;
	return NULL;
}

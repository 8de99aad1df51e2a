/*
 * site: the club's public pages, static HTML written from the store.
 *
 * index.html (the ladders, the games going on, the games recently over),
 * game/ID.html (players, variant, clock, the board as observers see it,
 * every position of the move record behind a script-free stepper, the
 * result, the seed once revealed), ladder/ID.html (standings, the rating
 * history as an inline SVG plot, results) and player/ID.html (games,
 * ratings per game, thanks received).
 *
 * Only the public view, ever: boards are the engines' GAME_PUBLIC
 * renderings, moves as shown_move() tells them to an observer, and while
 * a turn of several plies goes on (Spite & Malice before the discard) a
 * game's page stays as it was when the turn began, as observers' mails
 * do.  No token, no hand, no address unless the player chose `set
 * public-address yes` (a player is named by the chosen name, else the
 * part of the address before the @).  Boards are mailhtml_body()'s, the
 * same HTML the mails carry.  Pages are in referee.language, hold no
 * script and load nothing: one file each, written to a temporary name and
 * renamed over the old one.
 */
#ifndef LUDUS_SITE_H
#define LUDUS_SITE_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "gamedef.h"
#include "play.h"
#include "store.h"

/* What the pages are made from (all foreign). */
struct site_src {
	struct store		*store;
	const struct config	*cfg;
	const struct gamedef	*defs;
	int			 ndefs;
};

/* Every page into dir (made when missing); the store is only read.
 * *pages: how many were written.  0, or -1 with err. */
int	 site_write_all(const struct site_src *, const char *dir, int *pages,
	    char *err, size_t errlen);
/* The pages the changes recorded since the last call show (the store's
 * site_changes), then those changes are taken; everything when dir has
 * no index.html yet.  *pages: how many were written. */
int	 site_refresh(const struct site_src *, const char *dir, int *pages,
	    char *err, size_t errlen);
/* A game's page as it would be written, into out (for tests: the game as
 * loaded, its state g->st, is what the current board shows).  0 when the
 * game has a page, 1 when it has none (not begun), -1 with err. */
int	 site_game_page(const struct site_src *, const struct play_game *,
	    struct buf *out, char *err, size_t errlen);
/* The address of a game's page under site.url (owned), NULL without. */
char	*site_game_url(const struct config *, int64_t game);

#endif

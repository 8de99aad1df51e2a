/*
 * game: the one interface every rules engine sits behind.
 *
 * An engine is a table of pure functions over a fixed-size state value
 * (ops->state_size bytes, copied with memcpy).  Engines know nothing but
 * this header, rng.h and util.h: no mail, no SQL, no configuration files.
 *
 * The state of a game is a function of (kind, options, seed, move log):
 * create() deals from the seed, apply() plays one move.  An engine that
 * needs randomness after the deal (a reshuffle, the next hand's deal) keeps
 * a struct rng inside its state, so copies and replays draw the same cards.
 *
 * Seats are numbered 0..nseats-1 in the order the players were given at
 * `new`.  Seat 0 is the first player wherever the rules have one (Mancala's
 * South, Alquerque's White, Almakleh's first player); the referee resolves
 * `first=` by ordering the players before create().  Games whose rules
 * decide seating or who starts (Aluette's face-up deal, Spite & Malice's
 * payoff tops) decide it inside create() from the seed.
 */
#ifndef LUDUS_GAME_H
#define LUDUS_GAME_H

#include <stddef.h>
#include <stdint.h>

#include "../rng.h"
#include "../util.h"

#define GAME_MAX_SEATS	4
#define GAME_MAX_MOVES	512	/* legal moves of one seat in one position */
#define GAME_MAX_OPTS	16
#define GAME_OPT_STRLEN	128
#define GAME_ERRLEN	256
#define GAME_MOVE_TEXT	96	/* longest notation of one move, with NUL */
#define GAME_PUBLIC	(-1)	/* the viewer who is no seat: observers, lists */

/*
 * One move (one ply as rules.md defines it) in an engine's own compact
 * encoding.  Only the engine that made it interprets d[]; everyone else
 * copies it and turns it into text with format_move().
 */
struct game_move {
	uint8_t	len;
	uint8_t	d[23];
};

/*
 * Variant options, resolved before create(): every option the game's YAML
 * definition declares is present, with its default when the player gave
 * none, already checked against the declared type and range.  Integers and
 * booleans are in ival (booleans 0/1); enum and string values in sval.
 */
struct game_optval {
	char	name[32];
	long long ival;
	char	sval[GAME_OPT_STRLEN];
};
struct game_opts {
	int	n;
	struct game_optval v[GAME_MAX_OPTS];
	const char *data;	/* foreign: the definition's `data` block
				 * (e.g. a deck), or NULL */
};

/* The options' value by name; the lookups abort when the name is absent,
 * which means the engine and its YAML definition disagree. */
long long	 game_opt_int(const struct game_opts *, const char *);
const char	*game_opt_str(const struct game_opts *, const char *);
/* Set (or add) an option; for tests and tools that build options by hand. */
void		 game_opt_set(struct game_opts *, const char *, long long,
		    const char *);

struct game_result {
	int	over;		/* 0 while the game goes on */
	int	draw;		/* over and nobody won */
	uint32_t winners;	/* bit per seat that won (partners both set) */
	int	score[GAME_MAX_SEATS]; /* points, seeds, ... as the game counts */
	char	text[160];	/* "South wins 27-21", "draw by repetition" */
};

/* How a rendering is made: for whom, and the names to print for seats. */
struct game_view {
	int	viewer;		/* a seat, or GAME_PUBLIC */
	const char *names[GAME_MAX_SEATS]; /* NULL: the engine's seat names */
	/* Leave out the line saying who is to move: the caller says it
	 * itself (the referee's mails), or the game was ended outside the
	 * rules (a resignation, an agreed draw, time). */
	int	no_turn;
};

struct game_pic;

struct game_ops {
	const char *name;	/* "mancala": the key in games/NAME.yaml */
	const char *title;	/* "Mancala (Kalah)" */
	size_t	state_size;

	/* Deal from the options and seed.  0, or -1 with err filled (an
	 * option value the engine cannot use, e.g. an unknown card name). */
	int	(*create)(void *st, const struct game_opts *,
		    const unsigned char seed[RNG_SEED_LEN], int nseats,
		    char *err, size_t errlen);
	/* Seats the options need (the referee checks the player count). */
	int	(*seats)(const struct game_opts *);
	/* "South", "White", "Red": the seat's label in this game. */
	const char *(*seat_name)(const void *st, int seat);

	/* Bit per seat that may act now; 0 once the game is over. */
	uint32_t (*to_move)(const void *st);
	/* Up to max legal moves of the seat into out; returns the count, 0
	 * when the seat may not act.  Must not allocate. */
	int	(*legal)(const void *st, int seat, struct game_move *out,
		    int max);
	/* Read one move in the game's notation for the seat.  0, or -1 with
	 * a message saying what is wrong and, where it helps, what is right
	 * (including "it is North's turn").  A parsed move is legal: apply()
	 * on it succeeds.  An engine may accept moves that are events rather
	 * than plies (an Aluette signal): those are logged like moves but
	 * never returned by legal() (so game_perft never counts them) and
	 * never pass the turn. */
	int	(*parse_move)(const void *st, int seat, const char *text,
		    struct game_move *, char *err, size_t errlen);
	/* The move's notation (as parse_move reads it) in the position
	 * before it is played. */
	void	(*format_move)(const void *st, int seat,
		    const struct game_move *, char *out, size_t len);
	/* Play a move known to be legal.  Must not allocate. */
	void	(*apply)(void *st, int seat, const struct game_move *);
	void	(*result)(const void *st, struct game_result *);

	/* ASCII board for the viewer: only what that viewer may see. */
	void	(*render)(const void *st, const struct game_view *,
		    struct buf *);
	/* A line-oriented text form that parse_state reads back exactly:
	 * serialise(parse(serialise(s))) == serialise(s). */
	void	(*serialise)(const void *st, struct buf *);
	int	(*parse_state)(void *st, const char *text, char *err,
		    size_t errlen);
	/* One JSON object with everything, hidden cards included. */
	void	(*export_json)(const void *st, struct buf *);

	/*
	 * Optional (NULL when absent): a heuristic score of a position from
	 * the seat's point of view, for the robot players.  0 is even, larger
	 * is better for the seat; it is antisymmetric between the two seats
	 * of a two-player game (evaluate(s, 0) == -evaluate(s, 1)) and stays
	 * well inside +-1000000, which the robots keep for won and lost
	 * games.  Only games of perfect information provide it, since the
	 * robots search such a game by apply() on copies of the whole state
	 * (Almakleh's cards=discard draw pile is the one exception the
	 * robots accept: see ludus-games(7)).  Must not allocate.
	 */
	int	(*evaluate)(const void *st, int seat);

	/* Optional (NULL in games without hidden information): replace
	 * every card the seat cannot see (the other hands, the stock,
	 * undealt cards, hidden discards, the generator of later deals)
	 * with a uniformly random deal consistent with everything the seat
	 * can see (its own hand, the public cards, card counts, the known
	 * constraints), in place.  The result depends only on the seat's
	 * view and the numbers drawn from rng: two states the seat cannot
	 * tell apart become the same state.  render() and legal() for that
	 * seat are unchanged.  Must not allocate. */
	void	(*determinize)(void *st, int seat, struct rng *);
	/* Optional (NULL in games without partnerships): the seat's
	 * partner, who wins and loses with it. */
	int	(*partner)(const void *st, int seat);
	/*
	 * Optional (NULL: every logged move is a ply that everyone reads as
	 * logged): how a move seat logged in notation reads to viewer (a
	 * seat or GAME_PUBLIC) in the state st is in now.  GAME_SHOWN_PLY
	 * or GAME_SHOWN_EVENT (logged but no ply, such as an Aluette signal:
	 * it does not count in move numbers) with what the viewer may read
	 * in out, or GAME_SHOWN_NONE when the viewer may not even learn that
	 * it was made.  A seat always reads its own moves.
	 */
	int	(*shown_move)(const void *st, int seat, const char *notation,
		    int viewer, char *out, size_t len);
	/*
	 * Optional (NULL: every line is taken for a move): is one word of
	 * a line, lower-cased and without the punctuation around it, shaped
	 * like a word of the game's notation, even a wrong one (a pit
	 * number out of range, a point off the board, a card nobody holds)?
	 * game_looks_like_move decides a line by it.
	 */
	int	(*move_word)(const void *st, const char *word);
	/*
	 * Optional (NULL: every ply is a turn of its own): does a ply seat
	 * logged in notation end that seat's turn?  A game whose turn is
	 * several plies (Spite & Malice: any number of plays, then the
	 * discard; Mancala: the sowings of an extra turn) says which ply
	 * closes it.  Move numbers count turns, and the other seats hear of
	 * a turn once, when it ends.  A turn also ends when the seat is no
	 * longer to move (a round won by the last payoff card, a sowing
	 * that did not reach the store).
	 */
	int	(*ends_turn)(int seat, const char *notation);
	/* Nonzero when the seed deals or draws anything (cards); zero when
	 * the game is without chance and the seed decides nothing. */
	int	chance;
	/*
	 * Optional (NULL: the board is shown as it is, in one monospace
	 * block): the look of the text render() made for the same state and
	 * view, for the HTML part of mails.  Fills style[0..len) with one
	 * GAME_STYLE_ byte per byte of text (0 for plain); it never changes
	 * the text, so what a reader of the plain part sees stays the one
	 * source.  Must not allocate.
	 */
	void	(*render_style)(const void *st, const struct game_view *,
		    const char *text, size_t len, char *style);
	/*
	 * Optional (NULL: no move shows anyone a card it could not see:
	 * games without hidden cards): does seat playing m in st (a legal
	 * move) show any seat a card that seat could not see before it (a
	 * card played from a hand, one turned up or drawn from a face-down
	 * pile, a new deal)?  What a seat has seen cannot be unseen, so the
	 * referee takes back no such move and looks ahead past none in a
	 * conditional move.  Must not allocate.
	 */
	int	(*reveals)(const void *st, int seat, const struct game_move *m);
	/*
	 * Optional (NULL: result() says): nonzero exactly when result()
	 * would set over, without building the result, for searches that
	 * ask at every node.  Must not allocate.
	 */
	int	(*over)(const void *st);
	/*
	 * Optional (NULL: legal() is called and its moves counted): the
	 * number of moves legal() returns for the seat with max
	 * GAME_MAX_MOVES, without building them, for the last ply of a
	 * perft (bulk counting).  Must not allocate.
	 */
	int	(*count_legal)(const void *st, int seat);
	/*
	 * Optional (NULL: no): the referee may deal a new game from one
	 * deck it keeps across games (refdeck.c).  The definition's data
	 * block lists the cards as `card SIDE ... | SIDE ...`, create()
	 * takes the five dealt (three to the first player, two to the
	 * second) as the option deal=, and shared_deck names the
	 * sub-generator of the seed (rng_init_sub) create() deals from, so
	 * that the referee's shuffle draws what the engine's would.
	 */
	const char *shared_deck;
	/*
	 * Optional (NULL: the whole state): how many leading bytes of the
	 * state apply() may change when it plays any move legal() lists in
	 * st, for any seat to move; at most state_size.  A search that plays
	 * each of st's moves on one copy of st puts back only those bytes
	 * between one move and the next, so an engine that keeps what a move
	 * changes at the start of its state saves copying the rest at every
	 * node.  Must not allocate.
	 */
	size_t	(*apply_span)(const void *st);
	/*
	 * Optional (NULL: every move is played and the moves after it
	 * counted): the leaves of game_perft(ops, st, 2), the moves legal
	 * after each of st's moves summed, without playing them (bulk
	 * counting one ply further), or GAME_PERFT_UNKNOWN where the engine
	 * does not know them so cheaply (a move that may end the hand or
	 * the game, a phase other than the common one), which game_perft
	 * then counts move by move.  Pure; must not allocate.
	 */
	uint64_t (*count_after)(const void *st);
	/*
	 * Optional (NULL: the robots hash the whole state): a 64-bit hash
	 * of every byte of the state that can decide what follows (moves,
	 * results, evaluate(), a repetition), for the robots' transposition
	 * table.  Two states it hashes from the same bytes must play alike
	 * from here on; it may leave out what only render() shows and the
	 * unused part of a fixed-size buffer (a history ring).  Build it
	 * with game_hash_bytes.  Must not allocate.
	 */
	uint64_t (*hash)(const void *st);
	/*
	 * Optional (NULL: the HTML part shows render()'s diagrams as
	 * text): the board as a drawing for the same state and view, for
	 * the HTML part of mails and the public pages.  Fills pic (zeroed
	 * by the caller) with grids of cells (struct game_pic below) from
	 * the state itself; captions are in the language in effect.  The
	 * text render() made stays the plain part; the drawing replaces
	 * its diagrams in the HTML part only.  Must not allocate.
	 */
	void	(*draw)(const void *st, const struct game_view *,
		    struct game_pic *pic);
	/*
	 * Optional (NULL: never known): the outcome of perfect play from
	 * st, where the engine knows it (an endgame database): 1 with
	 * *margin set to seat's final score less the other seat's in a
	 * two-player game the best play of both leads to, or 0 when it
	 * does not know (the game over, a position outside the database).
	 * It may build what it needs at its first use in the process and
	 * keep it; otherwise it must not allocate.
	 */
	int	(*exact)(const void *st, int seat, int *margin);
};

/*
 * A board drawing (ops->draw): grids of cells, each a small table that
 * a reader's client lays out as it is (the HTML part draws each cell as a
 * table cell with inline colours).  A grid either stands for the next
 * diagram of render()'s text (a run of lines that are not running text,
 * GAME_STYLE_TEXT), in order, several grids of one diagram side by side
 * (`block`), or comes after the board's line of running text that starts
 * with `after` (a game whose board is all running text: a trick, a
 * hand).  Cells are left to right in every language: a board, a hand,
 * a row of pits read the same way in Arabic as in English.
 */
#define GAME_PIC_GRIDS	16
#define GAME_PIC_CELLS	640
#define GAME_CELL_TEXT	16	/* bytes of a cell's text, with NUL */

enum game_cell_kind {
	GAME_CELL_BLANK,	/* nothing: a gap */
	GAME_CELL_LABEL,	/* a coordinate or a short word, dim */
	GAME_CELL_LINE,		/* a board line: "-", "|", "/", "\", "x",
				 * "+" (both diagonals cross) */
	GAME_CELL_POINT,	/* an empty point or square */
	GAME_CELL_PIECE,	/* a stone or piece on a point or square:
				 * text is its letter, look its side */
	GAME_CELL_PIT,		/* a pit: text is its count */
	GAME_CELL_STORE,	/* a store: text is its count */
	GAME_CELL_CARD,		/* a card face: text is its rank, a suit
				 * symbol after it when it has one */
	GAME_CELL_BACK,		/* a face-down card or an empty pile: text
				 * says how many, or "-" */
	GAME_CELL_DOT,		/* a square of a card's move diagram:
				 * text "o" the piece, "x" a move, "" none */
};

struct game_cell {
	uint8_t	kind;		/* enum game_cell_kind */
	uint8_t	look;		/* GAME_STYLE_ colour and flags */
	uint8_t	rowspan;	/* 0 or 1: one row */
	uint8_t	colspan;	/* 0 or 1: one column; a cell a span
				 * covers is left out of the grid */
	char	text[GAME_CELL_TEXT];
};

#define GAME_GRID_BOARD	0	/* square cells as wide as the page lets */
#define GAME_GRID_CARDS	1	/* cards in rows: a hand, piles, a trick */
#define GAME_GRID_MOVES	2	/* a card's move diagram, small */

struct game_grid {
	uint8_t	kind;		/* GAME_GRID_ */
	uint8_t	rows, cols;
	uint8_t	block;		/* the diagram of render()'s text it stands
				 * for, counted from 0 */
	uint16_t first;		/* its first cell in pic->cell, rows * cols
				 * of them, row by row */
	char	caption[64];	/* above the grid, or "" */
	char	after[48];	/* "" or the start of the line it follows */
};

struct game_pic {
	int	ngrids, ncells;
	int	full;		/* a grid or cell did not fit: the drawing
				 * is incomplete and is not used */
	int	turned;		/* the first diagram is drawn turned round
				 * for the reader (the text's top side at
				 * the bottom): the lines of running text
				 * right above and right below it, its
				 * legends, trade places */
	struct game_grid grid[GAME_PIC_GRIDS];
	struct game_cell cell[GAME_PIC_CELLS];
};

/* Start a grid of rows x cols blank cells in block (cells filled with
 * game_pic_set); the grid, or NULL (and pic->full) when there is no
 * room. */
struct game_grid *game_pic_grid(struct game_pic *, int kind, int rows,
	    int cols, int block, const char *caption);
/* Set a cell of the grid (row and column from 0); text is copied, cut
 * to GAME_CELL_TEXT - 1 bytes at a character's end. */
struct game_cell *game_pic_set(struct game_pic *, struct game_grid *,
	    int row, int col, int kind, int look, const char *text);
/* A grid's cell, or NULL outside it. */
const struct game_cell *game_pic_cell(const struct game_pic *,
	    const struct game_grid *, int row, int col);

/* count_after()'s answer "count them move by move". */
#define GAME_PERFT_UNKNOWN	UINT64_MAX

/* render_style() bytes: a colour (the low four bits), ORed with flags.
 * Colour never carries meaning alone: the text has a symbol for it too. */
#define GAME_STYLE_COLOUR	0x0f
#define GAME_STYLE_SEAT(n)	(1 + (n))	/* seat n (0-3): red, blue,
						 * green, orange */
#define GAME_STYLE_DIM		5	/* grid lines, coordinates */
#define GAME_STYLE_COINS	6	/* suits of Spanish cards */
#define GAME_STYLE_CUPS		7
#define GAME_STYLE_SWORDS	8
#define GAME_STYLE_CLUBS	9
#define GAME_STYLE_WILD		10	/* a wild card */
#define GAME_STYLE_TAKEN	11	/* a captured piece, taken points */
#define GAME_STYLE_LIGHT	12	/* a light stone (White) */
#define GAME_STYLE_DARK		13	/* a dark stone (Black) */
#define GAME_STYLE_CARD		14	/* a card face */
#define GAME_STYLE_LAST		0x10	/* part of the last move */
#define GAME_STYLE_BOLD		0x20
#define GAME_STYLE_TEXT		0x40	/* on a line's first byte: the line
					 * is running text, not a diagram,
					 * and may wrap */
#define GAME_SHOWN_NONE		0
#define GAME_SHOWN_PLY		1
#define GAME_SHOWN_EVENT	2

/*
 * The card robots' knowledge of a game.  cardbot.c runs the searches
 * (levels, information-set Monte Carlo tree search) for any game that has
 * it and knows the game only through these hooks; each game's hooks live
 * in src/games/NAME-bot.c, next to the engine, and read its state
 * directly through one function of an internal header shared with the
 * engine (src/games/NAME.h: spite_seen(), aluette_seen()) that takes only
 * what the robot's seat may see; a move's meaning comes from its bytes.
 */

/* What a move is, as the game's classify() says: kind 0 is "nothing the
 * robot tells apart"; the other kinds, card and target are the game's. */
struct game_botmove {
	struct game_move m;
	int	used;
	int	kind;
	int	card;
	int	target;
};
#define GAME_BOT_CACHE	1024	/* moves told apart in one decision */

/* A robot deciding one move. */
struct game_botctx {
	const struct game_ops *ops;	/* foreign */
	const struct game_cardbot *bot;	/* foreign: game_cardbot(ops) */
	int	seat;		/* the robot's */
	struct rng *rng;	/* foreign: the robot's own generator */
	struct game_botmove *cache; /* cardbot.c's: GAME_BOT_CACHE entries,
				 * zeroed when the decision starts */
	struct rng_bytes bytes;	/* game_bot_below()'s bytes drawn and not
				 * used yet, zero when the decision starts */
};

/* One simulation of a search, zeroed at its start. */
struct game_botsim {
	int	turns;		/* the game's count of turns ended */
	int	stop;		/* set by play(): the simulation ends here */
	double	tally[GAME_MAX_SEATS];	/* the game's own count by seat */
};

struct game_cardbot {
	int	seats;		/* seats in every game of it */
	int	max_plies;	/* a simulation stops after so many plies */
	/* The meaning of seat's move m in st into mi->kind, card and
	 * target (all come as 0, card as -1).  The meaning of a move must
	 * not depend on the position: game_bot_move() caches it by the
	 * move's bytes. */
	void	(*classify)(const struct game_botctx *, const void *st,
		    int seat, struct game_botmove *mi);
	/* Levels 1 and 2: the index of the move the robot's seat plays
	 * among moves[0..n) (n > 1), legal in st (determinized for it). */
	int	(*choose)(struct game_botctx *, const void *st, int level,
		    const struct game_move *moves, int n);
	/* Optional (NULL: one at random): the playout policy, the index of
	 * actor's move among moves[0..n) in a simulation. */
	int	(*playout)(struct game_botctx *, const void *st, int actor,
		    const struct game_move *moves, int n);
	/* Optional (NULL: none): a prior for the robot's moves at the root
	 * of the search, bias[i] for moves[i] (0 for the best, less for
	 * worse ones), added to their value and fading with visits. */
	void	(*prior)(struct game_botctx *, const void *st,
		    const struct game_move *moves, int n, double *bias);
	/* Optional (NULL: ops->apply): play actor's move m in a simulation
	 * that has played plies plies, keeping the game's counts in sim. */
	void	(*play)(struct game_botctx *, struct game_botsim *, void *st,
		    int actor, const struct game_move *m, int plies);
	/* Each seat's reward in [0, 1] (r comes filled with 0.5) where a
	 * simulation stopped before the game was over, after plies plies;
	 * gain is each seat's score (result()) less its score at the root. */
	void	(*reward)(struct game_botctx *, const struct game_botsim *,
		    const void *st, const int gain[GAME_MAX_SEATS], int plies,
		    double r[GAME_MAX_SEATS]);
};

/* The card robots of the engines that have them (src/games/NAME-bot.c). */
extern const struct game_cardbot aluette_cardbot;
extern const struct game_cardbot spite_cardbot;

/* The meaning of seat's move m in st by the game's classify(), cached in
 * the context by the move's bytes. */
const struct game_botmove *game_bot_move(struct game_botctx *,
	    const void *st, int seat, const struct game_move *m);
/* A number below n (0 < n <= 256) from the robot's generator, a byte at a
 * time (a playout's many small choices), every number equally likely. */
uint32_t game_bot_below(struct game_botctx *, uint32_t n);
/* The words of a line split in place on spaces into w; the count. */
int	game_bot_words(char *s, char **w, int max);

/* All engines, NULL-terminated, and lookup by name (case-insensitive)
 * (registry.c). */
extern const struct game_ops *const game_engines[];
const struct game_ops *game_find(const char *);
/* What the card robots (cardbot.c) know of a game with hidden cards (one
 * with determinize()), from the registry: NULL for no card robot. */
const struct game_cardbot *game_cardbot(const struct game_ops *);

/*
 * Apply a line of moves for a seat: the text is split on commas (and new
 * lines), each piece parsed and applied in order to a copy of the state.
 * All or nothing: on error st is untouched, *failed is the 0-based index of
 * the failing piece, and err says "move 2 (`6`): ...".  Returns the number of
 * moves applied, or -1.  When moves is not NULL, the applied moves are
 * stored there (at most maxmoves).
 */
int	game_apply_line(const struct game_ops *, void *st, int seat,
	    const char *line, struct game_move *moves, int maxmoves,
	    int *failed, char *err, size_t errlen);

/* Is the game over: ops->over when the engine has it, else result(). */
int	game_over(const struct game_ops *, const void *st);

/* Mix len bytes at p into the hash h (start from 0): fast on a few
 * kilobytes, and every byte counts. */
uint64_t game_hash_bytes(uint64_t h, const void *p, size_t len);

/* Count leaves of the legal-move tree to depth (rules.md's convention:
 * an ended game is one leaf at whatever depth; every seat in to_move
 * contributes its moves). */
uint64_t game_perft(const struct game_ops *, const void *st, int depth);

/*
 * Does a line a player wrote look like an attempt at a move, right or
 * wrong, rather than a remark ("Hi Dave,", "Good game so far")?  It does
 * when at least half of its words (split on blanks, commas and
 * semicolons) are words of the notation by ops->move_word.  Always 1 for
 * an engine without move_word.
 */
int	game_looks_like_move(const struct game_ops *, const void *st,
	    const char *line);
/* A word made of board points, as `b2`, `b2-c3`, `b2xd4:b4` or the
 * mistyped `b2c3` and `f7-f8`: one letter and one or two digits each,
 * joined by nothing or by `-`, `x`, `:`. */
int	game_word_is_points(const char *word);

/* Legal moves of a seat as notation, one per line, into out. */
void	game_legal_text(const struct game_ops *, const void *st, int seat,
	    struct buf *);

#endif

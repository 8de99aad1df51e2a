/*
 * i18n: the words players read, from one gettext catalogue per language
 * (po/LANG.po compiled to LOCALEDIR/LANG/LC_MESSAGES/ludus.mo).
 *
 * Every text meant for a person is written in English in the source and
 * wrapped: _("...") translates now, N_("...") only marks a string for the
 * catalogue (a table entry translated where it is shown), P_(one, many, n)
 * picks the plural form the language needs (Russian has three, Arabic
 * six).  Notation (pit numbers, coordinates, card names in moves, `p`,
 * `s1`) and anything parsed back is never translated.
 *
 * The language is a per-process setting switched before each reader's mail
 * is built: i18n_set("ru").  Until i18n_set is first called (the rules
 * engines' unit tests, perft, the tools) everything is English.  Engines
 * may include this header: it needs nothing but libintl from the C
 * library.
 */
#ifndef LUDUS_I18N_H
#define LUDUS_I18N_H

#include <stddef.h>
#include <libintl.h>

#include "util.h"

#define I18N_DOMAIN	"ludus"

#define _(s)		dgettext(I18N_DOMAIN, s)
#define N_(s)		(s)
#define P_(s, p, n)	dngettext(I18N_DOMAIN, s, p, (unsigned long)(n))

/*
 * Switch the catalogue to a language code ("en", "ru", "ar"; "" or NULL:
 * English).  Cheap when the language does not change.  The first call
 * binds the catalogues: $LUDUS_LOCALE_DIR when set, else the installed
 * LOCALEDIR.  A language without a catalogue reads English.
 */
void	 i18n_set(const char *lang);
/* The language in effect ("en" before any i18n_set; don't free). */
const char *i18n_lang(void);
/* Where the catalogues are read from (don't free). */
const char *i18n_dir(void);
/* Is there a catalogue (or is it English, which needs none)? */
int	 i18n_known(const char *lang);
/* Is the language written right to left? */
int	 i18n_rtl(const char *lang);

/*
 * Text kept for later readers (a result stored with the game, an event in
 * its history) must not be frozen in the language of whoever caused it.
 * i18n_defer stores the English msgid and its arguments (each a plain
 * string for %s in order; an argument given as I18N_TR "South" is itself a
 * msgid, translated when shown) in one string: the msgid, then each
 * argument after a U+001F unit separator.  i18n_expand renders such a
 * string (or what i18n_keep made of it) in the language in effect into
 * b; text stored before (no separator) is shown through the catalogue as
 * it is.
 */
#define I18N_SEP	'\x1f'
#define I18N_TR		"\x1e"
#define I18N_KEEP	'\x1d'
char	*i18n_defer(const char *msgid, ...);	/* NULL-terminated; owned */
/* What is stored: the English text first, for operators and their tools
 * (which show only what comes before U+001D, i18n_english_len), then
 * U+001D and the deferred form.  Owned. */
char	*i18n_keep(const char *deferred);
size_t	 i18n_english_len(const char *stored);
void	 i18n_expand(const char *stored, struct buf *b);
/* The same with the result returned (owned). */
char	*i18n_expand_str(const char *stored);

/*
 * A whole plain-text mail for a reader of a right-to-left language, for
 * clients that apply the Unicode bidirectional algorithm: a non-blank line
 * with no right-to-left letter (a board line, a move list), or a board
 * row that holds a translated word (indented, Latin before Arabic,
 * columns lined up with blanks), gets a LEFT-TO-RIGHT MARK, so it is laid
 * out left to right and left-aligned, and is isolated whole; in a line of
 * right-to-left text every run that holds Latin letters or digits (a
 * move, an address, `a command`, a number with its unit) is isolated,
 * its edges' spaces and punctuation left outside (a closing bracket stays
 * in the run only when it closes one opened there).  Blank lines and the
 * signature separator "-- " are left alone.  Appends to out.
 */
void	 i18n_bidi_text(const char *in, struct buf *out);
/* The first such run in s[0..len): 1 with its bounds [*a, *b), else 0. */
int	 i18n_next_ltr(const char *s, size_t len, size_t *a, size_t *b);

#endif

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
 * string in the language in effect into b; text stored before (no
 * separator) is shown as it is.
 */
#define I18N_SEP	'\x1f'
#define I18N_TR		"\x1e"
char	*i18n_defer(const char *msgid, ...);	/* NULL-terminated; owned */
void	 i18n_expand(const char *stored, struct buf *b);
/* The same with the result returned (owned). */
char	*i18n_expand_str(const char *stored);

/*
 * Bidirectional isolation for plain text read right to left: wrap a left-
 * to-right run (an address, a move, a board line) in U+2066 LEFT-TO-RIGHT
 * ISOLATE ... U+2069 POP DIRECTIONAL ISOLATE when the language in effect
 * is written right to left; otherwise copy it unchanged.
 */
void	 i18n_ltr(struct buf *b, const char *text);
/* "\u2066" and "\u2069" in an RTL language, "" otherwise (don't free). */
const char *i18n_lri(void);
const char *i18n_pdi(void);

#endif

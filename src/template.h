/*
 * template: the outgoing-mail template language (ludus-templates(5)).
 *
 * A template is plain UTF-8 text with tags:
 *
 *   {{name}} {{game.title}}        a variable (dotted: a field of a record)
 *   {{&name}}                      never HTML-escaped, even in HTML mode
 *   {{name|max:N}}                 at most N characters, "…" when cut
 *   {{#if name}} … {{else}} … {{/if}}
 *   {{#unless name}} … {{else}} … {{/unless}}
 *   {{#each list}} … {{/each}}     {{.}} is a scalar item; a record item's
 *                                  fields are names of their own; also
 *                                  {{@index}} (0-based), {{@number}}
 *                                  (1-based), {{@first}}, {{@last}}
 *   {{! comment }}
 *
 * A line holding nothing but one section tag ({{#…}}, {{else}}, {{/…}}) or
 * a comment, with optional blanks around it, leaves nothing behind, not
 * even its line end (mustache's "standalone" rule).  Names are looked up in
 * the innermost loop item first, then outwards to the top record.
 * A value is true when it is set and is a non-empty string other than "0",
 * a non-empty list or a record.
 *
 * When a template's first line starts with "Subject:", the rest of that
 * line is the subject's template and the lines after it the body's; blank
 * lines at the start of the rendered body are dropped.
 */
#ifndef LUDUS_TEMPLATE_H
#define LUDUS_TEMPLATE_H

#include <stddef.h>

#include "util.h"

/* The data a template is rendered from: a record of named values, each a
 * string, a record or a list.  The whole tree is owned by its top record
 * and released with one tmpl_data_free(); every pointer these functions
 * return stays valid until then (don't free it). */
struct tmpl_data;
struct tmpl_list;

struct tmpl_data *tmpl_data_new(void);
void	 tmpl_data_free(struct tmpl_data *);
/* Set a string (copied).  A dotted name sets a field of a sub-record,
 * made on the way ("game.title").  Setting again replaces the value. */
void	 tmpl_set(struct tmpl_data *, const char *name, const char *value);
void	 tmpl_setf(struct tmpl_data *, const char *name, const char *fmt, ...)
	    PRINTFLIKE(3, 4);
void	 tmpl_set_int(struct tmpl_data *, const char *name, long long);
/* Set a string with a style layer: style holds one byte per byte of value
 * (copied; NULL for none), which tmpl_render_styled() passes on where the
 * value is rendered.  The bytes mean what the caller makes of them (the
 * referee: mailhtml.h). */
void	 tmpl_set_styled(struct tmpl_data *, const char *name,
	    const char *value, const char *style);
/* The string under a (dotted) name, or NULL (don't free). */
const char *tmpl_get(const struct tmpl_data *, const char *name);
/* The sub-record under name, made when absent (dotted names too). */
struct tmpl_data *tmpl_record(struct tmpl_data *, const char *name);
/* The list under name, made empty when absent. */
struct tmpl_list *tmpl_list(struct tmpl_data *, const char *name);
/* Append a new empty record item (filled with tmpl_set) or a string. */
struct tmpl_data *tmpl_list_add(struct tmpl_list *);
void	 tmpl_list_add_str(struct tmpl_list *, const char *);
void	 tmpl_list_add_styled(struct tmpl_list *, const char *,
	    const char *style);
size_t	 tmpl_list_len(const struct tmpl_list *);
/* The record item at index i, or NULL (out of range, or a string). */
struct tmpl_data *tmpl_list_get(struct tmpl_list *, size_t i);

/* A parsed template. */
struct tmpl;

/* Parse text; file names the source in messages ("file:line: why").
 * NULL with err filled on a syntax error or invalid UTF-8. */
struct tmpl *tmpl_parse(const char *text, const char *file, char *err,
	    size_t errlen);
/*
 * Load DIR/LANG/NAME.tmpl.  When that file does not exist and LANG is not
 * "en", DIR/en/NAME.tmpl is loaded instead (a missing translation falls
 * back to English; a broken one is an error).  LANG is a language code
 * (letters, optionally "-REGION"), NAME letters, digits and '-'.
 */
struct tmpl *tmpl_load(const char *dir, const char *lang, const char *name,
	    char *err, size_t errlen);
void	 tmpl_free(struct tmpl *);
/* The file it was read from (don't free). */
const char *tmpl_file(const struct tmpl *);
/* Every name the template uses, sorted, one a line, each prefixed by the
 * lists it sits in ("each moves/text"), for comparing translations. */
void	 tmpl_names(const struct tmpl *, struct buf *);

/*
 * Parse every LANG/NAME.tmpl under dir, so that an edited template is
 * reported when the configuration is checked or reloaded rather than when
 * a mail needs it.  Appends one "file:line: why" line to errors per broken
 * template; returns how many there are, or -1 (errors filled) when dir
 * cannot be read.
 */
int	 tmpl_check_dir(const char *dir, struct buf *errors);

/* Loaded templates by language and name, each parsed once (fallback as
 * tmpl_load).  The cache owns them; drop it to reload. */
struct tmpl_cache;
struct tmpl_cache *tmpl_cache_new(const char *dir);
void	 tmpl_cache_free(struct tmpl_cache *);
/* tmpl_check_dir, keeping every template parsed in the cache, which
 * must be new (the daemon holds all of them from its start or reload on:
 * a file edited since is not read again until the next reload). */
int	 tmpl_cache_fill(struct tmpl_cache *, const char *dir,
	    struct buf *errors);
/* The template (don't free; valid until tmpl_cache_free), or NULL with
 * err filled. */
const struct tmpl *tmpl_cache_get(struct tmpl_cache *, const char *lang,
	    const char *name, char *err, size_t errlen);

#define TMPL_HTML	0x1	/* escape & < > " ' in variables */
#define TMPL_STRICT	0x2	/* a missing name or a value of the wrong kind
				 * is an error instead of rendering empty */

/* Render into *subject (owned; "" without a Subject line) and *body
 * (owned).  0, or -1 with err filled ("file:line: ...") in strict mode,
 * and nothing allocated. */
int	 tmpl_render(const struct tmpl *, const struct tmpl_data *, int flags,
	    char **subject, char **body, char *err, size_t errlen);
/* The same, with the body's style layer in *style (owned; one byte per
 * byte of *body: a styled value's bytes where it was rendered unchanged,
 * 0 elsewhere). */
int	 tmpl_render_styled(const struct tmpl *, const struct tmpl_data *,
	    int flags, char **subject, char **body, char **style, char *err,
	    size_t errlen);

#endif

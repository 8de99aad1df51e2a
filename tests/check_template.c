/* Templates: the syntax, its errors, UTF-8 and HTML, the language fallback,
 * and every shipped template rendered strictly in every language. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>

#include "games/game.h"
#include "mailhtml.h"
#include "template.h"
#include "testutil.h"

/* Every mail the referee sends (commands.md, "What the referee sends"). */
static const char *const names[] = {
	"invitation", "game-start", "move", "error", "reminder", "end",
	"help", "games", "list", "history", "board", "preview", "confirm",
	"declined", "observe", "report-ack", "say", "vacation",
	"bounce-notice", "done", "draw", "report-admin", "admin-reports",
	"timeout", "timeout-admin", "vacation-notice", "ladder",
	"ladder-result", "ladder-standings", "aside", "elsewhere",
	"seeks", "seek-closed",
	"conditions", "takeback", "invitations-held",
};
static const char *const langs[] = { "en", "ru", "ar" };

/* Render text with data under flags; the body (owned), or NULL with the
 * error copied into err. */
static char *
render_subj(const char *text, const struct tmpl_data *d, int flags,
    char **subject, char *err, size_t errlen)
{
	struct tmpl *t;
	char *body, *subj;

	t = tmpl_parse(text, "t.tmpl", err, errlen);
	ck_assert_msg(t != NULL, "parse: %s", err);
	if (tmpl_render(t, d, flags, &subj, &body, err, errlen) != 0) {
		tmpl_free(t);
		return NULL;
	}
	tmpl_free(t);
	if (subject != NULL)
		*subject = subj;
	else
		free(subj);
	return body;
}

/* The rendered body, which must succeed strictly. */
static void
expect(const char *text, const struct tmpl_data *d, const char *want)
{
	char err[256], *got;

	got = render_subj(text, d, TMPL_STRICT, NULL, err, sizeof(err));
	ck_assert_msg(got != NULL, "%s: %s", text, err);
	ck_assert_msg(strcmp(got, want) == 0, "template %s\ngot  [%s]\nwant [%s]",
	    text, got, want);
	free(got);
}

static void
expect_parse_error(const char *text, const char *want)
{
	char err[256] = "";
	struct tmpl *t = tmpl_parse(text, "t.tmpl", err, sizeof(err));

	ck_assert_msg(t == NULL, "parsed: %s", text);
	ck_assert_str_eq(err, want);
}

START_TEST(tmpl_variables_and_dotted_names)
{
	struct tmpl_data *d = tmpl_data_new();

	tmpl_set(d, "name", "Ann");
	tmpl_set(d, "game.title", "Mancala (Kalah)");
	tmpl_set_int(d, "game.id", 42);
	tmpl_setf(d, "game.clock", "%dd", 3);
	expect("Hi {{name}}!", d, "Hi Ann!");
	expect("{{ game.title }} #{{game.id}}, {{game.clock}}", d,
	    "Mancala (Kalah) #42, 3d");
	expect("{{&name}}", d, "Ann");
	/* setting again replaces; a string becomes a record when a dotted
	 * name goes through it */
	tmpl_set(d, "name", "Bea");
	tmpl_set(d, "x", "flat");
	tmpl_set(d, "x.y", "deep");
	expect("{{name}} {{x.y}}", d, "Bea deep");
	expect("no tags at all\n", d, "no tags at all\n");
	expect("a { b } c {{name}}}", d, "a { b } c Bea}");
	tmpl_data_free(d);
}
END_TEST

START_TEST(tmpl_if_unless_else_and_truth)
{
	struct tmpl_data *d = tmpl_data_new();
	const char *t = "{{#if v}}T{{else}}F{{/if}}{{#unless v}}u{{/unless}}";

	tmpl_set(d, "v", "yes");
	expect(t, d, "T");
	tmpl_set(d, "v", "0");
	expect(t, d, "Fu");
	tmpl_set(d, "v", "");
	expect(t, d, "Fu");
	tmpl_set(d, "v", "00");
	expect(t, d, "T");
	tmpl_list(d, "v");
	expect(t, d, "Fu");
	tmpl_list_add_str(tmpl_list(d, "v"), "x");
	expect(t, d, "T");
	tmpl_record(d, "v");
	expect(t, d, "T");
	tmpl_set(d, "a", "1");
	tmpl_set(d, "b", "0");
	expect("{{#if a}}A{{#if b}}B{{else}}!B{{#unless b}}u{{else}}no"
	    "{{/unless}}{{/if}}{{/if}}", d, "A!Bu");
	expect("{{#unless a}}x{{else}}y{{/unless}}", d, "y");
	tmpl_data_free(d);
}
END_TEST

START_TEST(tmpl_each_with_index_first_last)
{
	struct tmpl_data *d = tmpl_data_new(), *r;
	struct tmpl_list *l = tmpl_list(d, "players");
	struct tmpl_list *m;

	tmpl_set(d, "sep", ";");
	r = tmpl_list_add(l);
	tmpl_set(r, "name", "Ann");
	tmpl_set(r, "seat", "South");
	r = tmpl_list_add(l);
	tmpl_set(r, "name", "Bob");
	tmpl_set(r, "seat", "North");
	ck_assert_uint_eq(tmpl_list_len(l), 2);
	expect("{{#each players}}{{@index}}/{{@number}} {{seat}}={{name}}"
	    "{{#if @first}}F{{/if}}{{#if @last}}L{{/if}}{{#unless @last}}"
	    "{{sep}}{{/unless}}{{/each}}", d,
	    "0/1 South=AnnF;1/2 North=BobL");
	m = tmpl_list(d, "moves");
	tmpl_list_add_str(m, "3");
	tmpl_list_add_str(m, "6");
	tmpl_list_add_str(m, "1");
	expect("{{#each moves}}{{.}}{{#unless @last}}, {{/unless}}{{/each}}",
	    d, "3, 6, 1");
	/* nested: the inner counters are the inner loop's; names not in the
	 * item are found outside */
	expect("{{#each players}}{{name}}:{{#each moves}}{{@index}}{{.}}"
	    "{{/each}}{{sep}}{{/each}}", d, "Ann:031621;Bob:031621;");
	/* else of each: the list is empty */
	tmpl_list(d, "none");
	expect("{{#each none}}x{{else}}empty{{/each}}", d, "empty");
	expect("{{#each moves}}x{{else}}empty{{/each}}", d, "xxx");
	tmpl_data_free(d);
}
END_TEST

START_TEST(tmpl_comments_and_standalone_lines)
{
	struct tmpl_data *d = tmpl_data_new();
	struct tmpl_list *l = tmpl_list(d, "l");

	tmpl_set(d, "on", "1");
	tmpl_set(d, "off", "0");
	tmpl_list_add_str(l, "a");
	tmpl_list_add_str(l, "b");
	/* section lines vanish with their line ends */
	expect("x\n{{#if on}}\ny\n{{/if}}\nz\n", d, "x\ny\nz\n");
	expect("x\n{{#if off}}\ny\n{{else}}\nn\n{{/if}}\nz\n", d, "x\nn\nz\n");
	/* blanks around the tag go too, CRLF line ends as well */
	expect("x\r\n  {{#if on}}  \r\ny\r\n\t{{/if}}\r\nz", d, "x\r\ny\r\nz");
	expect("{{#each l}}\n- {{.}}\n{{/each}}\n", d, "- a\n- b\n");
	/* a comment alone on its lines, even spanning several */
	expect("a\n{{! one\n  two }}\nb\n", d, "a\nb\n");
	expect("a {{! inline }}b\n", d, "a b\n");
	/* a tag sharing its line with text is not standalone */
	expect("x {{#if on}}y{{/if}}\nz\n", d, "x y\nz\n");
	expect("{{#if on}}y\n{{/if}}z\n", d, "y\nz\n");
	/* variables are never standalone: their line stays */
	tmpl_set(d, "e", "");
	expect("a\n{{e}}\nb\n", d, "a\n\nb\n");
	/* the last line without a line end */
	expect("a\n{{#if on}}\nb\n{{/if}}", d, "a\nb\n");
	tmpl_data_free(d);
}
END_TEST

START_TEST(tmpl_errors_name_file_and_line)
{
	expect_parse_error("a\nb {{#if x}}\nc\n",
	    "t.tmpl:2: {{#if x}} is never closed");
	expect_parse_error("a\n{{#each l}}\n{{/if}}\n",
	    "t.tmpl:3: {{/if}} closes {{#each l}} of line 2");
	expect_parse_error("{{/unless}}", "t.tmpl:1: {{/unless}} without an "
	    "open section");
	expect_parse_error("\n\n{{else}}", "t.tmpl:3: {{else}} outside a "
	    "section");
	expect_parse_error("{{#if a}}1{{else}}2{{else}}3{{/if}}",
	    "t.tmpl:1: a second {{else}} in {{#if a}} of line 1");
	expect_parse_error("x\n{{name\n}}", "t.tmpl:2: unterminated tag");
	expect_parse_error("{{! never closed", "t.tmpl:1: unterminated tag");
	expect_parse_error("\n{{> partial}}", "t.tmpl:2: unknown tag "
	    "{{> partial}}");
	expect_parse_error("{{#with x}}{{/with}}", "t.tmpl:1: unknown tag "
	    "{{#with x}}");
	expect_parse_error("{{a b}}", "t.tmpl:1: unknown tag {{a b}}");
	expect_parse_error("{{a..b}}", "t.tmpl:1: unknown tag {{a..b}}");
	expect_parse_error("{{@foo}}", "t.tmpl:1: unknown tag {{@foo}}");
	expect_parse_error("{{#if}}{{/if}}", "t.tmpl:1: {{#if}} needs one "
	    "name");
	expect_parse_error("{{x|upper}}", "t.tmpl:1: unknown tag {{x|upper}}");
	expect_parse_error("{{x|max:0}}", "t.tmpl:1: max:N needs a number "
	    "1-100000");
	/* the Subject line counts as line 1 */
	expect_parse_error("Subject: {{#if a}}\nbody\n",
	    "t.tmpl:1: {{#if a}} is never closed");
	expect_parse_error("Subject: ok\nbody\n{{/each}}",
	    "t.tmpl:3: {{/each}} without an open section");
}
END_TEST

START_TEST(tmpl_strict_reports_missing_names)
{
	struct tmpl_data *d = tmpl_data_new();
	char err[256], *got;

	tmpl_set(d, "a", "A");
	tmpl_list_add_str(tmpl_list(d, "l"), "x");
	got = render_subj("{{a}}{{missing}}.", d, 0, NULL, err, sizeof(err));
	ck_assert_str_eq(got, "A.");
	free(got);
	got = render_subj("{{a}}\n\n{{missing}}.", d, TMPL_STRICT, NULL, err,
	    sizeof(err));
	ck_assert_ptr_null(got);
	ck_assert_str_eq(err, "t.tmpl:3: {{missing}} has no value");
	got = render_subj("x\n{{#if nope}}y{{/if}}", d, TMPL_STRICT, NULL,
	    err, sizeof(err));
	ck_assert_ptr_null(got);
	ck_assert_str_eq(err, "t.tmpl:2: {{#if nope}} has no value");
	got = render_subj("{{l}}", d, TMPL_STRICT, NULL, err, sizeof(err));
	ck_assert_ptr_null(got);
	ck_assert_str_eq(err, "t.tmpl:1: {{l}} is a list, not text");
	got = render_subj("{{#each a}}x{{/each}}", d, TMPL_STRICT, NULL, err,
	    sizeof(err));
	ck_assert_ptr_null(got);
	ck_assert_str_eq(err, "t.tmpl:1: {{#each a}} is not a list");
	got = render_subj("{{a.b}}", d, TMPL_STRICT, NULL, err, sizeof(err));
	ck_assert_ptr_null(got);
	ck_assert_str_eq(err, "t.tmpl:1: {{a.b}} has no value");
	got = render_subj("{{@index}}", d, TMPL_STRICT, NULL, err,
	    sizeof(err));
	ck_assert_ptr_null(got);
	ck_assert_str_eq(err, "t.tmpl:1: {{@index}} has no value");
	/* a missing name in a section taken only when it is false is not
	 * looked up, and a non-strict render takes the false branch */
	got = render_subj("{{#if nope}}y{{else}}n{{/if}}", d, 0, NULL, err,
	    sizeof(err));
	ck_assert_str_eq(got, "n");
	free(got);
	tmpl_data_free(d);
}
END_TEST

START_TEST(tmpl_utf8_kept_whole)
{
	struct tmpl_data *d = tmpl_data_new();
	char err[256] = "";
	struct tmpl *t;

	tmpl_set(d, "name", "Пётр");
	tmpl_set(d, "long", "Привет, мир");
	tmpl_set(d, "emoji", "a\xf0\x9f\x8e\xb2" "b\xf0\x9f\x8e\xb2");
	expect("Здравствуйте, {{name}}!", d, "Здравствуйте, Пётр!");
	/* max counts characters, not bytes, and never cuts one */
	expect("{{long|max:6}}|{{long|max:11}}|{{long|max:50}}", d,
	    "Приве…|Привет, мир|Привет, мир");
	expect("{{emoji|max:3}}", d, "a\xf0\x9f\x8e\xb2\xe2\x80\xa6");
	expect("{{name|max:1}}", d, "\xe2\x80\xa6");
	/* bytes that are not UTF-8 in a value become U+FFFD */
	tmpl_set(d, "bad", "a\xd0" "b\xc0\xaf" "c\xed\xa0\x80" "\xf0\x9f");
	expect("{{bad}}", d, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd"
	    "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* and in a template they are an error with the line */
	t = tmpl_parse("ok\nстрока\nbad \xd0\n", "t.tmpl", err, sizeof(err));
	ck_assert_ptr_null(t);
	ck_assert_str_eq(err, "t.tmpl:3: invalid UTF-8");
	t = tmpl_parse("overlong \xc0\x80", "t.tmpl", err, sizeof(err));
	ck_assert_ptr_null(t);
	ck_assert_str_eq(err, "t.tmpl:1: invalid UTF-8");
	/* a subject cut with max is still whole characters */
	tmpl_set(d, "line", "ход 3, 6, 1, 2");
	{
		char *subj, *body;

		body = render_subj("Subject: Не выполнено: {{line|max:6}}\n",
		    d, TMPL_STRICT, &subj, err, sizeof(err));
		ck_assert_ptr_nonnull(body);
		ck_assert_str_eq(subj, "Не выполнено: ход 3…");
		free(subj);
		free(body);
	}
	tmpl_data_free(d);
}
END_TEST

START_TEST(tmpl_html_escapes_values_only)
{
	struct tmpl_data *d = tmpl_data_new();
	char err[256], *got;
	const char *t = "<pre>{{board}}</pre> {{&board}} {{q}}";

	tmpl_set(d, "board", "a<b & c>d");
	tmpl_set(d, "q", "\"it's\"");
	got = render_subj(t, d, TMPL_STRICT | TMPL_HTML, NULL, err,
	    sizeof(err));
	ck_assert_str_eq(got, "<pre>a&lt;b &amp; c&gt;d</pre> a<b & c>d "
	    "&quot;it&#39;s&quot;");
	free(got);
	got = render_subj(t, d, TMPL_STRICT, NULL, err, sizeof(err));
	ck_assert_str_eq(got, "<pre>a<b & c>d</pre> a<b & c>d \"it's\"");
	free(got);
	tmpl_data_free(d);
}
END_TEST

START_TEST(tmpl_subject_line)
{
	struct tmpl_data *d = tmpl_data_new();
	char err[256], *subj, *body;

	tmpl_set(d, "id", "7");
	tmpl_set(d, "evil", "two\r\nBcc: x@example.org");
	body = render_subj("Subject:  Game #{{id}} \n{{! doc }}\n\n\nBody "
	    "{{id}}\n", d, TMPL_STRICT, &subj, err, sizeof(err));
	ck_assert_str_eq(subj, "Game #7");
	ck_assert_str_eq(body, "Body 7\n");
	free(subj);
	free(body);
	/* a value cannot break the subject into header lines */
	body = render_subj("Subject: {{evil}}\nb", d, TMPL_STRICT, &subj, err,
	    sizeof(err));
	ck_assert_str_eq(subj, "two  Bcc: x@example.org");
	ck_assert_str_eq(body, "b");
	free(subj);
	free(body);
	/* no Subject line: an empty subject, the whole text is the body */
	body = render_subj("Hello\nSubject: no\n", d, TMPL_STRICT, &subj, err,
	    sizeof(err));
	ck_assert_str_eq(subj, "");
	ck_assert_str_eq(body, "Hello\nSubject: no\n");
	free(subj);
	free(body);
	tmpl_data_free(d);
}
END_TEST

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(tmpl_missing_translation_falls_back_to_english)
{
	char dir[512], path[600], err[256], *subj, *body;
	struct tmpl_data *d = tmpl_data_new();
	struct tmpl *t;

	snprintf(dir, sizeof(dir), "%s/fallback", tu_tmpdir());
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/en", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/ru", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/en/only-en.tmpl", dir);
	write_file(path, "Subject: english\nEN\n");
	snprintf(path, sizeof(path), "%s/en/both.tmpl", dir);
	write_file(path, "Subject: english\nEN\n");
	snprintf(path, sizeof(path), "%s/ru/both.tmpl", dir);
	write_file(path, "Subject: русский\nRU\n");
	snprintf(path, sizeof(path), "%s/ru/broken.tmpl", dir);
	write_file(path, "ok\n{{#if x}}\n");
	snprintf(path, sizeof(path), "%s/en/broken.tmpl", dir);
	write_file(path, "fine\n");

	t = tmpl_load(dir, "ru", "only-en", err, sizeof(err));
	ck_assert_msg(t != NULL, "%s", err);
	snprintf(path, sizeof(path), "%s/en/only-en.tmpl", dir);
	ck_assert_str_eq(tmpl_file(t), path);
	ck_assert_int_eq(tmpl_render(t, d, TMPL_STRICT, &subj, &body, err,
	    sizeof(err)), 0);
	ck_assert_str_eq(subj, "english");
	ck_assert_str_eq(body, "EN\n");
	free(subj);
	free(body);
	tmpl_free(t);

	t = tmpl_load(dir, "ru", "both", err, sizeof(err));
	ck_assert_msg(t != NULL, "%s", err);
	ck_assert_int_eq(tmpl_render(t, d, TMPL_STRICT, &subj, &body, err,
	    sizeof(err)), 0);
	ck_assert_str_eq(subj, "русский");
	free(subj);
	free(body);
	tmpl_free(t);

	/* a language never installed falls back too */
	t = tmpl_load(dir, "de", "both", err, sizeof(err));
	ck_assert_ptr_nonnull(t);
	tmpl_free(t);

	/* a broken translation is an error, not a silent fallback */
	t = tmpl_load(dir, "ru", "broken", err, sizeof(err));
	ck_assert_ptr_null(t);
	snprintf(path, sizeof(path), "%s/ru/broken.tmpl:2: {{#if x}} is never "
	    "closed", dir);
	ck_assert_str_eq(err, path);

	/* missing everywhere; names that could leave the directory */
	ck_assert_ptr_null(tmpl_load(dir, "en", "nothing", err, sizeof(err)));
	ck_assert_msg(strstr(err, "en/nothing.tmpl") != NULL, "%s", err);
	ck_assert_ptr_null(tmpl_load(dir, "..", "both", err, sizeof(err)));
	ck_assert_ptr_null(tmpl_load(dir, "ru", "../en/both", err,
	    sizeof(err)));
	ck_assert_ptr_null(tmpl_load(dir, "", "both", err, sizeof(err)));
	tmpl_data_free(d);
}
END_TEST

/* Random text over the tag alphabet: every parse either fails naming
 * the file and a line, or gives a template that renders (under ASan). */
START_TEST(tmpl_parser_survives_random_text)
{
	static const char alphabet[] = "{{}}#/!&|.@ aeil\n\xd0\x96";
	static const char *const words[] = { "if ", "unless ", "each ",
	    "else", "max:3", "@last", "a", "l" };
	struct tmpl_data *d = tmpl_data_new();
	unsigned long x = 12345;
	char text[80], err[256], *subj, *body;
	int round, ok = 0;

	tmpl_set(d, "a", "1");
	tmpl_list_add_str(tmpl_list(d, "l"), "x");
	for (round = 0; round < 20000; round++) {
		size_t len = 0;

		while (len < sizeof(text) - 8) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			if ((x >> 60) < 4) {
				const char *w = words[(x >> 33) % nitems(words)];

				memcpy(text + len, w, strlen(w));
				len += strlen(w);
			} else
				text[len++] = alphabet[(x >> 33) %
				    (sizeof(alphabet) - 1)];
			if ((x >> 20) % 23 == 0)
				break;
		}
		text[len] = '\0';
		{
			struct tmpl *t = tmpl_parse(text, "t.tmpl", err,
			    sizeof(err));

			if (t == NULL) {
				ck_assert_msg(strncmp(err, "t.tmpl:", 7) == 0,
				    "%s", err);
				continue;
			}
			ck_assert_int_eq(tmpl_render(t, d, 0, &subj, &body,
			    err, sizeof(err)), 0);
			free(subj);
			free(body);
			tmpl_free(t);
			ok++;
		}
	}
	/* both outcomes are exercised */
	ck_assert_int_gt(ok, 100);
	ck_assert_int_lt(ok, 19900);
	tmpl_data_free(d);
}
END_TEST

START_TEST(tmpl_nesting_is_bounded)
{
	struct buf b = { 0 };
	char err[256];
	int i;

	for (i = 0; i < 33; i++)
		buf_adds(&b, "{{#if a}}");
	ck_assert_ptr_null(tmpl_parse(buf_str(&b), "t.tmpl", err,
	    sizeof(err)));
	ck_assert_str_eq(err, "t.tmpl:1: sections nested too deeply");
	buf_free(&b);
}
END_TEST

/* ---- the shipped templates ---- */

static const char *
templates_dir(void)
{
	static char dir[512];
	const char *src = getenv("LUDUS_SRCDIR");

	snprintf(dir, sizeof(dir), "%s/templates", src != NULL ? src : "..");
	return dir;
}

START_TEST(tmpl_check_dir_lists_broken_templates)
{
	char dir[512], path[600];
	struct buf errs = { 0 };

	snprintf(dir, sizeof(dir), "%s/checkdir", tu_tmpdir());
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/en", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/xx", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/en/good.tmpl", dir);
	write_file(path, "Subject: fine\n{{a}}\n");
	snprintf(path, sizeof(path), "%s/en/notes.txt", dir);
	write_file(path, "{{ not a template");
	snprintf(path, sizeof(path), "%s/xx/bad.tmpl", dir);
	write_file(path, "one\ntwo\n{{/if}}\n");
	ck_assert_int_eq(tmpl_check_dir(dir, &errs), 1);
	snprintf(path, sizeof(path), "%s/xx/bad.tmpl:3: {{/if}} without an "
	    "open section\n", dir);
	ck_assert_str_eq(buf_str(&errs), path);
	buf_reset(&errs);
	ck_assert_int_eq(tmpl_check_dir(templates_dir(), &errs), 0);
	ck_assert_str_eq(buf_str(&errs), "");
	snprintf(path, sizeof(path), "%s/none", dir);
	ck_assert_int_eq(tmpl_check_dir(path, &errs), -1);
	ck_assert_ptr_nonnull(strstr(buf_str(&errs), "none"));
	buf_free(&errs);
}
END_TEST

START_TEST(tmpl_cache_parses_once_and_falls_back)
{
	struct tmpl_cache *c = tmpl_cache_new(templates_dir());
	const struct tmpl *a, *b, *f;
	char err[512], want[600];

	a = tmpl_cache_get(c, "ru", "move", err, sizeof(err));
	ck_assert_msg(a != NULL, "%s", err);
	b = tmpl_cache_get(c, "ru", "move", err, sizeof(err));
	ck_assert_ptr_eq(a, b);
	ck_assert_ptr_ne(a, tmpl_cache_get(c, "en", "move", err, sizeof(err)));
	f = tmpl_cache_get(c, "de", "move", err, sizeof(err));
	ck_assert_ptr_nonnull(f);
	snprintf(want, sizeof(want), "%s/en/move.tmpl", templates_dir());
	ck_assert_str_eq(tmpl_file(f), want);
	ck_assert_ptr_null(tmpl_cache_get(c, "en", "no-such", err,
	    sizeof(err)));
	tmpl_cache_free(c);
}
END_TEST



static void
player(struct tmpl_list *l, const char *seat, const char *name, int you,
    int full)
{
	struct tmpl_data *r = tmpl_list_add(l);

	tmpl_set(r, "seat", seat);
	tmpl_set(r, "name", name);
	tmpl_set(r, "score", you ? "27" : "21");
	tmpl_set(r, "you", you ? "1" : "0");
	tmpl_set(r, "partner", full && !you ? "1" : "0");
	tmpl_set(r, "accepted", full && you ? "1" : "0");
	tmpl_set(r, "winner", full && you ? "1" : "0");
	tmpl_set(r, "rating_old", "1500");
	tmpl_set(r, "rating_new", you ? "1512" : "1488");
	tmpl_set(r, "rating_change", you ? "+12" : "-12");
}

static void
option(struct tmpl_list *l, const char *name, const char *values,
    const char *def, const char *help)
{
	struct tmpl_data *r = tmpl_list_add(l);

	tmpl_set(r, "name", name);
	tmpl_set(r, "values", values);
	tmpl_set(r, "default", def);
	tmpl_set(r, "help", help);
}

/*
 * Every name any template uses.  full sets each flag and list; otherwise
 * flags are "0", optional texts "" and lists empty, so between the two
 * every branch of every template is rendered.
 */
static struct tmpl_data *
sample(int full)
{
	struct tmpl_data *d = tmpl_data_new(), *r;
	struct tmpl_list *l;
	const char *on = full ? "1" : "0";
	const char *opt_text;
	int i;

	tmpl_set(d, "player.name", "Анна Smith");
	tmpl_set(d, "player.authority", "3");
	tmpl_set(d, "referee.address", "referee@example.org");
	tmpl_set(d, "inviter.name", "Bob");
	tmpl_set(d, "inviter.you", full ? "" : "1");
	tmpl_set(d, "inviter.admin", on);
	tmpl_set(d, "truncated", full ? "20" : "");
	tmpl_set(d, "offer.name", "Bob");
	tmpl_set(d, "timeout.name", "Bob");
	tmpl_set(d, "timeout.you", on);
	tmpl_set(d, "topic.robots", full ? "" : "1");
	tmpl_set(d, "robots.budget", "1s");
	tmpl_set(d, "vacation.name", "Bob");
	tmpl_set(d, "offer.you", on);
	l = tmpl_list(d, "done");
	if (full) {
		r = tmpl_list_add(l);
		tmpl_set(r, "line", "set name Анна");
		tmpl_set(r, "note", "others now see you as Анна");
	}
	l = tmpl_list(d, "aside");
	if (full) {
		tmpl_list_add_str(l, "Hi Bob,");
		tmpl_list_add_str(l, "Good game so far.");
	}
	tmpl_set(d, "aside_more", full ? "3" : "");
	l = tmpl_list(d, "unread");
	if (full)
		tmpl_list_add_str(l, "3");
	tmpl_set(d, "unread_more", full ? "2" : "");
	tmpl_set(d, "unread_below", full ? "Bob wrote:" : "");
	tmpl_set(d, "unread_why", full ? "it may be the line a mail client "
	    "writes above a quotation" : "");
	tmpl_set(d, "error.quiet_until", full ? "2026-12-02 19:05 UTC" : "");
	tmpl_set(d, "game.name", "mancala");
	tmpl_set(d, "answer.game", "41");
	tmpl_set(d, "info_quiet_until", full ? "2026-12-02 19:05 UTC" : "");
	l = tmpl_list(d, "reports");
	if (full) {
		r = tmpl_list_add(l);
		tmpl_set(r, "id", "5");
		tmpl_set(r, "game", "42");
		tmpl_set(r, "reporter", "cleo@example.org");
		tmpl_set(r, "created", "2026-11-29 10:00 UTC");
		tmpl_set(r, "text", "Bob stalls every game.");
	}
	tmpl_set(d, "invitation.expires", "2026-12-01 12:00 UTC");
	tmpl_set(d, "invitation.accepted", on);

	tmpl_set(d, "game.id", full ? "42" : "");
	tmpl_set(d, "game.title", "Mancala (Kalah)");
	tmpl_set(d, "game.variant", full ? "pits=4 seeds=3" : "");
	tmpl_set(d, "game.clock", "3d");
	tmpl_set(d, "game.rated", on);
	tmpl_set(d, "game.over", on);
	tmpl_set(d, "game.move_number", "12");
	tmpl_set(d, "game.name", "mancala");
	tmpl_set(d, "game.chance", on);
	tmpl_set(d, "game.url", full ? "https://club.example.org/game/42.html" :
	    "");
	l = tmpl_list(d, "game.players");
	player(l, "South", "Анна Smith", 1, full);
	player(l, "North", "Bob", 0, full);
	tmpl_set(d, "you.seat", "South");
	tmpl_set(d, "you.observer", on);
	tmpl_set(d, "board", "  [ 4][ 4][ 4]\n[0]          [0]\n"
	    "  [ 4][ 4][ 4]   <- South to move");
	tmpl_set(d, "seed.hash", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2"
	    "b0b822cd15d6c15b0f00a08");
	tmpl_set(d, "seed.value", "000102030405060708090a0b0c0d0e0f10111213"
	    "1415161718191a1b1c1d1e1f");
	tmpl_set(d, "turn.seat", "South");
	tmpl_set(d, "turn.name", "Анна Smith");
	tmpl_set(d, "turn.you", on);
	tmpl_set(d, "turn.again", full ? "Your last seed landed in your "
	    "store: move again." : "");
	l = tmpl_list(d, "legal");
	if (full)
		for (i = 1; i <= 6; i++)
			tmpl_list_add_str(l, (const char[]){ (char)('0' + i),
			    '\0' });
	tmpl_set(d, "example_move", "3");
	tmpl_set(d, "last_move.seat", "North");
	tmpl_set(d, "last_move.name", "Bob");
	tmpl_set(d, "last_move.you", on);
	tmpl_set(d, "last_move.text", full ? "5" : "");
	tmpl_set(d, "draw_offer.name", full ? "Bob" : "");
	tmpl_set(d, "draw_offer.you", on);
	tmpl_set(d, "deadline.local", full ? "2026-12-02 21:00 MSK "
	    "(Europe/Moscow)" : "");
	tmpl_set(d, "deadline.utc", "2026-12-02 18:00 UTC");
	tmpl_set(d, "deadline.days", "2");
	tmpl_set(d, "deadline.hours", "5");
	tmpl_set(d, "deadline.minutes", "7");

	tmpl_set(d, "preview.line", "3, 6");

	tmpl_set(d, "conditional.text", full ? "d2-e3" : "");
	tmpl_set(d, "conditional.name", "Bob");
	tmpl_set(d, "conditional.after", "b4-c3");
	tmpl_set(d, "conditional.you", on);
	tmpl_set(d, "conditions.left", full ? "2" : "");
	tmpl_set(d, "conditions.cleared", on);
	tmpl_set(d, "conditions.after", "3, 6");
	tmpl_set(d, "conditions.count", full ? "2" : "0");
	tmpl_set(d, "conditions.playable", on);
	l = tmpl_list(d, "conditions.lines");
	if (full) {
		tmpl_list_add_str(l, "if b4-c3 then d2-e3");
		tmpl_list_add_str(l, "if b4-b3 then d2-d3 if c3xe1 then a1-b2");
	}
	tmpl_set(d, "held.limit", "3");
	tmpl_set(d, "takeback.name", "Bob");
	tmpl_set(d, "takeback.you", on);
	tmpl_set(d, "takeback.moves", "b4-c3, d2-e3");
	tmpl_set(d, "takeback.done", on);
	tmpl_set(d, "takeback.declined", on);
	tmpl_set(d, "game.takebacks", full ? "1" : "");

	tmpl_set(d, "result.text", "South wins 27-21");
	tmpl_set(d, "result.draw", on);
	tmpl_set(d, "result.winners", "Анна Smith");
	tmpl_set(d, "end.resigned", on);
	tmpl_set(d, "end.timeout", on);
	tmpl_set(d, "end.agreed", on);
	tmpl_set(d, "end.adjudicated", on);
	tmpl_set(d, "end.aborted", on);
	tmpl_set(d, "end.by", "Bob");

	opt_text = "move 3, 9";
	tmpl_set(d, "error.line", opt_text);
	tmpl_set(d, "error.why", "move 2 (`9`): there is no pit 9");
	tmpl_set(d, "error.auth", on);
	l = tmpl_list(d, "applied");
	if (full)
		tmpl_list_add_str(l, "board");
	l = tmpl_list(d, "not_tried");
	if (full)
		tmpl_list_add_str(l, "say good game");

	tmpl_set(d, "games_count", "2");
	l = tmpl_list(d, "games");
	for (i = 0; i < (full ? 2 : 0); i++) {
		r = tmpl_list_add(l);
		tmpl_set(r, "id", i ? "43" : "42");
		tmpl_set(r, "name", i ? "alquerque" : "mancala");
		tmpl_set(r, "title", i ? "Alquerque" : "Mancala (Kalah)");
		tmpl_set(r, "seats", "2");
		tmpl_set(r, "aliases", i ? "" : "kalah, манкала");
		tmpl_set(r, "summary", "Sow the seeds.");
		option(tmpl_list(r, "options"), "pits", "3-8", "6",
		    "pits on each side");
		tmpl_set(r, "opponents", "Bob");
		tmpl_set(r, "move_number", "12");
		tmpl_set(r, "last_move", i ? "" : "5");
		tmpl_set(r, "deadline_utc", "2026-12-02 18:00 UTC");
		tmpl_set(r, "deadline_local", i ? "" : "2026-12-02 21:00 MSK "
		    "(Europe/Moscow)");
		tmpl_set(r, "days", "2");
		tmpl_set(r, "hours", "5");
		tmpl_set(r, "minutes", "7");
	}

	tmpl_set(d, "topic.title", full ? "Mancala (Kalah)" : "");
	tmpl_set(d, "topic.name", "mancala");
	tmpl_set(d, "topic.summary", "Sow the seeds of one of your pits.");
	tmpl_set(d, "topic.notation", "The pit number: `move 3`.");
	l = tmpl_list(d, "topic.options");
	if (full)
		option(l, "seeds", "1-10", "4", "seeds in each pit");

	l = tmpl_list(d, "waiting_on_you");
	l = tmpl_list(d, "waiting_on_others");
	l = tmpl_list(d, "invitations");
	l = tmpl_list(d, "finished");
	if (full) {
		r = tmpl_list_add(tmpl_list(d, "waiting_on_you"));
		tmpl_set(r, "id", "42");
		tmpl_set(r, "title", "Mancala (Kalah)");
		tmpl_set(r, "opponents", "Bob");
		tmpl_set(r, "deadline_utc", "2026-12-02 18:00 UTC");
		tmpl_set(r, "deadline_local", "2026-12-02 21:00 MSK "
		    "(Europe/Moscow)");
		r = tmpl_list_add(tmpl_list(d, "waiting_on_others"));
		tmpl_set(r, "id", "43");
		tmpl_set(r, "title", "Alquerque");
		tmpl_set(r, "opponents", "Cleo");
		tmpl_set(r, "turn_name", "Cleo");
		r = tmpl_list_add(tmpl_list(d, "invitations"));
		tmpl_set(r, "id", "44");
		tmpl_set(r, "title", "Almakleh");
		tmpl_set(r, "inviter", "Dan");
		tmpl_set(r, "expires", "2026-12-01 12:00 UTC");
		r = tmpl_list_add(tmpl_list(d, "finished"));
		tmpl_set(r, "id", "40");
		tmpl_set(r, "title", "Spite & Malice");
		tmpl_set(r, "result", "Bob wins");
	}

	l = tmpl_list(d, "ratings");
	if (full) {
		r = tmpl_list_add(l);
		tmpl_set(r, "title", "Mancala (Kalah)");
		tmpl_set(r, "rating", "1612 ±90");
		tmpl_set(r, "games", "7");
	}
	tmpl_set(d, "list.address", "club@lists.example.org");
	tmpl_set(d, "ladder.name", "kalah");
	tmpl_set(d, "ladder.game", "Mancala (Kalah)");
	tmpl_set(d, "ladder.options", "pits=6 seeds=4");
	tmpl_set(d, "ladder.reach", "3");
	tmpl_set(d, "ladder.size", full ? "2" : "0");
	tmpl_set(d, "ladder.closed", on);
	tmpl_set(d, "ladder.dropped", full ? "1" : "0");
	l = tmpl_list(d, "rungs");
	for (i = 0; i < (full ? 2 : 0); i++) {
		r = tmpl_list_add(l);
		tmpl_set(r, "position", i ? "2" : "1");
		tmpl_set(r, "name", i ? "Bob & Cleo" : "Анна Smith & Dan");
		tmpl_set(r, "rating", i ? "unrated, 1500 ±700" : "1612 ±90, "
		    "1540 ±120");
	}
	tmpl_set(d, "result.status", full ? "won" : "forfeit");
	tmpl_set(d, "result.won", on);
	tmpl_set(d, "result.lost", "");
	tmpl_set(d, "result.drawn", "");
	tmpl_set(d, "result.forfeit", full ? "" : "1");
	tmpl_set(d, "result.moved", on);
	tmpl_set(d, "challenger.name", "Bob");
	tmpl_set(d, "challenger.position", "1");
	tmpl_set(d, "challenged.name", "Анна Smith");
	tmpl_set(d, "challenged.position", "2");
	tmpl_set(d, "game.result", "South wins 27-21");
	l = tmpl_list(d, "changes");
	if (full) {
		r = tmpl_list_add(l);
		tmpl_set(r, "name", "Bob");
		tmpl_set(r, "rating_old", "1500");
		tmpl_set(r, "rating_new", "1662");
		tmpl_set(r, "rating_change", "+162");
	}

	l = tmpl_list(d, "moves");
	if (full) {
		r = tmpl_list_add(l);
		tmpl_set(r, "number", "1");
		tmpl_set(r, "seat", "South");
		tmpl_set(r, "name", "Анна Smith");
		tmpl_set(r, "text", "3");
		tmpl_set(r, "time", "2026-11-29 10:00 UTC");
		tmpl_set(r, "event", "");
		r = tmpl_list_add(l);
		tmpl_set(r, "number", "");
		tmpl_set(r, "seat", "");
		tmpl_set(r, "name", "Bob");
		tmpl_set(r, "text", "draw offered");
		tmpl_set(r, "time", "2026-11-29 10:05 UTC");
		tmpl_set(r, "event", "1");
	}

	tmpl_set(d, "confirm.command", "admin ban spam@example.org");
	tmpl_set(d, "confirm.cookie", "k3j4h5");
	tmpl_set(d, "confirm.expires", "2026-11-30 10:00 UTC");
	tmpl_set(d, "confirm.player", on);
	l = tmpl_list(d, "seeks");
	if (full) {
		r = tmpl_list_add(l);
		tmpl_set(r, "id", "45");
		tmpl_set(r, "title", "Aluette");
		tmpl_set(r, "game", "aluette");
		tmpl_set(r, "variant", "teams=fixed");
		tmpl_set(r, "clock", "2d");
		tmpl_set(r, "rated", on);
		tmpl_set(r, "seeker", "Dan");
		tmpl_set(r, "seats", "4");
		tmpl_set(r, "free", "2");
		tmpl_set(r, "takers", "Cleo");
		tmpl_set(r, "ladder", "club");
		tmpl_set(r, "rating", "1400-1800");
		tmpl_set(r, "expires", "2026-12-01 12:00 UTC");
		tmpl_set(r, "mine", "");
		tmpl_set(r, "seated", on);
	}
	tmpl_set(d, "answer.accept", "accept");
	tmpl_set(d, "answer.decline", "decline");
	tmpl_set(d, "answer.draw", "draw");
	tmpl_set(d, "answer.takeback", "takeback");
	tmpl_set(d, "answer.thanks", "thanks #42");
	tmpl_set(d, "answer.rematch", "rematch #42");
	tmpl_set(d, "seek.id", "45");
	tmpl_set(d, "seek.title", "Aluette");
	tmpl_set(d, "seek.withdrawn", on);
	tmpl_set(d, "seek.yours", on);
	tmpl_set(d, "accepter.name", "Bob");
	l = tmpl_list(d, "waiting");
	if (full)
		tmpl_list_add_str(l, "Cleo");
	tmpl_set(d, "decliner.name", full ? "Bob" : "");
	tmpl_set(d, "observe.on", on);
	tmpl_set(d, "report.id", "5");
	tmpl_set(d, "report.text", "Bob stalls every game.");
	tmpl_set(d, "report.resolved", on);
	tmpl_set(d, "report.resolution", "We spoke with Bob.");
	tmpl_set(d, "report.reporter", "cleo@example.org");
	tmpl_set(d, "report.reminder", on);
	tmpl_set(d, "say.name", "Bob");
	tmpl_set(d, "say.seat", "North");
	tmpl_set(d, "say.text", "Хорошая партия!");
	tmpl_set(d, "vacation.on", on);
	tmpl_set(d, "vacation.days", "10");
	tmpl_set(d, "vacation.until", "2026-12-09 18:00 UTC");
	tmpl_set(d, "vacation.left", "20");
	tmpl_set(d, "bounce.address", "gone@example.org");
	tmpl_set(d, "bounce.reason", "550 5.1.1 user unknown");
	tmpl_set(d, "bounce.subject", "[ludus #42] Mancala");
	tmpl_set(d, "bounce.date", "2026-11-29 10:00 UTC");
	tmpl_set(d, "bounce.count", "3");
	tmpl_set(d, "bounce.game", full ? "42" : "");
	return d;
}

/* Load a shipped template, insisting it is the language's own file. */
static struct tmpl *
shipped(const char *lang, const char *name)
{
	char err[512], want[600];
	struct tmpl *t = tmpl_load(templates_dir(), lang, name, err,
	    sizeof(err));

	ck_assert_msg(t != NULL, "%s/%s: %s", lang, name, err);
	snprintf(want, sizeof(want), "%s/%s/%s.tmpl", templates_dir(), lang,
	    name);
	ck_assert_str_eq(tmpl_file(t), want);
	return t;
}

static void
html_is_text(const char *s, const char *lang, const char *name)
{
	static const char *const ents[] = { "&amp;", "&lt;", "&gt;",
	    "&quot;", "&#39;" };
	size_t k;

	ck_assert_msg(strchr(s, '<') == NULL, "%s/%s: < in HTML", lang, name);
	for (; (s = strchr(s, '&')) != NULL; s++) {
		for (k = 0; k < nitems(ents); k++)
			if (strncmp(s, ents[k], strlen(ents[k])) == 0)
				break;
		ck_assert_msg(k < nitems(ents), "%s/%s: bare & in HTML: %.20s",
		    lang, name, s);
	}
}

START_TEST(tmpl_every_template_renders_strictly)
{
	const char *lang = langs[_i];
	char err[512], *subj, *body;
	size_t n;
	int full;

	for (full = 0; full <= 1; full++) {
		struct tmpl_data *d = sample(full);

		for (n = 0; n < nitems(names); n++) {
			struct tmpl *t = shipped(lang, names[n]);

			ck_assert_msg(tmpl_render(t, d, TMPL_STRICT, &subj,
			    &body, err, sizeof(err)) == 0, "%s", err);
			ck_assert_msg(subj[0] != '\0', "%s/%s: no subject",
			    lang, names[n]);
			ck_assert_msg(strlen(body) > 20, "%s/%s: body [%s]",
			    lang, names[n], body);
			/* no tag survives rendering */
			ck_assert_msg(strstr(body, "{{") == NULL &&
			    strstr(subj, "{{") == NULL, "%s/%s", lang,
			    names[n]);
			free(subj);
			free(body);
			ck_assert_int_eq(tmpl_render(t, d,
			    TMPL_STRICT | TMPL_HTML, &subj, &body, err,
			    sizeof(err)), 0);
			/* the HTML alternative is the body in <pre>: it must
			 * hold no markup of its own */
			html_is_text(body, lang, names[n]);
			free(subj);
			free(body);
			tmpl_free(t);
		}
		tmpl_data_free(d);
	}
}
END_TEST

START_TEST(tmpl_languages_use_the_same_names)
{
	size_t n;

	for (n = 0; n < nitems(names); n++) {
		struct tmpl *en = shipped("en", names[n]);
		struct tmpl *ru = shipped("ru", names[n]);
		struct buf a = { 0 }, b = { 0 };

		tmpl_names(en, &a);
		tmpl_names(ru, &b);
		ck_assert_msg(a.len > 0, "%s uses no names", names[n]);
		ck_assert_msg(strcmp(buf_str(&a), buf_str(&b)) == 0,
		    "%s: en uses\n%s\nru uses\n%s", names[n], buf_str(&a),
		    buf_str(&b));
		buf_free(&a);
		buf_free(&b);
		tmpl_free(en);
		tmpl_free(ru);
	}
}
END_TEST

START_TEST(tmpl_names_lists_scopes)
{
	char err[256];
	struct buf b = { 0 };
	struct tmpl *t = tmpl_parse("Subject: {{s}}\n{{a.b}}{{#if c}}{{d}}"
	    "{{/if}}{{#each l}}{{e}}{{.}}{{#each m}}{{f}}{{/each}}{{else}}"
	    "{{g}}{{/each}}{{a.b}}", "t.tmpl", err, sizeof(err));

	ck_assert_ptr_nonnull(t);
	tmpl_names(t, &b);
	ck_assert_str_eq(buf_str(&b), "#each l\n#if c\na.b\nd\neach l/#each m\n"
	    "each l/.\neach l/e\neach l/each m/f\ng\ns\n");
	buf_free(&b);
	tmpl_free(t);
}
END_TEST

/* No template lies in the directories without being in the list above
 * (so none escapes the strict and same-names tests). */
START_TEST(tmpl_every_shipped_file_is_tested)
{
	size_t k, n, found;
	char dir[600];

	for (k = 0; k < nitems(langs); k++) {
		DIR *dp;
		struct dirent *de;

		snprintf(dir, sizeof(dir), "%s/%s", templates_dir(), langs[k]);
		dp = opendir(dir);
		ck_assert_msg(dp != NULL, "%s", dir);
		found = 0;
		while ((de = readdir(dp)) != NULL) {
			size_t len = strlen(de->d_name);

			if (de->d_name[0] == '.')
				continue;
			ck_assert_msg(len > 5 && strcmp(de->d_name + len - 5,
			    ".tmpl") == 0, "%s/%s", dir, de->d_name);
			for (n = 0; n < nitems(names); n++)
				if (strlen(names[n]) == len - 5 &&
				    strncmp(names[n], de->d_name, len - 5) == 0)
					break;
			ck_assert_msg(n < nitems(names), "%s/%s is not tested",
			    dir, de->d_name);
			found++;
		}
		closedir(dp);
		ck_assert_uint_eq(found, nitems(names));
	}
}
END_TEST

/* A board mail stands alone: everything commands.md lists is in it. */
START_TEST(tmpl_board_mails_stand_alone)
{
	static const char *const mails[] = { "game-start", "move", "board" };
	static const char *const need[] = {
		"Mancala (Kalah)", "#42", "Анна Smith", "Bob", "South",
		"North", "12", "[ 4][ 4][ 4]", "<- South to move",
		"2026-12-02 18:00 UTC", "2", "5", "7", "1, 2, 3, 4, 5, 6",
		"`3`", "27", "21",
	};
	const char *lang = langs[_i];
	struct tmpl_data *d = sample(1);
	char err[512], *subj, *body;
	size_t m, k;

	tmpl_set(d, "you.observer", "0");
	for (m = 0; m < nitems(mails); m++) {
		struct tmpl *t = shipped(lang, mails[m]);

		ck_assert_int_eq(tmpl_render(t, d, TMPL_STRICT, &subj, &body,
		    err, sizeof(err)), 0);
		for (k = 0; k < nitems(need); k++) {
			ck_assert_msg(strstr(body, need[k]) != NULL,
			    "%s/%s lacks %s:\n%s", lang, mails[m], need[k],
			    body);
		}
		if (m == 0)
			ck_assert_msg(strstr(body, "9f86d081884c7d659a2feaa0c55"
			    "ad015a3bf4f1b2b0b822cd15d6c15b0f00a08") != NULL,
			    "%s", body);
		else
			ck_assert_msg(strstr(body, "5") != NULL, "%s", body);
		free(subj);
		free(body);
		tmpl_free(t);
	}
	/* the last mail reveals the seed and says how to check it */
	{
		struct tmpl *t = shipped(lang, "end");

		ck_assert_int_eq(tmpl_render(t, d, TMPL_STRICT, &subj, &body,
		    err, sizeof(err)), 0);
		ck_assert_ptr_nonnull(strstr(body, "000102030405060708090a0b"
		    "0c0d0e0f101112131415161718191a1b1c1d1e1f"));
		ck_assert_ptr_nonnull(strstr(body, "ludus deal mancala SEED "
		    "pits=4 seeds=3"));
		ck_assert_ptr_nonnull(strstr(body, "1500 -> 1512 (+12)"));
		free(subj);
		free(body);
		tmpl_free(t);
	}
	tmpl_data_free(d);
}
END_TEST

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct buf b = { 0 };
	char chunk[4096];
	size_t n;

	ck_assert_msg(f != NULL, "%s", path);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return buf_steal(&b);
}

/* The documented word for a line of tmpl_names: the last name part
 * without its section keyword or list scope; NULL for "." and counters. */
static const char *
doc_word(char *line)
{
	char *w = strrchr(line, '/');

	w = w != NULL ? w + 1 : line;
	if (*w == '#')
		w = strchr(w, ' ') + 1;
	if (*w == '.' || *w == '@')
		return NULL;
	return w;
}

/* Every name a template uses is listed in its header comment, and in its
 * section of ludus-templates(5), so an admin editing one knows them. */
START_TEST(tmpl_every_name_is_documented)
{
	const char *src = getenv("LUDUS_SRCDIR");
	char path[600], *man, *sec, *end, *hdr, *text, *line, *save;
	size_t n, k;

	snprintf(path, sizeof(path), "%s/man/ludus-templates.5.in",
	    src != NULL ? src : "..");
	man = slurp(path);
	for (n = 0; n < nitems(names); n++) {
		snprintf(path, sizeof(path), "\n.Ss %s.tmpl\n", names[n]);
		sec = strstr(man, path);
		ck_assert_msg(sec != NULL, "no section for %s", names[n]);
		sec = xstrdup(sec + 1);
		if ((end = strstr(sec, "\n.S")) != NULL)
			*end = '\0';
		for (k = 0; k < nitems(langs); k++) {
			struct tmpl *t = shipped(langs[k], names[n]);
			struct buf b = { 0 };

			snprintf(path, sizeof(path), "%s/%s/%s.tmpl",
			    templates_dir(), langs[k], names[n]);
			text = slurp(path);
			hdr = strstr(text, "{{!");
			ck_assert_msg(hdr != NULL, "%s has no header", path);
			end = strstr(hdr, "}}");
			*end = '\0';
			tmpl_names(t, &b);
			for (line = strtok_r(b.s, "\n", &save); line != NULL;
			    line = strtok_r(NULL, "\n", &save)) {
				const char *w = doc_word(line);

				if (w == NULL)
					continue;
				ck_assert_msg(strstr(hdr, w) != NULL,
				    "%s: %s is not in the header", path, w);
				if (strcmp(w, "player.name") != 0)
					ck_assert_msg(strstr(sec, w) != NULL,
					    "ludus-templates(5), %s: %s is "
					    "missing", names[n], w);
			}
			buf_free(&b);
			free(text);
			tmpl_free(t);
		}
		free(sec);
	}
	free(man);
}
END_TEST


START_TEST(tmpl_style_layer_follows_styled_values)
{
	struct tmpl_data *d = tmpl_data_new();
	struct tmpl_list *l;
	struct tmpl *t;
	char err[200], *subj, *body, *style;

	tmpl_set_styled(d, "board", "ab\ncd", "\x81\x82\x83\x84\x85");
	tmpl_set(d, "plain", "xy");
	l = tmpl_list(d, "moves");
	tmpl_list_add_styled(l, "m1", "\x01\x01");
	tmpl_list_add_str(l, "m2");
	/* A value that is cut is no longer its own text: plain. */
	tmpl_set_styled(d, "long", "abcdef", "\x02\x02\x02\x02\x02\x02");
	t = tmpl_parse("Subject: S {{board}}\n\n<{{board}}>{{plain}}"
	    "{{#each moves}} {{.}}{{/each}} {{long|max:3}}\n", "t", err,
	    sizeof(err));
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(tmpl_render_styled(t, d, 0, &subj, &body, &style,
	    err, sizeof(err)), 0);
	ck_assert_str_eq(subj, "S ab cd");
	ck_assert_str_eq(body, "<ab\ncd>xy m1 m2 ab\xe2\x80\xa6\n");
	ck_assert_int_eq(memcmp(style, "\0\x81\x82\x83\x84\x85\0\0\0\0"
	    "\x01\x01\0\0\0\0", 16), 0);
	ck_assert_int_eq(memcmp(style + 16, "\0\0\0\0\0\0", 6), 0);
	ck_assert_ptr_eq(tmpl_get(d, "plain"), tmpl_get(d, "plain"));
	ck_assert_str_eq(tmpl_get(d, "plain"), "xy");
	ck_assert_ptr_null(tmpl_get(d, "moves"));
	ck_assert_ptr_null(tmpl_get(d, "nothing.here"));
	free(subj);
	free(body);
	free(style);
	tmpl_free(t);
	tmpl_data_free(d);
}
END_TEST

/* The HTML part: well-formed, the board a <pre> with its styles, moves
 * as code, the suggested move a mailto: link keeping the subject. */
START_TEST(mailhtml_derives_html_from_text_and_style)
{
	const char *text = "Hello <ann> & co,\n\n  a:1\nboard:\n"
	    " P . p\nLast: it\n\nMoves: e2, e4\nReply with `e2`, "
	    "or `help`.\n";
	struct mailhtml_opts o = { "en", "[ludus #1 x] Game: 5 > 4",
	    "referee+1.x@example.org", "Re: [ludus #1 x] Game: ü" };
	char style[128] = { 0 }, *html;
	const char *p;
	xmlDocPtr doc;
	size_t at;

	at = strlen("Hello <ann> & co,\n\n  a:1\nboard:\n");
	style[at + 1] = (char)(MAILHTML_BOARD | GAME_STYLE_SEAT(0));
	style[at] = style[at + 2] = style[at + 3] = style[at + 4] =
	    style[at + 6] = (char)MAILHTML_BOARD;
	style[at + 5] = (char)(MAILHTML_BOARD | GAME_STYLE_SEAT(1) |
	    GAME_STYLE_LAST);
	memset(style + at + 7, MAILHTML_BOARD | GAME_STYLE_TEXT, 1);
	memset(style + at + 8, MAILHTML_BOARD, 8);
	at = strstr(text, "e2,") - text;
	style[at] = style[at + 1] = MAILHTML_MOVE;
	at = strstr(text, "`e2`") - text + 1;
	style[at] = style[at + 1] = MAILHTML_REPLY;
	html = mailhtml_render(text, style, &o);
	doc = xmlReadMemory(html, (int)strlen(html), "mail.html", NULL,
	    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	ck_assert_msg(doc != NULL, "not well-formed:\n%s", html);
	xmlFreeDoc(doc);
	ck_assert_ptr_nonnull(strstr(html, "content=\"light dark\""));
	ck_assert_ptr_nonnull(strstr(html, "<title>[ludus #1 x] Game: 5 &gt; 4"
	    "</title>"));
	ck_assert_ptr_nonnull(strstr(html, "Hello &lt;ann&gt; &amp; co,</p>"));
	ck_assert_ptr_nonnull(strstr(html, "&#160;&#160;a:1<br />"));
	/* The board: a <pre>, the seat colours, the last move. */
	p = strstr(html, "<pre ");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(strstr(p, "white-space:pre"));
	/* The blank after P joins its span: it shows no colour. */
	ck_assert_ptr_nonnull(strstr(p, "\"> <span style=\"color:#c62828;"
	    "font-weight:bold;\">P </span>. <span style=\"color:#1557b0;"
	    "font-weight:bold;background-color:#ffd84d;"));
	ck_assert_ptr_nonnull(strstr(p, "</pre></div>\n<p class=\"lx-t\" style=\"margin:0 0 "
	    "12px;color:#1c1b19\">Last: it</p>"));
	ck_assert_ptr_nonnull(strstr(html, ">e2</code>, e4<br />"));
	ck_assert_ptr_nonnull(strstr(html, "<a href=\"mailto:referee+1.x@"
	    "example.org?subject=Re%3A%20%5Bludus%20%231%20x%5D%20Game%3A%20"
	    "%C3%BC&amp;body=e2\""));
	ck_assert_ptr_nonnull(strstr(html, "\">help</code>."));
	free(html);
	/* Without a style layer: text only, still a document. */
	html = mailhtml_render("a\n\nb\n", NULL, &o);
	ck_assert_ptr_nonnull(strstr(html, ">a</p>\n<p "));
	free(html);
}
END_TEST

/* The answers and the game's page: an answer marked MAILHTML_REPLY is a
 * mailto: link whether quoted or not, the page an http(s) link, anything
 * else marked as the page plain text; a board drawn turned round for the
 * reader has its legends trade places. */
START_TEST(mailhtml_answers_page_and_turned_legends)
{
	const char *text = "Reply with:  accept\nOn the web: "
	    "https://club.example.org/g/1.html\nOr: javascript:x\n\n"
	    "Top side\n. .\nBottom side\n";
	struct mailhtml_opts o = { "en", "[ludus #1 x] Invitation",
	    "referee@example.org", "Re: [ludus #1 x] Invitation", NULL };
	struct game_pic *pic = calloc(1, sizeof(*pic));
	struct game_grid *g;
	char style[160] = { 0 }, *html;
	const char *p, *top, *bottom;
	size_t at, i;

	at = strstr(text, "accept") - text;
	memset(style + at, MAILHTML_REPLY, 6);
	at = strstr(text, "https:") - text;
	memset(style + at, MAILHTML_URL, strlen("https://club.example.org/"
	    "g/1.html"));
	at = strstr(text, "javascript:") - text;
	memset(style + at, MAILHTML_URL, strlen("javascript:x"));
	at = strstr(text, "Top side") - text;
	for (i = at; text[i] != '\0'; i++)
		style[i] = (char)MAILHTML_BOARD;
	style[at] |= GAME_STYLE_TEXT;
	style[strstr(text, "Bottom") - text] |= GAME_STYLE_TEXT;
	g = game_pic_grid(pic, GAME_GRID_BOARD, 1, 2, 0, NULL);
	ck_assert_ptr_nonnull(g);
	game_pic_set(pic, g, 0, 0, GAME_CELL_POINT, GAME_STYLE_DIM, "");
	game_pic_set(pic, g, 0, 1, GAME_CELL_POINT, GAME_STYLE_DIM, "");
	o.pic = pic;
	html = mailhtml_render(text, style, &o);
	ck_assert_ptr_nonnull(strstr(html, "with:  <a href=\""
	    "mailto:referee@example.org?subject=Re%3A%20%5Bludus%20%231%20x"
	    "%5D%20Invitation&amp;body=accept\""));
	ck_assert_ptr_nonnull(strstr(html, "On the web: <a href=\"https://"
	    "club.example.org/g/1.html\""));
	ck_assert_msg(strstr(html, "Or: javascript:x") != NULL && strstr(html, "href=\"javascript") == NULL, "%s", html);
	top = strstr(html, "Top side");
	bottom = strstr(html, "Bottom side");
	p = strstr(html, "<table role=\"presentation\" dir=\"ltr\" "
	    "class=\"lx-board\"");
	ck_assert(top != NULL && bottom != NULL && p != NULL);
	ck_assert(top < p && p < bottom);
	free(html);
	pic->turned = 1;
	html = mailhtml_render(text, style, &o);
	top = strstr(html, "Top side");
	bottom = strstr(html, "Bottom side");
	p = strstr(html, "<table role=\"presentation\" dir=\"ltr\" "
	    "class=\"lx-board\"");
	ck_assert(top != NULL && bottom != NULL && p != NULL);
	ck_assert_msg(bottom < p && p < top, "not turned:\n%s", html);
	free(html);
	free(pic);
}
END_TEST

static Suite *
template_suite(void)
{
	Suite *s = suite_create("template");
	TCase *tc = tcase_create("syntax");
	TCase *tf = tcase_create("files");

	/* generous: the machine running the suite may be busy */
	tcase_set_timeout(tc, 60);
	tcase_set_timeout(tf, 60);

	tcase_add_test(tc, tmpl_variables_and_dotted_names);
	tcase_add_test(tc, tmpl_if_unless_else_and_truth);
	tcase_add_test(tc, tmpl_each_with_index_first_last);
	tcase_add_test(tc, tmpl_comments_and_standalone_lines);
	tcase_add_test(tc, tmpl_errors_name_file_and_line);
	tcase_add_test(tc, tmpl_strict_reports_missing_names);
	tcase_add_test(tc, tmpl_utf8_kept_whole);
	tcase_add_test(tc, tmpl_style_layer_follows_styled_values);
	tcase_add_test(tc, mailhtml_derives_html_from_text_and_style);
	tcase_add_test(tc, mailhtml_answers_page_and_turned_legends);
	tcase_add_test(tc, tmpl_html_escapes_values_only);
	tcase_add_test(tc, tmpl_subject_line);
	tcase_add_test(tc, tmpl_names_lists_scopes);
	tcase_add_test(tc, tmpl_parser_survives_random_text);
	tcase_add_test(tc, tmpl_nesting_is_bounded);
	suite_add_tcase(s, tc);
	tcase_add_test(tf, tmpl_missing_translation_falls_back_to_english);
	tcase_add_loop_test(tf, tmpl_every_template_renders_strictly, 0,
	    (int)nitems(langs));
	tcase_add_test(tf, tmpl_languages_use_the_same_names);
	tcase_add_test(tf, tmpl_every_shipped_file_is_tested);
	tcase_add_test(tf, tmpl_every_name_is_documented);
	tcase_add_test(tf, tmpl_check_dir_lists_broken_templates);
	tcase_add_test(tf, tmpl_cache_parses_once_and_falls_back);
	tcase_add_loop_test(tf, tmpl_board_mails_stand_alone, 0,
	    (int)nitems(langs));
	suite_add_tcase(s, tf);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(template_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

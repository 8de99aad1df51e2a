/* Reading incoming mail: one test per rule of commands.md "Reading a
 * message", the guards, bounce recipients, `ludus parse` output, and every
 * message of tests/mail/ against its .expect file. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mail.h"

#define REFEREE	"referee@ludus.example"
#define XLOOP	"referee@ludus.example"

static const char *const club_lists[] = { "chess-club.lists.example.org" };
static const char *const banned[] = { "spammer@bad.example",
	"@banned.example" };

static struct mail_limits
limits(void)
{
	struct mail_limits l = { 0 };

	l.tag = "ludus";
	l.referee = REFEREE;
	return l;
}

static struct mail_guard_cfg
guard_cfg(void)
{
	struct mail_guard_cfg g = { 0 };

	g.x_loop = XLOOP;
	g.referee = REFEREE;
	g.club_lists = club_lists;
	g.nclub_lists = (int)nitems(club_lists);
	g.banned = banned;
	g.nbanned = (int)nitems(banned);
	return g;
}

/* Parse a message given as text; the test fails when mail_parse does. */
static void
parse_ok(const char *raw, struct mail_msg *m)
{
	struct mail_limits l = limits();
	char err[256];

	ck_assert_msg(mail_parse(raw, strlen(raw), &l, m, err, sizeof(err)) ==
	    0, "mail_parse: %s", err);
}

/* The command lines joined with '|', for compact assertions.  Owned. */
static char *
joined(const struct mail_msg *m)
{
	struct buf b = { 0 };
	int i;

	for (i = 0; i < m->commands.n; i++)
		buf_printf(&b, "%s%s", i ? "|" : "", m->commands.v[i]);
	buf_adds(&b, "");
	return buf_steal(&b);
}

/* Commands of a text/plain UTF-8 message with this body. */
static void
assert_body(const char *body, const char *want)
{
	struct buf raw = { 0 };
	struct mail_msg m;
	char *got;

	buf_printf(&raw, "From: Alice <alice@example.org>\n"
	    "To: referee@ludus.example\nSubject: [ludus #7 ABCDEFGH] move\n"
	    "Content-Type: text/plain; charset=utf-8\n\n%s", body);
	parse_ok(buf_str(&raw), &m);
	got = joined(&m);
	ck_assert_msg(strcmp(got, want) == 0, "body:\n%s\ngot:  %s\nwant: %s",
	    body, got, want);
	free(got);
	mail_msg_free(&m);
	buf_free(&raw);
}

static const char *
guard_of(const char *raw)
{
	struct mail_guard_cfg g = guard_cfg();
	struct mail_msg m;
	const char *r;

	parse_ok(raw, &m);
	r = mail_guard(&m, &g);
	mail_msg_free(&m);
	return r;
}

START_TEST(mail_quote_lines_dropped)
{
	assert_body("move 3\n> your move 2\n>> older\n  > indented quote\n"
	    "board\n", "move 3|board");
}
END_TEST

START_TEST(mail_signature_separator)
{
	assert_body("move 4\n-- \nAlice\nmove 9\n", "move 4");
	assert_body("move 4\n--\nAlice\n", "move 4");
}
END_TEST

START_TEST(mail_dash_dash_in_sentence_is_text)
{
	assert_body("say good game -- well played\nresign\n",
	    "say good game -- well played|resign");
	assert_body("--move 3\n", "--move 3");
}
END_TEST

START_TEST(mail_attribution_english)
{
	/* Top-posting: the attribution and everything after it go. */
	assert_body("move 5\n\nOn Mon, 2 Mar 2026 at 10:00, Referee "
	    "<referee@ludus.example> wrote:\nYour turn.\nmove 2\n", "move 5");
	/* Wrapped over two and three lines. */
	assert_body("move 5\n\nOn Mon, 2 Mar 2026 at 10:00, Referee\n"
	    "<referee@ludus.example> wrote:\nYour turn.\n", "move 5");
	assert_body("move 5\n\nOn Mon, 2 Mar 2026, at 10:00, Referee\n"
	    "<referee@ludus.example>\nwrote:\n\n> Your turn.\n", "move 5");
	/* "On" opening a sentence is not an attribution. */
	assert_body("On second thought\nresign\n", "On second thought|resign");
}
END_TEST

START_TEST(mail_attribution_russian)
{
	assert_body("ход 3\n\n12.03.2026 10:15, Судья пишет:\nВаш ход.\n",
	    "ход 3");
	assert_body("ход 3\n\nСр, 12 мар 2026 в 10:15, Судья "
	    "<referee@ludus.example> написал(а):\nВаш ход.\n", "ход 3");
	/* Yandex and Mail.ru write no verb: such a line counts when a quote
	 * follows it. */
	assert_body("ход 3\n\n12.03.2026, 10:15, \"Судья\" "
	    "<referee@ludus.example>:\n> Ваш ход.\n", "ход 3");
}
END_TEST

START_TEST(mail_attribution_german_french)
{
	assert_body("move 1\n\nAm 12.03.2026 um 10:15 schrieb Referee "
	    "<referee@ludus.example>:\nIhr Zug.\n", "move 1");
	assert_body("move 1\n\nLe 12 mars 2026 à 10:15, Referee "
	    "<referee@ludus.example> a écrit :\nÀ vous.\n", "move 1");
}
END_TEST

START_TEST(mail_bottom_posting_kept)
{
	assert_body("On Mon, 2 Mar 2026, Referee <referee@ludus.example> "
	    "wrote:\n> Your turn. Legal moves: 1 2 3\n>\n\nmove 2\n\n"
	    "> Reply with your move.\nboard\n", "move 2|board");
}
END_TEST

START_TEST(mail_outlook_blocks)
{
	assert_body("move 6\n\n-----Original Message-----\nFrom: Referee\n"
	    "move 1\n", "move 6");
	assert_body("move 6\n________________________________\nFrom: Referee "
	    "<referee@ludus.example>\nSent: Monday, March 2, 2026 10:00 AM\n"
	    "To: Alice\nSubject: [ludus #7] your turn\n\nYour turn.\n",
	    "move 6");
	assert_body("move 6\n\n*From:* Referee [mailto:referee@ludus.example]\n"
	    "*Sent:* Monday, March 2, 2026 10:00 AM\n*To:* Alice\n\nYour turn\n",
	    "move 6");
	assert_body("ход 6\n\nОт: Судья <referee@ludus.example>\n"
	    "Отправлено: 2 марта 2026 г. 10:00\nКому: Алиса\n\nВаш ход\n",
	    "ход 6");
	/* A "From:" line alone is text, not a block. */
	assert_body("From: me\nmove 2\n", "From: me|move 2");
}
END_TEST

START_TEST(mail_mobile_signature)
{
	assert_body("move 2\n\nSent from my iPhone\n", "move 2");
	assert_body("move 2\nОтправлено с iPhone\n", "move 2");
	assert_body("Sent from my desk, as usual\n",
	    "Sent from my desk, as usual");
}
END_TEST

START_TEST(mail_forwarded_marker)
{
	assert_body("new mancala bob@example.org\n\n---------- Forwarded "
	    "message ---------\nFrom: x\n", "new mancala bob@example.org");
	assert_body("list\n-------- Пересылаемое сообщение --------\nboard\n",
	    "list");
}
END_TEST

/* Lines that look a little like attributions, headers, separators or
 * sign-offs but are the sender's own: every one is read. */
START_TEST(mail_lookalikes_kept)
{
	static const struct {
		const char *body, *want;
	} cases[] = {
		{ "thanks\n", "thanks" },
		{ "Thanks!\n", "Thanks!" },
		{ "resign\nthanks\n", "resign|thanks" },
		{ "move 3\nCheers\n", "move 3|Cheers" },
		{ "board\nBest\nmove 2\n", "board|Best|move 2" },
		{ "move 3\nAlice\n", "move 3|Alice" },
		{ "Da: 3\n", "Da: 3" },
		{ "Date: tomorrow\nmove 2\n", "Date: tomorrow|move 2" },
		{ "On second thought\nresign\n", "On second thought|resign" },
		{ "new mancala bob@example.org\n3\n",
		    "new mancala bob@example.org|3" },
		{ "say I wrote it at 10:30\nboard\n",
		    "say I wrote it at 10:30|board" },
		{ "say -- well played\n", "say -- well played" },
		{ "say Sent from my desk, as usual\n",
		    "say Sent from my desk, as usual" },
		{ "_\nboard\n", "_|board" },
	};
	size_t i;

	for (i = 0; i < nitems(cases); i++)
		assert_body(cases[i].body, cases[i].want);
}
END_TEST

/* The rules of issue-15 kinds in one line each (the fixtures of
 * tests/mail/kinds hold them as whole messages). */
START_TEST(mail_reply_forms)
{
	static const struct {
		const char *body, *want;
	} cases[] = {
		/* Mobile: the attribution first, the reply below it. */
		{ "On Mon, 2 Mar 2026 at 10:00, Referee <r@ludus.example> "
		    "wrote:\nmove 3\n", "move 3" },
		/* A verb-less attribution with the original not quoted. */
		{ "ход 2\n30.09.2025, 18.30, \"Ludus - Referee\" "
		    "<r@ludus.example>:\nYour legal moves: 1, 2\n3\n",
		    "ход 2" },
		{ "move 1\nOn Mon, 2 Mar 2026 at 10:00, Referee "
		    "<r@ludus.example> wrote\n\n> 3\n", "move 1" },
		{ "move 1\nOn Mon, 2 Mar 2026 at 10:00, Referee "
		    "<r@ludus.example>wrote\n3\n", "move 1" },
		{ "move 1\nSent via the Samsung Galaxy S7, an AT&T 4G LTE "
		    "smartphone\n3\n", "move 1" },
		{ "move 1\nSent from my BlackBerry 10 smartphone on the Verizon "
		    "Wireless 4G LTE network.\n3\n", "move 1" },
		{ "move 1\nLudus Referee كتب:\n3\n", "move 1" },
		{ "move 1\nLudus Referee <r@ludus.example> 于2026年3月2日周一 "
		    "10:00写道：\n3\n", "move 1" },
		{ "move 1\nLe 2 mars 2026 à 10:00, Referee a écrit\xe2\x80\xaf:"
		    "\n3\n", "move 1" },
		{ "move 1\nDe : Referee\nEnvoyé : lundi\n3\n", "move 1" },
		{ "move 1\n-------- Oprindelig besked --------\n3\n",
		    "move 1" },
		{ "move 1\n---- On Mon, 02 Mar 2026 10:00:00 +0100 Referee "
		    "wrote ----\n3\n", "move 1" },
		{ "move 1\n__\nhelp\n", "move 1" },
		{ "move 1\n\xe1\x90\xa7\n", "move 1" },
		{ "move 1\n\nBest regards,\nAlice Liddell\n", "move 1" },
		{ "move 1\n\nViele Grüße\nJürgen\n", "move 1" },
		{ "move 1\n\nCheers,\n", "move 1" },
		{ "move 1\n\nThanks,\nAlice\n", "move 1" },
	};
	size_t i;

	for (i = 0; i < nitems(cases); i++)
		assert_body(cases[i].body, cases[i].want);
}
END_TEST

/* Below a line that only may begin quoted text nothing is read: the
 * lines are held back (mail_msg.unread), with that line and what it
 * looked like, so the sender can be told. */
START_TEST(mail_possible_start_holds_lines)
{
	static const struct {
		const char *body, *want, *unread, *below;
	} cases[] = {
		/* A verb, neither date nor address, nothing quoted. */
		{ "board\nAlice wrote:\n3\n", "board", "3", "Alice wrote:" },
		/* The same with quoted lines below: only it goes. */
		{ "Alice wrote:\n> shall we?\n3\n", "3", "", NULL },
		/* Any line ending in an address and a colon. */
		{ "3\nReferee <r@ludus.example>:\nmove 2\nboard\n", "3",
		    "move 2|board", "Referee <r@ludus.example>:" },
		/* A From: line alone, with an address. */
		{ "3\nFrom: Ann <ann@example.org>\nresign\n", "3", "resign",
		    "From: Ann <ann@example.org>" },
		/* A separator not in the tables. */
		{ "3\n==== Message du : 02/03 ====\nresign\n", "3", "resign",
		    "==== Message du : 02/03 ====" },
		/* A header block above everything. */
		{ "From: Ann <ann@example.org>\nSent: Monday 10:00\nTo: Ref\n\n3"
		    "\n", "", "3", "From: Ann <ann@example.org>" },
		/* Gmail's date-first form, nothing quoted. */
		{ "3\n2026-03-02 10:00 GMT+01:00 Referee\nresign\n", "3",
		    "resign", "2026-03-02 10:00 GMT+01:00 Referee" },
		/* A sure start below still ends what is held. */
		{ "3\nAlice wrote:\nboard\n-- \nAlice\n", "3", "board",
		    "Alice wrote:" },
	};
	size_t i;

	for (i = 0; i < nitems(cases); i++) {
		struct buf raw = { 0 }, u = { 0 };
		struct mail_msg m;
		char *got;
		int k;

		buf_printf(&raw, "From: Alice <alice@example.org>\n"
		    "To: referee@ludus.example\nSubject: Re: [ludus #7 "
		    "ABCDEFGH] Your move\nContent-Type: text/plain; "
		    "charset=utf-8\n\n%s", cases[i].body);
		parse_ok(buf_str(&raw), &m);
		got = joined(&m);
		for (k = 0; k < m.unread.n; k++)
			buf_printf(&u, "%s%s", k ? "|" : "", m.unread.v[k]);
		buf_adds(&u, "");
		ck_assert_msg(strcmp(got, cases[i].want) == 0 &&
		    strcmp(buf_str(&u), cases[i].unread) == 0, "body:\n%s\n"
		    "got %s / %s\nwant %s / %s", cases[i].body, got,
		    buf_str(&u), cases[i].want, cases[i].unread);
		if (cases[i].below != NULL) {
			ck_assert_str_eq(m.unread_below, cases[i].below);
			ck_assert_ptr_nonnull(m.unread_why);
			/* Held lines are no stand-in for the subject. */
			ck_assert_int_eq(m.from_subject, 0);
		} else
			ck_assert_ptr_null(m.unread_below);
		free(got);
		buf_free(&u);
		buf_free(&raw);
		mail_msg_free(&m);
	}
}
END_TEST

/* Hostile bodies stay linear: long lines, many attribution-like and
 * header-like lines, a header line followed by a sea of blank lines. */
START_TEST(mail_hostile_bodies_fast)
{
	struct strv sv = { 0 };
	struct buf b = { 0 };
	int i, lt, ct;

	time_t t0 = time(NULL);

	buf_adds(&b, "move 1\n");
	for (i = 0; i < 20000; i++)
		buf_adds(&b, "On 10:00 <a@b.example wrote\n\n\n> q\n"
		    "> From: x\n>\n");
	buf_adds(&b, "From: x\n");
	for (i = 0; i < 200000; i++)
		buf_adds(&b, "\n");
	for (i = 0; i < 100000; i++)
		buf_addc(&b, i % 2 ? '<' : '@');
	buf_adds(&b, ":\nRegards,\n");
	mail_body_commands(b.s, b.len, 0, 50, &sv, &lt, &ct);
	ck_assert_int_eq(sv.n, 3);	/* "Regards," is a sign-off */
	ck_assert_str_eq(sv.v[0], "move 1");
	ck_assert_str_eq(sv.v[1], "From: x");
	ck_assert_msg(time(NULL) - t0 < 5, "took %lld s",
	    (long long)(time(NULL) - t0));
	strv_free(&sv);
	buf_free(&b);
}
END_TEST

START_TEST(mail_lines_trimmed_blank_skipped)
{
	assert_body("\n\n   move 3   \n\t\n\xc2\xa0" "board\xc2\xa0\n", "move 3|board");
	assert_body("move 3\r\nboard\r\n", "move 3|board");
}
END_TEST

START_TEST(mail_subject_fallback_strips_prefixes_and_tag)
{
	static const struct {
		const char *subject, *want;
	} cases[] = {
		{ "Re: [ludus #12 ABCDEFGH] 3", "3" },
		{ "RE: Fwd: [ludus #12 ABCDEFGH] move 3", "move 3" },
		{ "AW: WG: [Ludus #12 ABCDEFGH] board", "board" },
		{ "Ответ: [ludus #12 ABCDEFGH] ход 3", "ход 3" },
		{ "Re[2]: [ludus #12 ABCDEFGH] resign", "resign" },
		{ "Fw: list", "list" },
		{ "Re: Re:   help  mancala", "help mancala" },
		{ "Regarding chess", "Regarding chess" },
	};
	struct mail_msg m;
	struct buf raw = { 0 };
	size_t i;
	char *got;

	for (i = 0; i < nitems(cases); i++) {
		got = mail_subject_command(cases[i].subject, "ludus");
		ck_assert_msg(strcmp(got, cases[i].want) == 0, "%s: got '%s'",
		    cases[i].subject, got);
		free(got);
	}
	/* A body with only a quote and a signature: the subject is read. */
	buf_printf(&raw, "From: a@example.org\nSubject: Re: [ludus #12 "
	    "ABCDEFGH] 3\n\n> Your turn\n-- \nAlice\n");
	parse_ok(buf_str(&raw), &m);
	got = joined(&m);
	ck_assert_str_eq(got, "3");
	ck_assert_int_eq(m.from_subject, 1);
	free(got);
	mail_msg_free(&m);
	/* A tag-only subject and an empty body give no command at all. */
	buf_reset(&raw);
	buf_printf(&raw, "From: a@example.org\nSubject: Re: [ludus #12 "
	    "ABCDEFGH]\n\n\n");
	parse_ok(buf_str(&raw), &m);
	ck_assert_int_eq(m.commands.n, 0);
	mail_msg_free(&m);
	buf_free(&raw);
}
END_TEST

START_TEST(mail_windows1251_converted)
{
	struct mail_msg m;
	char *got;

	/* "ход 3" in windows-1251. */
	parse_ok("From: a@example.ru\nSubject: x\nContent-Type: text/plain; "
	    "charset=windows-1251\nContent-Transfer-Encoding: 8bit\n\n"
	    "\xf5\xee\xe4 3\n", &m);
	got = joined(&m);
	ck_assert_str_eq(got, "ход 3");
	free(got);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_koi8r_converted)
{
	struct mail_msg m;
	char *got;

	/* "ход 3" in KOI8-R. */
	parse_ok("From: a@example.ru\nSubject: x\nContent-Type: text/plain; "
	    "charset=koi8-r\n\n\xc8\xcf\xc4 3\n", &m);
	got = joined(&m);
	ck_assert_str_eq(got, "ход 3");
	free(got);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_x_mac_cyrillic_converted)
{
	struct mail_msg m;
	char *got;

	/* "ход 3" in Mac Cyrillic, labelled as Outlook and old Mac mailers
	 * do. */
	parse_ok("From: a@example.ru\nSubject: x\nContent-Type: text/plain; "
	    "charset=x-mac-cyrillic\nContent-Transfer-Encoding: 8bit\n\n"
	    "\xf5\xee\xe4 3\n", &m);
	got = joined(&m);
	ck_assert_str_eq(got, "ход 3");
	free(got);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_utf16_lone_surrogate_keeps_alignment)
{
	/* "move 3\nsay \xd800 hi\n" in UTF-16BE with a lone high
	 * surrogate, and the same in UTF-16LE behind its byte order mark:
	 * the units after it stay in step. */
	static const char be[] = "\0m\0o\0v\0e\0 \0003\0\n"
	    "\0s\0a\0y\0 \xd8\0\0 \0h\0i\0\n";
	static const char le[] = "\xff\xfem\0o\0v\0e\0 \0003\0\n\0"
	    "s\0a\0y\0 \0\0\xd8 \0h\0i\0\n\0";
	struct mail_msg m;
	char *got;

	got = mailtext_to_utf8(be, sizeof(be) - 1, "utf-16be");
	ck_assert_str_eq(got, "move 3\nsay \xef\xbf\xbd hi\n");
	free(got);
	got = mailtext_to_utf8(le, sizeof(le) - 1, "UTF-16");
	ck_assert_str_eq(got, "move 3\nsay \xef\xbf\xbd hi\n");
	free(got);
	/* A pair is one character: U+1F600. */
	got = mailtext_to_utf8("\xd8\x3d\xde\x00", 4, "utf-16");
	ck_assert_str_eq(got, "\xf0\x9f\x98\x80");
	free(got);
	(void)m;
}
END_TEST

START_TEST(mail_html_too_deep_refused)
{
	struct mail_limits l = limits();
	struct mail_msg m;
	struct buf b = { 0 };
	char err[256] = "";
	int i;

	/* The command deep inside 300 nested elements: libxml2 stops at
	 * 256, and the body must not read as empty (the subject would be
	 * taken for the command). */
	buf_adds(&b, "From: a@example.org\nSubject: resign\nContent-Type: "
	    "text/html; charset=utf-8\n\n<html><body>");
	for (i = 0; i < 300; i++)
		buf_adds(&b, "<div>");
	buf_adds(&b, "move 3");
	for (i = 0; i < 300; i++)
		buf_adds(&b, "</div>");
	buf_adds(&b, "</body></html>\n");
	ck_assert_int_eq(mail_parse(buf_str(&b), b.len, &l, &m, err,
	    sizeof(err)), -1);
	ck_assert_msg(strstr(err, "nests too deeply") != NULL, "%s", err);
	ck_assert_int_eq(m.commands.n, 0);
	mail_msg_free(&m);
	buf_free(&b);
}
END_TEST

START_TEST(mail_latin1_qp_and_base64)
{
	struct mail_msg m;
	char *got;

	parse_ok("From: a@example.fr\nSubject: x\nContent-Type: text/plain; "
	    "charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n"
	    "\nsay tr=E8s bien jou=E9=\n !\nmove 2\n", &m);
	got = joined(&m);
	ck_assert_str_eq(got, "say très bien joué !|move 2");
	free(got);
	mail_msg_free(&m);
	/* "move 4\nboard\n" in base64. */
	parse_ok("From: a@example.org\nSubject: x\nContent-Type: text/plain; "
	    "charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
	    "bW92ZSA0CmJvYXJkCg==\n", &m);
	got = joined(&m);
	ck_assert_str_eq(got, "move 4|board");
	free(got);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_invalid_utf8_replaced)
{
	struct mail_msg m;
	char *got;

	parse_ok("From: a@example.org\nSubject: x\nContent-Type: text/plain; "
	    "charset=utf-8\n\nmove \xff\xfe 3\n", &m);
	got = joined(&m);
	ck_assert_str_eq(got, "move \xef\xbf\xbd\xef\xbf\xbd 3");
	free(got);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_rfc2047_subject)
{
	struct mail_msg m;

	parse_ok("From: =?utf-8?B?0JDQu9C40YHQsA==?= <Alice@Example.ORG>\n"
	    "Subject: =?koi8-r?B?68/E?= =?utf-8?Q?_3?=\n\n\n", &m);
	ck_assert_str_eq(m.subject, "Код 3");
	ck_assert_str_eq(m.from_name, "Алиса");
	ck_assert_str_eq(m.from, "alice@example.org");
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_html_only_to_text)
{
	struct mail_msg m;
	char *got;

	parse_ok("From: a@example.org\nSubject: x\nContent-Type: text/html; "
	    "charset=utf-8\n\n<html><head><style>p{}</style><title>t</title>"
	    "</head><body><div>move&nbsp;3</div><p>board<br>list</p>"
	    "<div class=\"gmail_quote\"><div>On Mon, Referee &lt;"
	    "referee@ludus.example&gt; wrote:<br></div><blockquote>Your turn"
	    "<br>legal: 1 2 3</blockquote></div>"
	    "<script>move 9</script></body></html>\n", &m);
	ck_assert_int_eq(m.body_source, MAIL_BODY_HTML);
	got = joined(&m);
	ck_assert_str_eq(got, "move 3|board|list");
	free(got);
	mail_msg_free(&m);
	/* The part's declared charset is converted first; the page's own
	 * <meta> charset then must not convert it a second time. */
	parse_ok("From: a@example.org\nSubject: x\nContent-Type: text/html; "
	    "charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n"
	    "\n<html><head><meta http-equiv=3D\"Content-Type\" content=3D\""
	    "text/html; charset=3Diso-8859-1\"></head><body><p>say tr=E8s bien"
	    "</p><table><tr><td>a</td><td>b</td></tr></table></body></html>\n",
	    &m);
	got = joined(&m);
	ck_assert_str_eq(got, "say très bien|a b");
	free(got);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_first_text_plain_part_nested)
{
	struct mail_msg m;
	char *got;

	parse_ok("From: a@example.org\nSubject: x\nMIME-Version: 1.0\n"
	    "Content-Type: multipart/mixed; boundary=OUT\n\n--OUT\n"
	    "Content-Type: multipart/alternative; boundary=IN\n\n--IN\n"
	    "Content-Type: text/html\n\n<p>html 1</p>\n--IN\n"
	    "Content-Type: text/plain\n\nplain 1\n--IN--\n--OUT\n"
	    "Content-Type: text/plain\nContent-Disposition: attachment\n\n"
	    "attached\n--OUT--\n", &m);
	got = joined(&m);
	ck_assert_str_eq(got, "plain 1");
	free(got);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_no_text_part_error)
{
	static const char raw[] = "From: a@example.org\nSubject: x\n"
	    "Content-Type: image/png\nContent-Transfer-Encoding: base64\n\n"
	    "iVBORw0KGgo=\n";
	struct mail_limits l = limits();
	struct mail_msg m;
	char err[256] = "";

	ck_assert_int_eq(mail_parse(raw, strlen(raw), &l, &m, err,
	    sizeof(err)), -1);
	ck_assert_msg(strstr(err, "no text part") != NULL, "%s", err);
	/* The header is still there for the guards. */
	ck_assert_str_eq(m.from, "a@example.org");
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_missing_boundary_guarded)
{
	struct mail_msg m;
	char *got;

	parse_ok("From: a@example.org\nSubject: x\nContent-Type: "
	    "multipart/alternative\n\nmove 3\n", &m);
	got = joined(&m);
	ck_assert_str_eq(got, "move 3");
	free(got);
	mail_msg_free(&m);
	/* A boundary that never occurs: libetpan reads it as it can. */
	parse_ok("From: a@example.org\nSubject: y\nContent-Type: "
	    "multipart/alternative; boundary=\"Apple-Mail=_DDA99\"\n\n"
	    "sometext\n", &m);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_caps_lines_commands_bytes)
{
	struct mail_limits l = limits();
	struct mail_msg m;
	struct buf raw = { 0 };
	char err[256];
	int i;

	buf_adds(&raw, "From: a@example.org\nSubject: x\n\n");
	for (i = 0; i < 30; i++)
		buf_printf(&raw, "move %d\n", i);
	l.max_commands = 5;
	ck_assert_int_eq(mail_parse(raw.s, raw.len, &l, &m, err, sizeof(err)),
	    0);
	ck_assert_int_eq(m.commands.n, 5);
	ck_assert_str_eq(m.commands.v[4], "move 4");
	ck_assert_int_eq(m.commands_truncated, 1);
	ck_assert_int_eq(m.lines_truncated, 0);
	mail_msg_free(&m);

	l = limits();
	l.max_lines = 10;
	ck_assert_int_eq(mail_parse(raw.s, raw.len, &l, &m, err, sizeof(err)),
	    0);
	ck_assert_int_eq(m.commands.n, 10);
	ck_assert_int_eq(m.lines_truncated, 1);
	ck_assert_int_eq(m.commands_truncated, 0);
	mail_msg_free(&m);

	l = limits();
	l.max_bytes = raw.len - 1;
	ck_assert_int_eq(mail_parse(raw.s, raw.len, &l, &m, err, sizeof(err)),
	    -1);
	ck_assert_msg(strstr(err, "too large") != NULL, "%s", err);
	/* The header is still read: the sender can be told. */
	ck_assert_str_eq(m.from, "a@example.org");
	ck_assert_int_eq(m.commands.n, 0);
	mail_msg_free(&m);
	l.max_bytes = raw.len;
	ck_assert_int_eq(mail_parse(raw.s, raw.len, &l, &m, err, sizeof(err)),
	    0);
	ck_assert_int_eq(m.commands.n, 30);
	mail_msg_free(&m);
	buf_free(&raw);
}
END_TEST

START_TEST(mail_addr_canonical_lowercase)
{
	struct mail_msg m;

	parse_ok("From: \"Bob\" <Bob.Smith@Example.COM>\n"
	    "Reply-To: BOB@example.com\nTo: Referee <Referee@Ludus.Example>, "
	    "x@y.example\nCc: undisclosed-recipients:;\nDelivered-To: "
	    "referee@ludus.example\nSubject: s\n\nlist\n", &m);
	ck_assert_str_eq(m.from, "bob.smith@example.com");
	ck_assert_str_eq(m.from_name, "Bob");
	ck_assert_str_eq(m.reply_to, "bob@example.com");
	ck_assert_int_eq(m.to.n, 2);
	ck_assert_str_eq(m.to.v[0], "referee@ludus.example");
	ck_assert_int_eq(m.cc.n, 0);
	ck_assert_int_eq(m.delivered_to.n, 1);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_headers_read)
{
	struct mail_msg m;

	parse_ok("Return-Path: <alice@example.org>\n"
	    "Authentication-Results: mx.ludus.example;\n"
	    "\tdkim=pass header.d=example.org;\n"
	    "\tdmarc=pass (p=reject) header.from=Example.org\n"
	    "Authentication-Results: evil.example; dmarc=fail\n"
	    "From: alice@example.org\nTo: referee@ludus.example\n"
	    "Message-ID: <abc@example.org>\nIn-Reply-To: <r1@ludus.example>\n"
	    "References: <r0@ludus.example>\n <r1@ludus.example>\n"
	    "Auto-Submitted: no\nPrecedence: first-class\n"
	    "List-Id: Chess <chess-club.lists.example.org>\n"
	    "X-Loop: one\nX-Loop: two\nSubject: s\n\nlist\n", &m);
	ck_assert_str_eq(m.message_id, "abc@example.org");
	ck_assert_str_eq(m.in_reply_to, "r1@ludus.example");
	ck_assert_int_eq(m.references.n, 2);
	ck_assert_str_eq(m.references.v[1], "r1@ludus.example");
	ck_assert_str_eq(m.auto_submitted, "no");
	ck_assert_str_eq(m.precedence, "first-class");
	ck_assert_str_eq(m.list_id, "Chess <chess-club.lists.example.org>");
	ck_assert_int_eq(m.x_loop.n, 2);
	ck_assert_str_eq(m.x_loop.v[1], "two");
	ck_assert_str_eq(m.return_path, "<alice@example.org>");
	ck_assert_int_eq(m.return_path_null, 0);
	/* The topmost Authentication-Results only. */
	ck_assert_str_eq(m.auth_serv_id, "mx.ludus.example");
	ck_assert_str_eq(m.dmarc, "pass");
	ck_assert_str_eq(m.dmarc_from, "example.org");
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_subject_tag_parsed)
{
	int64_t g = 0;
	char tok[MAIL_TOKEN_MAX + 1];

	ck_assert_int_eq(mail_subject_tag("Re: [ludus #42 K7QX2M3A] your turn",
	    "ludus", &g, tok), 1);
	ck_assert_int_eq(g, 42);
	ck_assert_str_eq(tok, "K7QX2M3A");
	ck_assert_int_eq(mail_subject_tag("[LUDUS #9]", "ludus", &g, tok), 1);
	ck_assert_int_eq(g, 9);
	ck_assert_str_eq(tok, "");
	ck_assert_int_eq(mail_subject_tag("[club #9 AAAA]", "ludus", &g, tok), 0);
	ck_assert_int_eq(mail_subject_tag("[ludus #x AAAA]", "ludus", &g, tok),
	    0);
	ck_assert_int_eq(mail_subject_tag("[ludus #99999999999999999999 A]",
	    "ludus", &g, tok), 0);
	ck_assert_int_eq(mail_subject_tag("[club #3 TOKEN]", "club", &g, tok),
	    1);
}
END_TEST

START_TEST(mail_plus_address_token)
{
	struct mail_msg m;

	parse_ok("From: a@example.org\nTo: Referee "
	    "<referee+42.K7QX2M3A@ludus.example>\nSubject: hello\n\n3\n", &m);
	ck_assert_int_eq(m.tag_game, 42);
	ck_assert_str_eq(m.tag_token, "k7qx2m3a");
	ck_assert_int_eq(m.tag_source, MAIL_TAG_PLUS);
	mail_msg_free(&m);
	/* Delivered-To works too; another local part does not count. */
	parse_ok("From: a@example.org\nTo: other+5.AAAA@ludus.example\n"
	    "Delivered-To: referee+6.BBBBBBBB@ludus.example\nSubject: s\n\n3\n",
	    &m);
	ck_assert_int_eq(m.tag_game, 6);
	mail_msg_free(&m);
	/* Subject and plus address agreeing; then disagreeing. */
	parse_ok("From: a@example.org\nTo: referee+6.bbbbbbbb@ludus.example\n"
	    "Subject: Re: [ludus #6 bbbbbbbb] x\n\n3\n", &m);
	ck_assert_int_eq(m.tag_source, MAIL_TAG_SUBJECT | MAIL_TAG_PLUS);
	ck_assert_int_eq(m.tag_conflict, 0);
	mail_msg_free(&m);
	parse_ok("From: a@example.org\nTo: referee+6.bbbbbbbb@ludus.example\n"
	    "Subject: Re: [ludus #8 cccccccc] x\n\n3\n", &m);
	ck_assert_int_eq(m.tag_game, 6);
	ck_assert_int_eq(m.tag_conflict, 1);
	mail_msg_free(&m);
	/* The subject alone. */
	parse_ok("From: a@example.org\nTo: referee@ludus.example\n"
	    "Subject: Re: [ludus #8 cccccccc] x\n\n3\n", &m);
	ck_assert_int_eq(m.tag_game, 8);
	ck_assert_str_eq(m.tag_token, "cccccccc");
	ck_assert_int_eq(m.tag_source, MAIL_TAG_SUBJECT);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_guard_plain_mail_answered)
{
	ck_assert_ptr_null(guard_of("From: a@example.org\nReturn-Path: "
	    "<a@example.org>\nAuto-Submitted: no\nSubject: s\n\nlist\n"));
}
END_TEST

START_TEST(mail_guard_bounce_null_sender)
{
	ck_assert_str_eq(guard_of("Return-Path: <>\nFrom: a@example.org\n"
	    "Subject: s\n\nx\n"), "bounce: null Return-Path");
	ck_assert_str_eq(guard_of("From: Mail Delivery System "
	    "<MAILER-DAEMON@mx.example.org>\nSubject: s\n\nx\n"),
	    "bounce: sender is a mailer daemon");
	ck_assert_str_eq(guard_of("From: postmaster@example.org\n"
	    "Subject: s\n\nx\n"), "bounce: sender is a mailer daemon");
	ck_assert_str_eq(guard_of("Subject: s\n\nx\n"),
	    "bounce: no sender address");
}
END_TEST

START_TEST(mail_guard_bounce_dsn_report)
{
	ck_assert_str_eq(guard_of("From: robot@mx.example.org\nSubject: s\n"
	    "Content-Type: multipart/report; report-type=delivery-status; "
	    "boundary=B\n\n--B\nContent-Type: text/plain\n\nfailed\n--B\n"
	    "Content-Type: message/delivery-status\n\nReporting-MTA: dns; mx\n"
	    "\nFinal-Recipient: rfc822; x@example.org\nAction: failed\n--B--\n"),
	    "bounce: delivery status report");
	ck_assert_str_eq(guard_of("From: robot@mx.example.org\nSubject: s\n"
	    "Content-Type: multipart/report; report-type=feedback-report; "
	    "boundary=B\n\n--B\nContent-Type: text/plain\n\nspam\n--B--\n"),
	    "report: automated report");
}
END_TEST

START_TEST(mail_guard_auto_submitted)
{
	ck_assert_str_eq(guard_of("From: a@example.org\nAuto-Submitted: "
	    "auto-replied (vacation)\nSubject: s\n\nx\n"),
	    "auto-reply: Auto-Submitted");
	ck_assert_str_eq(guard_of("From: a@example.org\nAuto-Submitted: "
	    "auto-generated\nSubject: s\n\nx\n"), "auto-reply: Auto-Submitted");
	ck_assert_ptr_null(guard_of("From: a@example.org\nAuto-Submitted: No\n"
	    "Subject: s\n\nx\n"));
	ck_assert_str_eq(guard_of("From: a@example.org\nX-Autoreply: yes\n"
	    "Subject: s\n\nx\n"), "auto-reply: autoresponder header");
	ck_assert_str_eq(guard_of("From: a@example.org\n"
	    "Subject: Automatic reply: your turn\n\nx\n"),
	    "auto-reply: subject");
}
END_TEST

START_TEST(mail_guard_precedence_and_lists)
{
	ck_assert_str_eq(guard_of("From: a@example.org\nPrecedence: bulk\n"
	    "Subject: s\n\nx\n"), "bulk: Precedence");
	ck_assert_str_eq(guard_of("From: a@example.org\nPrecedence: junk\n"
	    "Subject: s\n\nx\n"), "bulk: Precedence");
	ck_assert_str_eq(guard_of("From: a@example.org\nPrecedence: list\n"
	    "List-Id: <other.lists.example.org>\nSubject: s\n\nx\n"),
	    "bulk: Precedence");
	ck_assert_str_eq(guard_of("From: a@example.org\nList-Id: Other "
	    "<other.lists.example.org>\nSubject: s\n\nx\n"),
	    "list: List-Id of a list we do not serve");
	/* The configured club list is answered when the mail names the
	 * referee (or its plus address), and only then. */
	ck_assert_ptr_null(guard_of("From: a@example.org\nPrecedence: list\n"
	    "To: chess@lists.example.org, " REFEREE "\n"
	    "List-Id: Chess Club <chess-club.lists.example.org>\n"
	    "Subject: s\n\nx\n"));
	ck_assert_ptr_null(guard_of("From: a@example.org\nPrecedence: list\n"
	    "To: chess@lists.example.org\nCc: referee+12.abc@ludus.example\n"
	    "List-Id: Chess Club <chess-club.lists.example.org>\n"
	    "Subject: s\n\nx\n"));
	ck_assert_str_eq(guard_of("From: a@example.org\nPrecedence: list\n"
	    "To: chess@lists.example.org\n"
	    "List-Id: Chess Club <chess-club.lists.example.org>\n"
	    "Subject: Re: results\n\nwell played\n"),
	    "list: club list mail not addressed to the referee");
	ck_assert_str_eq(guard_of("From: a@example.org\nPrecedence: list\n"
	    "To: chess@lists.example.org\nCc: referee2@ludus.example\n"
	    "List-Id: Chess Club <chess-club.lists.example.org>\n"
	    "Subject: s\n\nx\n"),
	    "list: club list mail not addressed to the referee");
}
END_TEST

START_TEST(mail_guard_x_loop_and_self)
{
	ck_assert_str_eq(guard_of("From: a@example.org\nX-Loop: "
	    "someone@else.example\nX-Loop: Referee@ludus.example\n"
	    "Subject: s\n\nx\n"), "loop: our own X-Loop");
	ck_assert_ptr_null(guard_of("From: a@example.org\nX-Loop: "
	    "someone@else.example\nSubject: s\n\nx\n"));
	ck_assert_str_eq(guard_of("From: Referee@Ludus.Example\n"
	    "Subject: s\n\nx\n"), "loop: sent by the referee itself");
}
END_TEST

START_TEST(mail_guard_banned)
{
	ck_assert_str_eq(guard_of("From: Spammer@BAD.example\nSubject: s\n\n"
	    "x\n"), "banned: sender is banned");
	ck_assert_str_eq(guard_of("From: anyone@banned.example\nSubject: s\n\n"
	    "x\n"), "banned: sender is banned");
	ck_assert_ptr_null(guard_of("From: anyone@notbanned.example\n"
	    "Subject: s\n\nx\n"));
}
END_TEST

START_TEST(mail_bounce_recipients_dsn)
{
	struct mail_msg m;
	struct strv r = { 0 };

	parse_ok("From: MAILER-DAEMON@mx.example.org\nReturn-Path: <>\n"
	    "Subject: Undelivered Mail\nContent-Type: multipart/report; "
	    "report-type=delivery-status; boundary=B\n\n--B\n"
	    "Content-Type: text/plain\n\nfailed\n--B\n"
	    "Content-Type: message/delivery-status\n\nReporting-MTA: dns; mx\n"
	    "\nFinal-Recipient: rfc822; Bob@Example.org\nAction: failed\n"
	    "Status: 5.1.1\n\nFinal-Recipient: rfc822; late@example.org\n"
	    "Action: delayed\n\nOriginal-Recipient: rfc822;carol@example.org\n"
	    "Final-Recipient: rfc822; carol-fwd@example.net\nAction: failed\n"
	    "--B--\n", &m);
	ck_assert_int_eq(mail_bounce_recipients(&m, &r), 2);
	ck_assert_str_eq(r.v[0], "bob@example.org");
	ck_assert_str_eq(r.v[1], "carol-fwd@example.net");
	strv_free(&r);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_bounce_recipients_prose)
{
	struct mail_msg m;
	struct strv r = { 0 };

	parse_ok("From: MAILER-DAEMON@mx.example.org\nSubject: failure notice\n"
	    "\nHi. This is the qmail-send program at mx.example.org.\n"
	    "I'm afraid I wasn't able to deliver your message to the "
	    "following addresses.\n\n<Dave@Example.org>:\nSorry, no mailbox "
	    "here by that name.\n", &m);
	ck_assert_int_eq(mail_bounce_recipients(&m, &r), 1);
	ck_assert_str_eq(r.v[0], "dave@example.org");
	strv_free(&r);
	mail_msg_free(&m);
	parse_ok("From: MAILER-DAEMON@mx.example.org\nSubject: error\n\n"
	    "Hi!\n\n    gina@example.org: 550 5.1.1 no such user\n"
	    "henry@example.org: 550 5.1.1 no such user\n"
	    "\"Ivy@example.org\":\nmailbox full\n"
	    "jack@example.org: see you\n", &m);
	ck_assert_int_eq(mail_bounce_recipients(&m, &r), 2);
	ck_assert_str_eq(r.v[0], "henry@example.org");
	ck_assert_str_eq(r.v[1], "ivy@example.org");
	strv_free(&r);
	mail_msg_free(&m);
	parse_ok("From: Mailer-Daemon@mx.example.org\nX-Failed-Recipients: "
	    "erin@example.org, Frank@example.org\nSubject: failed\n\nx\n", &m);
	ck_assert_int_eq(mail_bounce_recipients(&m, &r), 2);
	ck_assert_str_eq(r.v[1], "frank@example.org");
	strv_free(&r);
	mail_msg_free(&m);
}
END_TEST

/* The description has the line "NAME  VALUE" (name padded to 16). */
static void
assert_line(const char *s, const char *name, const char *value)
{
	char line[256];

	snprintf(line, sizeof(line), "\n%-16s %s\n", name, value);
	ck_assert_msg(strstr(s, line) != NULL, "no line '%s' in:\n%s", line + 1,
	    s);
}

START_TEST(mail_describe_format)
{
	struct mail_guard_cfg g = guard_cfg();
	struct mail_msg m;
	struct buf b = { 0 };
	const char *s, *c;

	parse_ok("Authentication-Results: mx.ludus.example; dmarc=pass "
	    "header.from=example.org\nFrom: Alice <alice@example.org>\n"
	    "Reply-To: alice@example.net\nTo: referee+3.ABCDEFGH@ludus.example\n"
	    "Subject: Re: [ludus #3 ABCDEFGH] move\nPrecedence: bulk\n\n"
	    "move 1\n  board  \n> quoted\n", &m);
	mail_describe(&m, mail_guard(&m, &g), &b);
	s = buf_str(&b);
	ck_assert_msg(strstr(s, "alice@example.org (Alice)") != NULL, "%s", s);
	ck_assert_msg(strstr(s, "alice@example.net") != NULL, "%s", s);
	assert_line(s, "dmarc:", "pass header.from=example.org");
	assert_line(s, "authserv-id:", "mx.ludus.example");
	ck_assert_msg(strstr(s, "#3 token abcdefgh (from the subject and plus "
	    "address)") != NULL, "%s", s);
	assert_line(s, "guard:", "drop (bulk: Precedence)");
	c = strstr(s, "== commands ==\n");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c, "== commands ==\nmove 1\nboard\n");
	buf_free(&b);
	mail_msg_free(&m);
}
END_TEST

/* `ludus parse`: every line and why it was read or not. */
START_TEST(mail_describe_lines)
{
	struct mail_guard_cfg g = guard_cfg();
	struct mail_msg m;
	struct buf b = { 0 };
	const char *s;

	parse_ok("From: Alice <alice@example.org>\nSubject: s\n\n"
	    "Sent from my iPhone\n3\nOn Mon, 2 Mar 2026 at 10:00, Referee "
	    "<r@ludus.example> wrote:\n> 4\nboard\nBob wrote:\nresign\n"
	    "\nCheers,\nAlice\n", &m);
	mail_describe(&m, mail_guard(&m, &g), &b);
	s = buf_str(&b);
	assert_line(s, "line 1:", "device line | Sent from my iPhone");
	assert_line(s, "line 2:", "read | 3");
	assert_line(s, "line 3:", "attribution | On Mon, 2 Mar 2026 at 10:00, "
	    "Referee <r@ludus.example> wrote:");
	assert_line(s, "line 4:", "quote | > 4");
	assert_line(s, "line 5:", "read | board");
	assert_line(s, "line 6:", "attribution (may start quoted text: "
	    "nothing below is read) | Bob wrote:");
	assert_line(s, "line 7:", "not read (below line 6) | resign");
	assert_line(s, "line 8:", "blank");
	assert_line(s, "line 9:", "not read (below line 6) | Cheers,");
	assert_line(s, "not read:", "3 lines below \"Bob wrote:\": it may be "
	    "the line a mail client writes above a quotation");
	ck_assert_msg(strstr(s, "== commands ==\n3\nboard\n") != NULL, "%s", s);
	buf_free(&b);
	mail_msg_free(&m);
	/* The sign-off, the signature and what is below a sure start. */
	parse_ok("From: Alice <alice@example.org>\nSubject: s\n\n3\n\n"
	    "Regards,\nAlice\n-- \nAlice Liddell\n", &m);
	mail_describe(&m, mail_guard(&m, &g), &b);
	s = buf_str(&b);
	assert_line(s, "line 3:", "sign-off | Regards,");
	assert_line(s, "line 4:", "sign-off | Alice");
	assert_line(s, "line 5:", "signature | --");
	assert_line(s, "line 6:", "after the reply (below line 5) | "
	    "Alice Liddell");
	buf_free(&b);
	mail_msg_free(&m);
}
END_TEST

START_TEST(mail_describe_failed_recipients)
{
	struct mail_guard_cfg g = guard_cfg();
	struct mail_msg m;
	struct buf b = { 0 };
	const char *s;

	parse_ok("From: MAILER-DAEMON@mx.example.org\nReturn-Path: <>\n"
	    "Subject: Undelivered Mail\nContent-Type: multipart/report; "
	    "report-type=delivery-status; boundary=B\n\n--B\n"
	    "Content-Type: text/plain\n\nfailed\n--B\n"
	    "Content-Type: message/delivery-status\n\nReporting-MTA: dns; mx\n"
	    "\nFinal-Recipient: rfc822; Bob@Example.org\nAction: failed\n\n"
	    "Final-Recipient: rfc822; carol@example.org\nAction: failed\n"
	    "--B--\n", &m);
	mail_describe(&m, mail_guard(&m, &g), &b);
	s = buf_str(&b);
	ck_assert_msg(strstr(s, "\nguard:           drop (bounce: null "
	    "Return-Path)\nfailed:          bob@example.org\nfailed:          "
	    "carol@example.org\n== commands ==\n") != NULL, "%s", s);
	buf_free(&b);
	mail_msg_free(&m);
	/* A bounce that names nobody says so; other mail has no such line. */
	parse_ok("From: MAILER-DAEMON@mx.example.org\nSubject: failure\n\n"
	    "Sorry.\n", &m);
	mail_describe(&m, mail_guard(&m, &g), &b);
	assert_line(buf_str(&b), "failed:", "(none found)");
	buf_free(&b);
	mail_msg_free(&m);
	parse_ok("From: a@example.org\nSubject: s\n\n<x@example.org>:\n", &m);
	mail_describe(&m, mail_guard(&m, &g), &b);
	ck_assert_ptr_null(strstr(buf_str(&b), "failed:  "));
	buf_free(&b);
	mail_msg_free(&m);
}
END_TEST

/* Auto-replies that carry none of the standard headers. */
START_TEST(mail_guard_autoreply_forms)
{
	static const struct {
		const char *headers, *body, *want;
	} cases[] = {
		{ "Subject: AUTO: Bob is out of the office\n", "x\n",
		    "auto-reply: subject" },
		{ "Subject: Automatisch antwoord: [ludus #1] x\n", "x\n",
		    "auto-reply: subject" },
		{ "Subject: Re: x\nX-Autorespond: yes\n", "x\n",
		    "auto-reply: autoresponder header" },
		{ "Subject: Re: x\nX-POST-MessageClass: 9; Autoresponder\n",
		    "x\n", "auto-reply: autoresponder header" },
		{ "Subject: Re: x\nX-Auto-Response-Suppress: OOF, DR\n",
		    "x\n", "auto-reply: X-Auto-Response-Suppress" },
		{ "Subject: Re: x\nPrecedence: auto_reply\n", "x\n",
		    "auto-reply: Precedence" },
		{ "Subject: Re: x\n", "Please confirm you are a human:\n"
		    "https://example.net/c\n",
		    "auto-reply: challenge-response" },
		{ "Subject: Re: x\nX-Delivery-Agent: TMDA/1.1\n", "x\n",
		    "auto-reply: challenge-response" },
		{ "Subject: Undeliverable: x\n", "x\n", "bounce: subject" },
	};
	struct buf raw = { 0 };
	size_t i;
	const char *r;

	for (i = 0; i < nitems(cases); i++) {
		buf_reset(&raw);
		buf_printf(&raw, "From: bob@example.org\n%s\n%s",
		    cases[i].headers, cases[i].body);
		r = guard_of(buf_str(&raw));
		ck_assert_msg(r != NULL && strcmp(r, cases[i].want) == 0,
		    "%s: got %s", cases[i].headers, r ? r : "answered");
	}
	/* A player quoting such a request, and the referee's own confirm
	 * round trip, are answered. */
	ck_assert_ptr_null(guard_of("From: bob@example.org\nSubject: Re: "
	    "Please confirm: admin abort #3\n\nconfirm abc\n\n> confirm you "
	    "are a human\n"));
	ck_assert_ptr_null(guard_of("From: bob@example.org\nSubject: s\n"
	    "X-Auto-Response-Suppress: None\n\n3\n"));
	buf_free(&raw);
}
END_TEST

/* tests/mail: every .eml against its .expect. */

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What the corpus checks: "guard: REASON" when a guard drops the message
 * (and for a bounce a "failed: ADDRESS" line for each failed recipient),
 * "error: TEXT" when it cannot be read, else the command lines and a "not
 * read: LINE" line for each line held back. */
static char *
corpus_result(const char *raw, size_t len)
{
	struct mail_limits l = limits();
	struct mail_guard_cfg g = guard_cfg();
	struct mail_msg m;
	struct buf b = { 0 };
	const char *why;
	char err[256];
	int r, i;

	r = mail_parse(raw, len, &l, &m, err, sizeof(err));
	why = mail_guard(&m, &g);
	if (why != NULL) {
		struct strv f = { 0 };

		buf_printf(&b, "guard: %s\n", why);
		if (strncmp(why, "bounce:", 7) == 0)
			mail_bounce_recipients(&m, &f);
		for (i = 0; i < f.n; i++)
			buf_printf(&b, "failed: %s\n", f.v[i]);
		strv_free(&f);
	} else if (r == -1)
		buf_printf(&b, "error: %s\n", err);
	else {
		for (i = 0; i < m.commands.n; i++)
			buf_printf(&b, "%s\n", m.commands.v[i]);
		for (i = 0; i < m.unread.n; i++)
			buf_printf(&b, "not read: %s\n", m.unread.v[i]);
	}
	mail_msg_free(&m);
	buf_adds(&b, "");
	return buf_steal(&b);
}

/* Every .eml of tests/mail/SUB (listed in its files.am) against its
 * .expect; returns how many there are. */
static int
corpus_dir(const char *sub, int *bad)
{
	const char *src = getenv("LUDUS_SRCDIR");
	char dir[1024], path[1200];
	struct dirent *de;
	char **names = NULL;
	int n = 0, i;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/tests/mail%s", src ? src : ".", sub);
	ck_assert_msg((d = opendir(dir)) != NULL, "cannot open %s", dir);
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);

		if (l > 4 && strcmp(de->d_name + l - 4, ".eml") == 0) {
			names = xreallocarray(names, (size_t)n + 1,
			    sizeof(*names));
			names[n++] = xstrdup(de->d_name);
		}
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), cmp_names);
	snprintf(path, sizeof(path), "%s/files.am", dir);
	{
		size_t fl;
		char *list = util_read_file(path, SIZE_MAX, &fl), word[300];

		ck_assert_msg(list != NULL, "missing %s", path);
		for (i = 0; i < n; i++) {
			snprintf(word, sizeof(word), "tests/mail%s/%s ", sub,
			    names[i]);
			ck_assert_msg(strstr(list, word) != NULL, "%s is not "
			    "listed in tests/mail%s/files.am", names[i], sub);
		}
		free(list);
	}
	for (i = 0; i < n; i++) {
		char *raw, *want, *got;
		size_t rl, wl;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		raw = util_read_file(path, SIZE_MAX, &rl);
		ck_assert_ptr_nonnull(raw);
		snprintf(path + strlen(path) - 4, 8, ".expect");
		want = util_read_file(path, SIZE_MAX, &wl);
		ck_assert_msg(want != NULL, "missing %s", path);
		got = corpus_result(raw, rl);
		if (strcmp(got, want) != 0) {
			fprintf(stderr, "--- %s%s%s: expected\n%s+++ got\n%s",
			    sub + (*sub == '/'), *sub ? "/" : "", names[i],
			    want, got);
			(*bad)++;
		}
		free(raw);
		free(want);
		free(got);
		free(names[i]);
	}
	free(names);
	return n;
}

START_TEST(mail_corpus_files)
{
	int bad = 0, n;

	n = corpus_dir("", &bad);
	ck_assert_msg(n >= 40, "only %d messages in tests/mail", n);
	ck_assert_msg(bad == 0, "%d of %d messages in tests/mail differ (diffs "
	    "on stderr)", bad, n);
}
END_TEST

/* tests/mail/kinds: the table of reply forms by kind and language. */
START_TEST(mail_kinds_files)
{
	int bad = 0, n;

	n = corpus_dir("/kinds", &bad);
	ck_assert_msg(n >= 100, "only %d messages in tests/mail/kinds", n);
	ck_assert_msg(bad == 0, "%d of %d messages in tests/mail/kinds differ "
	    "(diffs on stderr)", bad, n);
}
END_TEST

static Suite *
mail_suite(void)
{
	Suite *s = suite_create("mail");
	TCase *tc = tcase_create("read");
	TCase *tg = tcase_create("guard");

	tcase_add_test(tc, mail_quote_lines_dropped);
	tcase_add_test(tc, mail_signature_separator);
	tcase_add_test(tc, mail_dash_dash_in_sentence_is_text);
	tcase_add_test(tc, mail_attribution_english);
	tcase_add_test(tc, mail_attribution_russian);
	tcase_add_test(tc, mail_attribution_german_french);
	tcase_add_test(tc, mail_bottom_posting_kept);
	tcase_add_test(tc, mail_outlook_blocks);
	tcase_add_test(tc, mail_mobile_signature);
	tcase_add_test(tc, mail_forwarded_marker);
	tcase_add_test(tc, mail_lookalikes_kept);
	tcase_add_test(tc, mail_reply_forms);
	tcase_add_test(tc, mail_possible_start_holds_lines);
	tcase_add_test(tc, mail_describe_lines);
	tcase_add_test(tc, mail_hostile_bodies_fast);
	tcase_add_test(tc, mail_lines_trimmed_blank_skipped);
	tcase_add_test(tc, mail_subject_fallback_strips_prefixes_and_tag);
	tcase_add_test(tc, mail_windows1251_converted);
	tcase_add_test(tc, mail_x_mac_cyrillic_converted);
	tcase_add_test(tc, mail_utf16_lone_surrogate_keeps_alignment);
	tcase_add_test(tc, mail_html_too_deep_refused);
	tcase_add_test(tc, mail_koi8r_converted);
	tcase_add_test(tc, mail_latin1_qp_and_base64);
	tcase_add_test(tc, mail_invalid_utf8_replaced);
	tcase_add_test(tc, mail_rfc2047_subject);
	tcase_add_test(tc, mail_html_only_to_text);
	tcase_add_test(tc, mail_first_text_plain_part_nested);
	tcase_add_test(tc, mail_no_text_part_error);
	tcase_add_test(tc, mail_missing_boundary_guarded);
	tcase_add_test(tc, mail_caps_lines_commands_bytes);
	tcase_add_test(tc, mail_addr_canonical_lowercase);
	tcase_add_test(tc, mail_headers_read);
	tcase_add_test(tc, mail_subject_tag_parsed);
	tcase_add_test(tc, mail_plus_address_token);
	tcase_add_test(tc, mail_describe_format);
	tcase_add_test(tc, mail_corpus_files);
	tcase_add_test(tc, mail_kinds_files);
	suite_add_tcase(s, tc);
	tcase_add_test(tg, mail_guard_plain_mail_answered);
	tcase_add_test(tg, mail_guard_bounce_null_sender);
	tcase_add_test(tg, mail_guard_bounce_dsn_report);
	tcase_add_test(tg, mail_guard_auto_submitted);
	tcase_add_test(tg, mail_guard_precedence_and_lists);
	tcase_add_test(tg, mail_guard_x_loop_and_self);
	tcase_add_test(tg, mail_guard_banned);
	tcase_add_test(tg, mail_bounce_recipients_dsn);
	tcase_add_test(tg, mail_bounce_recipients_prose);
	tcase_add_test(tg, mail_describe_failed_recipients);
	tcase_add_test(tg, mail_guard_autoreply_forms);
	suite_add_tcase(s, tg);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(mail_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

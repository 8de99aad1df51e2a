/* Catalogues: one process switches languages back and forth, plural forms,
 * deferred texts, and right-to-left isolation of plain text.  The catalogues come from
 * the build tree ($LUDUS_LOCALE_DIR); no system locale is generated. */
#include "config.h"

#include <check.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"

START_TEST(i18n_switches_back_and_forth_in_one_process)
{
	static const struct {
		const char *lang, *south, *moves;
	} want[] = {
		{ "ru", "Юг", "В колоде добора 5 карт." },
		{ "en", "South", "Draw pile: 5 cards." },
		{ "ar", "الجنوب", "رزمة السحب: 5 أوراق." },
		{ "ru", "Юг", "В колоде добора 5 карт." },
		{ "ar", "الجنوب", "رزمة السحب: 5 أوراق." },
		{ "en", "South", "Draw pile: 5 cards." },
	};
	char buf[64];
	size_t i;

	/* Nothing an admin would have to generate: the process itself
	 * runs in the C locale, as a daemon started without LANG does;
	 * a $LANGUAGE of the caller's does not choose for the readers. */
	ck_assert_ptr_nonnull(setlocale(LC_ALL, "C"));
	setenv("LANGUAGE", "ru", 1);
	ck_assert_str_eq(i18n_dir(), getenv("LUDUS_LOCALE_DIR"));
	ck_assert_str_eq(_("South"), "South");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		i18n_set(want[i].lang);
		ck_assert_str_eq(i18n_lang(), want[i].lang);
		ck_assert_str_eq(_("South"), want[i].south);
		snprintf(buf, sizeof(buf), P_("Draw pile: %d card.", "Draw pile: %d cards.", 5), 5);
		ck_assert_str_eq(buf, want[i].moves);
	}
}
END_TEST

START_TEST(i18n_plural_forms_follow_the_language)
{
	static const struct {
		const char *lang;
		int n;
		const char *want;
	} c[] = {
		{ "ru", 1, "В колоде добора 1 карта." },
		{ "ru", 3, "В колоде добора 3 карты." },
		{ "ru", 11, "В колоде добора 11 карт." },
		{ "ru", 21, "В колоде добора 21 карта." },
		{ "ru", 24, "В колоде добора 24 карты." },
		{ "ru", 25, "В колоде добора 25 карт." },
		{ "ar", 0, "رزمة السحب فارغة." },
		{ "ar", 1, "رزمة السحب: ورقة واحدة." },
		{ "ar", 2, "رزمة السحب: ورقتان." },
		{ "ar", 3, "رزمة السحب: 3 أوراق." },
		{ "ar", 11, "رزمة السحب: 11 ورقة." },
		{ "ar", 100, "رزمة السحب: 100 ورقة." },
		{ "en", 1, "Draw pile: 1 card." },
		{ "en", 2, "Draw pile: 2 cards." },
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		i18n_set(c[i].lang);
		snprintf(buf, sizeof(buf), P_("Draw pile: %d card.", "Draw pile: %d cards.",
		    c[i].n),
		    c[i].n);
		ck_assert_msg(strcmp(buf, c[i].want) == 0, "%s %d: %s",
		    c[i].lang, c[i].n, buf);
	}
}
END_TEST

START_TEST(i18n_deferred_text_reads_in_each_language)
{
	char *t = i18n_defer(N_("%s resigned"), I18N_TR "South", (char *)NULL);
	char *s;

	i18n_set("en");
	s = i18n_expand_str(t);
	ck_assert_str_eq(s, "South resigned");
	free(s);
	i18n_set("ru");
	s = i18n_expand_str(t);
	ck_assert_str_eq(s, "Юг: партия сдана");
	free(s);
	i18n_set("ar");
	s = i18n_expand_str(t);
	ck_assert_str_eq(s, "استسلم الجنوب");
	free(s);
	/* Text stored before deferral, or an argument given as it is. */
	s = i18n_expand_str("someone's own words");
	ck_assert_str_eq(s, "someone's own words");
	free(s);
	free(t);
	i18n_set("en");
}
END_TEST

#define LRM "\xe2\x80\x8e"
#define LRI "\xe2\x81\xa6"
#define PDI "\xe2\x81\xa9"

START_TEST(i18n_right_to_left_text_isolates_the_left_to_right)
{
	static const struct {
		const char *in, *want;
	} c[] = {
		/* A board line: left to right as a whole. */
		{ "      |  1 |  2 |", LRM LRI "      |  1 |  2 |" PDI },
		/* Runs in Arabic text, edges outside. */
		{ "مرحبًا ann@example.org،", "مرحبًا " LRI "ann@example.org" PDI "،" },
		{ "لعب ann@example.org (الجنوب): b1-b2.",
		  "لعب " LRI "ann@example.org" PDI " (الجنوب): " LRI "b1-b2"
		  PDI "." },
		/* A bracket opened inside stays inside; one that closes
		 * nothing stays outside. */
		{ "  help [GAME]   مساعدة", LRM LRI "  help [GAME]   مساعدة" PDI },
		{ "الصيغة help [GAME] هنا", "الصيغة " LRI "help [GAME]" PDI " هنا" },
		{ "(الافتراضي pass): pass: تذهب",
		  "(الافتراضي " LRI "pass" PDI "): " LRI "pass" PDI ": تذهب" },
		/* Left alone: blank lines, Arabic only, the signature. */
		{ "", "" }, { "   ", "   " }, { "تم", "تم" }, { "-- ", "-- " },
	};
	struct buf b = { 0 };
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		buf_reset(&b);
		i18n_bidi_text(c[i].in, &b);
		ck_assert_msg(strcmp(buf_str(&b), c[i].want) == 0,
		    "[%s]: [%s]", c[i].in, buf_str(&b));
	}
	buf_reset(&b);
	i18n_bidi_text("a\nتم b\n", &b);
	ck_assert_str_eq(buf_str(&b), LRM LRI "a" PDI "\nتم " LRI "b" PDI "\n");
	buf_free(&b);
	ck_assert(i18n_rtl("ar"));
	ck_assert(!i18n_rtl("ru"));
	ck_assert(i18n_known("ru") && i18n_known("ar") && i18n_known("en"));
	ck_assert(!i18n_known("xx"));
}
END_TEST

static Suite *
i18n_suite(void)
{
	Suite *s = suite_create("i18n");
	TCase *tc = tcase_create("catalogue");

	tcase_add_test(tc, i18n_switches_back_and_forth_in_one_process);
	tcase_add_test(tc, i18n_plural_forms_follow_the_language);
	tcase_add_test(tc, i18n_deferred_text_reads_in_each_language);
	tcase_add_test(tc, i18n_right_to_left_text_isolates_the_left_to_right);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(i18n_suite());
	int failed;

	/* The language switch is process-wide state: run in one process. */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

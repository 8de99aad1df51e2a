/* util, rng, time zones and game definitions. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "addr.h"
#include "mailhtml.h"
#include "testutil.h"
#include "token.h"
#include "tz.h"
#include "yamlwalk.h"

START_TEST(util_buf_grows_and_terminates)
{
	struct buf b = { 0 };
	int i;

	ck_assert_str_eq(buf_str(&b), "");
	for (i = 0; i < 1000; i++)
		buf_printf(&b, "%d,", i);
	ck_assert_uint_eq(b.len, strlen(b.s));
	ck_assert_ptr_nonnull(strstr(b.s, "998,999,"));
	buf_free(&b);
}
END_TEST

START_TEST(util_parse_int_rejects_junk_and_range)
{
	long long v;

	ck_assert_int_eq(util_parse_int("42", 0, 100, &v), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(util_parse_int("101", 0, 100, &v), -1);
	ck_assert_int_eq(util_parse_int("4x", 0, 100, &v), -1);
	ck_assert_int_eq(util_parse_int("", 0, 100, &v), -1);
	ck_assert_int_eq(util_parse_int(" 4", 0, 100, &v), -1);
	ck_assert_int_eq(util_parse_int("99999999999999999999", 0, 100, &v),
	    -1);
}
END_TEST

START_TEST(util_utf8_mend_drops_cut_characters)
{
	char buf[200];

	/* "ход" cut after 3 bytes by %.3s, then more text. */
	snprintf(buf, sizeof(buf), "`%.3s` failed: %.5s", "ход", "ёлка");
	util_utf8_mend(buf);
	ck_assert_str_eq(buf, "`х` failed: ёл");
	/* Whole characters are kept, four-byte ones too. */
	snprintf(buf, sizeof(buf), "%s", "a\xf0\x9f\x98\x80" "b\xd0");
	util_utf8_mend(buf);
	ck_assert_str_eq(buf, "a\xf0\x9f\x98\x80" "b");
}
END_TEST

START_TEST(rng_same_seed_same_stream)
{
	unsigned char seed[RNG_SEED_LEN];
	struct rng a, b;
	int i;

	rng_seed_from_u64(seed, 7);
	rng_init(&a, seed);
	rng_init(&b, seed);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(rng_u32(&a), rng_u32(&b));
	rng_seed_from_u64(seed, 8);
	rng_init(&b, seed);
	ck_assert_uint_ne(rng_u32(&a), rng_u32(&b));
}
END_TEST

/*
 * The keystream is OpenSSL's ChaCha20 (EVP_chacha20, IV = block counter,
 * then the block number's high half): the same numbers as the generator
 * always drew, for every seed a game published, with block numbers past
 * 2^32 too.
 */
START_TEST(rng_stream_is_openssl_chacha20)
{
	static const unsigned char zero[64];
	static const uint64_t blocks[] = { 0, 1, 2, 255, 65536, 0xffffffffu,
		0x100000000ull, 0x123456789abull, UINT64_MAX - 1 };
	unsigned char seed[RNG_SEED_LEN], iv[16], want[64], got[64];
	EVP_CIPHER_CTX *ctx;
	struct rng r;
	size_t b;
	int s, i, len;

	for (s = 0; s < 20; s++) {
		rng_seed_from_u64(seed, (uint64_t)s);
		for (b = 0; b < nitems(blocks); b++) {
			memset(iv, 0, sizeof(iv));
			for (i = 0; i < 8; i++)
				iv[i] = (unsigned char)(blocks[b] >> (8 * i));
			ctx = EVP_CIPHER_CTX_new();
			ck_assert_ptr_nonnull(ctx);
			ck_assert_int_eq(EVP_EncryptInit_ex(ctx, EVP_chacha20(),
			    NULL, seed, iv), 1);
			ck_assert_int_eq(EVP_EncryptUpdate(ctx, want, &len,
			    zero, sizeof(zero)), 1);
			ck_assert_int_eq(len, 64);
			EVP_CIPHER_CTX_free(ctx);
			rng_init(&r, seed);
			r.block = blocks[b];
			for (i = 0; i < 16; i++) {
				uint32_t v = rng_u32(&r);

				got[4 * i] = (unsigned char)v;
				got[4 * i + 1] = (unsigned char)(v >> 8);
				got[4 * i + 2] = (unsigned char)(v >> 16);
				got[4 * i + 3] = (unsigned char)(v >> 24);
			}
			ck_assert_msg(memcmp(got, want, 64) == 0,
			    "seed %d block %llu", s,
			    (unsigned long long)blocks[b]);
		}
	}
}
END_TEST

START_TEST(rng_below_is_in_range_and_roughly_uniform)
{
	unsigned char seed[RNG_SEED_LEN];
	struct rng r;
	int counts[6] = { 0 }, i;

	rng_seed_from_u64(seed, 1);
	rng_init(&r, seed);
	for (i = 0; i < 60000; i++) {
		uint32_t v = rng_below(&r, 6);

		ck_assert_uint_lt(v, 6);
		counts[v]++;
	}
	/* Each face expects 10000; 5 sigma is about 456. */
	for (i = 0; i < 6; i++)
		ck_assert_msg(counts[i] > 9500 && counts[i] < 10500, "%d: %d",
		    i, counts[i]);
}
END_TEST

/* rng_byte_below: the bytes of the generator's words, low byte first,
 * each below the last whole multiple of n kept as its residue, the others
 * skipped; roughly uniform. */
START_TEST(rng_byte_below_takes_the_words_bytes_in_turn)
{
	unsigned char seed[RNG_SEED_LEN];
	struct rng r, w;
	struct rng_bytes b = { 0, 0 };
	int counts[6] = { 0 }, i, k;
	uint32_t word = 0, v, want;

	rng_seed_from_u64(seed, 2);
	rng_init(&r, seed);
	rng_init(&w, seed);
	for (i = k = 0; i < 60000; i++) {
		v = rng_byte_below(&r, &b, 6);
		do {
			if (k % 4 == 0)
				word = rng_u32(&w);
			want = (word >> (8 * (k++ % 4))) & 0xff;
		} while (want >= 252);
		ck_assert_uint_eq(v, want % 6);
		counts[v]++;
	}
	for (i = 0; i < 6; i++)
		ck_assert_msg(counts[i] > 9500 && counts[i] < 10500, "%d: %d",
		    i, counts[i]);
}
END_TEST

START_TEST(rng_text_round_trip_continues_the_stream)
{
	unsigned char seed[RNG_SEED_LEN];
	char text[RNG_TEXT_LEN];
	struct rng a, b;
	int i, k;

	rng_seed_from_u64(seed, 3);
	for (k = 0; k < 40; k++) {
		rng_init(&a, seed);
		for (i = 0; i < k; i++)
			rng_u32(&a);
		rng_format(&a, text);
		ck_assert_int_eq(rng_parse(&b, text), 0);
		for (i = 0; i < 50; i++)
			ck_assert_uint_eq(rng_u32(&a), rng_u32(&b));
	}
	ck_assert_int_eq(rng_parse(&b, "zz:1:2"), -1);
}
END_TEST

START_TEST(rng_shuffle_is_a_permutation)
{
	unsigned char seed[RNG_SEED_LEN];
	struct rng r;
	int deck[52], seen[52] = { 0 }, i;

	for (i = 0; i < 52; i++)
		deck[i] = i;
	rng_seed_from_u64(seed, 9);
	rng_init(&r, seed);
	rng_shuffle(&r, deck, 52, sizeof(deck[0]));
	for (i = 0; i < 52; i++)
		seen[deck[i]]++;
	for (i = 0; i < 52; i++)
		ck_assert_int_eq(seen[i], 1);
}
END_TEST

START_TEST(rng_commitment_is_sha256_of_seed)
{
	unsigned char seed[RNG_SEED_LEN] = { 0 };
	char hex[65];

	rng_commitment(seed, hex);
	/* SHA-256 of 32 zero bytes. */
	ck_assert_str_eq(hex,
	    "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
}
END_TEST

/* Without $LUDUS_SEED a new game's seed is random; in a test build with it
 * the seed is SHA-256 of "ludus-test-seed:N:CONTEXT" (the expected value
 * below is from sha256sum), and a build without the test clock ignores the
 * variable. */
START_TEST(rng_seed_new_random_unless_test_seed)
{
	static const char ctx[] = "<m1@example.org>/alice@example.org:1";
	unsigned char a[RNG_SEED_LEN], b[RNG_SEED_LEN];
	char hex[2 * RNG_SEED_LEN + 1];

	unsetenv("LUDUS_SEED");
	rng_seed_new(a, ctx);
	rng_seed_new(b, ctx);
	ck_assert(memcmp(a, b, RNG_SEED_LEN) != 0);

	setenv("LUDUS_SEED", "1", 1);
	rng_seed_new(a, ctx);
	rng_seed_new(b, ctx);
#ifdef LUDUS_TEST_CLOCK
	ck_assert(memcmp(a, b, RNG_SEED_LEN) == 0);
	util_hex(a, RNG_SEED_LEN, hex);
	ck_assert_str_eq(hex,
	    "c02b5655425be9206fd153d26ecaa7ec84081609edb9713723ab4048cd0476cf");
	rng_seed_new(b, "<m1@example.org>/alice@example.org:2");
	ck_assert(memcmp(a, b, RNG_SEED_LEN) != 0);
	setenv("LUDUS_SEED", "2", 1);
	rng_seed_new(b, ctx);
	ck_assert(memcmp(a, b, RNG_SEED_LEN) != 0);
#else
	ck_assert(memcmp(a, b, RNG_SEED_LEN) != 0);
	(void)hex;
#endif
	unsetenv("LUDUS_SEED");
}
END_TEST

static const char *
write_tmp(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tu_tmpdir(), name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void
def_error(const char *text, const char *want)
{
	struct gamedef d;
	char err[512];
	const char *path = write_tmp("bad.yaml", text);

	ck_assert_int_eq(gamedef_load_file(path, &d, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, want) != NULL, "got `%s`, want `%s`", err,
	    want);
	ck_assert_msg(strncmp(err, path, strlen(path)) == 0,
	    "error does not name the file: %s", err);
	gamedef_free(&d);
}

START_TEST(gamedef_errors_name_file_and_line)
{
	def_error("name: mancala\ntitle: x\nseats: 2\ncolour: red\n",
	    ":4: unknown key `colour`");
	def_error("name: mancala\ntitle: x\nseats: 9\n",
	    ":3: seats must be a whole number in 1-4");
	def_error("name: chess\ntitle: x\nseats: 2\n",
	    ":1: no engine called `chess`");
	def_error("name: mancala\ntitle: x\nseats: 2\noptions:\n"
	    "  - name: pits\n    type: int\n    min: 3\n    max: 8\n"
	    "    default: 12\n", ":9: default: pits must be a whole number "
	    "3-8, not `12`");
	def_error("name: mancala\ntitle: x\nseats: 2\noptions:\n"
	    "  - name: pits\n    kind: int\n", ":6: unknown option key");
	def_error("name: [unclosed\n", ":");
	def_error("a: [[[[[[[[[[[[1]]]]]]]]]]]]\n", "nested too deeply");
	/* A NUL in a scalar would cut the C string short: refused. */
	def_error("name: mancala\ntitle: x\nseats: 2\naliases: [\"a\\0b\"]\n",
	    ":4: aliases must be a list of text values");
	def_error("name: \"manc\\0ala\"\ntitle: x\nseats: 2\n",
	    ":1: name must be a text value");
	def_error("name: mancala\ntitle: x\nseats: 2\ntimeout: later\n",
	    ":4: timeout must be forfeit or notify");
	def_error("name: mancala\ntitle: x\nseats: 2\nfirst: me\n",
	    ":4: first must be given or random");
}
END_TEST

START_TEST(gamedef_timeout_and_first)
{
	struct gamedef d;
	char err[512];
	const char *path = write_tmp("ok.yaml", "name: mancala\ntitle: x\n"
	    "seats: 2\ntimeout: notify\nfirst: random\n");

	ck_assert_msg(gamedef_load_file(path, &d, err, sizeof(err)) == 0, "%s",
	    err);
	ck_assert_int_eq(d.timeout, GAMEDEF_TIMEOUT_NOTIFY);
	ck_assert_int_eq(d.first_random, 1);
	gamedef_free(&d);
	path = write_tmp("ok.yaml", "name: mancala\ntitle: x\nseats: 2\n"
	    "timeout: forfeit\n");
	ck_assert_msg(gamedef_load_file(path, &d, err, sizeof(err)) == 0, "%s",
	    err);
	ck_assert_int_eq(d.timeout, GAMEDEF_TIMEOUT_FORFEIT);
	ck_assert_int_eq(d.first_random, 0);
	gamedef_free(&d);
	path = write_tmp("ok.yaml", "name: mancala\ntitle: x\nseats: 2\n");
	ck_assert_msg(gamedef_load_file(path, &d, err, sizeof(err)) == 0, "%s",
	    err);
	ck_assert_int_eq(d.timeout, 0);
	gamedef_free(&d);
}
END_TEST

/* texts: KEY: LANGUAGE: TEXT, English the fallback. */
START_TEST(gamedef_texts_by_language)
{
	struct gamedef d;
	char err[512];
	const char *path = write_tmp("ok.yaml", "name: mancala\ntitle: x\n"
	    "seats: 2\ntexts:\n  again:\n    en: Move again.\n"
	    "    ru: Ходите ещё раз.\n");

	ck_assert_msg(gamedef_load_file(path, &d, err, sizeof(err)) == 0, "%s",
	    err);
	ck_assert_str_eq(gamedef_text(&d, "again", "ru"), "Ходите ещё раз.");
	ck_assert_str_eq(gamedef_text(&d, "again", "en"), "Move again.");
	ck_assert_str_eq(gamedef_text(&d, "again", "ar"), "Move again.");
	ck_assert_str_eq(gamedef_text(&d, "again", NULL), "Move again.");
	ck_assert_ptr_null(gamedef_text(&d, "legend", "en"));
	gamedef_free(&d);
	def_error("name: mancala\ntitle: x\nseats: 2\ntexts: hello\n",
	    ":4: texts must be a mapping");
	def_error("name: mancala\ntitle: x\nseats: 2\ntexts:\n  again:\n"
	    "    en: [a, b]\n", "texts: again: each language needs one text");
}
END_TEST

START_TEST(gamedef_resolve_fills_defaults_and_checks_values)
{
	const struct gamedef *d = tu_def("mancala");
	struct game_opts o;
	char err[GAME_ERRLEN], *words[] = { "pits=4", "EMPTY_CAPTURE=yes" };
	char *bad1[] = { "pits=9" }, *bad2[] = { "colour=red" };
	char *bad3[] = { "pits" }, *text;

	ck_assert_ptr_eq(tu_def("kalah"), d);
	ck_assert_int_eq(gamedef_resolve(d, words, 2, &o, err, sizeof(err)),
	    0);
	ck_assert_int_eq(game_opt_int(&o, "pits"), 4);
	ck_assert_int_eq(game_opt_int(&o, "seeds"), 4);
	ck_assert_int_eq(game_opt_int(&o, "empty_capture"), 1);
	text = gamedef_opts_text(&o);
	ck_assert_str_eq(text, "pits=4 seeds=4 empty_capture=true");
	free(text);
	ck_assert_int_eq(gamedef_resolve(d, bad1, 1, &o, err, sizeof(err)),
	    -1);
	ck_assert_str_eq(err, "pits must be a whole number 3-8, not `9`");
	ck_assert_int_eq(gamedef_resolve(d, bad2, 1, &o, err, sizeof(err)),
	    -1);
	ck_assert_str_eq(err, "mancala has no option `colour` (options: pits, "
	    "seeds, empty_capture)");
	ck_assert_int_eq(gamedef_resolve(d, bad3, 1, &o, err, sizeof(err)),
	    -1);
}
END_TEST

/* Two libyaml nodes alike: type, tag, text or children, style, marks. */
static void
same_node(const yaml_node_t *a, const yaml_node_t *b, const char *file)
{
	ck_assert_int_eq(a->type, b->type);
	ck_assert_str_eq((const char *)a->tag, (const char *)b->tag);
	ck_assert_msg(memcmp(&a->start_mark, &b->start_mark,
	    sizeof(a->start_mark)) == 0 && memcmp(&a->end_mark, &b->end_mark,
	    sizeof(a->end_mark)) == 0, "%s: marks differ at line %zu", file,
	    a->start_mark.line + 1);
	switch (a->type) {
	case YAML_SCALAR_NODE:
		ck_assert_uint_eq(a->data.scalar.length, b->data.scalar.length);
		ck_assert(memcmp(a->data.scalar.value, b->data.scalar.value,
		    a->data.scalar.length + 1) == 0);
		ck_assert_int_eq(a->data.scalar.style, b->data.scalar.style);
		break;
	case YAML_SEQUENCE_NODE:
		ck_assert_int_eq(a->data.sequence.style, b->data.sequence.style);
		ck_assert_int_eq(a->data.sequence.items.top -
		    a->data.sequence.items.start, b->data.sequence.items.top -
		    b->data.sequence.items.start);
		ck_assert(memcmp(a->data.sequence.items.start,
		    b->data.sequence.items.start,
		    (size_t)(a->data.sequence.items.top -
		    a->data.sequence.items.start) *
		    sizeof(yaml_node_item_t)) == 0);
		break;
	case YAML_MAPPING_NODE:
		ck_assert_int_eq(a->data.mapping.style, b->data.mapping.style);
		ck_assert_int_eq(a->data.mapping.pairs.top -
		    a->data.mapping.pairs.start, b->data.mapping.pairs.top -
		    b->data.mapping.pairs.start);
		ck_assert(memcmp(a->data.mapping.pairs.start,
		    b->data.mapping.pairs.start,
		    (size_t)(a->data.mapping.pairs.top -
		    a->data.mapping.pairs.start) *
		    sizeof(yaml_node_pair_t)) == 0);
		break;
	default:
		ck_abort_msg("%s: an empty node", file);
	}
}

/*
 * Every shipped YAML file (the game definitions, commands.yaml) is built
 * in (yamlbuiltin.c), and its built-in document is node for node the one
 * libyaml parses from the file now; a text one byte off is parsed.
 */
START_TEST(yaml_builtin_documents_are_the_parsed_ones)
{
	static const char *files[] = { "mancala.yaml", "alquerque.yaml",
	    "almakleh.yaml", "aluette.yaml", "spite.yaml", "commands.yaml" };
	const struct yw_builtin *b;
	struct yw parsed, built;
	char path[1024], err[512], *text, *more;
	size_t len, i;
	int j, n;

	for (i = 0; i < nitems(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", gamedef_default_dir(),
		    files[i]);
		text = util_read_file(path, 1 << 20, &len);
		ck_assert_msg(text != NULL, "%s", path);
		b = yw_builtin_find(text, len);
		ck_assert_msg(b != NULL, "%s is not built in", path);
		ck_assert_int_eq(yw_load(&parsed, path, text, len, NULL, 0,
		    YW_MAX_DEPTH, err, sizeof(err)), 0);
		ck_assert_int_eq(yw_load_built(&built, path, b, YW_MAX_DEPTH,
		    err, sizeof(err)), 0);
		ck_assert_int_eq(built.state, 3);
		n = (int)(parsed.doc->nodes.top - parsed.doc->nodes.start);
		ck_assert_int_eq(n, (int)(built.doc->nodes.top -
		    built.doc->nodes.start));
		for (j = 0; j < n; j++)
			same_node(parsed.doc->nodes.start + j,
			    built.doc->nodes.start + j, path);
		ck_assert_int_eq(parsed.doc->start_implicit,
		    built.doc->start_implicit);
		ck_assert_int_eq(parsed.doc->end_implicit,
		    built.doc->end_implicit);
		ck_assert(memcmp(&parsed.doc->start_mark,
		    &built.doc->start_mark, sizeof(yaml_mark_t)) == 0);
		ck_assert(memcmp(&parsed.doc->end_mark, &built.doc->end_mark,
		    sizeof(yaml_mark_t)) == 0);
		yw_free(&parsed);
		yw_free(&built);
		ck_assert_int_eq(built.state, 0);
		/* One byte more, or one less: not the shipped file. */
		more = xasprintf("%s#", text);
		ck_assert_ptr_null(yw_builtin_find(more, len + 1));
		ck_assert_ptr_null(yw_builtin_find(text, len - 1));
		free(more);
		free(text);
	}
	ck_assert_ptr_null(yw_builtin_find("", 0));
}
END_TEST

START_TEST(gamedef_every_engine_has_a_definition)
{
	int i;

	for (i = 0; game_engines[i] != NULL; i++)
		ck_assert_ptr_eq(tu_def(game_engines[i]->name)->ops,
		    game_engines[i]);
}
END_TEST

/* How a line is told from a remark: half of its words or more must be
 * words of the notation (Mancala's are numbers), punctuation around a
 * word aside. */
START_TEST(game_looks_like_move_counts_notation_words)
{
	static const struct { const char *line; int move; } cases[] = {
		{ "3", 1 }, { "3, 6", 1 }, { "(3)", 1 }, { "3.", 1 },
		{ "3 please", 1 }, { "pit 9!", 1 }, { "- 4 -", 1 },
		{ "Hi Dave,", 0 }, { "I play 3", 0 }, { "", 0 },
		{ "What a game, 2 captures already!", 0 }, { "...", 0 },
	};
	const struct game_ops *ops = game_find("mancala");
	size_t i;

	for (i = 0; i < nitems(cases); i++)
		ck_assert_msg(game_looks_like_move(ops, NULL, cases[i].line) ==
		    cases[i].move, "`%s`", cases[i].line);
	ck_assert(game_word_is_points("b2"));
	ck_assert(game_word_is_points("b2-c3"));
	ck_assert(game_word_is_points("b2xd4:b4"));
	ck_assert(game_word_is_points("b2c3"));
	ck_assert(game_word_is_points("f10-f11"));
	ck_assert(!game_word_is_points("mp3"));
	ck_assert(!game_word_is_points("b"));
	ck_assert(!game_word_is_points("2b"));
	ck_assert(!game_word_is_points("b2-c"));
	ck_assert(!game_word_is_points("b222"));
}
END_TEST

/* The HTML part shows a board's diagram lines in a <pre> whose font
 * shrinks from 12 to 10 px to fit a 375 px phone (mailhtml.h).  Over
 * random playouts, for every viewer and with long names, every line an
 * engine's render_style() does not mark as running text stays within
 * what fits at 10 px, and the style bytes stay in the engines' range. */
#define PHONE_COLUMNS	MAILHTML_PHONE_COLUMNS_MAX

START_TEST(game_board_styles_fit_a_phone)
{
	static const char *const names[GAME_MAX_SEATS] = {
	    "ann.smith@example.org", "benedict@example.org",
	    "catherine@example.org", "dan.jones@example.org" };
	struct game_move moves[GAME_MAX_MOVES];
	struct game_opts o;
	struct game_view v;
	struct buf b = { 0 };
	uint64_t r = 88172645463325252ULL;
	const struct game_ops *ops;
	size_t at, end, k, len;
	char *style;
	void *st;
	int e, seed, ply, seat, n, viewer, nseats;
	uint32_t tm;

	for (e = 0; (ops = game_engines[e]) != NULL; e++) {
		if (ops->render_style == NULL)
			continue;
		tu_opts(ops->name, "", &o);
		nseats = ops->seats(&o);
		for (seed = 1; seed <= 2; seed++) {
			st = tu_new(ops->name, "", (uint64_t)seed, nseats);
			for (ply = 0; ply < 120; ply++) {
				for (viewer = -1; viewer < nseats; viewer++) {
					memset(&v, 0, sizeof(v));
					v.viewer = viewer < 0 ? GAME_PUBLIC :
					    viewer;
					memcpy(v.names, names, sizeof(names));
					buf_reset(&b);
					ops->render(st, &v, &b);
					len = b.len;
					/* Exactly len bytes: the sanitizers
					 * catch a write past them. */
					style = xcalloc(1, len ? len : 1);
					ops->render_style(st, &v, buf_str(&b),
					    len, style);
					for (at = 0; at < len; at = end + 1) {
						end = at + strcspn(buf_str(&b) +
						    at, "\n");
						if (end > at && (style[at] &
						    GAME_STYLE_TEXT))
							continue;
						ck_assert_msg(end - at <=
						    PHONE_COLUMNS, "%s: a board "
						    "line of %zu characters:\n"
						    "%.*s", ops->name, end - at,
						    (int)(end - at),
						    buf_str(&b) + at);
					}
					for (k = 0; k < len; k++)
						ck_assert((unsigned char)
						    style[k] < 0x80);
					free(style);
				}
				if ((tm = ops->to_move(st)) == 0)
					break;
				for (seat = 0; !(tm & (1u << seat)); seat++)
					;
				n = ops->legal(st, seat, moves, GAME_MAX_MOVES);
				if (n == 0)
					break;
				r ^= r << 13;
				r ^= r >> 7;
				r ^= r << 17;
				ops->apply(st, seat, &moves[r % (uint64_t)n]);
			}
			free(st);
		}
	}
	buf_free(&b);
}
END_TEST

START_TEST(token_secret_file_and_tokens)
{
	char *path = xasprintf("%s/secret", tu_tmpdir()), err[256];
	char t1[TOKEN_LEN + 1], t2[TOKEN_LEN + 1], upper[TOKEN_LEN + 1];
	struct token_secret s, s2;
	struct stat sb;
	int i;

	unlink(path);
	ck_assert_int_eq(token_secret_create(path, err, sizeof(err)), 0);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	/* A second init keeps the secret. */
	ck_assert_int_eq(token_secret_create(path, err, sizeof(err)), 1);
	ck_assert_int_eq(token_secret_load(path, &s, err, sizeof(err)), 0);
	ck_assert_int_eq(token_secret_load(path, &s2, err, sizeof(err)), 0);
	ck_assert_mem_eq(s.key, s2.key, TOKEN_SECRET_LEN);

	token_make(&s, 7, 0, t1);
	token_make(&s, 7, 1, t2);
	ck_assert_uint_eq(strlen(t1), TOKEN_LEN);
	ck_assert_str_ne(t1, t2);
	for (i = 0; i < TOKEN_LEN; i++) {
		ck_assert(strchr("abcdefghijklmnopqrstuvwxyz234567", t1[i]));
		upper[i] = (char)(t1[i] >= 'a' ? t1[i] - 32 : t1[i]);
	}
	upper[TOKEN_LEN] = '\0';
	ck_assert_int_eq(token_check(&s, 7, 0, t1), 1);
	ck_assert_int_eq(token_check(&s, 7, 0, upper), 1);
	ck_assert_int_eq(token_check(&s, 7, 1, t1), 0);
	ck_assert_int_eq(token_check(&s, 8, 0, t1), 0);
	ck_assert_int_eq(token_check(&s, 7, 0, ""), 0);
	ck_assert_int_eq(token_check(&s, 7, 0, NULL), 0);
	t2[0] = t1[0] == 'a' ? 'b' : 'a';
	memcpy(t2 + 1, t1 + 1, TOKEN_LEN);
	ck_assert_int_eq(token_check(&s, 7, 0, t2), 0);

	/* Another secret gives other tokens. */
	s2.key[0] ^= 1;
	token_make(&s2, 7, 0, t2);
	ck_assert_str_ne(t1, t2);

	/* A secret others may read is refused. */
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(token_secret_load(path, &s, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "chmod 600"));
	free(path);
}
END_TEST

START_TEST(token_hmac_matches_the_published_construction)
{
	/* The token is the first 50 bits of HMAC-SHA256(key, "GAME:SEAT")
	 * in base32.  With a key of 32 zero bytes, computed independently:
	 * printf 1:0 | openssl dgst -sha256 -mac HMAC -macopt hexkey:00...00
	 * = 685ef5dd0acb4084..., whose RFC 4648 base32 (Python's
	 * base64.b32encode) begins nbpplxikzn. */
	struct token_secret s;
	char t[TOKEN_LEN + 1];

	memset(&s, 0, sizeof(s));
	token_make(&s, 1, 0, t);
	ck_assert_str_eq(t, "nbpplxikzn");
}
END_TEST

/* Our reading of a zone agrees with the C library's reading of the same
 * file (which the test may do: it is one process with no one else to
 * disturb), with DST north and south, half-hour zones, and times past
 * the file's last transition, where the footer's rule decides. */
START_TEST(tz_matches_the_c_library)
{
	static const char *const zones[] = { "Europe/Moscow", "Europe/Berlin",
		"America/New_York", "Australia/Sydney", "Asia/Kolkata",
		"America/St_Johns", "UTC" };
	char err[200], abbr[TZ_ABBRLEN], path[600];
	struct tz *z;
	struct tm ours, libc;
	long off;
	int64_t t;
	size_t i;
	int checked = 0;

	for (i = 0; i < nitems(zones); i++) {
		snprintf(path, sizeof(path), "%s/%s", tz_dir(), zones[i]);
		if (access(path, R_OK) != 0)
			continue;	/* a system without that zone */
		ck_assert_msg(tz_load(zones[i], &z, err, sizeof(err)) == 0,
		    "%s", err);
		setenv("TZ", zones[i], 1);
		tzset();
		/* 1970 to 2100, in steps that fall on every hour of the day
		 * and every day of the week over the years. */
		for (t = 0; t < 4102444800LL; t += 86400 * 5 + 3607) {
			time_t tt = (time_t)t;

			off = tz_local(z, t, &ours, abbr, sizeof(abbr));
			localtime_r(&tt, &libc);
			ck_assert_msg(off == libc.tm_gmtoff &&
			    ours.tm_isdst == libc.tm_isdst &&
			    ours.tm_hour == libc.tm_hour &&
			    ours.tm_mday == libc.tm_mday &&
			    strcmp(abbr, libc.tm_zone) == 0,
			    "%s at %lld: ours %ld %s dst %d, libc %ld %s dst %d",
			    zones[i], (long long)t, off, abbr, ours.tm_isdst,
			    (long)libc.tm_gmtoff, libc.tm_zone, libc.tm_isdst);
			checked++;
		}
		tz_free(z);
	}
	unsetenv("TZ");
	tzset();
	ck_assert_int_gt(checked, 0);
}
END_TEST

START_TEST(tz_formats_local_time_with_the_zone_name)
{
	char err[200], out[64];
	struct tz *z;

	if (access("/usr/share/zoneinfo/Europe/Berlin", R_OK) != 0 &&
	    getenv("TZDIR") == NULL)
		return;
	ck_assert_msg(tz_load("Europe/Moscow", &z, err, sizeof(err)) == 0,
	    "%s", err);
	tz_format(z, 1798761600, out, sizeof(out));	/* 2027-01-01 00:00Z */
	ck_assert_str_eq(out, "2027-01-01 03:00 MSK");
	tz_free(z);
	ck_assert_int_eq(tz_load("Europe/Berlin", &z, err, sizeof(err)), 0);
	tz_format(z, 1798761600, out, sizeof(out));
	ck_assert_str_eq(out, "2027-01-01 01:00 CET");
	tz_format(z, 1814400000, out, sizeof(out));	/* 2027-07-01 00:00Z */
	ck_assert_str_eq(out, "2027-07-01 02:00 CEST");
	/* The last Sunday of March 2027, 01:00 UTC: the clocks go on. */
	tz_format(z, 1806195600 - 1, out, sizeof(out));
	ck_assert_str_eq(out, "2027-03-28 01:59 CET");
	tz_format(z, 1806195600, out, sizeof(out));
	ck_assert_str_eq(out, "2027-03-28 03:00 CEST");
	tz_free(z);
}
END_TEST

START_TEST(tz_refuses_what_is_not_a_zone)
{
	static const char *const bad[] = { "", "Europe/Atlantis", "Europe",
		"../../etc/passwd", "/etc/passwd", "Europe//Moscow",
		"right/UTC", "Europe/Moscow\n", "Europe/Moscow extra" };
	char err[200];
	struct tz *z;
	size_t i;

	for (i = 0; i < nitems(bad); i++) {
		ck_assert_msg(tz_load(bad[i], &z, err, sizeof(err)) == -1,
		    "%s", bad[i]);
		ck_assert_ptr_null(z);
		ck_assert(err[0] != '\0');
	}
}
END_TEST

START_TEST(addr_canon_trims_lowers_and_refuses_the_implausible)
{
	static const char *const bad[] = { "", "bob", "@example.org",
		"bob@", "bob@@example.org", "a@b@example.org", "bob@example",
		"bob@.example.org", "bob@example.org.", "bob smith@example.org",
		"bob@exa<mple.org", "bob,ann@example.org", "bob;@example.org",
		"\"bob\"@example.org", "(bob)@example.org",
		"bob@[192.0.2.1]", "bob\\@example.org", "<>", "<bob>" };
	char *a, big[300];
	size_t i;

	a = addr_canon("  <Bob.Smith@Example.COM> \t");
	ck_assert_str_eq(a, "bob.smith@example.com");
	free(a);
	a = addr_canon("x+tag@sub.example.org");
	ck_assert_str_eq(a, "x+tag@sub.example.org");
	free(a);
	for (i = 0; i < nitems(bad); i++)
		ck_assert_msg(addr_canon(bad[i]) == NULL, "%s taken", bad[i]);
	/* 254 bytes are the most. */
	memset(big, 'a', sizeof(big));
	memcpy(big + 254 - 12, "@example.org", 13);
	a = addr_canon(big);
	ck_assert_ptr_nonnull(a);
	free(a);
	memset(big, 'a', sizeof(big));
	memcpy(big + 255 - 12, "@example.org", 13);
	ck_assert_ptr_null(addr_canon(big));
	/* The older name is the same function. */
	a = addr_canon("<ANN@example.org>");
	ck_assert_str_eq(a, "ann@example.org");
	free(a);
}
END_TEST

START_TEST(addr_lower_is_the_canonical_form)
{
	char a[] = "Bob.Smith@Example.COM";

	addr_lower(a);
	ck_assert_str_eq(a, "bob.smith@example.com");
}
END_TEST

START_TEST(addr_check_takes_real_addresses_only)
{
	static const char *const good[] = { "referee@ludus.example",
		"a.b+c@x-y.example.org", "!#$%&'*+/=?^_`{|}~-@example.org",
		"x@localhost" };
	static const char *const bad[] = { "", "referee", "@ludus.example",
		".bob@example.org", "bob.@example.org", "b..ob@example.org",
		"bob smith@example.org", "bob@", "bob@-example.org",
		"bob@example-.org", "bob@exa_mple.org", "bob@example..org",
		"bob@example.org.", "\"bob\"@example.org" };
	char a[300];
	size_t i;

	for (i = 0; i < nitems(good); i++) {
		util_strlcpy(a, good[i], sizeof(a));
		ck_assert_msg(addr_check(a) == 1, "%s refused", good[i]);
	}
	for (i = 0; i < nitems(bad); i++) {
		util_strlcpy(a, bad[i], sizeof(a));
		ck_assert_msg(addr_check(a) == 0, "%s taken", bad[i]);
	}
	/* The domain is lower-cased, the local part kept as written. */
	util_strlcpy(a, "Referee@Ludus.EXAMPLE", sizeof(a));
	ck_assert_int_eq(addr_check(a), 1);
	ck_assert_str_eq(a, "Referee@ludus.example");
	/* A local part of 64 bytes is the most. */
	memset(a, 'a', 65);
	util_strlcpy(a + 64, "@example.org", sizeof(a) - 64);
	ck_assert_int_eq(addr_check(a), 1);
	memset(a, 'a', 65);
	util_strlcpy(a + 65, "@example.org", sizeof(a) - 65);
	ck_assert_int_eq(addr_check(a), 0);
}
END_TEST

START_TEST(addr_domain_check_labels_and_length)
{
	char d[300];

	ck_assert_int_eq(addr_domain_check("lists.example.org"), 1);
	ck_assert_int_eq(addr_domain_check("a-b.example"), 1);
	ck_assert_int_eq(addr_domain_check(""), 0);
	ck_assert_int_eq(addr_domain_check("a..b"), 0);
	ck_assert_int_eq(addr_domain_check(".a"), 0);
	ck_assert_int_eq(addr_domain_check("-a.b"), 0);
	ck_assert_int_eq(addr_domain_check("a-.b"), 0);
	ck_assert_int_eq(addr_domain_check("a b"), 0);
	/* Labels of 63 bytes at most, 253 in all. */
	memset(d, 'a', 63);
	util_strlcpy(d + 63, ".org", sizeof(d) - 63);
	ck_assert_int_eq(addr_domain_check(d), 1);
	memset(d, 'a', 64);
	util_strlcpy(d + 64, ".org", sizeof(d) - 64);
	ck_assert_int_eq(addr_domain_check(d), 0);
	memset(d, 'a', 253);
	d[253] = '\0';
	for (int i = 50; i < 253; i += 50)
		d[i] = '.';
	ck_assert_int_eq(addr_domain_check(d), 1);
	memset(d, 'a', 254);
	d[254] = '\0';
	for (int i = 50; i < 254; i += 50)
		d[i] = '.';
	ck_assert_int_eq(addr_domain_check(d), 0);
}
END_TEST

static Suite *
core_suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("core");
	TCase *tb = tcase_create("boards");

	tcase_add_test(tc, util_buf_grows_and_terminates);
	tcase_add_test(tc, util_parse_int_rejects_junk_and_range);
	tcase_add_test(tc, util_utf8_mend_drops_cut_characters);
	tcase_add_test(tc, addr_canon_trims_lowers_and_refuses_the_implausible);
	tcase_add_test(tc, addr_lower_is_the_canonical_form);
	tcase_add_test(tc, addr_check_takes_real_addresses_only);
	tcase_add_test(tc, addr_domain_check_labels_and_length);
	tcase_add_test(tc, rng_same_seed_same_stream);
	tcase_add_test(tc, rng_stream_is_openssl_chacha20);
	tcase_add_test(tc, rng_below_is_in_range_and_roughly_uniform);
	tcase_add_test(tc, rng_byte_below_takes_the_words_bytes_in_turn);
	tcase_add_test(tc, rng_text_round_trip_continues_the_stream);
	tcase_add_test(tc, rng_shuffle_is_a_permutation);
	tcase_add_test(tc, rng_commitment_is_sha256_of_seed);
	tcase_add_test(tc, rng_seed_new_random_unless_test_seed);
	tcase_add_test(tc, gamedef_errors_name_file_and_line);
	tcase_add_test(tc, gamedef_timeout_and_first);
	tcase_add_test(tc, gamedef_texts_by_language);
	tcase_add_test(tc, gamedef_resolve_fills_defaults_and_checks_values);
	tcase_add_test(tc, gamedef_every_engine_has_a_definition);
	tcase_add_test(tc, yaml_builtin_documents_are_the_parsed_ones);
	tcase_add_test(tc, game_looks_like_move_counts_notation_words);
	tcase_add_test(tc, token_secret_file_and_tokens);
	tcase_add_test(tc, token_hmac_matches_the_published_construction);
	tcase_add_test(tc, tz_matches_the_c_library);
	tcase_add_test(tc, tz_formats_local_time_with_the_zone_name);
	tcase_add_test(tc, tz_refuses_what_is_not_a_zone);
	suite_add_tcase(s, tc);
	/* Playouts of every game: generous for a busy machine and the
	 * sanitizers. */
	tcase_set_timeout(tb, 120);
	tcase_add_test(tb, game_board_styles_fit_a_phone);
	suite_add_tcase(s, tb);
	return s;
}

int
main(void)
{
	return tu_run(core_suite());
}

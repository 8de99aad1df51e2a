#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "rng.h"
#include "util.h"

void
rng_seed_os(unsigned char seed[RNG_SEED_LEN])
{
	if (RAND_bytes(seed, RNG_SEED_LEN) != 1)
		fatal("no randomness available from the OS");
}

void
rng_seed_new(unsigned char seed[RNG_SEED_LEN], const char *context)
{
#ifdef LUDUS_TEST_CLOCK
	const char *fixed = getenv("LUDUS_SEED");
	EVP_MD_CTX *ctx;
	char head[64];
	long long n;
	int len;

	if (fixed != NULL && *fixed != '\0') {
		if (util_parse_int(fixed, 0, INT64_MAX, &n) == -1)
			fatal("LUDUS_SEED must be a number, not `%s`", fixed);
		len = snprintf(head, sizeof(head), "ludus-test-seed:%lld:", n);
		if ((ctx = EVP_MD_CTX_new()) == NULL ||
		    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1 ||
		    EVP_DigestUpdate(ctx, head, (size_t)len) != 1 ||
		    EVP_DigestUpdate(ctx, context, strlen(context)) != 1 ||
		    EVP_DigestFinal_ex(ctx, seed, NULL) != 1)
			fatal("SHA-256 failed");
		EVP_MD_CTX_free(ctx);
		return;
	}
#else
	(void)context;
#endif
	rng_seed_os(seed);
}

void
rng_seed_from_u64(unsigned char seed[RNG_SEED_LEN], uint64_t n)
{
	char text[64];
	int len;

	len = snprintf(text, sizeof(text), "ludus-seed:%" PRIu64, n);
	SHA256((const unsigned char *)text, (size_t)len, seed);
}

void
rng_commitment(const unsigned char seed[RNG_SEED_LEN], char out[65])
{
	unsigned char md[SHA256_DIGEST_LENGTH];

	SHA256(seed, RNG_SEED_LEN, md);
	util_hex(md, sizeof(md), out);
}

void
rng_init(struct rng *r, const unsigned char seed[RNG_SEED_LEN])
{
	memset(r, 0, sizeof(*r));
	memcpy(r->key, seed, RNG_SEED_LEN);
	r->block = 0;
	r->pos = sizeof(r->buf);
}

void
rng_init_sub(struct rng *r, const unsigned char seed[RNG_SEED_LEN],
    const char *label)
{
	unsigned char key[SHA256_DIGEST_LENGTH];
	EVP_MD_CTX *ctx;

	if ((ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(ctx, seed, RNG_SEED_LEN) != 1 ||
	    EVP_DigestUpdate(ctx, label, strlen(label)) != 1 ||
	    EVP_DigestFinal_ex(ctx, key, NULL) != 1)
		fatal("SHA-256 failed");
	EVP_MD_CTX_free(ctx);
	rng_init(r, key);
}

#define ROTL32(v, n)	(((v) << (n)) | ((v) >> (32 - (n))))
#define QUARTER(a, b, c, d) do {					\
	a += b; d ^= a; d = ROTL32(d, 16);				\
	c += d; b ^= c; b = ROTL32(b, 12);				\
	a += b; d ^= a; d = ROTL32(d, 8);				\
	c += d; b ^= c; b = ROTL32(b, 7);				\
} while (0)

static uint32_t
rng_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/*
 * Generate keystream block number `block` into out: the ChaCha20 block
 * function of RFC 8439, written out here rather than taken from
 * libcrypto's EVP interface, which allocates a context for every call
 * (and engines draw inside apply(), which must not allocate).  The
 * stream is the one OpenSSL's EVP_chacha20() gives with the 16-byte IV
 * of a 32-bit little-endian block counter and a 96-bit nonce, the high
 * half of our 64-bit block number in the nonce's first word (check_core
 * holds the two side by side).
 */
static void
rng_block(const unsigned char key[RNG_SEED_LEN], uint64_t block,
    unsigned char out[64])
{
	uint32_t in[16], x[16];
	int i;

	in[0] = 0x61707865;	/* "expand 32-byte k" */
	in[1] = 0x3320646e;
	in[2] = 0x79622d32;
	in[3] = 0x6b206574;
	for (i = 0; i < 8; i++)
		in[4 + i] = rng_le32(key + 4 * i);
	in[12] = (uint32_t)block;
	in[13] = (uint32_t)(block >> 32);
	in[14] = 0;
	in[15] = 0;
	memcpy(x, in, sizeof(x));
	for (i = 0; i < 10; i++) {
		QUARTER(x[0], x[4], x[8], x[12]);
		QUARTER(x[1], x[5], x[9], x[13]);
		QUARTER(x[2], x[6], x[10], x[14]);
		QUARTER(x[3], x[7], x[11], x[15]);
		QUARTER(x[0], x[5], x[10], x[15]);
		QUARTER(x[1], x[6], x[11], x[12]);
		QUARTER(x[2], x[7], x[8], x[13]);
		QUARTER(x[3], x[4], x[9], x[14]);
	}
	for (i = 0; i < 16; i++) {
		uint32_t v = x[i] + in[i];

		out[4 * i] = (unsigned char)v;
		out[4 * i + 1] = (unsigned char)(v >> 8);
		out[4 * i + 2] = (unsigned char)(v >> 16);
		out[4 * i + 3] = (unsigned char)(v >> 24);
	}
}

static void
rng_refill(struct rng *r)
{
	rng_block(r->key, r->block, r->buf);
	r->block++;
	r->pos = 0;
}

void
rng_init_from(struct rng *dst, struct rng *src)
{
	unsigned char key[RNG_SEED_LEN];
	uint32_t v;
	int i;

	for (i = 0; i < RNG_SEED_LEN; i += 4) {
		v = rng_u32(src);
		key[i] = (uint8_t)v;
		key[i + 1] = (uint8_t)(v >> 8);
		key[i + 2] = (uint8_t)(v >> 16);
		key[i + 3] = (uint8_t)(v >> 24);
	}
	rng_init(dst, key);
}

uint32_t
rng_u32(struct rng *r)
{
	uint32_t v;

	if (r->pos + 4 > sizeof(r->buf))
		rng_refill(r);
	v = (uint32_t)r->buf[r->pos] | (uint32_t)r->buf[r->pos + 1] << 8 |
	    (uint32_t)r->buf[r->pos + 2] << 16 |
	    (uint32_t)r->buf[r->pos + 3] << 24;
	r->pos += 4;
	return v;
}

uint32_t
rng_below(struct rng *r, uint32_t n)
{
	uint32_t limit, v;

	if (n == 0)
		fatal("rng_below(0)");
	/* Reject the top partial range so every residue is equally likely. */
	limit = (uint32_t)(((uint64_t)UINT32_MAX + 1) / n * n - 1);
	do
		v = rng_u32(r);
	while (v > limit);
	return v % n;
}

void
rng_shuffle(struct rng *r, void *base, size_t n, size_t size)
{
	unsigned char *p = base, tmp[256];
	size_t i, j;

	if (size > sizeof(tmp))
		fatal("rng_shuffle: element too large");
	for (i = n; i > 1; i--) {
		j = rng_below(r, (uint32_t)i);
		if (j == i - 1)
			continue;
		memcpy(tmp, p + (i - 1) * size, size);
		memcpy(p + (i - 1) * size, p + j * size, size);
		memcpy(p + j * size, tmp, size);
	}
}

void
rng_format(const struct rng *r, char out[RNG_TEXT_LEN])
{
	char hex[2 * RNG_SEED_LEN + 1];

	util_hex(r->key, RNG_SEED_LEN, hex);
	snprintf(out, RNG_TEXT_LEN, "%s:%" PRIu64 ":%" PRIu32, hex, r->block,
	    r->pos);
}

int
rng_parse(struct rng *r, const char *s)
{
	char hex[2 * RNG_SEED_LEN + 1];
	unsigned long long block;
	unsigned pos;
	const char *colon;
	char tail;

	colon = strchr(s, ':');
	if (colon == NULL || (size_t)(colon - s) != 2 * RNG_SEED_LEN)
		return -1;
	memcpy(hex, s, 2 * RNG_SEED_LEN);
	hex[2 * RNG_SEED_LEN] = '\0';
	if (sscanf(colon + 1, "%llu:%u%c", &block, &pos, &tail) != 2 ||
	    pos > 64 || (block == 0 && pos != 64))
		return -1;
	memset(r, 0, sizeof(*r));
	if (util_unhex(hex, r->key, RNG_SEED_LEN) == -1)
		return -1;
	r->pos = 64;
	r->block = block;
	if (pos < 64) {
		/* The buffer in use came from the previous block. */
		rng_block(r->key, block - 1, r->buf);
		r->pos = pos;
	}
	return 0;
}

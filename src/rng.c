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

/*
 * The keystream: OpenSSL's ChaCha20.  One context per thread, made and
 * bound to the cipher on first use and only re-keyed after that, so that
 * drawing numbers allocates nothing once a thread has drawn its first
 * (engines draw inside apply() and the robots' determinize()).
 */
static _Thread_local EVP_CIPHER_CTX *rng_ctx;

/* Generate keystream block number `block` into out. */
static void
rng_block(const unsigned char key[RNG_SEED_LEN], uint64_t block,
    unsigned char out[64])
{
	static const unsigned char zero[64];
	unsigned char iv[16];
	EVP_CIPHER *cipher;
	int len, i;

	/* OpenSSL's ChaCha20 IV: 32-bit little-endian block counter, then a
	 * 96-bit nonce; the high half of our 64-bit block number goes there. */
	memset(iv, 0, sizeof(iv));
	for (i = 0; i < 4; i++)
		iv[i] = (unsigned char)(block >> (8 * i));
	for (i = 0; i < 4; i++)
		iv[4 + i] = (unsigned char)(block >> (32 + 8 * i));
	if (rng_ctx == NULL) {
		if ((rng_ctx = EVP_CIPHER_CTX_new()) == NULL ||
		    (cipher = EVP_CIPHER_fetch(NULL, "ChaCha20", NULL)) == NULL)
			fatal("ChaCha20 is not available");
		i = EVP_EncryptInit_ex2(rng_ctx, cipher, key, iv, NULL);
		EVP_CIPHER_free(cipher);	/* the context holds it */
	} else
		i = EVP_EncryptInit_ex2(rng_ctx, NULL, key, iv, NULL);
	if (i != 1 || EVP_EncryptUpdate(rng_ctx, out, &len, zero,
	    sizeof(zero)) != 1 || len != 64)
		fatal("ChaCha20 keystream failed");
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

uint32_t
rng_byte_below(struct rng *r, struct rng_bytes *b, uint32_t n)
{
	uint32_t lim, x;

	if (n == 0 || n > 256)
		fatal("rng_byte_below(%u)", (unsigned)n);
	lim = 256 - 256 % n;
	do {
		if (b->left == 0) {
			b->w = rng_u32(r);
			b->left = 4;
		}
		x = b->w & 0xff;
		b->w >>= 8;
		b->left--;
	} while (x >= lim);
	return x % n;
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

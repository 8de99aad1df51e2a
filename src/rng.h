/*
 * rng: the one seeded generator every deal and shuffle goes through.
 *
 * A game's 32-byte seed comes from the OS CSPRNG (RAND_bytes) and keys a
 * ChaCha20 keystream from libcrypto; numbers are read off that stream.  The
 * whole generator is a small fixed-size value, so an engine may keep one in
 * its state: copying the state copies the generator, and replaying the same
 * (seed, move log) draws the same numbers.  ChaCha20 is a well-studied
 * stream cipher: its keystream is unpredictable without the seed, which is
 * what lets us publish SHA-256(seed) at the start and reveal the seed at the
 * end without any player learning the deal in between.
 */
#ifndef LUDUS_RNG_H
#define LUDUS_RNG_H

#include <stddef.h>
#include <stdint.h>

#define RNG_SEED_LEN	32

struct rng {
	unsigned char	key[RNG_SEED_LEN];
	uint64_t	block;		/* next keystream block to generate */
	unsigned char	buf[64];
	uint32_t	pos;		/* bytes of buf consumed; 64 = empty */
};

/* Fill seed from the OS CSPRNG; aborts if none is available. */
void	 rng_seed_os(unsigned char seed[RNG_SEED_LEN]);
/* The seed of a new game: rng_seed_os(), except in test builds (configure
 * --enable-test-clock) with $LUDUS_SEED set to a number, where it is
 * SHA-256 of "ludus-test-seed:N:" followed by context, so a test that
 * replays the same mail gets the same deals.  context (foreign) tells apart
 * the seeds made in one run: the referee passes the incoming message's
 * dedupe key and a counter.  A $LUDUS_SEED that is not a number aborts. */
void	 rng_seed_new(unsigned char seed[RNG_SEED_LEN], const char *context);
/* Derive a seed from a number (for `--seed N` and tests): SHA-256 of
 * "ludus-seed:N". */
void	 rng_seed_from_u64(unsigned char seed[RNG_SEED_LEN], uint64_t);
/* SHA-256 of the seed, as 64 hex digits plus NUL: the published commitment. */
void	 rng_commitment(const unsigned char seed[RNG_SEED_LEN], char out[65]);

void	 rng_init(struct rng *, const unsigned char seed[RNG_SEED_LEN]);
/* A sub-generator keyed by SHA-256(seed || label), so independent uses of
 * one game seed (the deal, a reshuffle, a robot) never share numbers. */
void	 rng_init_sub(struct rng *, const unsigned char seed[RNG_SEED_LEN],
	    const char *label);
/* A generator keyed by numbers drawn off another: a future that depends
 * on src's stream only (a robot's re-dealt hidden cards). */
void	 rng_init_from(struct rng *dst, struct rng *src);
uint32_t rng_u32(struct rng *);
/* Uniform in [0, n), unbiased; n must be > 0. */
uint32_t rng_below(struct rng *, uint32_t n);
/* Many small numbers cheaply: rng_byte_below draws one below n (0 < n <=
 * 256) from a byte of a word of the generator, the word's other bytes kept
 * in b for the next calls, a byte at or above the last whole multiple of n
 * drawn again, so every number is equally likely.  Zero b to start. */
struct rng_bytes {
	uint32_t w;
	int	 left;
};
uint32_t rng_byte_below(struct rng *, struct rng_bytes *b, uint32_t n);
/* Fisher-Yates shuffle of n elements of the given size. */
void	 rng_shuffle(struct rng *, void *base, size_t n, size_t size);

/* Text form "KEYHEX:BLOCK:POS" (at most RNG_TEXT_LEN bytes with NUL). */
#define RNG_TEXT_LEN	96
void	 rng_format(const struct rng *, char out[RNG_TEXT_LEN]);
int	 rng_parse(struct rng *, const char *);

#endif

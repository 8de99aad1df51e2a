/*
 * token: per-seat reply tokens.
 *
 * From: is forgeable, so a move for a seat is accepted only with that
 * seat's token: HMAC-SHA256(server secret, "GAME:SEAT"), its first 50 bits
 * in RFC 4648 base32 (10 characters, lower case, read in either case).
 * The secret is 32 random bytes from the OS, kept hex-encoded in a file of
 * mode 0600 that `ludus init` creates.
 */
#ifndef LUDUS_TOKEN_H
#define LUDUS_TOKEN_H

#include <stddef.h>
#include <stdint.h>

#define TOKEN_SECRET_LEN	32
#define TOKEN_LEN		10	/* base32 characters: 50 bits */

struct token_secret {
	unsigned char	key[TOKEN_SECRET_LEN];
};

/* Create the secret file (mode 0600) unless it exists: 1 when it existed,
 * 0 when created, -1 with err. */
int	token_secret_create(const char *path, char *err, size_t errlen);
/* Read the secret; refuses a file others may read or write. */
int	token_secret_load(const char *path, struct token_secret *, char *err,
	    size_t errlen);

/* Write the secret to a new file of mode 0600, renamed over path when
 * complete (for backups). */
int	token_secret_save(const struct token_secret *, const char *path,
	    char *err, size_t errlen);

/* The token of a seat, TOKEN_LEN characters plus NUL. */
void	token_make(const struct token_secret *, int64_t game, int seat,
	    char out[TOKEN_LEN + 1]);
/* 1 when text is the seat's token (case-insensitive, constant time). */
int	token_check(const struct token_secret *, int64_t game, int seat,
	    const char *text);

#endif

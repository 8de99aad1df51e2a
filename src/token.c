/* token: per-seat reply tokens (HMAC-SHA256 from libcrypto). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "rng.h"
#include "token.h"
#include "util.h"

/* Write a key, hex-encoded with a newline, to a new file and make it
 * durable: 0, or -1 with errno set (the file is closed either way). */
static int
secret_write(int fd, const unsigned char key[TOKEN_SECRET_LEN])
{
	char hex[2 * TOKEN_SECRET_LEN + 2];
	ssize_t n;
	int rc;

	util_hex(key, TOKEN_SECRET_LEN, hex);
	strcat(hex, "\n");
	n = write(fd, hex, strlen(hex));
	OPENSSL_cleanse(hex, sizeof(hex));
	rc = n == (ssize_t)(2 * TOKEN_SECRET_LEN + 1) && fsync(fd) == 0 ?
	    0 : -1;
	if (close(fd) == -1)
		rc = -1;
	return rc;
}

int
token_secret_create(const char *path, char *err, size_t errlen)
{
	unsigned char key[TOKEN_SECRET_LEN];
	int fd, rc;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1) {
		if (errno == EEXIST)
			return 1;
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rng_seed_os(key);
	rc = secret_write(fd, key);
	OPENSSL_cleanse(key, sizeof(key));
	if (rc == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

int
token_secret_save(const struct token_secret *sec, const char *path,
    char *err, size_t errlen)
{
	char *tmp = xasprintf("%s.tmp", path);
	int fd;

	unlink(tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
	    -1) {
		util_err(err, errlen, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	if (secret_write(fd, sec->key) == -1 || rename(tmp, path) == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int
token_secret_load(const char *path, struct token_secret *s, char *err,
    size_t errlen)
{
	char buf[2 * TOKEN_SECRET_LEN + 8];
	struct stat sb;
	ssize_t n;
	int fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		util_err(err, errlen, "%s: %s (run `ludus init`)", path,
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || (sb.st_mode & 077) != 0) {
		util_err(err, errlen, "%s: must not be readable or writable "
		    "by group or others (chmod 600)", path);
		goto out;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 2 * TOKEN_SECRET_LEN) {
		util_err(err, errlen, "%s: too short for a secret", path);
		goto out;
	}
	buf[2 * TOKEN_SECRET_LEN] = '\0';
	if (util_unhex(buf, s->key, TOKEN_SECRET_LEN) == -1) {
		util_err(err, errlen, "%s: not a hex secret", path);
		goto out;
	}
	rc = 0;
out:
	OPENSSL_cleanse(buf, sizeof(buf));
	close(fd);
	return rc;
}

/*
 * HMAC-SHA256 of msg.  The MAC is fetched once per process and the key
 * set once per secret, then each call only starts over (EVP_MAC_init with
 * no key keeps the one it has): HMAC() would look both up again.
 */
static void
token_hmac(const struct token_secret *s, const char *msg, size_t len,
    unsigned char md[EVP_MAX_MD_SIZE], unsigned int *mdlen)
{
	static EVP_MAC_CTX *ctx;
	static unsigned char keyed[TOKEN_SECRET_LEN];
	EVP_MAC *mac;
	OSSL_PARAM params[2];
	size_t n = 0;
	int ok;

	if (ctx == NULL) {
		if ((mac = EVP_MAC_fetch(NULL, "HMAC", NULL)) == NULL ||
		    (ctx = EVP_MAC_CTX_new(mac)) == NULL)
			fatal("HMAC-SHA256 is not available");
		EVP_MAC_free(mac);	/* the context holds it */
		params[0] = OSSL_PARAM_construct_utf8_string("digest",
		    (char *)"SHA256", 0);
		params[1] = OSSL_PARAM_construct_end();
		ok = EVP_MAC_init(ctx, s->key, TOKEN_SECRET_LEN, params);
		memcpy(keyed, s->key, TOKEN_SECRET_LEN);
	} else if (CRYPTO_memcmp(keyed, s->key, TOKEN_SECRET_LEN) != 0) {
		ok = EVP_MAC_init(ctx, s->key, TOKEN_SECRET_LEN, NULL);
		memcpy(keyed, s->key, TOKEN_SECRET_LEN);
	} else
		ok = EVP_MAC_init(ctx, NULL, 0, NULL);
	if (ok != 1 || EVP_MAC_update(ctx, (const unsigned char *)msg,
	    len) != 1 || EVP_MAC_final(ctx, md, &n, EVP_MAX_MD_SIZE) != 1)
		fatal("HMAC-SHA256 failed");
	*mdlen = (unsigned int)n;
}

void
token_make(const struct token_secret *s, int64_t game, int seat,
    char out[TOKEN_LEN + 1])
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char msg[64];
	uint64_t bits = 0;
	int i, len;

	len = snprintf(msg, sizeof(msg), "%" PRId64 ":%d", game, seat);
	token_hmac(s, msg, (size_t)len, md, &mdlen);
	/* The first 50 bits, five at a time. */
	for (i = 0; i < 7; i++)
		bits = bits << 8 | md[i];
	bits >>= 6;
	for (i = TOKEN_LEN - 1; i >= 0; i--) {
		out[i] = alphabet[bits & 31];
		bits >>= 5;
	}
	out[TOKEN_LEN] = '\0';
}

int
token_check(const struct token_secret *s, int64_t game, int seat,
    const char *text)
{
	char want[TOKEN_LEN + 1], got[TOKEN_LEN + 1];
	size_t i;

	if (text == NULL || strlen(text) != TOKEN_LEN)
		return 0;
	for (i = 0; i < TOKEN_LEN; i++)
		got[i] = (char)tolower((unsigned char)text[i]);
	got[TOKEN_LEN] = '\0';
	token_make(s, game, seat, want);
	return CRYPTO_memcmp(want, got, TOKEN_LEN) == 0;
}

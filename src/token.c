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
	if (HMAC(EVP_sha256(), s->key, TOKEN_SECRET_LEN,
	    (const unsigned char *)msg, (size_t)len, md, &mdlen) == NULL)
		fatal("HMAC-SHA256 failed");
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

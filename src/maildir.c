/* maildir: listing, reading and filing messages in a local Maildir. */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maildir.h"
#include "util.h"

static int
maildir_name_cmp(const void *a, const void *b)
{
	/* Compare past "new/" or "cur/" so both subdirs interleave by time. */
	return strcmp(*(char *const *)a + 4, *(char *const *)b + 4);
}

/* Flags are the letters after ":2,"; T marks a message as trashed. */
static int
maildir_trashed(const char *name)
{
	const char *info = strstr(name, ":2,");

	return info != NULL && strchr(info + 3, 'T') != NULL;
}

static int
maildir_scan(const char *dir, const char *sub, char ***names, size_t *n,
    size_t *cap, char *err, size_t errlen)
{
	char *path = xasprintf("%s/%s", dir, sub);
	struct dirent *de;
	DIR *d;

	d = opendir(path);
	if (d == NULL) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	while ((errno = 0, de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (strcmp(sub, "cur") == 0 && maildir_trashed(de->d_name))
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*names = xreallocarray(*names, *cap, sizeof(**names));
		}
		(*names)[(*n)++] = xasprintf("%s/%s", sub, de->d_name);
	}
	if (errno != 0) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		closedir(d);
		free(path);
		return -1;
	}
	closedir(d);
	free(path);
	return 0;
}

int
maildir_list(const char *dir, char ***names, size_t *n, char *err,
    size_t errlen)
{
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (maildir_scan(dir, "new", names, n, &cap, err, errlen) == -1 ||
	    maildir_scan(dir, "cur", names, n, &cap, err, errlen) == -1) {
		maildir_names_free(*names, *n);
		*names = NULL;
		*n = 0;
		return -1;
	}
	if (*n > 1)
		qsort(*names, *n, sizeof(**names), maildir_name_cmp);
	return 0;
}

void
maildir_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Only "new/x" or "cur/x" with a plain file name x. */
static int
maildir_check_name(const char *name, char *err, size_t errlen)
{
	if ((strncmp(name, "new/", 4) != 0 && strncmp(name, "cur/", 4) != 0) ||
	    name[4] == '\0' || name[4] == '.' || strchr(name + 4, '/') != NULL) {
		util_err(err, errlen, "%s: not a Maildir message name", name);
		return -1;
	}
	return 0;
}

int
maildir_read(const char *dir, const char *name, size_t max, char **data,
    size_t *len, char *err, size_t errlen)
{
	struct buf b = { 0 };
	char *path, chunk[8192];
	ssize_t r;
	int fd;

	*data = NULL;
	*len = 0;
	if (maildir_check_name(name, err, errlen) == -1)
		return -1;
	path = xasprintf("%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	while ((r = read(fd, chunk, sizeof(chunk))) != 0) {
		if (r == -1) {
			if (errno == EINTR)
				continue;
			util_err(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (max > 0 && b.len + (size_t)r > max) {
			util_err(err, errlen, "%s: larger than %zu bytes", path,
			    max);
			goto fail;
		}
		buf_add(&b, chunk, (size_t)r);
	}
	close(fd);
	free(path);
	*len = b.len;
	*data = b.s != NULL ? buf_steal(&b) : xstrdup("");
	return 0;
fail:
	close(fd);
	free(path);
	buf_free(&b);
	return -1;
}

static int
maildir_mkdir(const char *path, char *err, size_t errlen)
{
	if (mkdir(path, 0700) == -1 && errno != EEXIST) {
		util_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* dir/.folder with its cur, new, tmp and the Maildir++ marker file. */
static int
maildir_make_folder(const char *fdir, char *err, size_t errlen)
{
	static const char *const subs[] = { "cur", "new", "tmp" };
	char *p;
	size_t i;
	int fd;

	if (maildir_mkdir(fdir, err, errlen) == -1)
		return -1;
	for (i = 0; i < nitems(subs); i++) {
		p = xasprintf("%s/%s", fdir, subs[i]);
		if (maildir_mkdir(p, err, errlen) == -1) {
			free(p);
			return -1;
		}
		free(p);
	}
	p = xasprintf("%s/maildirfolder", fdir);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd != -1)
		close(fd);
	free(p);
	return 0;
}

int
maildir_done(const char *dir, const char *name, const char *folder,
    char *err, size_t errlen)
{
	const char *base, *info;
	char *fdir, *from, *to, *flags;
	int rc = -1;

	if (maildir_check_name(name, err, errlen) == -1)
		return -1;
	if (folder == NULL || folder[0] == '\0' || folder[0] == '.' ||
	    strchr(folder, '/') != NULL) {
		util_err(err, errlen, "%s: not a Maildir folder name",
		    folder != NULL ? folder : "(null)");
		return -1;
	}
	fdir = xasprintf("%s/.%s", dir, folder);
	if (maildir_make_folder(fdir, err, errlen) == -1) {
		free(fdir);
		return -1;
	}
	base = name + 4;
	info = strstr(base, ":2,");
	/* Keep the flags it had; add S (seen), keeping them sorted as the
	 * Maildir spec asks only loosely (readers accept any order). */
	if (info == NULL)
		flags = xstrdup("S");
	else if (strchr(info + 3, 'S') != NULL)
		flags = xstrdup(info + 3);
	else
		flags = xasprintf("%sS", info + 3);
	from = xasprintf("%s/%s", dir, name);
	to = xasprintf("%s/cur/%.*s:2,%s", fdir,
	    (int)(info != NULL ? (size_t)(info - base) : strlen(base)), base,
	    flags);
	if (rename(from, to) == -1)
		util_err(err, errlen, "rename %s: %s", from, strerror(errno));
	else
		rc = 0;
	free(from);
	free(to);
	free(flags);
	free(fdir);
	return rc;
}

/*
 * addr: the syntax of mail addresses, in one place (see addr.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"

void
addr_lower(char *a)
{
	util_lower(a);
}

char *
addr_canon(const char *in)
{
	char *a, *s, *at;
	size_t n;

	a = xstrdup(in);
	s = util_trim(a);
	n = strlen(s);
	if (n >= 2 && s[0] == '<' && s[n - 1] == '>') {
		s[n - 1] = '\0';
		s++;
	}
	at = strrchr(s, '@');
	if (at == NULL || at == s || at[1] == '\0' || strchr(s, '@') != at ||
	    strpbrk(s, " \t\r\n<>,;\"()[]\\") != NULL || strlen(s) > 254 ||
	    strchr(at + 1, '.') == NULL || at[1] == '.' ||
	    s[strlen(s) - 1] == '.') {
		free(a);
		return NULL;
	}
	addr_lower(s);
	s = xstrdup(s);
	free(a);
	return s;
}

static int
atext(int c)
{
	return isalnum(c) || (c != '\0' && strchr("!#$%&'*+/=?^_`{|}~-", c));
}

int
addr_domain_check(const char *d)
{
	const char *p;
	size_t label = 0;

	if (*d == '\0' || strlen(d) > 253)
		return 0;
	for (p = d; ; p++) {
		if (*p == '.' || *p == '\0') {
			if (label == 0 || label > 63 || p[-1] == '-')
				return 0;
			if (*p == '\0')
				return 1;
			label = 0;
		} else if (isalnum((unsigned char)*p) ||
		    (*p == '-' && label > 0))
			label++;
		else
			return 0;
	}
}

int
addr_check(char *a)
{
	char *at = strrchr(a, '@'), *p;

	if (at == NULL || at == a || at - a > 64 || a[0] == '.' ||
	    at[-1] == '.')
		return 0;
	for (p = a; p < at; p++)
		if (!(atext((unsigned char)*p) ||
		    (*p == '.' && p[1] != '.')))
			return 0;
	if (!addr_domain_check(at + 1))
		return 0;
	util_lower(at + 1);
	return 1;
}

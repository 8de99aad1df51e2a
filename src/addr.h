/*
 * addr: the syntax of mail addresses, in one place.
 *
 * One canonical form, so that one person is one player whatever case a
 * client sends: the whole address lower-cased, local part included.  Three
 * ways of reading an address, each as strict as where it comes from:
 * addresses libetpan has already taken out of a header (mail.c) are only
 * made canonical; one a person wrote (a command, a player list) must look
 * like local@domain; one in ludus.yaml must be a real one (RFC 5322
 * dot-atom local part, a DNS domain).
 */
#ifndef LUDUS_ADDR_H
#define LUDUS_ADDR_H

#include "util.h"

/* The canonical form, in place. */
void	 addr_lower(char *);

/* An address a person wrote, canonical (owned): surrounding space and
 * angle brackets dropped, lower-cased.  NULL when it is not a plausible
 * local@domain address (one @, no blanks or <>,;"()[]\, a dot in the
 * domain, at most 254 bytes). */
char	*addr_canon(const char *);

/* A configured address: local@domain with a dot-atom local part of at
 * most 64 bytes and a domain addr_domain_check() takes.  1 and the domain
 * lower-cased in place (the local part is kept as written), or 0. */
int	 addr_check(char *);
/* A DNS domain: labels of letters, digits and inner hyphens, 1 to 63
 * bytes each, 253 in all.  1 or 0. */
int	 addr_domain_check(const char *);

#endif

/* maildir: the referee's mail as a local Maildir (Maildir++ folders):
 * list what is unprocessed, read it, and once committed move it with one
 * rename(2) into the processed folder. */
#ifndef LUDUS_MAILDIR_H
#define LUDUS_MAILDIR_H

#include <stddef.h>

/* The unprocessed messages of the Maildir at dir: every file in new/ and
 * every one in cur/ not flagged T (trashed), as names relative to dir
 * ("new/1700000000.M1P2.host"), sorted (delivery order for the usual
 * time-first names).  *names is owned: free with maildir_names_free. */
int	 maildir_list(const char *dir, char ***names, size_t *n, char *err,
	    size_t errlen);
void	 maildir_names_free(char **names, size_t n);

/* Read one message; *data (owned, free()) is NUL-terminated, *len excludes
 * the NUL.  Messages over max bytes (0: no limit) are an error. */
int	 maildir_read(const char *dir, const char *name, size_t max,
	    char **data, size_t *len, char *err, size_t errlen);

/* Move a message to the folder (e.g. "Processed": dir/.Processed/cur),
 * created when missing, flagged seen.  Atomic: the message is in exactly
 * one of the two places at any time. */
int	 maildir_done(const char *dir, const char *name, const char *folder,
	    char *err, size_t errlen);

#endif

/* Almakleh: perft, one hand-worked position per rule, playouts. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

int
main(void)
{
	return 0;
}

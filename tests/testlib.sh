# Sourced by the shell tests: the counters every one of them keeps and the
# two ways a check ends.  A script prints "NAME: N passed, N failed" at the
# end from $pass and $fail (contrib/bootstrap sums those lines).
pass=${pass:-0}
fail=${fail:-0}
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

#!/bin/sh
# The private PostgreSQL cluster of the store's tests (tests/pgenv/pgenv):
# it starts from nothing into a temporary directory, answers through its
# Unix socket only (no TCP port open, the system's clusters untouched),
# keeps a committed row through a SIGKILL of the server, and leaves
# nothing behind on stop.
set -u
: "${LUDUS_SRCDIR:?}"
. "$LUDUS_SRCDIR/tests/testlib.sh"
pgenv="$LUDUS_SRCDIR/tests/pgenv/pgenv"
command -v psql >/dev/null 2>&1 || { echo "pgenv: no psql: skipped"; exit 77; }

dir=$(mktemp -d /tmp/pg.XXXXXX) || exit 99
trap 'bash "$pgenv" stop "$dir" >/dev/null 2>&1' EXIT
bash "$pgenv" start "$dir" >"$dir.env" 2>"$dir.err"
rc=$?
if [ $rc = 77 ]; then cat "$dir.err"; rm -f "$dir.env" "$dir.err"; exit 77; fi
[ $rc = 0 ] && ok || bad "pgenv start: $(cat "$dir.err")"
set -a
. "$dir.env"
set +a
rm -f "$dir.env" "$dir.err"
q() { psql -X -q -tA -v ON_ERROR_STOP=1 -c "$1" 2>&1; }

[ "$(q 'SELECT current_user')" = ludus ] && ok || bad "not connected as ludus: $(q 'SELECT 1')"
[ "$(psql -X -tA "$PGENV_URL" -c 'SELECT current_database()' 2>&1)" = ludus ] &&
    ok || bad "the connection string of PGENV_URL does not reach the database"
[ -S "$dir/.s.PGSQL.$PGPORT" ] && ok || bad "no socket in $dir"
[ -z "$(q "SELECT current_setting('listen_addresses')")" ] && ok ||
    bad "the server listens on TCP: $(q "SELECT current_setting('listen_addresses')")"
pid=$(head -n 1 "$dir/data/postmaster.pid")
if command -v ss >/dev/null 2>&1; then
	ss -ltnpH | grep -q "pid=$pid," && bad "the server has a TCP socket open" || ok
fi
# The system's own clusters are not ours to start.
if command -v pg_lsclusters >/dev/null 2>&1; then
	pg_lsclusters -h 2>/dev/null | grep -q "$dir" && bad "pgenv registered a system cluster" || ok
fi

q "CREATE TABLE t (v int); INSERT INTO t VALUES (42)" >/dev/null
bash "$pgenv" kill "$dir" && ok || bad "pgenv kill"
q 'SELECT 1' | grep -q 'Connection refused\|No such file' && ok || bad "the server still answers after SIGKILL"
bash "$pgenv" restart "$dir" >/dev/null 2>&1 && ok || bad "pgenv restart: $(tail -n 5 "$dir/server.log")"
[ "$(q 'SELECT v FROM t')" = 42 ] && ok || bad "a committed row was lost by a crash: $(q 'SELECT v FROM t')"

bash "$pgenv" stop "$dir"
[ ! -e "$dir" ] && ok || bad "pgenv stop left $dir"
pgrep -f "postgres -D $dir/data" >/dev/null && bad "a server of $dir still runs" || ok
trap - EXIT
echo "pgenv: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

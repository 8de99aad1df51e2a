#!/bin/sh
# bench/flush.sh [LUDUS ...]: milliseconds per mail for `ludus flush` to
# send N queued answers (default 200; FLUSH_N) through a sendmail that
# only reads them, on a database in the current directory's file system.
# Each outcome is its own durable commit, so this is mostly one fsync and
# one sendmail process per mail; give two binaries to compare them.
set -eu
n=${FLUSH_N:-200}
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- ./ludus
for bin; do
	t=$(cd "$(mktemp -d ./flushbench.XXXXXX)" && pwd)
	printf '#!/bin/sh\ncat >/dev/null\n' >"$t/sendmail"
	chmod +x "$t/sendmail"
	cat >"$t/ludus.yaml" <<EOF2
referee:
  address: referee@example.org
database: $t/ludus.db
state_dir: $t
games_dir: $top/games
out:
  sendmail:
    path: $t/sendmail
EOF2
	export LUDUS_TEMPLATES_DIR="$top/templates"
	"$bin" -c "$t/ludus.yaml" init >/dev/null
	i=0
	while [ "$i" -lt "$n" ]; do
		i=$((i + 1))
		printf 'From: p%d@example.org\r\nSubject: list\r\nMessage-ID: <%d@bench>\r\n\r\nlist\r\n' \
		    "$i" "$i" | "$bin" -c "$t/ludus.yaml" deliver >/dev/null 2>&1
	done
	s=$(date +%s%N)
	"$bin" -c "$t/ludus.yaml" flush >/dev/null 2>&1
	e=$(date +%s%N)
	echo "$bin: $(( (e - s) / n / 1000 )) us per mail ($n mails)"
	rm -rf "$t"
done

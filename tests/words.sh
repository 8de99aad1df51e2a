#!/bin/sh
# No English word outside the notation in a Russian or Arabic mail: every
# golden case named game-*-ru or game-*-ar (whole games played by readers
# who chose that language) is read, subject and text (the HTML part is
# made from the same text), and each word of Latin letters must be
# notation: inside `backquotes`, part of an address or a player's name
# (the address's local part, as the mails name players), joined to a digit or
# = (b1-b2, 3co, pits=3, 1d), a card (Jsw), the subject tag, or a word the
# games and commands define (a keyword, a game's name or alias, an option
# and its values, a card or signal name) or a fixed token of the mails
# (UTC, SHA-256, ludus, the commands of `ludus deal`).
set -u
src=${LUDUS_SRCDIR:?}
dir=$src/tests/mail/referee
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The allowed words, one a line, lower case.
{
	# Each command's keyword and form: its name and usage in the
	# parser's syntax table.
	sed -n '/^static const struct command_syntax syntax\[CMD_NKINDS\] = {/,/^};/p' \
	    "$src/src/command.c" |
	    sed -n 's/.*\.\(name\|usage\) = "\([^"]*\)".*/\2/p'
	for y in "$src"/games/*.yaml; do
		sed -n -e 's/^name: *//p' -e 's/^aliases: *\[\(.*\)\]/\1/p' \
		    -e 's/^  - name: *//p' -e 's/^    values: *\[\(.*\)\]/\1/p' \
		    -e 's/^  card \([a-z]*\) .*| \([a-z]*\) .*/\1 \2/p' "$y"
	done
	cat <<-'WORDS'
	utc sha ludus reply-to id seed echo xxd sha256sum deal robot robots
	co cu sw cl monsieur madame borgne vache grand neuf petit deux de
	chene decrit aces useless mordienne change nochange discard play pass
	redeal end true false yes no random me faceup fixed partner table off
	turn all classic normal with join leave en ru ar
	WORDS
} | tr 'A-Z,[]|.' 'a-z     ' | tr -s ' \t' '\n\n' | grep -v '^$' |
    sort -u > "$tmp/allowed"

fail=0 n=0
for c in "$dir"/game-*-ru "$dir"/game-*-ar; do
	[ -f "$c/expected" ] || continue
	n=$((n + 1))
	# The players' names: the mails call a player by the local part of
	# the address after the player list ("ann" for ann@example.org).
	{ cat "$tmp/allowed"; grep -o '[A-Za-z0-9._+-]*@' "$c/expected" |
	    tr -d '@' | tr 'A-Z' 'a-z' | tr '._+-' '\n\n\n\n'; } |
	    grep -v '^$' | sort -u >"$tmp/allowed-case"
	# Subject (without its tag) and the text of every mail.
	awk '
		/^=== mail [0-9]+ ===$/ { hdr = 1; html = 0; mail = $3; next }
		/^--- text\/html ---$/ { html = 1; next }
		html { next }
		hdr && /^$/ { hdr = 0; next }
		hdr && /^Subject: / {
			s = substr($0, 10)
			sub(/\[ludus #[0-9]+( [a-z0-9]+)?\]/, "", s)
			print mail "\t" s
			next
		}
		hdr { next }
		{ print mail "\t" $0 }
	' "$c/expected" |
	sed -e 's/`[^`]*`//g' -e 's/[^[:space:]]*@[^[:space:]]*//g' |
	awk -F '\t' '
		NR == FNR { ok[$0] = 1; next }
		{
			line = $2
			n = split(line, w, /[^A-Za-z0-9_=@#+*\/.-]+/)
			for (i = 1; i <= n; i++) {
				t = w[i]
				if (t ~ /[0-9=@#]/)
					continue
				gsub(/^[^A-Za-z]+|[^A-Za-z]+$/, "", t)
				if (length(t) < 2 || tolower(t) ~ /^[jck](co|cu|sw|cl)$/)
					continue
				m = split(tolower(t), parts, /[-\/.*+]/)
				for (j = 1; j <= m; j++)
					if (length(parts[j]) >= 2 && !(parts[j] in ok)) {
						print "mail " $1 ": " t ": " line
						break
					}
			}
		}
	' "$tmp/allowed-case" - > "$tmp/found"
	if [ -s "$tmp/found" ]; then
		echo "FAIL ${c##*/}: English outside the notation"
		sort -u "$tmp/found" | head -40
		fail=1
	fi
done
[ "$n" -gt 0 ] || { echo "no game-*-ru or game-*-ar case"; exit 1; }
echo "$n cases read"

# A keyword a Russian or Arabic template offers in the reader's language,
# beside the English one ("accept  (или: принять)", "`draw` (или
# `ничья`)"), is an alias of games/commands.yaml in that language (what a
# template fills in, {{aliases}}, is not read here).
m=0
for lang in ru ar; do
	case $lang in ru) or='или' ;; ar) or='أو' ;; esac
	# The language's aliases, one a line.
	awk -v l="  $lang:" '
		$0 == l { on = 1; next }
		/^  [a-z][a-z]*:$/ { on = 0 }
		on && /\[/ { sub(/^[^[]*\[/, ""); sub(/\].*$/, "")
			n = split($0, a, /, */)
			for (i = 1; i <= n; i++) print a[i] }
	' "$src/games/commands.yaml" >"$tmp/aliases-$lang"
	[ -s "$tmp/aliases-$lang" ] ||
	    { echo "FAIL no $lang aliases read"; fail=1; }
	# What the templates offer: after "(OR: " or "(OR `", up to the
	# closing quote or parenthesis, without a #{{game.id}}.
	grep -ho "($or[: ] *\`*[^\`)]*" "$src"/templates/$lang/*.tmpl |
	    sed -e "s/^($or[: ] *\`*//" -e 's/ *#{{[^}]*}}$//' \
	    -e 's/ *$//' | grep -v '^{{' | sort -u >"$tmp/offered-$lang"
	while IFS= read -r w; do
		m=$((m + 1))
		grep -qxF "$w" "$tmp/aliases-$lang" ||
		    { echo "FAIL templates/$lang offers \`$w\`, not a $lang alias"; fail=1; }
	done <"$tmp/offered-$lang"
done
[ "$m" -ge 10 ] || { echo "FAIL only $m offered keywords found"; fail=1; }
echo "$m keywords offered in ru and ar, each an alias"
exit $fail

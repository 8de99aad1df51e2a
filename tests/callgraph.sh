#!/bin/sh
# The referee's command table is the only way in: a file that runs the
# commands (a run, prior, remark or timer step named in the tables of
# src/referee/refcmd.c) is called back by none of the files it runs them in, only
# refcmd.c runs them, and no ref*.c calls into referee.c, the message
# level that hands each line to the table; and no ref*.c but refeff.c
# calls a store function that writes (decide, then apply: src/refeff.h).
# Read from the objects' symbols (nm): which functions each src/referee/*.o
# defines and which it calls.
set -u
src=${LUDUS_SRCDIR:?} build=${LUDUS_BUILDDIR:?}
command -v nm >/dev/null 2>&1 || { echo "no nm: skipped"; exit 77; }
. "$src/tests/testlib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# defs: "SYMBOL FILE" for every function a ref*.o defines; uses: "FILE
# SYMBOL" for every symbol it needs from elsewhere.
: > "$tmp/defs"
: > "$tmp/uses"
n=0
for o in "$build"/src/referee/*.o; do
	[ -f "$o" ] || continue
	f=$(basename "$o" .o)
	f=${f#*-}
	nm -g --defined-only "$o" | awk -v f="$f" '$2 == "T" { print $3, f }' \
	    >> "$tmp/defs"
	nm -u "$o" | awk -v f="$f" '{ print f, $NF }' >> "$tmp/uses"
	n=$((n + 1))
done
[ "$n" -ge 8 ] || { echo "FAIL: no referee objects under $build/src"; exit 1; }

# The steps: every identifier in the initialisers of refcmd.c's tables
# that a ref*.o defines as a function.
sed -n '/^const struct ref_command ref_commands\[\] = {/,/^};/p
    /^} timers\[\] = {/,/^};/p' "$src/src/referee/refcmd.c" |
    grep -o '\bref[a-z]*_[a-z_]*\b' | sort -u > "$tmp/named"
awk 'NR == FNR { d[$1] = 1; next } ($1 in d)' "$tmp/defs" "$tmp/named" \
    > "$tmp/steps"
if [ "$(wc -l < "$tmp/steps")" -ge 38 ]; then ok; else
	bad "only $(wc -l < "$tmp/steps") run steps found in src/referee/refcmd.c"
fi

# dispatch: "CALLER CALLEE STEP" for every step one file calls in another.
awk 'FILENAME == ARGV[1] { s[$1] = 1; next }
    FILENAME == ARGV[2] { d[$1] = $2; next }
    ($2 in s) && ($2 in d) && d[$2] != $1 { print $1, d[$2], $2 }' \
    "$tmp/steps" "$tmp/defs" "$tmp/uses" > "$tmp/dispatch"
if grep -q '^refcmd refgame ' "$tmp/dispatch"; then ok; else
	bad "refcmd.o runs no step of refgame.o: is the table read?"
fi

# Only the table's file runs the steps.
while read -r caller callee step; do
	[ "$caller" = refcmd ] && continue
	bad "$caller.c calls $step, a step of $callee.c, past the table"
done < "$tmp/dispatch"

# No file calls back into a file that runs its commands.
awk '{ print $1, $2 }' "$tmp/dispatch" | sort -u > "$tmp/edges"
while read -r caller callee; do
	back=$(awk -v f="$callee" -v c="$caller" '
	    FILENAME == ARGV[1] { if ($2 == c) d[$1] = 1; next }
	    $1 == f && ($2 in d) { print $2 }' "$tmp/defs" "$tmp/uses" |
	    sort -u | tr '\n' ' ')
	if [ -n "$back" ]; then
		bad "$callee.c calls $caller.c, which runs its commands: $back"
	else
		ok
	fi
done < "$tmp/edges"

# Nor into the message level, which hands the lines to the table.
back=$(awk 'FILENAME == ARGV[1] { if ($2 == "referee") d[$1] = 1; next }
    $1 != "referee" && ($2 in d) { print $1 ".c: " $2 }' \
    "$tmp/defs" "$tmp/uses" | sort -u | tr '\n' ' ')
if [ -z "$back" ]; then ok; else bad "calls into referee.c: $back"; fi

# Decide, then apply (src/refeff.h): the store functions that write are
# called by refeff.c alone; the outbox's by refcore.c (the mails, held in
# the message and queued at its end); the transaction's by referee.c, the
# message level.  Every function of store.h is in one of the lists, so a
# new one must be put in its place here.
writes="store_player_id store_player_update store_player_ban
    store_game_create store_game_update store_move_add store_moves_truncate
    store_event_add store_observer_set store_thanks_add store_report_add
    store_report_resolve store_confirm_add store_confirm_take
    store_action_add store_message_seen store_message_note store_bounce_add
    store_reply_add store_outbox_add store_outbox_add_once
    store_outbox_sent store_outbox_retry store_outbox_failed
    store_outbox_requeue store_outbox_delete store_robot_wait_add
    store_robot_wait_set store_robot_wait_del store_prune store_retention
    store_timer_add store_timer_delete store_timer_cancel store_rating_put
    store_rating_change_add store_ladder_add store_ladder_close
    store_rungs_set store_challenge_add store_challenge_update
    store_site_changes_done store_deck_put store_deck_deal_add
    store_seek_add store_seek_update store_conditions_set
    store_conditions_clear store_takeback_set store_open store_open_at
    store_close store_backup store_test_restore store_test_fault
    store_test_readonly store_outbox_hold store_restore store_lock
    store_unlock store_counter_add store_counter_set store_inbound_add
    store_inbound_done store_inbound_retry store_inbound_requeue
    store_set_password"
transaction="store_begin store_commit store_rollback store_savepoint
    store_release store_undo store_sync"
reads="store_errmsg store_conflict store_is_server store_schema_version
    store_player_load store_player_find
    store_check store_lock_holder store_own_file
    store_player_free store_game_load store_game_free store_game_ids
    store_moves store_moves_free store_events store_events_free
    store_observers store_player_authority store_report_load
    store_reports_open store_report_free store_reports_free
    store_action_count store_message_get store_banned store_strings_free
    store_player_bounces store_reply_count store_reply_oldest
    store_outbox_due store_outbox_unsent store_outbox_next
    store_robot_waits store_outbox_counts store_mails_free store_timer_next
    store_stats
    store_timer_due store_timers_free store_outbox_all store_rating_get
    store_rating_changes store_ladder_find store_ladder_load
    store_ladder_ids store_ladder_free store_rungs store_challenge_by_game
    store_challenges store_challenge_free store_challenges_free
    store_games_public store_rating_history store_site_changes
    store_timer_count store_deck_get store_deck_deal store_seek_load
    store_seeks_open store_seek_free store_conditions store_takeback_get
    store_test_calls store_test_dump store_id_next store_thanks_get
    store_confirm_get store_confirm_waiting store_inbound_next
    store_inbound_list store_inbound_counts store_inbound_clear
    store_inbound_free"
# The game's own writes, by way of play.c (the referee plays in memory:
# play_build, play_line_moves, play_takeback_to).
plays="play_create play_create_with play_line play_takeback"
grep -o '\bstore_[a-z_0-9]*(' "$src/src/store.h" | tr -d '(' | sort -u \
    > "$tmp/declared"
unlisted=$(for w in $(cat "$tmp/declared"); do
	case " $(echo $writes $transaction $reads) " in
	*" $w "*) ;;
	*) printf '%s ' "$w" ;;
	esac
done)
if [ -z "$unlisted" ]; then ok; else
	bad "store.h functions in no list of tests/callgraph.sh: $unlisted"
fi
direct=$(awk -v w="$writes $plays" -v t="$transaction" '
    BEGIN { n = split(w, a); for (i = 1; i <= n; i++) wr[a[i]] = 1
	n = split(t, a); for (i = 1; i <= n; i++) tr[a[i]] = 1 }
    $1 == "refeff" { next }
    $1 == "refcore" && $2 == "store_outbox_add" { next }
    $1 == "referee" && ($2 in tr) { next }
    ($2 in wr) || ($2 in tr) { print $1 ".c: " $2 }' "$tmp/uses" |
    sort -u | tr '\n' ' ')
if [ -z "$direct" ]; then ok; else
	bad "writes past the effects (src/refeff.h): $direct"
fi
if grep -q '^refeff store_game_update$' "$tmp/uses"; then ok; else
	bad "refeff.o writes no game: are the effects read?"
fi

echo "callgraph: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

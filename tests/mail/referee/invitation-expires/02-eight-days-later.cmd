# Nobody answers for eight days; the invitation lapses (clock.invitation:
# seven days by default) when the timers run.
sleep 8d
tick

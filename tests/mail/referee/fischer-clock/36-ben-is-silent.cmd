# ben does not answer: a reminder, then his reserve (1h - 30m + 10m)
# runs out.
sleep 25m
tick
sleep 20m
tick

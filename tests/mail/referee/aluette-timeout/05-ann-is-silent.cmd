# ann does not answer: the reminders, then the clock (1d) runs out and
# her partnership loses.
sleep 20h
tick
sleep 5h
tick

# ben does not answer: the reminders, then the clock (1d by default) runs out.
sleep 20h
tick
sleep 5h
tick

# ben does not answer: the reminder shows his zone.
sleep 20h
tick

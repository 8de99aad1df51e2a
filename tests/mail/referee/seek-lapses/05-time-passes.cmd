# A week: the open seeks go to the club list.
sleep 8d
tick
# Ten days: the seek lapses.
sleep 3d
tick

# Summer in New York: the deadline is in EDT.
sleep 150d

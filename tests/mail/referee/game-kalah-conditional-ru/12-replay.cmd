# The shortened log replays to the stored state.
replay 1

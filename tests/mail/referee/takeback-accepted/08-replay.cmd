# Two moves taken back: the shortened log replays to the stored state.
replay 1

# The log with the replies played for ann replays to the stored state.
replay 1

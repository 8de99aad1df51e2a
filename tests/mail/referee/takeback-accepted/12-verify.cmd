# The seed and the moves left after two takebacks verify.
verify 1

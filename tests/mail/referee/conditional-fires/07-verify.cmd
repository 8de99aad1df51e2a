# The seed and every move, conditional replies among them, verify.
verify 1

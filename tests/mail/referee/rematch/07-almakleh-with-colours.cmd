# Game #4, made with the tool: ann green (first seat), ben orange.
new almakleh colours=green,orange ann@example.org ben@example.org

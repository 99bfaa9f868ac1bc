"""Pure tic-tac-toe: the board value, rules, AI levels and renderings (standard library only)."""

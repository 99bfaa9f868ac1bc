"""Ultimate tic-tac-toe: the rules and coordinates (`rules`), the AI levels (`ai`), and hard's tree
search (`mcts`) with its tactics, its learned evaluation and that evaluation's weights."""

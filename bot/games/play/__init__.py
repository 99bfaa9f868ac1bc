"""Playing a game: moves, its lifecycle and endings, assists, the AI's turns, the clock."""

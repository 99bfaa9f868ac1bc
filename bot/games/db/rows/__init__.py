"""The repositories: one module per thing stored beside the games (the players, the handled
updates, the webhook inbox, the matchmaking queue, ratings, matches, tournaments), each a set
of plain functions on a read session or a write transaction of the store, taking and giving
the games' plain values. Nothing outside `bot.games.db` writes SQL."""

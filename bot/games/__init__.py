"""The games layer: use-cases that take and return plain values (`bot.games.model`), one
database transaction each, one module per family. Nothing here imports Telegram.

    model       the plain values: GameView, PlayerInfo, BoardRef, results, statuses
    lifecycle   the game's rules as pure functions on a GameView
    store       transactions, loading a game once, versioned writes; db/ the tables
    play, challenges, ai_turns, timeouts, records, review, privacy, chats   the use-cases
"""

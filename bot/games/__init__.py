"""The games layer: use-cases that take and return plain values (`bot.games.model`), one
database transaction each. Nothing here imports Telegram or the web.

    model, summaries   the plain values: GameView, PlayerInfo, BoardRef, results, reports
    events, event_stream   what happens to a game, delivered in order per game to listeners
    db/          storage: the tables, transactions, loading a game once, versioned writes
    play/        playing a game: moves, lifecycle, endings, assists, the AI's turns, clocks
    matches/  challenges/  strangers/  tournaments/  ratings/   one folder per feature
    backups/     copies of the database while the bot runs, and restoring one
    chats, players, privacy, records, inbox, updates   the rest of the use-cases
"""

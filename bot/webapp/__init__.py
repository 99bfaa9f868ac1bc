"""The board as a Telegram Mini App: a static page (static/) and its JSON API, served by the
bot's own aiohttp server (bot.intake.web).

    init_data   who is asking: Telegram's signed initData, checked (pure)
    links       where the Mini App lives, and the "Open board" button's target (pure)
    state       a game as the page shows it, as JSON (pure)
    queries     the reads the page needs that the use-cases do not offer (moves, open games)
    live        a notifier fed by every board shown in chat, and the server-sent events
    history     a game move by move (the page's replay and its move list), a tournament
                game's standings
    serving/    how answers go out over HTTP: assets (static/ as it is sent: the modules in
                one file, versioned names, gzip), headers (the content policy)
    api         the routes: the page, the API, the events
"""

"""What players see, rendered without I/O: board messages, keyboards, result cards, the
rating views, the bot's command menus. Showing them in chats is `bot.chat`'s; the texts in
every language are `bot.locales`'."""

"""The Telegram bot: handlers, keyboards, texts, storage and the game service."""

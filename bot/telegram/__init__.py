"""Talking to Telegram: the HTTP transport and its retries, the flood limits and the pacing of
every call, the per-chat lanes updates run in, the web server (webhooks, the Mini App), the
webhook inbox, the bot's profile."""

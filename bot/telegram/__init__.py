"""Talking to Telegram: the HTTP transport and its retries, the flood limits and the pacing of
every call, the per-chat lanes updates run in. It knows nothing of games (`lint-imports`)."""

"""What the bot tells the people who run it: its metrics in Prometheus's terms (`metrics`).
Below every other package of the bot, so that any layer can report; it knows none of them."""

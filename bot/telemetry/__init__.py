"""What the bot tells the people who run it: metrics in Prometheus's terms (`metrics`), and
what each log line is about (`log_context`, read by the JSON log format). Below every other
package of the bot, so that any layer can report; it knows none of them."""

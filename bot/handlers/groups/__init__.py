"""Groups: challenges, tournaments, the bot joining or leaving a chat."""

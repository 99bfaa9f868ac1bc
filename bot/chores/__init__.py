"""Background work every instance runs: the AI-turns runner, the turn clock, the matchmaker,
the board catch-up, housekeeping, the heartbeat (HEARTBEAT_FILE), and the rounds they run in."""

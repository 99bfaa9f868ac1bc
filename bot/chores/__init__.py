"""Background work every instance runs: the AI-turns runner, the turn clock, the matchmaker,
the board catch-up, housekeeping, and the rounds they run in."""

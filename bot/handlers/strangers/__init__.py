"""Looking for a stranger: /play, the queue's buttons."""

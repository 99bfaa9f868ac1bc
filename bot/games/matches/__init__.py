"""A match (best of three, five): its rules, its rows' play, its use-cases."""

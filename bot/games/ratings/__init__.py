"""Ratings: Glicko-2 pools and ladders (the rules) and the use-cases that read them."""

"""Tournaments in a group: the rules of rounds and standings, their rows, the use-cases."""

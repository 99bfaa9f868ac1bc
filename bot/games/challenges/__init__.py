"""Challenges in a group or any chat: their rules and use-cases."""

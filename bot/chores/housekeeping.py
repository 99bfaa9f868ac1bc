"""Chores no update triggers, run in the background by every instance: forgetting the handled
update ids older than a day, every hour, whatever kind of updates come in (or none)."""

from __future__ import annotations

from bot.chores.rounds import Rounds
from bot.games.db.rows.handled_updates import PRUNE_EVERY, HandledUpdates


class Housekeeping(Rounds):
    def __init__(self, updates: HandledUpdates, every_seconds: float | None = None) -> None:
        every = PRUNE_EVERY.total_seconds() if every_seconds is None else every_seconds
        # At start-up first: a bot restarted often still prunes.
        super().__init__("housekeeping", updates.prune, every)

"""Updates whose work the database would not store (its file gone or read-only: see
`bot.games.db.sqlite_file`). Telegram must deliver such an update again: the webhook answers
it 5xx, long polling does not acknowledge it, the webhook inbox keeps its row. Its sender is
told once that it could not be saved, however often it comes again meanwhile.

The error handler notes a refusal (`refused`); whoever handed the update over asks afterwards
whether its handling was refused (`take`)."""

from __future__ import annotations

from collections import OrderedDict

#: Updates remembered (a few bytes each): an outage's worth of taps, told once each.
REMEMBERED = 4096


class Unstored:
    def __init__(self, remembered: int = REMEMBERED) -> None:
        self._remembered = remembered
        # update id -> refused since the last `take` (told: every key)
        self._updates: OrderedDict[int, bool] = OrderedDict()

    def refused(self, update_id: int) -> bool:
        """The database would not store the update's work. True the first time: its sender
        is told then, and not when it comes again."""
        first = update_id not in self._updates
        self._updates[update_id] = True
        self._updates.move_to_end(update_id)
        if len(self._updates) > self._remembered:
            self._updates.popitem(last=False)
        return first

    def take(self, update_id: int) -> bool:
        """Whether the update's handling was refused since the last time this was asked."""
        if not self._updates.get(update_id):
            return False
        self._updates[update_id] = False
        return True

"""How many new games one user may start from the Mini App (WEBAPP_NEW_GAMES_PER_MINUTE): each
new game posts a board in a chat, so a page (or a script with a user's initData) must not post
twenty in a second. Beyond the pace, a start is refused with 429 and the page says so in the
user's words (`PAGE.too_fast`); nothing is started or posted.

The chat needs no such pace: Telegram itself paces what one user sends the bot, and every
start there is one message of theirs. The count is kept per process (as the live streams' caps
are, bot.webapp.live): several instances behind one address allow each their share."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

#: The window the pace counts new games in.
WINDOW_SECONDS = 60.0
#: Users whose starts are remembered at most (the least recent go first).
MAX_KEPT = 10_000


class NewGamePace:
    """At most `per_minute` new games a minute for one user, counted over the last minute."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute, self.clock = per_minute, clock
        self._starts: dict[int, deque[float]] = {}

    def admit(self, user_id: int) -> bool:
        """Whether `user_id` may start one more game now; counts it if so."""
        now = self.clock()
        starts = self._starts.pop(user_id, None) or deque()
        while starts and starts[0] <= now - WINDOW_SECONDS:
            starts.popleft()
        admitted = len(starts) < self.per_minute
        if admitted:
            starts.append(now)
        if starts:
            self._starts[user_id] = starts  # the most recent last
        while len(self._starts) > MAX_KEPT:
            del self._starts[next(iter(self._starts))]
        return admitted

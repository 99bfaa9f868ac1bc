"""When a turn's clock starts (`clock_rules`): once Telegram has answered for the board that
shows the player to move their turn (`seen`, which the presenter calls), and at the latest a
grace after the turn began (`start_unseen`, which the turn clock calls every sweep).

Either is one conditional UPDATE of `flag_at`, taken only while the game is still at that
turn (the same board) and its clock still waits: a late answer for an older board, a second
instance's answer, or a grace after the board was seen changes nothing. It is no new version
of the game (its boards show the same), so a copy of the game kept without a read
(`bot.games.db.live_games`) never holds a clock that waits: its start is read afresh.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.games.db.rows import games as game_rows
from bot.games.db.store import Store
from bot.games.model import GameView
from bot.games.play import clock_rules


class TurnStarts:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def seen(self, game: GameView, at: datetime) -> bool:
        """The board of `game` that its player to move sees showed them the turn at `at`
        (Telegram answered then): their clock runs from `at`, unless it runs already or the
        game has moved on. Whether it started now."""
        if not clock_rules.clock_waits(game):
            return False
        return await self._start(clock_rules.seen(game, at), at)

    async def start_unseen(self, now: datetime, grace: timedelta) -> int:
        """Start the clocks still waiting `grace` after their turn began, as of then; how
        many."""
        async with self._store.sessions() as session:
            waiting = await game_rows.clocks_waiting(session, now - grace)
        started = 0
        for loaded in waiting:
            game = loaded.view
            assert game.turn_started_at is not None  # selected by it
            started += await self._start(
                clock_rules.seen_by_grace(game, grace), game.turn_started_at + grace
            )
        return started

    async def _start(self, game: GameView, at: datetime) -> bool:
        """Store the running clock of `game` if the game is still at this turn, waiting. Its
        clock was last drawn `at`, as the board showed the turn (the time its side had), so
        the turn clock's first redraw of this turn comes a period later: drawn sooner, it
        would show the same whole seconds, an edit Telegram refuses as "not modified"."""
        async with self._store.transaction() as session:
            return await game_rows.start_clock(session, game, at)

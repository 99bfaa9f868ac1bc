"""Turn timeouts of games between people: a nudge, then a loss by timeout; a challenge
nobody joins expires; a game on the clock (strangers) flags or aborts when its time is out."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.games.db import reads, store
from bot.games.db.rows import games as game_rows
from bot.games.db.store import LOST_RACE, Store
from bot.games.model import GameView
from bot.games.play import lifecycle
from bot.games.play.clock_rules import TurnEvent


class TurnTimeouts:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def overdue(self, now: datetime, turn_timeout: timedelta) -> list[int]:
        """Games whose player to move (or whose challenge) has waited at least `turn_timeout`."""
        async with self._store.sessions() as session:
            return await game_rows.overdue(session, now, turn_timeout)

    async def claim_clock_redraws(self, now: datetime, every: timedelta) -> list[GameView]:
        """The running clocks this process is to redraw now: those nobody redrew within
        `every`, claimed in one UPDATE, so that of several instances only one redraws each
        clock a period. Only boards in private chats (strangers'): a group's boards (a
        tournament's) show their clocks as of the last move, since a redraw of each every
        period would spend the group's 20 messages a minute that its players' moves need."""
        async with self._store.transaction() as session:
            ids = await game_rows.claim_clock_redraws(session, now, every)
        if not ids:
            return []
        async with self._store.sessions() as session:
            found = await game_rows.active_games(session, ids)
            return [loaded.view for loaded in found]

    async def enforce(
        self, game_id: int, now: datetime, turn_timeout: timedelta
    ) -> tuple[TurnEvent, GameView] | None:
        """Apply what is due to one game at `now` (see `lifecycle.timeout_verdict`)."""
        try:
            async with self._store.transaction() as session:
                game = await reads.load(session, game_id)
                if game is None or game.view.turn_started_at is None:
                    return None
                waited = now - game.view.turn_started_at
                event = lifecycle.timeout_verdict(game.view, waited, turn_timeout)
                if event is None:
                    return None
                after = lifecycle.apply_timeout(game.view, event, now)
                return event, await store.save(session, game, after)
        except LOST_RACE:
            return None  # a move came in meanwhile: the turn is fresh again

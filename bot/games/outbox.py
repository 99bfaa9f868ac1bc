"""The board outbox: which version of its game each board message shows.

A move is committed, then shown: its edit waits for the chat's pace (about a second in a
private chat, three in a busy group). A crash in between used to leave the board showing an
older position than its game, for good. Now every game stores the version its board shows
(`games.shown_version`); the move's own transaction raises `version` past it, so a committed
move is a board still to draw, whoever committed it and whatever crashes after. The bot marks
a board shown once Telegram has it (`mark_shown`), and every instance draws the boards that
stay behind (`behind`, used by `bot.chores.board_catch_up`).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Table, bindparam, select

from bot.games.db import statements
from bot.games.db.batch import Later
from bot.games.model import GameView
from bot.games.store import Store

_GAMES = statements.GAMES  # typed FromClause (DeclarativeBase's __table__); it is a Table
assert isinstance(_GAMES, Table)
# Matches the partial index `ix_games_behind`, so only the boards behind are read.
_BEHIND = (
    select(_GAMES.c.id, _GAMES.c.version)
    .where(_GAMES.c.shown_version < _GAMES.c.version)
    .order_by(_GAMES.c.id)
    .limit(bindparam("limit"))
)
# Never backwards: a late mark of an older drawing leaves a newer one's alone. Drawing a
# board is not a change to the game: `updated_at` stays.
_MARK_SHOWN = (
    _GAMES.update()
    .where(_GAMES.c.id == bindparam("game_id"), _GAMES.c.shown_version < bindparam("shown"))
    .values(shown_version=bindparam("shown"), updated_at=_GAMES.c.updated_at)
)


class BoardOutbox:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def behind(self, limit: int = 100) -> dict[int, int]:
        """Games whose board shows an older version than the game's: id → version."""
        async with self._store.sessions() as session:
            rows = await session.execute(_BEHIND, {"limit": limit})
            return {game_id: version for game_id, version in rows}

    async def game(self, game_id: int) -> GameView | None:
        """A game as stored now, to draw its board."""
        return await self._store.get_game(game_id)

    async def mark_shown(self, shown: Iterable[tuple[int, int]]) -> None:
        """These boards show these versions of their games now (game id, version)."""
        rows = [{"game_id": game_id, "shown": version} for game_id, version in shown]
        if not rows:
            return
        async with self._store.transaction() as transaction:
            transaction.later(Later(_MARK_SHOWN, rows))


def is_behind(game: GameView) -> bool:
    """Whether the stored game says its board shows an older version than the game's."""
    return game.shown_version < game.version

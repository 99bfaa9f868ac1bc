"""The board outbox: which version of its game each board message shows, and who draws it.

A move is committed, then shown: its edit waits for the chat's pace (about a second in a
private chat, three in a busy group). A crash in between used to leave the board showing an
older position than its game, for good. Now every game stores the version its board shows
(`games.shown_version`); the move's own transaction raises `version` past it, so a committed
move is a board still to draw, whoever committed it and whatever crashes after. The bot marks
a board shown once Telegram has answered for that version (`mark_shown`), and every instance
draws the boards that stay behind (`behind`, used by `bot.chores.board_catch_up`).

One process at a time draws a game's boards (`claim`): two instances that each kept their own
edits in order could still land an older edit after a newer one, since each waits for its own
pace. The claim is a lease (`games.drawer` until `drawer_until`) so that a process that died
holds nothing for long; the holder lets go with the mark of the version it drew last
(`mark_shown(..., release=True)`), and a process that found the board claimed draws it again
shortly after, from the game as it is then (`bot.chat.presenter`).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Table, bindparam, case, or_, select

from bot.games.db import statements
from bot.games.db.batch import Later
from bot.games.db.models import aware, utcnow
from bot.games.db.store import Store
from bot.games.model import GameView

#: How long a claim lasts unless its holder renews it (every third of it, while its drawing
#: lasts) or lets go: a process that died (a `kill -9` leaves its claims behind) is replaced
#: after this long (the bot's is BOARD_TAP_REDRAW_SECONDS), so that a board it was drawing
#: catches up within 10 s.
CLAIM_SECONDS = 6.0

_GAMES = statements.GAMES  # typed FromClause (DeclarativeBase's __table__); it is a Table
assert isinstance(_GAMES, Table)
_FREE_FOR_ME = or_(
    _GAMES.c.drawer.is_(None),
    _GAMES.c.drawer == bindparam("drawer"),
    _GAMES.c.drawer_until < bindparam("now"),
)
# Matches the partial index `ix_games_behind`, so only the boards behind are read; a board
# another live process is drawing is its own.
_BEHIND = (
    select(_GAMES.c.id, _GAMES.c.version, _GAMES.c.updated_at, _GAMES.c.drawer)
    .where(_GAMES.c.shown_version < _GAMES.c.version, _FREE_FOR_ME)
    .order_by(_GAMES.c.id)
    .limit(bindparam("limit"))
)
# Drawing a board is not a change to the game: `updated_at` stays.
_CLAIM = (
    _GAMES.update()
    .where(_GAMES.c.id == bindparam("game_id"), _FREE_FOR_ME)
    .values(
        drawer=bindparam("drawer"),
        drawer_until=bindparam("until"),
        updated_at=_GAMES.c.updated_at,
    )
    .returning(_GAMES.c.version)
)
# Never backwards: a late mark of an older drawing leaves a newer one's alone. Only the
# claim's holder marks (or anyone when nobody holds it): a process whose claim lapsed and
# was taken over does not know what the board shows.
_MARK_SHOWN = (
    _GAMES.update()
    .where(
        _GAMES.c.id == bindparam("game_id"),
        or_(_GAMES.c.drawer.is_(None), _GAMES.c.drawer == bindparam("drawer")),
    )
    .values(
        shown_version=case(
            (_GAMES.c.shown_version < bindparam("shown"), bindparam("shown")),
            else_=_GAMES.c.shown_version,
        ),
        drawer=case((bindparam("release"), None), else_=_GAMES.c.drawer),
        drawer_until=case((bindparam("release"), None), else_=_GAMES.c.drawer_until),
        updated_at=_GAMES.c.updated_at,
    )
)


@dataclass(frozen=True)
class Behind:
    """A board behind its game: the game's version, and when it changed last (None: not
    known, a row from before `updated_at` was kept); `abandoned`: a claim on it lapsed (its
    holder stopped renewing it: a process killed while it drew or posted the board), or is
    this process's own."""

    version: int
    changed_at: datetime | None
    abandoned: bool = False


@dataclass(frozen=True)
class Shown:
    """A board Telegram has at `version` of game `game_id`; `release`: let go of its claim."""

    game_id: int
    version: int
    release: bool = True


class BoardOutbox:
    def __init__(self, games: Store, drawer: str | None = None) -> None:
        self._store = games
        #: This process, as named in the claims it holds.
        self.drawer = drawer or secrets.token_hex(8)

    async def behind(self, limit: int = 100, now: datetime | None = None) -> dict[int, Behind]:
        """Games whose board shows an older version than the game's, and that no other live
        process is drawing: id → the version, and when the game last changed (stored, so a
        restart knows how long a board has been behind)."""
        parameters = {"limit": limit, "drawer": self.drawer, "now": now or utcnow()}
        async with self._store.sessions() as session:
            rows = await session.execute(_BEHIND, parameters)
            return {
                game_id: Behind(version, aware(at), abandoned=drawer is not None)
                for game_id, version, at, drawer in rows
            }

    async def game(self, game_id: int) -> GameView | None:
        """A game as stored now, to draw its board."""
        return await self._store.get_game(game_id)

    async def claim(
        self, game_id: int, seconds: float = CLAIM_SECONDS, now: datetime | None = None
    ) -> int | None:
        """Claim the drawing of a game's boards for `seconds` (or renew this process's
        claim): the game's version now, or None while another process holds it (or the game
        is gone)."""
        now = now or utcnow()
        parameters = {
            "game_id": game_id,
            "drawer": self.drawer,
            "now": now,
            "until": now + timedelta(seconds=seconds),
        }
        # Sent with the commit, in one batch: one trip to the database's thread, not two
        # (every drawing claims).
        async with self._store.transaction() as transaction:
            claimed = transaction.later(Later(_CLAIM, parameters))
        version: int | None = claimed.row[0] if claimed.row is not None else None
        return version

    async def mark_shown(self, shown: Iterable[Shown]) -> None:
        """These boards show these versions of their games now; those released are let go."""
        rows = [
            {
                "game_id": mark.game_id,
                "shown": mark.version,
                "release": mark.release,
                "drawer": self.drawer,
            }
            for mark in shown
        ]
        if not rows:
            return
        async with self._store.transaction() as transaction:
            transaction.later(Later(_MARK_SHOWN, rows))


def is_behind(game: GameView) -> bool:
    """Whether the stored game says its board shows an older version than the game's."""
    return game.shown_version < game.version

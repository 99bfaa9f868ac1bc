"""The matches table: a match stored with its first game, its score written as each of its
games ends (in that game's transaction, `bot.games.matches.play`), and the game that followed
a game of it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select

from bot.games.db import statements
from bot.games.db.batch import Later
from bot.games.db.writes import CoreTransaction
from bot.games.matches.rules import MatchScore, MatchStatus

MATCHES = statements.MATCHES

_INSERT = MATCHES.insert().returning(MATCHES.c.id)
# Guarded by the games counted: a score is never written twice for one game.
_SCORE = (
    MATCHES.update()
    .where(MATCHES.c.id == bindparam("match_id"), MATCHES.c.played == bindparam("played_before"))
    .values(
        a_halves=bindparam("a_halves"),
        b_halves=bindparam("b_halves"),
        played=bindparam("played"),
        status=bindparam("status"),
        a_player_id=bindparam("a_player_id"),
        b_player_id=bindparam("b_player_id"),
        updated_at=bindparam("updated_at"),
    )
)
_NEXT = select(statements.GAMES.c.id).where(
    statements.GAMES.c.match_id == bindparam("match_id"),
    statements.GAMES.c.match_game == bindparam("match_game"),
)


async def insert(
    session: CoreTransaction,
    best_of: int,
    a_player_id: int | None,
    b_player_id: int | None,
    now: datetime,
) -> Any:
    """Store a new match of `best_of` games between side A and side B, nothing played yet:
    its id."""
    values: dict[str, Any] = {
        "best_of": best_of,
        "a_player_id": a_player_id,
        "b_player_id": b_player_id,
        "a_halves": 0,
        "b_halves": 0,
        "played": 0,
        "status": MatchStatus.PLAYING.value,
        "created_at": now,
        "updated_at": now,
    }
    return await session.scalar(_INSERT, values)


def score_later(
    session: CoreTransaction,
    match_id: int,
    before: MatchScore,
    after: MatchScore,
    sides: tuple[int | None, int | None],
    now: datetime,
) -> None:
    """Write the match's score `after` (and who plays side A and B now) with the
    transaction's writes, if the games counted are still those of `before`: else the
    transaction raises StaleDataError (one change is due)."""
    a_player_id, b_player_id = sides
    session.later(
        Later(
            _SCORE,
            {
                "match_id": match_id,
                "played_before": before.played,
                "a_halves": after.a_halves,
                "b_halves": after.b_halves,
                "played": after.played,
                "status": after.status.value,
                "a_player_id": a_player_id,
                "b_player_id": b_player_id,
                "updated_at": now,
            },
            one_change=True,
        )
    )


async def next_game_id(session: Any, match_id: int, match_game: int) -> int | None:
    """The id of the match's game number `match_game`, if there is one."""
    found = await session.scalar(_NEXT, {"match_id": match_id, "match_game": match_game})
    return None if found is None else int(found)

"""The ratings table: each player's Glicko-2 rating per pool, read for the rating of an
ending (`bot.games.play.endings`) and for the profile and the ladder (`Ratings`), and stored
in the transaction that ends a rated game; and the count of rated games between two people
that their next one's weight depends on."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, or_, select

from bot.games.db import statements
from bot.games.db.models import Game, Player, Rating
from bot.games.db.reads import Db
from bot.games.db.writes import CoreTransaction
from bot.games.summaries import LadderRow, PoolRating
from core import glicko2

RATINGS = Rating.__table__


async def stored_rating(session: Db, player_id: int, pool: str) -> glicko2.Rating | None:
    row = (
        await session.execute(
            select(RATINGS.c.rating, RATINGS.c.deviation, RATINGS.c.volatility).where(
                RATINGS.c.player_id == player_id, RATINGS.c.pool == pool
            )
        )
    ).first()
    return None if row is None else glicko2.Rating(*row)


async def strongest_scored(session: CoreTransaction, player_id: int, pool: str) -> float | None:
    """The strongest rating the player has won or drawn against in `pool` (`bounded`)."""
    strongest: float | None = await session.scalar(
        select(RATINGS.c.strongest_scored).where(
            RATINGS.c.player_id == player_id, RATINGS.c.pool == pool
        )
    )
    return strongest


async def store_rating(
    session: CoreTransaction,
    player_id: int,
    pool: str,
    rated: tuple[glicko2.Rating, float | None],
    change: int,
    now: datetime,
) -> None:
    new, strongest = rated
    upsert = statements.upsert_for(session.bind.dialect.name)(RATINGS)
    values: dict[str, Any] = {
        "player_id": player_id,
        "pool": pool,
        "rating": new.rating,
        "deviation": new.deviation,
        "volatility": new.volatility,
        "games": 1,
        "last_change": change,
        "strongest_scored": strongest,
        "updated_at": now,
    }
    statement = upsert.values(**values).on_conflict_do_update(
        index_elements=[RATINGS.c.player_id, RATINGS.c.pool],
        set_={
            "rating": new.rating,
            "deviation": new.deviation,
            "volatility": new.volatility,
            "games": RATINGS.c.games + 1,
            "last_change": change,
            "strongest_scored": strongest,
            "updated_at": now,
        },
    )
    await session.execute(statement)


async def games_together(
    session: CoreTransaction, a: int, b: int, game_id: int, since: datetime
) -> int:
    """Rated games between `a` and `b` (either side) updated since `since`, but this one."""
    pair = or_(
        and_(Game.x_player_id == a, Game.o_player_id == b),
        and_(Game.x_player_id == b, Game.o_player_id == a),
    )
    found = await session.scalar(
        select(func.count())
        .select_from(Game)
        .where(
            pair,
            Game.id != game_id,
            Game.x_rating_change.is_not(None),
            Game.updated_at >= since,
        )
    )
    return int(found or 0)


async def of_player(session: Db, player_id: int) -> list[PoolRating]:
    """The player's ratings, one per pool they played in."""
    rows = await session.execute(select(RATINGS).where(RATINGS.c.player_id == player_id))
    return [
        PoolRating(row.pool, row.rating, row.deviation, row.games, row.last_change) for row in rows
    ]


async def ladder(session: Db, pool: str, max_deviation: float, limit: int) -> list[LadderRow]:
    """The best ratings of a pool with a deviation of at most `max_deviation`, of players who
    chose to be on the ladder."""
    rows = await session.execute(
        select(
            RATINGS.c.player_id,
            Player.name,
            RATINGS.c.rating,
            RATINGS.c.deviation,
            RATINGS.c.games,
        )
        .join(Player, Player.id == RATINGS.c.player_id)
        .where(
            RATINGS.c.pool == pool,
            Player.on_ladder.is_(True),
            RATINGS.c.deviation <= max_deviation,
        )
        .order_by(RATINGS.c.rating.desc(), RATINGS.c.player_id)
        .limit(limit)
    )
    return [LadderRow(*row) for row in rows]

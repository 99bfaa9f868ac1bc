"""Ratings: Glicko-2 (`core.glicko2`) per pool, a game rated once, in its own transaction,
as soon as it has ended; the player's rating, and the global ladder (opt-in).

Each rated game is its own rating period (as online game sites do): a player's rating moves
after every game, not once a day. Why Glicko-2 rather than Elo: a newcomer's rating is
uncertain and says so (the deviation), so their first games move it far and a settled
player's little, without hand-tuned K factors; a player back after a break is less certain
again; and "provisional" falls out of the deviation (`Rating.is_provisional`).

Which games count, and how, is `rating_rules`. The game's versioned UPDATE carries the changes
(`x_rating_change`, `o_rating_change`): of two instances rating the same game, one wins.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select, update

from bot.games import player_rows, store
from bot.games.db import statements
from bot.games.db.models import Game, Player, Rating, utcnow
from bot.games.db.writes import CoreTransaction
from bot.games.model import GameView, PlayerInfo
from bot.games.rating_rules import (
    AI_PREFIX,
    RatedGame,
    ai_rating,
    rated_game,
    repeat_weight,
)
from bot.games.store import LOST_RACE, Db, Store
from core import glicko2
from core.board import O, X

_RATINGS = Rating.__table__
#: Rated games between the same two people within this long count less (`repeat_weight`).
REPEAT_WINDOW = timedelta(days=1)


@dataclass(frozen=True)
class PoolRating:
    """A player's rating in one pool, as /rating shows it."""

    pool: str
    rating: float
    deviation: float
    games: int
    last_change: int

    @property
    def is_provisional(self) -> bool:
        return self.deviation > glicko2.PROVISIONAL_DEVIATION


@dataclass(frozen=True)
class LadderRow:
    player_id: int
    name: str
    rating: float
    deviation: float
    games: int


class Ratings:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def rate_ended(self, game: GameView) -> GameView:
        """`game` rated if it has ended and is a rated kind (see `rate`); else as it is."""
        if game.is_active or game.is_open or rated_game(game) is None:
            return game
        return await self.rate(game.id) or game

    async def rate(self, game_id: int) -> GameView | None:
        """Rate a game that has ended, once: the game with its players' rating changes, or
        None when it is not rated (not a rated kind, not over, rated already, or a race)."""
        try:
            async with self._store.transaction() as session:
                loaded = await store.load(session, game_id)
                rated = None if loaded is None else rated_game(loaded.view)
                if loaded is None or rated is None:
                    return None
                changes = await self._apply(session, loaded.view, rated)
                if changes is None:
                    return None
                after = replace(
                    loaded.view, x_rating_change=changes.get(X), o_rating_change=changes.get(O)
                )
                return await store.save(session, loaded, after)
        except LOST_RACE:
            return None

    async def _apply(
        self, session: CoreTransaction, game: GameView, rated: RatedGame
    ) -> dict[str, int] | None:
        """The new ratings stored; each person's change by mark (None: not rated after all)."""
        now = utcnow()
        ids = {mark: game.player_id_of(mark) for mark in rated.scores}
        if any(player_id is None for player_id in ids.values()):
            return None
        before = {mark: await _stored(session, ids[mark], rated.pool) for mark in rated.scores}
        if rated.ai_level is not None:
            (mark,) = rated.scores
            opponents = {mark: ai_rating(rated.pool.removeprefix(AI_PREFIX), rated.ai_level)}
            weight = 1.0
        else:
            if not game.is_between_strangers and None in before.values():
                return None  # a friendly game counts once both are rated
            opponents = {X: before[O] or glicko2.Rating(), O: before[X] or glicko2.Rating()}
            earlier = await _games_together(session, ids[X], ids[O], game.id, now)
            weight = repeat_weight(earlier)
        changes = {}
        for mark, score in rated.scores.items():
            old = before[mark] or glicko2.Rating()
            new = glicko2.rate(old, [glicko2.Result(opponents[mark], score, weight)])
            changes[mark] = round(new.rating - old.rating)
            await _store(session, ids[mark], rated.pool, new, changes[mark], now)  # type: ignore[arg-type]
        return changes

    async def of_player(self, player_id: int) -> list[PoolRating]:
        """The player's ratings, one per pool they played in."""
        async with self._store.sessions() as session:
            rows = await session.execute(select(_RATINGS).where(_RATINGS.c.player_id == player_id))
            return [
                PoolRating(row.pool, row.rating, row.deviation, row.games, row.last_change)
                for row in rows
            ]

    async def rating_in(self, player_id: int, pool: str) -> glicko2.Rating:
        """The player's rating in `pool` (a newcomer's if they have none)."""
        async with self._store.sessions() as session:
            return await _stored(session, player_id, pool) or glicko2.Rating()

    async def ladder(self, pool: str, limit: int = 10) -> list[LadderRow]:
        """The best rated players of a pool who chose to be on the ladder."""
        async with self._store.sessions() as session:
            rows = await session.execute(
                select(
                    _RATINGS.c.player_id,
                    Player.name,
                    _RATINGS.c.rating,
                    _RATINGS.c.deviation,
                    _RATINGS.c.games,
                )
                .join(Player, Player.id == _RATINGS.c.player_id)
                .where(_RATINGS.c.pool == pool, Player.on_ladder.is_(True))
                .order_by(_RATINGS.c.rating.desc(), _RATINGS.c.player_id)
                .limit(limit)
            )
            return [LadderRow(*row) for row in rows]

    async def set_on_ladder(self, user: PlayerInfo, on: bool) -> None:
        """Show the user on the global ladder (first name and rating), or not."""
        async with self._store.transaction() as session:
            await player_rows.upsert_player(session, user)
            await session.execute(update(Player).where(Player.id == user.id).values(on_ladder=on))

    async def is_on_ladder(self, user_id: int) -> bool:
        async with self._store.sessions() as session:
            found = await session.scalar(select(Player.on_ladder).where(Player.id == user_id))
            return bool(found)


async def _stored(session: Db, player_id: int | None, pool: str) -> glicko2.Rating | None:
    row = (
        await session.execute(
            select(_RATINGS.c.rating, _RATINGS.c.deviation, _RATINGS.c.volatility).where(
                _RATINGS.c.player_id == player_id, _RATINGS.c.pool == pool
            )
        )
    ).first()
    return None if row is None else glicko2.Rating(*row)


async def _store(
    session: CoreTransaction,
    player_id: int,
    pool: str,
    new: glicko2.Rating,
    change: int,
    now: datetime,
) -> None:
    upsert = statements.upsert_for(session.bind.dialect.name)(_RATINGS)
    values: dict[str, Any] = {
        "player_id": player_id,
        "pool": pool,
        "rating": new.rating,
        "deviation": new.deviation,
        "volatility": new.volatility,
        "games": 1,
        "last_change": change,
        "updated_at": now,
    }
    statement = upsert.values(**values).on_conflict_do_update(
        index_elements=[_RATINGS.c.player_id, _RATINGS.c.pool],
        set_={
            "rating": new.rating,
            "deviation": new.deviation,
            "volatility": new.volatility,
            "games": _RATINGS.c.games + 1,
            "last_change": change,
            "updated_at": now,
        },
    )
    await session.execute(statement)


async def _games_together(
    session: Db, a: int | None, b: int | None, game_id: int, now: datetime
) -> int:
    """Rated games between `a` and `b` (either side) in the last REPEAT_WINDOW, but this one."""
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
            Game.updated_at >= now - REPEAT_WINDOW,
        )
    )
    return int(found or 0)

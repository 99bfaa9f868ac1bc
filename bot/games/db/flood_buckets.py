"""The flood buckets' rows: Telegram's flood limits counted in the database for every
instance. What to take and when is `bot.flood_budget`'s; this is its SQL, on the database's
own clock (see that module for why, and for the figures)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Float, cast, delete, extract, func, literal, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.elements import ColumnElement

from bot.games.db.models import FloodBucket

#: The Julian day of 1970-01-01 00:00 UTC (SQLite's clock counts Julian days).
UNIX_EPOCH_JULIAN_DAY = 2440587.5


@dataclass(frozen=True)
class BucketWant:
    """A token wanted from one bucket, and how the bucket refills."""

    key: str
    rate: float  # tokens a second
    capacity: float
    needed: float  # tokens the bucket must hold for one to be taken


class FloodBuckets:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._postgres = engine.dialect.name == "postgresql"

    async def take(self, wants: Sequence[BucketWant]) -> dict[str, float] | None:
        """In one transaction: refill the wanted buckets (a missing one is made full), then
        take a token from each if every one holds what it needs. None when taken; else the
        tokens each holds, by key (nothing taken)."""
        async with self._engine.begin() as connection:
            levels = await self._refill(connection, wants)
            if any(levels[want.key] < want.needed for want in wants):
                return levels
            await connection.execute(
                update(FloodBucket)
                .where(FloodBucket.key.in_([want.key for want in wants]))
                .values(tokens=FloodBucket.tokens - 1)
            )
            return None

    async def _refill(
        self, connection: AsyncConnection, wants: Sequence[BucketWant]
    ) -> dict[str, float]:
        insert = postgresql.insert if self._postgres else sqlite.insert
        now = self._clock()
        rows = [
            {
                "key": want.key,
                "tokens": want.capacity,
                "refilled_at": now,
                "rate": want.rate,
                "capacity": want.capacity,
            }
            for want in wants
        ]
        statement = insert(FloodBucket).values(rows)
        given = statement.excluded
        elapsed = self._greatest(literal(0.0, Float), now - FloodBucket.refilled_at)
        refilled = self._least(given.capacity, FloodBucket.tokens + elapsed * given.rate)
        upsert = statement.on_conflict_do_update(
            index_elements=[FloodBucket.key],
            set_={
                "tokens": refilled,
                "refilled_at": now,
                "rate": given.rate,
                "capacity": given.capacity,
            },
        ).returning(FloodBucket.key, FloodBucket.tokens)
        result = await connection.execute(upsert)
        return {key: tokens for key, tokens in result.all()}

    async def sweep(self, idle_seconds: float) -> None:
        """Delete the rows of buckets idle so long that they are full."""
        async with self._engine.begin() as connection:
            await connection.execute(
                delete(FloodBucket).where(FloodBucket.refilled_at < self._clock() - idle_seconds)
            )

    def _clock(self) -> ColumnElement[float]:
        """The database's clock, in seconds since 1970 (to the microsecond on PostgreSQL, the
        millisecond on SQLite)."""
        if self._postgres:
            return cast(extract("epoch", func.clock_timestamp()), Float)
        return (func.julianday("now") - UNIX_EPOCH_JULIAN_DAY) * 86400.0

    def _least(self, a: ColumnElement[float], b: ColumnElement[float]) -> ColumnElement[float]:
        return func.least(a, b) if self._postgres else func.min(a, b)

    def _greatest(self, a: ColumnElement[float], b: ColumnElement[float]) -> ColumnElement[float]:
        return func.greatest(a, b) if self._postgres else func.max(a, b)

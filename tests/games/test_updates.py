"""Handled updates: an update id is claimed once, by one caller; ids are forgotten after a day.
A button that makes something is claimed once a moment, by its message and data."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from bot.chores.housekeeping import Housekeeping
from bot.games.db.models import HandledUpdate
from bot.games.db.rows.handled_updates import KEPT_FOR, TAP_MOMENT, button_key
from bot.games.use_cases import Games

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


async def stored_ids(games: Games) -> list[int]:
    async with games.store.sessions() as session:
        return list(await session.scalars(select(HandledUpdate.update_id).order_by("update_id")))


async def test_an_update_is_claimed_once(games: Games) -> None:
    assert (await games.updates.claim(100, now=NOW)).new is True
    assert (await games.updates.claim(100, now=NOW)).new is False
    assert (await games.updates.claim(101, now=NOW)).new is True
    assert await stored_ids(games) == [100, 101]


async def test_of_many_simultaneous_claims_of_one_update_exactly_one_wins(games: Games) -> None:
    claims = await asyncio.gather(*(games.updates.claim(7, now=NOW) for _ in range(20)))
    assert [c.new for c in claims].count(True) == 1


async def test_ids_older_than_a_day_are_pruned(games: Games) -> None:
    await games.updates.claim(1, now=NOW)
    await games.updates.claim(2, now=NOW + KEPT_FOR - timedelta(minutes=30))
    await games.updates.claim(3, now=NOW + KEPT_FOR + timedelta(minutes=15))
    assert await stored_ids(games) == [1, 2, 3]  # a claim prunes nothing
    later = NOW + KEPT_FOR + timedelta(minutes=15)
    await games.updates.prune(later)
    assert await stored_ids(games) == [2, 3]
    # A forgotten id is new again (Telegram may reuse ids after a week without updates).
    assert (await games.updates.claim(1, now=later)).new is True
    async with games.store.sessions() as session:
        assert await session.scalar(select(func.count()).select_from(HandledUpdate)) == 3


async def test_housekeeping_prunes_whatever_updates_come(games: Games) -> None:
    """Taps and `/start` with a game are claimed inside their move's statement: pruning runs
    on its own, at start and every PRUNE_EVERY, not on a claim of another kind of update."""
    old = datetime.now(UTC) - KEPT_FOR - timedelta(days=3)
    for update_id in range(50):
        await games.updates.claim(update_id, now=old)
    await games.updates.claim(1000)
    chores = Housekeeping(games.updates, every_seconds=3600)
    chores.start()
    try:
        async with asyncio.timeout(30):
            # What is watched is the database, which has no event to wait on.
            while await stored_ids(games) != [1000]:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
    finally:
        await chores.stop()


async def test_a_button_is_claimed_once_a_moment_on_its_message(games: Games) -> None:
    first = await games.updates.claim_button("5:7", "rp:1", now=NOW)
    assert first is not None
    assert await games.updates.claim_button("5:7", "rp:1", now=NOW + TAP_MOMENT / 2) is None
    # Another button on the message, the same button on another message: free.
    assert await games.updates.claim_button("5:7", "pc:1", now=NOW) is not None
    assert await games.updates.claim_button("5:8", "rp:1", now=NOW) is not None
    assert await games.updates.claim_button("inline:AbC", "rp:1", now=NOW) is not None
    # A moment later it is free again, and claimed anew from then.
    later = NOW + TAP_MOMENT + timedelta(seconds=1)
    assert await games.updates.claim_button("5:7", "rp:1", now=later) is not None
    assert await games.updates.claim_button("5:7", "rp:1", now=later) is None
    # Beside the update ids, under negative ids of their own; pruned with them.
    assert all(key < 0 for key in await stored_ids(games))
    assert button_key("5:7", "rp:1") not in (button_key("5:7", "pc:1"), button_key("57:", "rp:1"))
    await games.updates.prune(later + KEPT_FOR + timedelta(seconds=1))
    assert await stored_ids(games) == []


async def test_of_simultaneous_taps_of_a_button_exactly_one_claims_it(games: Games) -> None:
    claims = await asyncio.gather(
        *(games.updates.claim_button("5:7", "n:user:hard:o5", now=NOW) for _ in range(20))
    )
    assert sum(claim is not None for claim in claims) == 1


async def test_a_released_button_claim_lets_the_next_tap_through(games: Games) -> None:
    claim = await games.updates.claim_button("5:7", "rp:1", now=NOW)
    assert claim is not None
    await games.updates.release_button(claim)
    assert await games.updates.claim_button("5:7", "rp:1", now=NOW) is not None

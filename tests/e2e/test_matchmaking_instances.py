"""Two bot processes in webhook mode share one queue: players look for strangers through
either instance, many /play delivered to both at once (Telegram retrying), some cancelled
at once through the other instance; both instances pair in their own rounds. Nobody is paired
twice or with themselves, each paired player gets exactly one board, and nobody who could be
paired is left waiting. (See tests/e2e/test_instances.py for the two instances.)"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter

import aiohttp
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.engine import create_session_factory
from bot.games.db.models import Game, QueueEntry
from tests.e2e.test_instances import WAIT, Delivery, Instance, instances, last_update
from tests.support.fake_telegram import FakeTelegram

__all__ = ["instances"]  # the fixture, from the instances' own tests

PLAYERS = [FakeTelegram.user(6000 + i, f"Player{i}") for i in range(12)]


async def stranger_games(engine: AsyncEngine) -> list[Game]:
    async with create_session_factory(engine)() as session:
        found = await session.scalars(select(Game).where(Game.second_chat_id.is_not(None)))
        return list(found)


async def queued(engine: AsyncEngine) -> list[int]:
    async with create_session_factory(engine)() as session:
        return list(await session.scalars(select(QueueEntry.player_id)))


def boards_in(fake: FakeTelegram, user_id: int) -> int:
    return sum("'m:" in str(m.reply_markup) for m in fake.bot_messages(user_id))


async def test_two_instances_pair_strangers_once_whatever_the_delivery(
    telegram: FakeTelegram, instances: tuple[Instance, Instance], engine: AsyncEngine
) -> None:
    fake, rng = telegram, random.Random(3)
    cancelling = {p["id"] for p in rng.sample(PLAYERS, 3)}
    async with aiohttp.ClientSession() as http:
        deliver = Delivery(instances, http)
        posts = []
        for player in PLAYERS:
            fake.send_text(player, "/play")
            update = last_update(fake)
            posts.append(deliver.both(update) if rng.random() < 0.5 else deliver.one(update))
        await asyncio.gather(*posts)
        await deliver.settle()
        # Three cancel (the waiting message's button) through either instance, twice each.
        for player in PLAYERS:
            if player["id"] not in cancelling:
                continue
            waiting = [m for m in fake.bot_messages(player["id"]) if "'qc'" in str(m.reply_markup)]
            if waiting:
                fake.tap(player, waiting[-1], "qc")
                await deliver.both(last_update(fake))
        await deliver.settle()

    # Both instances' rounds pair whoever is left; wait until nobody pairable waits.
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if len(await queued(engine)) <= 1:
            break
        await asyncio.sleep(0.2)  # the queue is in the database: polled
    games = await stranger_games(engine)
    assert len(games) >= (len(PLAYERS) - len(cancelling)) // 2
    seats = Counter(p for g in games for p in (g.x_player_id, g.o_player_id))
    assert all(g.x_player_id != g.o_player_id for g in games)
    assert all(count == 1 for count in seats.values()), seats
    left = await queued(engine)
    assert len(left) <= 1 and not set(left) & set(seats)
    # Everyone is in a game, in the queue, or cancelled in time; each player of a game has
    # exactly one board in their private chat, once both boards are posted.
    everyone = {p["id"] for p in PLAYERS}
    assert everyone - set(seats) - set(left) <= cancelling
    await fake.wait_until(
        lambda: all(boards_in(fake, player) == 1 for player in seats),
        timeout=WAIT,
        what="both boards of every game",
    )

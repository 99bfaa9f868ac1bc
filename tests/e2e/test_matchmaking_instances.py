"""Two bot processes in webhook mode share one queue: players look for strangers through
either instance, many /play delivered to both at once (Telegram retrying), some cancelled
at once through the other instance; both instances pair in their own rounds. Nobody is paired
twice or with themselves, each paired player gets exactly one board, and nobody who could be
paired is left waiting. (See tests/e2e/test_instances.py for the two instances.)"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.engine import create_session_factory
from bot.games.db.models import Game, QueueEntry
from bot.locales import en
from tests.e2e.test_instances import (
    STOP_WAIT,
    WAIT,
    Delivery,
    Instance,
    instances,
    last_update,
)
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


@pytest.fixture
async def short_wait_instances(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> AsyncIterator[tuple[Instance, Instance]]:
    """Two instances whose queue lets a player go after 3 s of waiting for nobody."""
    pair = (
        Instance("a", telegram, tmp_path, database_url),
        Instance("b", telegram, tmp_path, database_url),
    )
    for instance in pair:
        instance.env["QUEUE_WAIT_SECONDS"] = "3"
    try:
        await asyncio.gather(*(instance.start() for instance in pair))
        await asyncio.gather(*(instance.wait_listening() for instance in pair))
        yield pair
    finally:
        for instance in pair:
            if instance.proc is not None:
                await instance.stop(signal.SIGTERM, STOP_WAIT, exited_ok=True)


async def test_two_instances_never_pair_a_player_who_blocked_or_walked_away(
    telegram: FakeTelegram,
    short_wait_instances: tuple[Instance, Instance],
    engine: AsyncEngine,
) -> None:
    fake = telegram
    ann, ben, cid = PLAYERS[0], PLAYERS[1], PLAYERS[2]
    async with aiohttp.ClientSession() as http:
        a, b = short_wait_instances
        # Ann looks through one instance and blocks the bot through the other.
        fake.send_text(ann, "/play")
        await a.post(http, last_update(fake))
        await Delivery(short_wait_instances, http).settle()
        fake.membership_changed(FakeTelegram.private_chat(ann), ann, "member", "kicked")
        await b.post(http, last_update(fake))
        await Delivery(short_wait_instances, http).settle()
        # Ben looks: never paired with Ann; he waits, told so, until the limit lets him go.
        fake.send_text(ben, "/play")
        await a.post(http, last_update(fake))
        await Delivery(short_wait_instances, http).settle()
        (waiting,) = [m for m in fake.bot_messages(ben["id"]) if m.text.startswith("🔎")]
        await fake.wait_until(
            lambda: fake.bot_messages(ben["id"])[0].text == en.count("QUEUE_TIMED_OUT", 1),
            timeout=WAIT,
            what="Ben's wait let go",
        )
        assert await stranger_games(engine) == [] and await queued(engine) == []
        # Cid then finds nobody (Ann blocked, Ben gone) and waits.
        fake.send_text(cid, "/play")
        await b.post(http, last_update(fake))
        await Delivery(short_wait_instances, http).settle()
        assert fake.last_bot_message(cid["id"]).text.startswith("🔎")
        assert await stranger_games(engine) == []
    assert waiting.message_id == fake.bot_messages(ben["id"])[0].message_id

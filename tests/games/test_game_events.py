"""A game's life as events (`bot.games.events`), told by the store after each commit: what
each change says, once, in order per game; a change rolled back says nothing."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import cast

import pytest

from bot.games.db import store
from bot.games.event_stream import EventStream
from bot.games.events import GameEnded, GameEvent, GameMoved, GameStarted, SeatsTaken
from bot.games.model import BoardRef, EndReason, GameView, PlayerInfo
from bot.games.play import lifecycle
from bot.games.use_cases import Games
from core.board import X

ALICE = PlayerInfo(1001, "Alice", "en")
BOB = PlayerInfo(1002, "Bob", "en")
GROUP = -100700
HERE = BoardRef(chat_id=GROUP)


def record(games: Games) -> list[GameEvent]:
    heard: list[GameEvent] = []

    async def hear(event: GameEvent) -> None:
        heard.append(event)

    for kind in (GameStarted, SeatsTaken, GameMoved, GameEnded):
        games.store.events.subscribe(kind, hear)
    return heard


def told(heard: list[GameEvent], game_id: int) -> list[tuple[str, int]]:
    return [(type(e).__name__, e.game.version) for e in heard if e.game.id == game_id]


async def test_a_challenge_taken_played_and_resigned_is_told_once_each_in_order(
    games: Games,
) -> None:
    heard = record(games)
    challenge = await games.challenges.create(GROUP, ALICE)
    joined = await games.challenges.join(challenge.id, HERE, BOB)
    assert joined.game is not None
    moved = await games.play.tap(challenge.id, HERE, ALICE, joined.game.ply, 4)
    assert moved.game is not None
    resigned = await games.resigning.resign(challenge.id, HERE, BOB)
    assert resigned.played and resigned.game is not None
    await games.store.events.idle()
    assert told(heard, challenge.id) == [
        ("GameStarted", 1),
        ("SeatsTaken", 2),
        ("GameMoved", 2),
        ("GameMoved", 3),
        ("GameEnded", 4),
    ]
    _, seated, _, _, ended = [e for e in heard if e.game.id == challenge.id]
    assert isinstance(seated, SeatsTaken) and seated.players == (BOB.id,)
    assert isinstance(ended, GameEnded) and ended.reason is EndReason.RESIGNED
    # The ending carries the game as stored by it: won by the one left.
    assert ended.game.result == X and ended.game.version == 4


async def test_a_refused_move_and_a_repeated_resignation_say_nothing(games: Games) -> None:
    challenge = await games.challenges.create(GROUP, ALICE)
    joined = await games.challenges.join(challenge.id, HERE, BOB)
    assert joined.game is not None
    heard = record(games)
    # Bob out of turn; then Bob resigns twice: one ending.
    refused = await games.play.tap(challenge.id, HERE, BOB, joined.game.ply, 4)
    assert not refused.played
    await games.resigning.resign(challenge.id, HERE, BOB)
    again = await games.resigning.resign(challenge.id, HERE, BOB)
    assert not again.played
    await games.store.events.idle()
    assert [name for name, _ in told(heard, challenge.id)] == ["GameEnded"]


async def test_a_match_game_ending_tells_the_ending_then_the_next_game(games: Games) -> None:
    heard = record(games)
    challenge = await games.challenges.create(GROUP, ALICE, best_of=3)
    joined = await games.challenges.join(challenge.id, HERE, BOB)
    assert joined.game is not None
    await games.resigning.resign(challenge.id, HERE, BOB)
    await games.store.events.idle()
    endings = [e for e in heard if isinstance(e, GameEnded)]
    assert [e.game.id for e in endings] == [challenge.id]
    following = [e for e in heard if isinstance(e, GameStarted) and e.game.id != challenge.id]
    assert len(following) == 1 and following[0].game.match_id == endings[0].game.match_id


async def test_a_rolled_back_change_says_nothing(games: Games) -> None:
    challenge = await games.challenges.create(GROUP, ALICE)
    heard = record(games)
    loaded = games.store.live.get(challenge.id)
    assert loaded is not None
    with pytest.raises(RuntimeError):
        async with games.store.transaction() as transaction:
            await store.save(transaction, loaded, lifecycle.shut(loaded.view))
            raise RuntimeError("rolled back")
    await games.store.events.idle()
    assert heard == []


async def test_events_reach_listeners_in_order_per_game_and_a_slow_game_holds_up_no_other() -> None:
    stream = EventStream()
    gate = asyncio.Event()
    heard: list[tuple[int, int]] = []

    async def hear(event: GameMoved) -> None:
        if event.game.id == 1:
            await gate.wait()  # game 1's listener waits (a busy group's pace)
        heard.append((event.game.id, event.game.version))

    stream.subscribe(GameMoved, hear)
    stream.publish([GameMoved(_view(1, 1)), GameMoved(_view(2, 1)), GameMoved(_view(1, 2))])
    stream.publish([GameMoved(_view(2, 2))])
    await asyncio.sleep(0)
    for _ in range(5):
        await asyncio.sleep(0)
    assert heard == [(2, 1), (2, 2)]  # game 2 went on while game 1 waited
    assert stream.pending == 1
    gate.set()
    await stream.idle()
    assert heard == [(2, 1), (2, 2), (1, 1), (1, 2)]
    assert stream.pending == 0


async def test_a_failing_listener_is_logged_and_the_others_still_hear(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stream = EventStream()
    heard: list[int] = []

    async def fails(event: GameEnded) -> None:
        raise ValueError("a listener's bug")

    async def hears(event: GameEnded) -> None:
        heard.append(event.game.version)

    stream.subscribe(GameEnded, fails)
    stream.subscribe(GameEnded, hears)
    stream.publish([GameEnded(_view(7, 3)), GameEnded(_view(7, 4))])
    await stream.idle()
    assert heard == [3, 4]
    assert caplog.text.count("a listener of game 7 failed") == 2


async def test_closing_cuts_a_stuck_listener_short() -> None:
    stream = EventStream()

    async def stuck(event: GameStarted) -> None:
        await asyncio.Event().wait()

    stream.subscribe(GameStarted, stuck)
    stream.publish([GameStarted(_view(9, 1))])
    await stream.close(timeout=0.05)
    assert stream.pending == 0


def _view(game_id: int, version: int) -> GameView:
    # The stream reads a game's id alone (and a listener here its version).
    return cast(GameView, SimpleNamespace(id=game_id, version=version))


async def test_an_event_nobody_hears_starts_no_task() -> None:
    stream = EventStream()

    async def hear(event: GameEnded) -> None:
        pass

    stream.subscribe(GameEnded, hear)
    stream.publish([GameMoved(_view(3, 2))])
    assert stream.pending == 0
    stream.publish([GameEnded(_view(3, 3))])
    assert stream.pending == 1
    await stream.idle()


async def test_forget_ends_a_game_as_it_is_stored_without_the_name(games: Games) -> None:
    # Shrunk from a journey: the ending's board named the player who had just used /forget,
    # while the stored game (names come from the players' rows) no longer did.
    challenge = await games.challenges.create(GROUP, ALICE)
    await games.challenges.join(challenge.id, HERE, BOB)
    heard = record(games)
    await games.privacy.forget(BOB)
    await games.store.events.idle()
    (ended,) = [e for e in heard if isinstance(e, GameEnded)]
    stored = await games.store.get_game(challenge.id)
    assert stored is not None and ended.reason is EndReason.FORGOTTEN
    assert (ended.game.x_name, ended.game.o_name) == (stored.x_name, stored.o_name)
    assert ended.game.o_name is None and ended.game.o_player_id is None

"""Two bot processes in webhook mode share one database; the tests deliver the updates of the
same games alternately to both: no move is lost, applied twice, or applied out of turn.

Both instances are real `python -m bot` processes (WEBHOOK_URL set, each on a port of its own,
the same secret and the same DATABASE_URL: a SQLite file, or PostgreSQL with
TEST_DATABASE_URL) talking to one fake Bot API server. Updates are built by the fake's helpers
(`send_text`, `tap`) exactly as Telegram would send them, then POSTed by the test, as a load
balancer in front of two instances would: one update to one instance, alternating, plus
duplicates (the same update to both at once, as when Telegram retries a delivery that timed
out; about one update in five) and races (two different taps on one game at the same moment,
each to another instance). A duplicate acts once: whichever instance claims its update id
first handles it, the other skips it.

An instance logs `update <id> … handled in …` when it is done with an update; the tests wait
for those lines, then check the database (the moves table) and the fake (answers and boards).
"""

from __future__ import annotations

import asyncio
import itertools
import random
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.engine import create_session_factory
from bot.games.db.models import Game, Move
from bot.locales import en
from core.board import Board
from core.notation import format_cells, parse_cells
from core.rules import play
from tests.support.chat import board_cells, cell_data, successful_answers
from tests.support.fake_telegram import FakeTelegram, StoredMessage
from tests.support.processes import WebhookBot, post_update

# Every test here runs `python -m bot` (or its script) as a process.
pytestmark = pytest.mark.process

SECRET = "shared_Secret-of-both-instances"
WAIT = 20.0  # generous: a wait only takes this long when something is broken
STOP_WAIT = 10.0

GROUP = FakeTelegram.group_chat(-100777, "Two instances")
ALICE = FakeTelegram.user(1001, "Alice")  # two players on one phone
BOB = FakeTelegram.user(1002, "Bob", username="bob")  # joins Carol's challenge: plays O
CAROL = FakeTelegram.user(1003, "Carol", username="carol")  # challenges the group: plays X
DAVE = FakeTelegram.user(1004, "Dave")  # two players on one phone
EVE = FakeTelegram.user(1005, "Eve")  # against the hard AI

#: Pop-ups a refused tap may get in these games.
REFUSALS = {
    en.POPUP_STALE,
    en.POPUP_CONFLICT,
    en.POPUP_OCCUPIED,
    en.POPUP_NOT_YOUR_TURN,
    en.POPUP_GAME_OVER,
}


class Instance(WebhookBot):
    """`python -m bot` in webhook mode on a port of its own, in a folder of its own."""

    def __init__(self, name: str, fake: FakeTelegram, tmp_path: Path, database_url: str) -> None:
        (tmp_path / name).mkdir()
        super().__init__(fake, tmp_path / name, database_url, SECRET, name=name)
        self.posted: set[int] = set()

    def __repr__(self) -> str:
        return f"<instance {self.name} :{self.port}>"

    async def post(self, http: aiohttp.ClientSession, update: dict[str, Any]) -> None:
        """Deliver an update the way Telegram does (with the secret header)."""
        status = await post_update(self.url, update, self.secret, http)
        assert status == 200, (self, status)
        self.posted.add(update["update_id"])


@pytest.fixture
def database_url(empty_database_url: str) -> str:
    """Both instances start on an empty database and migrate it at the same moment."""
    return empty_database_url


@pytest.fixture
async def instances(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> AsyncIterator[tuple[Instance, Instance]]:
    """Two instances started at the same moment on one fresh database (both migrate it)."""
    pair = (
        Instance("a", telegram, tmp_path, database_url),
        Instance("b", telegram, tmp_path, database_url),
    )
    try:
        await asyncio.gather(*(instance.start() for instance in pair))
        await asyncio.gather(*(instance.wait_listening() for instance in pair))
        yield pair
    finally:
        codes = []
        for instance in pair:
            if instance.proc is not None:
                codes.append(await instance.stop(signal.SIGTERM, STOP_WAIT, exited_ok=True))
        assert codes == [0, 0], "\n".join(instance.tail() for instance in pair)


# --- the games -------------------------------------------------------------------------------


@dataclass
class Tracked:
    """A game followed through the test: where its board is and who plays which side."""

    name: str
    chat: dict[str, Any]
    x: dict[str, Any]
    o: dict[str, Any] | None  # None: the AI
    #: How the taps of a round reach the instances (round number → style); "one" otherwise.
    plan: dict[int, str] = field(default_factory=dict)
    board: StoredMessage | None = None
    game_id: int | None = None
    human_moves: int = 0

    def player_of(self, mark: str) -> int | None:
        player = self.x if mark == "X" else self.o
        return None if player is None else player["id"]


def last_update(fake: FakeTelegram) -> dict[str, Any]:
    """The update the fake's helper just built (the fake never serves it: webhook mode)."""
    return dict(fake.updates[-1])


async def stored(engine: AsyncEngine, game_id: int) -> tuple[Game, list[Move]]:
    async with create_session_factory(engine)() as session:
        game = await session.get(Game, game_id)
        assert game is not None
        moves = await session.scalars(select(Move).where(Move.game_id == game_id).order_by(Move.id))
        return game, list(moves)


async def assert_moves_in_order(engine: AsyncEngine, game: Tracked) -> tuple[Game, list[Move]]:
    """Plies 1..n without gaps or duplicates, marks X, O, X … each by the player of that side
    (None for the AI), every move on a free cell, and the stored board is what they make."""
    assert game.game_id is not None
    row, moves = await stored(engine, game.game_id)
    assert sorted(m.ply for m in moves) == list(range(1, len(moves) + 1)), (game.name, moves)
    board = Board.empty()
    for move in sorted(moves, key=lambda m: m.ply):
        mark = "X" if move.ply % 2 else "O"
        assert move.mark == mark, (game.name, move.ply, move.mark)
        assert move.player_id == game.player_of(mark), (game.name, move.ply, move.player_id)
        assert move.cell in board.free_cells(), (game.name, move.ply, move.cell)
        board = play(board, move.cell)
    assert row.board == format_cells(board), game.name
    return row, moves


async def until_board_shown(fake: FakeTelegram, game: Tracked, row: Game) -> None:
    """The board shows the stored game soon: the instance that handled the move may have
    found the board claimed by the other, which was still drawing it (`bot.games.db.outbox`),
    and draws it a moment later."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            assert_board_shown(fake, game, row)
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.05)


def assert_board_shown(fake: FakeTelegram, game: Tracked, row: Game) -> None:
    """The board message shows exactly the stored board (and, while the game runs, its cells
    carry the stored move number)."""
    assert game.board is not None and game.board.key is not None
    assert row.message_id == game.board.message_id, game.name
    shown = fake.messages[game.board.key]
    assert board_cells(fake, shown) == row.board, (game.name, shown.text)
    if row.status == "active":
        ply = sum(1 for c in row.board if c != "_")
        assert cell_data(fake, shown, 0) == f"m:{row.id}:{ply}:0", game.name


# --- delivery --------------------------------------------------------------------------------


class Delivery:
    """Posts updates to the two instances: alternately, or to both at once."""

    def __init__(self, pair: tuple[Instance, Instance], http: aiohttp.ClientSession) -> None:
        self.pair = pair
        self.http = http
        self.turns = itertools.cycle(pair)
        self.duplicated: set[str] = set()  # query ids delivered to both instances

    def next(self) -> Instance:
        return next(self.turns)

    async def one(self, update: dict[str, Any]) -> None:
        await self.next().post(self.http, update)

    async def both(self, update: dict[str, Any]) -> None:
        """The same update to both instances at the same moment."""
        if "callback_query" in update:
            self.duplicated.add(update["callback_query"]["id"])
        await asyncio.gather(*(instance.post(self.http, update) for instance in self.pair))

    async def split(self, first: dict[str, Any], second: dict[str, Any]) -> None:
        """Two different updates at the same moment, each to another instance."""
        a, b = self.next(), self.next()
        await asyncio.gather(a.post(self.http, first), b.post(self.http, second))

    async def settle(self) -> None:
        """Until every instance has handled every update posted to it."""
        deadline = time.monotonic() + WAIT
        while True:
            missing = {i.name: sorted(i.posted - i.handled()) for i in self.pair}
            if not any(missing.values()):
                return
            if time.monotonic() > deadline:
                tails = "\n".join(instance.tail() for instance in self.pair)
                raise AssertionError(f"updates not handled: {missing}\n{tails}")
            await asyncio.sleep(0.02)


# --- the test --------------------------------------------------------------------------------


async def test_two_instances_share_the_games_without_losing_or_doubling_a_move(
    telegram: FakeTelegram, instances: tuple[Instance, Instance], engine: AsyncEngine
) -> None:
    fake = telegram
    async with aiohttp.ClientSession() as http:
        deliver = Delivery(instances, http)
        # Styles: "dup" the same tap to both instances at once; "race" the player to move
        # taps two cells at once, one tap to each instance; "other" the player to move and the
        # other player tap at once, one tap to each instance; "typed" the move typed, to both
        # instances at once; "one" a tap to the next instance (or, one time in five, "dup").
        private = FakeTelegram.private_chat
        alice = Tracked(
            "alice, one phone", private(ALICE), ALICE, ALICE, {1: "dup", 3: "race", 4: "typed"}
        )
        dave = Tracked("dave, one phone", private(DAVE), DAVE, DAVE, {0: "dup", 2: "race"})
        group = Tracked("carol vs bob", GROUP, CAROL, BOB, {1: "other", 2: "race", 4: "dup"})
        hard = Tracked("eve vs hard", private(EVE), EVE, None, {0: "typed", 1: "dup", 2: "race"})
        games = [alice, dave, group, hard]

        # Four games started at once, the commands spread over both instances; two of them
        # reach both instances: each still posts one board.
        starts = [(alice, "/start user user", deliver.one), (dave, "/start user user", deliver.one)]
        starts += [(group, "/challenge", deliver.both), (hard, "/start hard", deliver.both)]
        for game, text, post in starts:
            fake.send_text(game.x, text, chat=game.chat)
            await post(last_update(fake))
        await deliver.settle()
        for game in games:
            [game.board] = fake.bot_messages(game.chat["id"])
            game.game_id = int(fake.keyboard(game.board)[0][0][1].split(":")[1])

        # Bob's Join reaches both instances at once: he joins once, as O.
        join = next(d for row in fake.keyboard(group.board) for _, d in row if d.startswith("j:"))
        fake.tap(BOB, group.board, join)
        join_update = last_update(fake)
        await deliver.both(join_update)
        await deliver.settle()
        [joined] = successful_answers(fake, join_update["callback_query"]["id"])
        assert joined.get("text") in (en.POPUP_JOINED.format(mark="⭕"), en.POPUP_STALE), joined
        row, _ = await assert_moves_in_order(engine, group)
        assert (row.status, row.x_player_id, row.o_player_id) == ("active", CAROL["id"], BOB["id"])
        # The challenge's posting holds its claim until its mark: the instance that did not
        # post it draws the joined board a moment later.
        key = group.board.key
        await fake.wait_until(lambda: "m:" in str(fake.messages[key].reply_markup), WAIT)  # type: ignore[index]
        await until_board_shown(fake, group, row)

        rng = random.Random(20_240_611)
        for round_number in range(9):
            rows = {g.name: (await assert_moves_in_order(engine, g))[0] for g in games}
            running = [g for g in games if rows[g.name].status == "active"]
            if not running:
                break
            posts = []
            for game in running:
                row = rows[game.name]
                assert game.board is not None
                board = fake.messages[game.board.key]  # type: ignore[index]
                free = parse_cells(row.board).free_cells()
                ply = 9 - len(free)
                mover = game.x if ply % 2 == 0 else game.o
                other = game.o if ply % 2 == 0 else game.x
                assert mover is not None
                a, b = rng.sample(free, 2) if len(free) > 1 else (free[0], free[0])
                style = game.plan.get(round_number, "one")
                if style == "race" and a == b:
                    style = "one"
                if style == "one" and rng.random() < 0.2:
                    style = "dup"
                if style == "typed":
                    # A typed move (row, column), delivered to both instances.
                    fake.send_text(mover, f"{a // 3 + 1} {a % 3 + 1}", chat=game.chat)
                    posts.append(deliver.both(last_update(fake)))
                    continue
                fake.tap(mover, board, cell_data(fake, board, a))
                first_update = last_update(fake)
                if style == "one":
                    posts.append(deliver.one(first_update))
                elif style == "dup":
                    posts.append(deliver.both(first_update))
                else:
                    # Another tap at the same moment, on the other instance: the same player
                    # on another cell (race), or the player not to move (other).
                    tapper = other if style == "other" and other is not None else mover
                    fake.tap(tapper, board, cell_data(fake, board, b))
                    posts.append(deliver.split(first_update, last_update(fake)))
            await asyncio.gather(*posts)
            await deliver.settle()

            # Exactly one human move per game and round, and the board shows it.
            for game in running:
                row, moves = await assert_moves_in_order(engine, game)
                humans = sum(1 for m in moves if m.player_id is not None)
                assert humans == game.human_moves + 1, (game.name, round_number, moves)
                game.human_moves = humans
                await until_board_shown(fake, game, row)

        for game in games:
            row, moves = await assert_moves_in_order(engine, game)
            assert row.status == "finished", (game.name, row.status, row.board)
            await until_board_shown(fake, game, row)
        for game in games:
            # One board per game: a duplicated command or move posted nothing twice.
            assert fake.bot_messages(game.chat["id"]) == [fake.messages[game.board.key]]

    # Every tap was answered exactly once, duplicated ones too (the copy that came second was
    # skipped), and Telegram refused nothing.
    assert len(deliver.duplicated) >= 5, deliver.duplicated
    for query_id in fake.callback_queries:
        answers = successful_answers(fake, query_id)
        assert len(answers) == 1, (query_id, answers)
        text = answers[0].get("text")
        assert text in REFUSALS | {None, "", en.POPUP_JOINED.format(mark="⭕")}, text
    assert not [c for c in fake.calls if not c.ok]
    # Both instances did their share.
    for instance in instances:
        assert len(instance.handled()) >= 10, instance.tail()
        log = instance.output
        assert " ERROR " not in log and "Traceback" not in log, instance.tail(80)

"""Stopping and database faults: SIGTERM while an update is in flight, PostgreSQL connections
killed under the bot, and SQLite under a burst of simultaneous taps.

* SIGTERM: `python -m bot` (long polling) is told to stop while the fake Bot API server holds
  back its answer to the edit that shows a move; the process finishes that update, exits 0
  within seconds, and a restarted process goes on with the same board.
* PostgreSQL: the bot's connections are terminated by the server (`pg_terminate_backend`),
  once while idle in the pool (the next tap reconnects: a checkout sees the dropped socket)
  and once in the middle of a move's transaction (the user gets the short apology, the game
  stays exactly as it was, and the next tap works).
* Many taps at once across many games, handled concurrently by the in-process bot: no
  "database is locked" (or any other failure) reaches a user or the error log. This runs on
  the test database: the SQLite file by default, PostgreSQL with TEST_DATABASE_URL.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
import time
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.engine import create_session_factory
from bot.games.db.models import Game, Move
from bot.locales import en
from core.board import Board
from core.notation import format_cells, parse_cells
from core.rules import play
from tests.support.bot_runner import BotRunner, quiesce
from tests.support.chat import board_cells, cell_data, current, game_id_on, successful_answers
from tests.support.fake_telegram import FakeTelegram, StoredMessage
from tests.support.processes import BotProcess, bot_env, bots_done

ALICE = FakeTelegram.user(1001, "Alice")
WAIT = 15.0  # generous: a wait only takes this long when something is broken
STOP_WAIT = 5.0  # SIGTERM to exit: "within a few seconds"
EDIT_DELAY = 1.5  # how long the fake holds back the edit that is in flight at SIGTERM
ERROR_TEXTS = (en.POPUP_ERROR, en.SORRY_ERROR)
POSTGRESQL = os.environ.get("TEST_DATABASE_URL", "").strip().startswith("postgresql")


# --- helpers ---------------------------------------------------------------------------------


async def stored(engine: AsyncEngine, game_id: int) -> tuple[Game, list[Move]]:
    """The game's row and its moves, in ply order, checked: plies 1..n, X first and then in
    turn, every move on a free cell, and the stored board is what the moves make."""
    async with create_session_factory(engine)() as session:
        game = await session.get(Game, game_id)
        assert game is not None
        moves = list(
            await session.scalars(select(Move).where(Move.game_id == game_id).order_by(Move.ply))
        )
    assert [m.ply for m in moves] == list(range(1, len(moves) + 1)), moves
    board = Board.empty()
    for move in moves:
        assert move.mark == ("X" if move.ply % 2 else "O"), (move.ply, move.mark)
        assert move.cell in board.free_cells(), (move.ply, move.cell)
        board = play(board, move.cell)
    assert game.board == format_cells(board)
    return game, moves


def assert_every_query_answered_once(fake: FakeTelegram) -> None:
    for query_id in fake.callback_queries:
        assert len(successful_answers(fake, query_id)) == 1, query_id


async def tap(fake: FakeTelegram, user: dict[str, Any], board: StoredMessage, cell: int) -> dict:
    """Tap a cell of the board as it is now; the answer, once the bot is idle again."""
    query_id = fake.tap(user, board, cell_data(fake, current(fake, board), cell))
    answer = await fake.answer_to(query_id, timeout=WAIT)
    await all_done(fake)
    return answer


async def all_done(fake: FakeTelegram) -> None:
    """Until the bots running against `fake`, as processes or in this one, are done with
    everything sent to them."""
    if getattr(fake, "bot_processes", None):
        await bots_done(fake)
    else:
        await quiesce(fake)


async def new_board(fake: FakeTelegram, user: dict[str, Any], text: str) -> StoredMessage:
    mark = fake.mark()
    fake.send_text(user, text)
    await fake.wait_for("sendMessage", WAIT, since=mark)
    await all_done(fake)
    return fake.last_bot_message(user["id"])


# --- a. SIGTERM with an update in flight -----------------------------------------------------


@pytest.mark.process
async def test_sigterm_finishes_the_update_in_flight_and_a_restart_resumes(
    telegram: FakeTelegram, tmp_path: Path, database_url: str, engine: AsyncEngine
) -> None:
    fake = telegram
    env = bot_env(fake, database_url)
    first = BotProcess(tmp_path, env, "first")
    second = BotProcess(tmp_path, env, "second")
    try:
        since = fake.mark()
        await first.start()
        await first.wait_ready(fake, since)
        board = await new_board(fake, ALICE, "/start user user")
        game_id = game_id_on(fake, board)
        assert not (await tap(fake, ALICE, board, 4)).get("text")

        # The next edit of the board is held back by the fake: the update is in flight.
        edit = fake._edit_message_text
        arrived = asyncio.Event()

        async def slow_edit(params: dict[str, Any]) -> Any:
            fake.register_method("editMessageText", edit)  # just this once
            arrived.set()
            await asyncio.sleep(EDIT_DELAY)
            return edit(params)

        fake.register_method("editMessageText", slow_edit)
        query_id = fake.tap(ALICE, board, cell_data(fake, current(fake, board), 0))
        update_id = fake.updates[-1]["update_id"]
        await asyncio.wait_for(arrived.wait(), WAIT)
        _, moves = await stored(engine, game_id)
        assert [m.cell for m in moves] == [4, 0]  # stored; showing it is what is in flight
        assert update_id not in first.handled()

        code = await first.stop(signal.SIGTERM, STOP_WAIT)
        assert code == 0, first.output
        # It waited for the update in flight: the slow edit was answered, the update handled.
        assert update_id in first.handled(), first.output
        edited = fake.calls_of("editMessageText")[-1]
        assert edited.ok and edited.params["message_id"] == board.message_id, edited
        assert board_cells(fake, current(fake, board)) == "O___X____"
        assert not successful_answers(fake, query_id)[0].get("text")
        for word in ("Traceback", " ERROR ", "CancelledError"):
            assert word not in first.output, first.output

        # A new process goes on with the same board message.
        since = fake.mark()
        await second.start()
        await second.wait_ready(fake, since)
        answer = await tap(fake, ALICE, board, 8)
        assert not answer.get("text"), answer
        row, moves = await stored(engine, game_id)
        assert [m.cell for m in moves] == [4, 0, 8]
        assert row.board == board_cells(fake, current(fake, board)) == "O___X___X"
        code = await second.stop(signal.SIGTERM, STOP_WAIT)
        assert code == 0, second.output
        assert "Traceback" not in second.output and " ERROR " not in second.output, second.output
        assert_every_query_answered_once(fake)
    finally:
        await first.kill()
        await second.kill()


# --- b. PostgreSQL: connections killed under the bot -----------------------------------------


async def connect(database_url: str) -> asyncpg.Connection:
    url = make_url(database_url)
    return await asyncpg.connect(
        host=url.host,
        port=url.port,
        user=url.username,
        password=url.password,
        database=url.database,
    )


# The call stays in the select list: in WHERE the planner may try it on other databases' rows.
TERMINATE_OTHERS = (
    "SELECT pid, pg_terminate_backend(pid) AS ended FROM pg_stat_activity "
    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
)


#: Inside a transaction, the server answers pg_stat_activity from the snapshot it took at the
#: first read (a connection opened since, or a wait begun since, is not in it); this drops it.
CLEAR_SNAPSHOT = "SELECT pg_stat_clear_snapshot()"


async def terminate_others(admin: asyncpg.Connection) -> list[int]:
    """Have the server end every other connection to the test database (the bot's); their
    server processes' ids."""
    await admin.execute(CLEAR_SNAPSHOT)
    rows = await admin.fetch(TERMINATE_OTHERS)
    assert rows and all(row["ended"] for row in rows), "the bot had no connection to kill"
    return [row["pid"] for row in rows]


async def gone(admin: asyncpg.Connection, pids: list[int]) -> None:
    """Until the server processes have exited: `pg_terminate_backend` only signals them, and a
    dropped connection is one whose socket the server has closed (a local server's process
    leaves pg_stat_activity a moment before it exits and its sockets close)."""
    deadline = time.monotonic() + WAIT
    while await admin.fetchval(
        "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1::int[])", pids
    ) or any(running(pid) for pid in pids):
        assert time.monotonic() < deadline, "the server never ended the bot's connections"
        await asyncio.sleep(0.01)


def running(pid: int) -> bool:
    """Whether a process of this machine with this id still runs (False for a zombie, whose
    sockets are closed, and for a server on another machine, which /proc does not show)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(
    not POSTGRESQL,
    reason="needs PostgreSQL: set TEST_DATABASE_URL=postgresql+asyncpg://… (SQLite has no "
    "server connections to lose)",
)
async def test_lost_postgresql_connections_are_replaced_and_a_failed_move_changes_nothing(
    telegram: FakeTelegram,
    bot: BotRunner,
    database_url: str,
    engine: AsyncEngine,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = telegram
    caplog.set_level(logging.INFO)
    board = await new_board(fake, ALICE, "/start user user")
    game_id = game_id_on(fake, board)
    assert not (await tap(fake, ALICE, board, 4)).get("text")

    # 1. The server drops every connection the bot has (idle in its pool): the next tap and
    # the next command get fresh ones (a checkout sees the dropped socket), and nobody notices.
    admin = await connect(database_url)
    try:
        await gone(admin, await terminate_others(admin))
        answer = await tap(fake, ALICE, board, 0)
        assert not answer.get("text"), answer
        mark = fake.mark()
        fake.send_text(ALICE, "/stats")
        await fake.wait_for("sendMessage", WAIT, since=mark)
        await all_done(fake)
        assert fake.last_bot_message(ALICE["id"]).text == en.STATS_EMPTY  # a query that worked
    finally:
        await admin.close()
    row, moves = await stored(engine, game_id)
    assert [m.cell for m in moves] == [4, 0]
    assert board_cells(fake, current(fake, board)) == row.board
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

    # 2. A tap's transaction waits for a row lock of ours; meanwhile the server kills its
    # connection. The move fails: the user gets the short apology, nothing is stored.
    before_row, before_moves = await stored(engine, game_id)
    shown = current(fake, board).edit_count
    admin = await connect(database_url)
    try:
        async with admin.transaction():
            await admin.execute("SELECT id FROM games WHERE id = $1 FOR UPDATE", game_id)
            query_id = fake.tap(ALICE, board, cell_data(fake, current(fake, board), 8))
            deadline = time.monotonic() + WAIT
            while not await admin.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'"
            ):
                await admin.execute(CLEAR_SNAPSHOT)
                assert time.monotonic() < deadline, "the tap never waited for the lock"
                await asyncio.sleep(0.01)
            await terminate_others(admin)
            answer = await fake.answer_to(query_id, timeout=WAIT)
    finally:
        await admin.close()
    await all_done(fake)
    assert answer.get("text") == en.POPUP_ERROR, answer
    after_row, after_moves = await stored(engine, game_id)
    assert (after_row.board, after_row.version, after_row.status) == (
        before_row.board,
        before_row.version,
        before_row.status,
    )
    assert [(m.ply, m.cell) for m in after_moves] == [(m.ply, m.cell) for m in before_moves]
    assert current(fake, board).edit_count == shown  # the board was not touched
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in failures] == [f"update {fake.updates[-1]['update_id']} failed"]

    # 3. A later tap (the same cell, tapped again) works.
    answer = await tap(fake, ALICE, board, 8)
    assert not answer.get("text"), answer
    row, moves = await stored(engine, game_id)
    assert [m.cell for m in moves] == [4, 0, 8]
    assert board_cells(fake, current(fake, board)) == row.board == "O___X___X"
    assert_every_query_answered_once(fake)


# --- c. many simultaneous taps ---------------------------------------------------------------

ONE_PHONE_GAMES = 40
HARD_GAMES = 12
GROUP_GAMES = 12
ROUNDS = 4


async def test_a_burst_of_simultaneous_taps_never_reaches_users_as_an_error(
    both_clocks: str,
    telegram: FakeTelegram,
    bot: BotRunner,
    engine: AsyncEngine,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = telegram
    caplog.set_level(logging.WARNING)
    one_phone = [FakeTelegram.user(3000 + i, f"Solo {i}") for i in range(ONE_PHONE_GAMES)]
    hard = [FakeTelegram.user(4000 + i, f"Brave {i}") for i in range(HARD_GAMES)]
    groups = [FakeTelegram.group_chat(-200_000 - i, f"Group {i}") for i in range(GROUP_GAMES)]
    challengers = [FakeTelegram.user(5000 + i, f"Challenger {i}") for i in range(GROUP_GAMES)]
    joiners = [FakeTelegram.user(6000 + i, f"Joiner {i}") for i in range(GROUP_GAMES)]

    # Every game is started at the same moment.
    for user in one_phone:
        fake.send_text(user, "/start user user")
    for user in hard:
        fake.send_text(user, "/start hard")
    for user, group in zip(challengers, groups, strict=True):
        fake.send_text(user, "/challenge", chat=group)
    games = ONE_PHONE_GAMES + HARD_GAMES + GROUP_GAMES
    await fake.wait_until(lambda: len(fake.calls_of("sendMessage")) >= games, WAIT, "boards")
    await bot.settle(WAIT)
    # (board, players in turn: X then O) per game
    boards: list[tuple[StoredMessage, list[dict[str, Any]]]] = []
    boards += [(fake.last_bot_message(u["id"]), [u, u]) for u in one_phone]
    boards += [(fake.last_bot_message(u["id"]), [u]) for u in hard]
    for challenger, joiner, group in zip(challengers, joiners, groups, strict=True):
        board = fake.last_bot_message(group["id"])
        join = next(d for row in fake.keyboard(board) for _, d in row if d and d.startswith("j:"))
        fake.tap(joiner, board, join)
        boards.append((board, [challenger, joiner]))
    await bot.settle(WAIT)

    rng = random.Random(77)
    for _ in range(ROUNDS):
        # Per running game: the player to move taps two cells at once, and (between two
        # people) the other player taps too. All of it is queued before the bot fetches any.
        expected: dict[int, int] = {}
        for board, players in boards:
            game_id = game_id_on(fake, current(fake, board))
            row, _ = await stored(engine, game_id)
            if row.status != "active":
                continue
            expected[game_id] = sum(1 for c in row.board if c != "_")
            free = parse_cells(row.board).free_cells()
            ply = 9 - len(free)
            mover = players[ply % len(players)]
            other = players[(ply + 1) % len(players)]
            shown = current(fake, board)
            for cell in rng.sample(free, min(2, len(free))):
                fake.tap(mover, shown, cell_data(fake, shown, cell))
            if other is not mover:
                fake.tap(other, shown, cell_data(fake, shown, rng.choice(free)))
        assert expected, "no game left running"
        await bot.settle(WAIT)
        for game_id, ply in expected.items():
            _, moves = await stored(engine, game_id)
            humans = [m for m in moves[ply:] if m.player_id is not None]
            assert len(humans) == 1, (game_id, moves[ply:])  # one of the taps, exactly

    # Every query answered once; no apology anywhere; nothing logged as an error.
    assert_every_query_answered_once(fake)
    texts = [c.params.get("text") for c in fake.calls if c.method != "getUpdates"]
    for text in ERROR_TEXTS:
        assert text not in texts
    assert not [c for c in fake.calls if not c.ok], [c for c in fake.calls if not c.ok][:5]
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not logged, [r.getMessage() for r in logged[:5]]
    assert not [r for r in caplog.records if "locked" in r.getMessage().lower()]
    for board, _ in boards:
        row, _ = await stored(engine, game_id_on(fake, current(fake, board)))
        assert board_cells(fake, current(fake, board)) == row.board

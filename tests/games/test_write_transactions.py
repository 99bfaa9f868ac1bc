"""Write transactions (`Store.transaction`) and their deferred writes (`CoreTransaction.later`),
on the test database (SQLite, or PostgreSQL with TEST_DATABASE_URL): a write whose condition
fails (a stale version, an update claimed already) leaves nothing of its transaction behind,
not even the writes before it; a broken constraint is SQLAlchemy's IntegrityError; writes sent
before a read are seen by it and roll back with its transaction; a tap on a game the store
holds reads nothing; a SQLite file deleted while a transaction runs fails its commit."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.exc import StaleDataError

from bot.games.db import reads, statements, store
from bot.games.db.batch import GuardFailed
from bot.games.db.models import Game, HandledUpdate, Move, Player
from bot.games.db.sqlite_file import UnusableFile
from bot.games.model import (
    BoardRef,
    Claim,
    GameStatus,
    MoveStatus,
    PlayerInfo,
    StartResult,
    UpdateClaim,
)
from bot.games.play.lifecycle import PlayedMove
from bot.games.use_cases import Games

ALICE = PlayerInfo(101, "Alice", "en")
CHAT = 101


async def claimed_ids(games: Games) -> list[int]:
    async with games.store.sessions() as session:
        return list(await session.scalars(select(HandledUpdate.update_id)))


@pytest.fixture
def sent() -> Iterator[list[str]]:
    """What is sent to the database from now on, statement by statement (SQLAlchemy's
    `before_cursor_execute`, on every engine: the store's writes and reads may use two)."""
    statements: list[str] = []

    def log_statement(*args: Any) -> None:
        statements.append(args[2])

    event.listen(Engine, "before_cursor_execute", log_statement)
    yield statements
    event.remove(Engine, "before_cursor_execute", log_statement)


async def stored(games: Games, game_id: int) -> tuple[int, list[int]]:
    async with games.store.sessions() as session:
        version = await session.scalar(select(Game.version).where(Game.id == game_id))
        cells = await session.scalars(
            select(Move.cell).where(Move.game_id == game_id).order_by(Move.ply)
        )
        assert version is not None
        return version, list(cells)


async def test_a_claim_sent_with_a_stale_update_is_rolled_back_with_it(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    async with games.store.sessions() as session:
        loaded = await reads.load(session, game.id)
    assert loaded is not None
    stale = store.Loaded(loaded.view, loaded.version + 5)  # somebody else wrote it since
    after = replace(loaded.view, nudges=1)

    with pytest.raises(StaleDataError):
        async with games.store.transaction() as transaction:
            await store.save(transaction, stale, after, [PlayedMove(1, 4, "X", ALICE.id)])
            games.store.claim_later(transaction, UpdateClaim(900, ALICE.id), guard=True)

    assert await claimed_ids(games) == []  # the claim went with the stale write
    assert await stored(games, game.id) == (loaded.version, [])
    assert (await games.updates.claim(900)).new  # so the update can still be acted on


async def test_an_update_claimed_already_undoes_the_writes_before_its_claim(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    assert (await games.updates.claim(901)).new
    async with games.store.sessions() as session:
        loaded = await reads.load(session, game.id)
    assert loaded is not None
    after = replace(loaded.view, nudges=1)

    with pytest.raises(GuardFailed):
        async with games.store.transaction() as transaction:
            await store.save(transaction, loaded, after, [PlayedMove(1, 4, "X", ALICE.id)])
            games.store.claim_later(transaction, UpdateClaim(901, ALICE.id), guard=True)

    assert await stored(games, game.id) == (loaded.version, [])


async def test_a_broken_constraint_in_a_batch_is_sqlalchemys_integrity_error(
    games: Games,
) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    played = await games.play.tap(game.id, BoardRef(chat_id=CHAT), ALICE, 0, 4)
    assert played.game is not None

    with pytest.raises(IntegrityError):  # what the store answers as a lost race
        async with games.store.transaction() as transaction:
            games.store.claim_later(transaction, UpdateClaim(902, ALICE.id))
            # Ply 1 is stored already.
            store._add_moves(transaction, game.id, [PlayedMove(1, 0, "X", ALICE.id)])

    assert await claimed_ids(games) == []
    assert (await stored(games, game.id))[1] == [4]


async def test_writes_sent_before_a_read_roll_back_with_its_transaction(games: Games) -> None:
    with pytest.raises(RuntimeError):
        async with games.store.transaction() as transaction:
            games.store.claim_later(transaction, UpdateClaim(903, ALICE.id))
            # A read sends the waiting writes first, inside the transaction.
            assert await reads.live_games_in_chat(transaction, CHAT) == []
            raise RuntimeError("the use-case failed after the read")

    assert await claimed_ids(games) == []


async def test_a_lone_deferred_write_is_stored(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    await games.chats.attach_message(game.id, 4242)
    async with games.store.sessions() as session:
        assert await session.scalar(select(Game.message_id).where(Game.id == game.id)) == 4242


async def test_one_update_claimed_for_two_games_at_once_changes_one_of_them(
    games: Games,
) -> None:
    # Forged, or a bug: either way the update acts once. On PostgreSQL the two statements may
    # overlap, and the second claim then breaks the primary key and undoes its whole statement.
    first = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    second = (await games.play.start_game(CHAT + 1, ALICE, "user", "user")).game

    async def move_in(game_id: int) -> None:
        async with games.store.sessions() as session:
            loaded = await reads.load(session, game_id)
        assert loaded is not None
        after = replace(loaded.view, nudges=1)
        async with games.store.transaction() as transaction:
            await store.save(transaction, loaded, after, [PlayedMove(1, 4, "X", ALICE.id)])
            games.store.claim_later(transaction, UpdateClaim(904, ALICE.id), guard=True)

    outcomes = await asyncio.gather(move_in(first.id), move_in(second.id), return_exceptions=True)
    failures = [o for o in outcomes if o is not None]
    assert len(failures) == 1 and isinstance(failures[0], GuardFailed | IntegrityError), outcomes
    changed = [await stored(games, game.id) for game in (first, second)]
    assert sorted(changed) == [(1, []), (2, [4])]
    assert await claimed_ids(games) == [904]


async def test_a_tap_on_a_held_game_reads_nothing(games: Games, sent: list[str]) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "hard")).game
    first = await games.play.tap(game.id, BoardRef(chat_id=CHAT), ALICE, 0, 4)
    assert first.game is not None
    free = first.game.board.free_cells()[0]
    sent.clear()
    claim = UpdateClaim(950, ALICE.id)

    result = await games.play.tap(game.id, BoardRef(chat_id=CHAT), ALICE, 2, free, claim=claim)

    assert result.status is MoveStatus.PLAYED and result.claim is not None and result.claim.new
    # The game's versioned UPDATE, its moves (the tap's and the AI's reply), the claim.
    assert [statement.split()[:3] for statement in sent] == [
        ["UPDATE", "games", "SET"],
        ["INSERT", "INTO", "moves"],
        ["INSERT", "INTO", "handled_updates"],
    ], sent
    assert await claimed_ids(games) == [950]
    assert result.game is not None
    replies = [first.game.last_cell, result.game.last_cell]  # the AI's
    assert await stored(games, game.id) == (3, [4, replies[0], free, replies[1]])


async def test_a_claimed_tap_after_an_undo_of_the_same_columns_is_played(games: Games) -> None:
    # The versioned UPDATE of a set of columns is built once and shared (`statements.update_of`):
    # once an undo had sent it, a claimed tap that changes the same columns must still work.
    # (Fresh caches: as in a bot just started.)
    statements.update_of.cache_clear()
    here = BoardRef(chat_id=CHAT)
    game = (await games.play.start_game(CHAT, ALICE, "user", "hard")).game
    for _ in range(2):  # the second undo changes only what a tap changes (the game is
        # marked assisted already)
        assert (await games.play.tap(game.id, here, ALICE, 0, 4)).status is MoveStatus.PLAYED
        assert (await games.assists.undo(game.id, here, ALICE, 2)).status is MoveStatus.PLAYED

    claim = UpdateClaim(952, ALICE.id)
    result = await games.play.tap(game.id, here, ALICE, 0, 4, claim=claim)

    assert result.status is MoveStatus.PLAYED and result.claim is not None and result.claim.new
    assert await claimed_ids(games) == [952]


async def test_a_new_game_in_a_chat_with_no_live_game_is_stored_as_the_long_way_would(
    games: Games, sent: list[str]
) -> None:
    await games.players.choose_language(ALICE, "de")
    renamed = replace(ALICE, name="Alice\x00 B.", language_code="fr")
    sent.clear()

    claim = UpdateClaim(965, ALICE.id)
    result = await games.play.start_game(CHAT, renamed, "hard", "user", claim=claim)

    # No look for the chat's live games: the game's INSERT is guarded by their absence.
    assert not [statement for statement in sent if statement.startswith("SELECT")], sent
    assert result.claim == Claim(True, "de") and await claimed_ids(games) == [965]
    started = result.game
    assert started is not None
    # As the long way stores it: the player's new name (trimmed of what PostgreSQL cannot
    # hold), the game in the language the player chose, the AI's opening move (it plays X).
    assert started.o_name == "Alice B." and started.language == "de" and started.ply == 1
    assert await games.store.get_game(started.id) == started
    assert await stored(games, started.id) == (1, [started.last_cell])
    async with games.store.sessions() as session:
        player = (await session.execute(select(Player).where(Player.id == ALICE.id))).scalar_one()
        assert (player.name, player.language_code, player.chosen_language) == (
            "Alice B.",
            "fr",
            "de",
        )
    # The store holds it: the first tap reads nothing.
    sent.clear()
    free = started.board.free_cells()[0]
    assert (await games.play.tap(started.id, BoardRef(chat_id=CHAT), ALICE, 1, free)).played
    assert not [statement for statement in sent if statement.startswith("SELECT")], sent


async def test_a_new_game_in_a_chat_with_a_live_game_closes_it(games: Games) -> None:
    first = (await games.play.start_game(CHAT, ALICE, "user", "hard")).game
    elsewhere = (await games.play.start_game(CHAT + 1, ALICE, "user", "hard")).game

    second = await games.play.start_game(CHAT, ALICE, "user", "hard")

    assert [game.id for game in second.closed] == [first.id]
    assert second.closed[0].status is GameStatus.ABANDONED
    assert await games.store.get_game(first.id) == second.closed[0]
    assert second.game.is_active and await games.store.get_game(second.game.id) == second.game
    # Nothing else was stored or closed (the transaction tried first stored nothing: the chat
    # had a live game).
    async with games.store.sessions() as session:
        assert list(await session.scalars(select(Game.id).order_by(Game.id))) == [
            first.id,
            elsewhere.id,
            second.game.id,
        ]
    assert await games.store.get_game(elsewhere.id) == elsewhere


async def test_a_new_game_claims_its_update_and_a_repeat_starts_nothing(games: Games) -> None:
    await games.players.choose_language(ALICE, "de")
    # In a chat with no live game (`start_in_idle_chat`), then in one with a live game.
    for update_id in (970, 971):
        claim = UpdateClaim(update_id, ALICE.id)
        started = await games.play.start_game(CHAT, ALICE, "user", "hard", claim=claim)
        assert started.game is not None and started.claim == Claim(True, "de")
        async with games.store.sessions() as session:
            stored_ids = list(await session.scalars(select(Game.id).order_by(Game.id)))

        again = await games.play.start_game(CHAT, ALICE, "user", "hard", claim=claim)

        assert again == StartResult(None, claim=Claim(False))
        async with games.store.sessions() as session:
            assert list(await session.scalars(select(Game.id).order_by(Game.id))) == stored_ids
        assert await games.store.get_game(started.game.id) == started.game
    assert await claimed_ids(games) == [970, 971]


async def test_writes_go_on_after_the_engine_was_disposed_of(games: Games) -> None:
    # Disposing of an engine closes its connections (on a SQLite file, the writer's too), and
    # an engine disposed of opens new ones when it is used again.
    first = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    await games.store.sessions.kw["bind"].dispose()

    second = (await games.play.start_game(CHAT + 1, ALICE, "user", "user")).game

    assert await games.store.get_game(first.id) == first
    assert await games.store.get_game(second.id) == second


async def test_a_cancelled_transaction_leaves_nothing_behind_for_the_next(games: Games) -> None:
    sent = asyncio.Event()

    async def interrupted() -> None:
        async with games.store.transaction() as transaction:
            games.store.claim_later(transaction, UpdateClaim(905, ALICE.id))
            await reads.live_games_in_chat(transaction, CHAT)  # the claim goes first
            sent.set()
            await asyncio.Event().wait()  # until cancelled (an update's deadline, a shutdown)

    task = asyncio.create_task(interrupted())
    await sent.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert (await games.updates.claim(906)).new  # the next transaction commits its own
    assert await claimed_ids(games) == [906]


@pytest.mark.skipif(
    os.environ.get("TEST_DATABASE_URL", "").startswith("postgresql"), reason="a SQLite file's"
)
async def test_a_file_deleted_while_a_transaction_runs_fails_its_commit(
    games: Games, database_url: str
) -> None:
    # The writer's connection lives on: the check its pool made at checkout is long past.
    database = make_url(database_url).database
    files = [Path(f"{database}{suffix}") for suffix in ("", "-wal", "-shm")]
    with pytest.raises(UnusableFile, match="database file missing"):
        async with games.store.transaction() as transaction:
            games.store.claim_later(transaction, UpdateClaim(907, ALICE.id))
            assert await reads.live_games_in_chat(transaction, CHAT) == []  # the file in use
            for path in files:
                path.unlink(missing_ok=True)


@pytest.mark.skipif(
    os.environ.get("TEST_DATABASE_URL", "").startswith("postgresql"), reason="a SQLite file's"
)
async def test_an_engine_disposed_of_mid_statement_leaves_no_write_lock_behind(
    games: Games, database_url: str
) -> None:
    # The bot stopping while a transaction's statement runs on the writer's thread: the next
    # process (or a restarted bot in this one) must be able to write at once, not in 30 s.
    running = threading.Event()

    def note_start(*_args: Any) -> None:
        running.set()

    async def interrupted() -> None:
        async with games.store.transaction() as transaction:
            games.store.claim_later(transaction, UpdateClaim(908, ALICE.id))  # the write lock
            await transaction.execute(SLOW_COUNT)
            await asyncio.Event().wait()

    engine = games.store.sessions.kw["bind"]
    event.listen(Engine, "before_cursor_execute", note_start)
    try:
        task = asyncio.create_task(interrupted())
        await asyncio.to_thread(running.wait, 10)
        await asyncio.sleep(0.05)  # the slow count is under way
        await engine.dispose()
    finally:
        event.remove(Engine, "before_cursor_execute", note_start)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task

    probe = sqlite3.connect(str(make_url(database_url).database), timeout=0)
    try:
        probe.execute("BEGIN IMMEDIATE")  # "database is locked" if the lock were still held
        probe.rollback()
    finally:
        probe.close()
    assert await claimed_ids(games) == []  # the interrupted claim was rolled back


#: A statement that keeps SQLite busy for a while (a recursive count).
SLOW_COUNT = text(
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) "
    "SELECT count(*) FROM c"
)

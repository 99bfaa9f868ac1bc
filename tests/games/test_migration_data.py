"""Migrations keep existing games: upgrade from every earlier revision with data in it, and
downgrade one step at a time."""

from __future__ import annotations

import asyncio
import random

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from bot.games.db.engine import create_engine, create_session_factory
from bot.games.db.migrate import alembic_config, upgrade_database
from bot.games.db.outbox import Shown
from bot.games.model import BoardRef, MoveStatus, PlayerInfo
from bot.games.public_ids import is_public_id
from bot.games.use_cases import Games, open_games

REVISIONS = ["0001", "0002", "0003"]
ALICE = PlayerInfo(7001, "Alice", "en")
NOW = "2026-01-02 03:04:05"


@pytest.fixture
def database_url(empty_database_url: str) -> str:
    """These tests run the migrations themselves: an empty database."""
    return empty_database_url


async def _execute(database_url: str, *statements: str) -> list[tuple]:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            rows: list[tuple] = []
            for statement in statements:
                result = await connection.execute(text(statement))
                if result.returns_rows:
                    rows.extend(tuple(row) for row in result)
            return rows
    finally:
        await engine.dispose()


async def _migrate(database_url: str, revision: str, *, down: bool = False) -> None:
    config = alembic_config(database_url)
    step = command.downgrade if down else command.upgrade
    await asyncio.to_thread(step, config, revision)


async def _seed_0001(database_url: str) -> None:
    """A finished game Alice lost to hard, and a running game against easy, as 0001 stored
    them."""
    await _execute(
        database_url,
        f"INSERT INTO players (id, name, language_code, created_at, updated_at) "
        f"VALUES ({ALICE.id}, 'Alice', 'en', '{NOW}', '{NOW}')",
        "INSERT INTO games (id, chat_id, message_id, board, x_kind, o_kind, x_player_id, "
        "o_player_id, status, result, end_reason, version, created_at, updated_at) VALUES "
        f"(1, {ALICE.id}, 10, 'XX_OOO_X_', 'user', 'hard', {ALICE.id}, NULL, 'finished', 'O', "
        f"'line', 7, '{NOW}', '{NOW}'), "
        f"(2, {ALICE.id}, 11, 'X___O____', 'user', 'easy', {ALICE.id}, NULL, 'active', NULL, "
        f"NULL, 3, '{NOW}', '{NOW}')",
        "INSERT INTO moves (game_id, ply, cell, mark, player_id, created_at) VALUES "
        f"(2, 1, 0, 'X', {ALICE.id}, '{NOW}'), (2, 2, 4, 'O', NULL, '{NOW}')",
    )


async def _service(database_url: str) -> tuple[Games, object]:
    engine = create_engine(database_url)
    return open_games(create_session_factory(engine), random.Random(3)), engine


@pytest.mark.parametrize("start", REVISIONS[:-1])
async def test_upgrading_from_an_earlier_revision_keeps_games(
    database_url: str, start: str
) -> None:
    await _migrate(database_url, "0001")
    await _seed_0001(database_url)
    if start != "0001":
        await _migrate(database_url, start)
    await asyncio.to_thread(upgrade_database, database_url)
    # Rebuilding `games` (SQLite batch mode) must not cascade into the moves.
    assert await _execute(database_url, "SELECT game_id, ply, cell FROM moves ORDER BY ply") == [
        (2, 1, 0),
        (2, 2, 4),
    ]

    games, engine = await _service(database_url)
    try:
        lost = await games.store.get_game(1)
        assert lost is not None and lost.result == "O" and lost.board.size == 3
        assert (await games.records.stats(ALICE.id)).by_opponent["hard"].losses == 1
        running = await games.store.get_game(2)
        assert running is not None and running.is_active and running.board.k == 3
        # The running game goes on where it was: Alice's move, on the same board message.
        result = await games.play.tap(2, BoardRef(ALICE.id), ALICE, 2, 8)
        assert result.status is MoveStatus.PLAYED
        assert result.game is not None and result.game.message_id == 11
    finally:
        await engine.dispose()  # type: ignore[attr-defined]


async def test_downgrade_one_step_at_a_time_keeps_classic_games(database_url: str) -> None:
    await _migrate(database_url, "0010")
    await _seed_0001(database_url)
    # A 5×5 game exists only from 0003 on; the classic games survive every step down.
    await _execute(
        database_url,
        "INSERT INTO games (id, chat_id, board, size, k, x_kind, o_kind, status, version, "
        f"nudges, created_at, updated_at) VALUES (3, {ALICE.id}, '{'_' * 25}', 5, 4, 'easy', "
        f"'hard', 'active', 1, 0, '{NOW}', '{NOW}')",
    )
    # Seeded as 0010 stored games; the rest of the way up fills in what later ones add.
    await asyncio.to_thread(upgrade_database, database_url)
    for revision in reversed(["base", *REVISIONS[:-1]]):
        await _migrate(database_url, revision, down=True)
        if revision == "base":
            break
        rows = await _execute(database_url, "SELECT id, board, status FROM games ORDER BY id")
        assert rows == [(1, "XX_OOO_X_", "finished"), (2, "X___O____", "active")], revision
        moves = await _execute(database_url, "SELECT COUNT(*) FROM moves")
        assert moves == [(2,)]
    tables = await _execute(
        database_url,
        "SELECT COUNT(*) FROM alembic_version",
    )
    assert tables == [(0,)]
    # And back up again from nothing.
    await asyncio.to_thread(upgrade_database, database_url)


async def test_0006_keeps_classic_games_both_ways_and_drops_ultimate_ones_going_down(
    database_url: str,
) -> None:
    await _migrate(database_url, "0005")
    await _seed_0001(database_url)
    await _migrate(database_url, "0006")
    # Games stored before 0006 were played without help, and are classic.
    assert await _execute(
        database_url, "SELECT id, assisted, variant, last_cell FROM games ORDER BY id"
    ) == [(1, False, "classic", None), (2, False, "classic", None)]
    # An assisted classic game and an ultimate game (81 cells: wider than 0005's column).
    await _execute(
        database_url,
        "UPDATE games SET assisted = TRUE WHERE id = 2",
        "INSERT INTO games (id, chat_id, board, size, k, x_kind, o_kind, status, version, "
        f"nudges, variant, last_cell, created_at, updated_at) VALUES (3, {ALICE.id}, "
        f"'X{'_' * 80}', 9, 3, 'user', 'hard', 'active', 1, 0, 'ultimate', 0, '{NOW}', '{NOW}')",
        "INSERT INTO moves (game_id, ply, cell, mark, player_id, created_at) VALUES "
        f"(3, 1, 0, 'X', {ALICE.id}, '{NOW}')",
    )
    assert await _execute(database_url, "SELECT assisted FROM games WHERE id = 2") == [(True,)]

    await _migrate(database_url, "0005", down=True)
    rows = await _execute(database_url, "SELECT id, board, status FROM games ORDER BY id")
    assert rows == [(1, "XX_OOO_X_", "finished"), (2, "X___O____", "active")]
    assert await _execute(database_url, "SELECT game_id, ply FROM moves ORDER BY ply") == [
        (2, 1),
        (2, 2),
    ]
    await _migrate(database_url, "0006")
    assert await _execute(database_url, "SELECT id, assisted FROM games ORDER BY id") == [
        (1, False),
        (2, False),
    ]


async def test_0007_keeps_two_player_games_both_ways_and_drops_bigger_ones_going_down(
    database_url: str,
) -> None:
    await _migrate(database_url, "0006")
    await _seed_0001(database_url)
    await _migrate(database_url, "0007")
    assert await _execute(
        database_url, "SELECT id, seats, t_player_id, out, turn_mark FROM games ORDER BY id"
    ) == [(1, 2, None, "", None), (2, 2, None, "", None)]
    await _execute(
        database_url,
        "INSERT INTO games (id, chat_id, board, size, k, x_kind, o_kind, x_player_id, "
        "t_player_id, seats, turn_mark, status, version, nudges, created_at, updated_at) "
        f"VALUES (3, -100, 'X{'_' * 35}', 6, 4, 'user', 'user', {ALICE.id}, {ALICE.id}, 3, "
        f"'O', 'active', 1, 0, '{NOW}', '{NOW}')",
        "INSERT INTO moves (game_id, ply, cell, mark, player_id, created_at) VALUES "
        f"(3, 1, 0, 'X', {ALICE.id}, '{NOW}')",
    )
    await _migrate(database_url, "head")  # the service reads today's schema
    games, engine = await _service(database_url)
    try:
        three = await games.store.get_game(3)
        assert three is not None and three.marks == ("X", "O", "T") and three.to_move == "O"
        assert three.t_name == "Alice"
    finally:
        await engine.dispose()  # type: ignore[attr-defined]

    await _migrate(database_url, "0006", down=True)
    rows = await _execute(database_url, "SELECT id, board, status FROM games ORDER BY id")
    assert rows == [(1, "XX_OOO_X_", "finished"), (2, "X___O____", "active")]
    assert await _execute(database_url, "SELECT COUNT(*) FROM moves WHERE game_id = 3") == [(0,)]


async def test_0008_takes_stored_boards_as_showing_their_games(database_url: str) -> None:
    await _migrate(database_url, "0007")
    await _seed_0001(database_url)
    await _migrate(database_url, "0008")
    # Nothing to redraw at the upgrade: no board is behind its game.
    assert await _execute(
        database_url, "SELECT id, version, shown_version FROM games ORDER BY id"
    ) == [(1, 7, 7), (2, 3, 3)]
    await _migrate(database_url, "head")  # the bot of today on the boards 0008 left
    games, engine = await _service(database_url)
    try:
        assert await games.outbox.behind() == {}
        result = await games.play.tap(2, BoardRef(ALICE.id), ALICE, 2, 8)
        assert result.status is MoveStatus.PLAYED
        # The move is committed, its board not drawn yet: behind until marked shown.
        behind = await games.outbox.behind()
        assert list(behind) == [2] and behind[2].version > 3
        await games.outbox.mark_shown([Shown(2, behind[2].version)])
        assert await games.outbox.behind() == {}
    finally:
        await engine.dispose()  # type: ignore[attr-defined]
    await _migrate(database_url, "0007", down=True)
    assert await _execute(database_url, "SELECT id, version FROM games ORDER BY id") == [
        (1, 7),
        (2, behind[2].version),
    ]


async def test_0013_gives_every_game_its_own_random_public_id_and_takes_it_away_going_down(
    database_url: str,
) -> None:
    await _migrate(database_url, "0010")
    await _seed_0001(database_url)
    await _migrate(database_url, "0013")
    rows = await _execute(database_url, "SELECT id, public_id FROM games ORDER BY id")
    assert [game_id for game_id, _ in rows] == [1, 2]
    public_ids = [public_id for _, public_id in rows]
    assert all(is_public_id(public_id) for public_id in public_ids), public_ids
    assert len(set(public_ids)) == 2
    await _migrate(database_url, "head")  # the service runs on the newest schema
    games, engine = await _service(database_url)
    try:
        running = await games.store.get_game(2)
        assert running is not None and running.public_id == public_ids[1]
        result = await games.play.tap(2, BoardRef(ALICE.id), ALICE, 2, 8)
        assert result.status is MoveStatus.PLAYED
        assert result.game is not None and result.game.public_id == public_ids[1]
        after = await games.store.get_game(2)
        assert after is not None
        running_after = "".join(after.board.cells).replace(" ", "_")
    finally:
        await engine.dispose()  # type: ignore[attr-defined]
    with pytest.raises(IntegrityError):  # two games never share one
        await _execute(database_url, f"UPDATE games SET public_id = '{public_ids[0]}' WHERE id = 2")
    await _migrate(database_url, "0010", down=True)
    # The AI answered Alice's move: the games are as they were, only without a public id.
    rows = await _execute(database_url, "SELECT id, board FROM games ORDER BY id")
    assert rows == [(1, "XX_OOO_X_"), (2, running_after)]

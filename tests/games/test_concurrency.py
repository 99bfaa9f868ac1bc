"""Races: taps on the same game at the same moment, many times over.

Whatever the interleaving, exactly one of two competing moves is applied, the other tap is
answered with a pop-up, the move table never has two moves with the same ply, and the stored
board is exactly the board the stored moves make. Runs on the use-cases directly (`asyncio.gather`)
and on the whole bot, which handles updates concurrently.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.games.db import reads, store
from bot.games.db.engine import create_engine, create_session_factory
from bot.games.db.migrate import upgrade_database
from bot.games.db.models import Game, Move
from bot.games.model import BoardRef, Claim, MoveResult, MoveStatus, PlayerInfo, UpdateClaim
from bot.games.use_cases import Games, open_games
from core.board import Board
from core.notation import format_cells
from core.rules import play
from tests.support.bot_runner import BotRunner, quiesce
from tests.support.chat import assert_every_query_answered
from tests.support.fake_telegram import FakeTelegram, StoredMessage

GAMES = 30
ALICE = PlayerInfo(1001, "Alice", "en", "alice")
BOB = PlayerInfo(1002, "Bob", "en", "bob")
CAROL = PlayerInfo(1003, "Carol", "en", "carol")
GROUP_ID = -100500


@dataclass
class Db:
    games: Games
    sessions: async_sessionmaker[AsyncSession]


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Db]:
    await asyncio.to_thread(upgrade_database, database_url)
    engine = create_engine(database_url)
    try:
        sessions = create_session_factory(engine)
        yield Db(open_games(sessions, random.Random(11)), sessions)
    finally:
        await engine.dispose()


async def assert_consistent(db: Db, game_ids: list[int] | None = None) -> None:
    """No ply twice in a game; every stored board is what its moves make, in ply order."""
    async with db.sessions() as session:
        duplicates = await session.execute(
            select(Move.game_id, Move.ply).group_by(Move.game_id, Move.ply).having(func.count() > 1)
        )
        assert duplicates.all() == []
        query = select(Game)
        if game_ids is not None:
            query = query.where(Game.id.in_(game_ids))
        for game in (await session.scalars(query)).unique():
            moves = (
                await session.scalars(
                    select(Move).where(Move.game_id == game.id).order_by(Move.ply)
                )
            ).all()
            assert [m.ply for m in moves] == list(range(1, len(moves) + 1)), game.id
            board = Board.empty()
            for move in moves:
                assert move.cell in board.free_cells(), (game.id, move.ply)
                board = play(board, move.cell)
            assert format_cells(board) == game.board, game.id


def applied(results: tuple[MoveResult, ...]) -> list[MoveResult]:
    return [r for r in results if r.status is MoveStatus.PLAYED]


# --- the use-cases, with asyncio.gather --------------------------------------------------------

REFUSED = {MoveStatus.CONFLICT, MoveStatus.STALE, MoveStatus.OCCUPIED, MoveStatus.NOT_YOUR_TURN}


async def test_a_double_tap_on_two_cells_applies_exactly_one_move(db: Db) -> None:
    """Two players on one phone: both taps are legal alone, only one may win."""
    games = [(await db.games.play.start_game(i, ALICE, "user", "user")).game for i in range(GAMES)]
    rng = random.Random(5)
    for ply in range(4):
        taps = []
        for game in games:
            current = await db.games.store.get_game(game.id)
            assert current is not None and current.ply == ply
            a, b = rng.sample(current.board.free_cells(), 2)
            ref = BoardRef(chat_id=game.chat_id)
            taps.append(
                asyncio.gather(
                    db.games.play.tap(game.id, ref, ALICE, ply, a),
                    db.games.play.tap(game.id, ref, ALICE, ply, b),
                )
            )
        for results in await asyncio.gather(*taps):
            assert len(applied(results)) == 1, results
            [loser] = [r for r in results if not r.played]
            assert loser.status in REFUSED, loser
    await assert_consistent(db, [g.id for g in games])
    for game in games:
        current = await db.games.store.get_game(game.id)
        assert current is not None and current.ply == 4


async def test_a_tap_delivered_twice_at_once_plays_once(db: Db) -> None:
    """The tap's use-case claims its update in the transaction that plays the move."""
    game = (await db.games.play.start_game(1, ALICE, "user", "user")).game
    ref, claim = BoardRef(chat_id=game.chat_id), UpdateClaim(9001, ALICE.id)
    results = await asyncio.gather(
        db.games.play.tap(game.id, ref, ALICE, 0, 4, claim=claim),
        db.games.play.tap(game.id, ref, ALICE, 0, 4, claim=claim),
    )
    assert sorted(r.status for r in results) == [MoveStatus.DUPLICATE, MoveStatus.PLAYED]
    assert [r.claim.new for r in results if r.claim] == [r.played for r in results]
    current = await db.games.store.get_game(game.id)
    assert current is not None and current.ply == 1
    # A refused tap claims its update too: delivered again, it is not answered twice.
    refused = await db.games.play.tap(game.id, ref, ALICE, 1, 4, claim=UpdateClaim(9002))
    assert refused.status is MoveStatus.OCCUPIED and refused.claim == Claim(True)
    again = await db.games.play.tap(game.id, ref, ALICE, 1, 4, claim=UpdateClaim(9002))
    assert again.status is MoveStatus.DUPLICATE
    await assert_consistent(db, [game.id])


async def test_a_game_another_instance_changed_is_read_afresh(db: Db) -> None:
    """Each instance keeps the live games it wrote; one that another instance moved since is
    neither refused nor overwritten: the versioned write fails and the tap is decided again."""
    other = open_games(db.sessions, random.Random(3))
    game = (await db.games.play.start_game(1, ALICE, "user", "user")).game
    ref = BoardRef(chat_id=game.chat_id)
    assert db.games.store.live.get(game.id) is not None  # this instance holds it
    assert (await other.play.tap(game.id, ref, ALICE, 0, 0)).played
    # This instance's copy is at ply 0 still. A tap at ply 1 is not refused as stale …
    second = await db.games.play.tap(game.id, ref, ALICE, 1, 8)
    assert second.played and second.game is not None
    assert second.game.board.cells[0] == "X" and second.game.board.cells[8] == "O"
    # … and a tap made on the old board (ply 0) is refused on the game as stored.
    assert (await other.play.tap(game.id, ref, ALICE, 1, 8)).status is MoveStatus.STALE
    stale = await db.games.play.tap(game.id, ref, ALICE, 0, 4)
    assert stale.status is MoveStatus.STALE
    # Moves the other instance made on its stale copy go through the same check.
    assert (await other.play.tap(game.id, ref, ALICE, 2, 4)).played
    await assert_consistent(db, [game.id])
    current = await db.games.store.get_game(game.id)
    assert current is not None and current.ply == 3


async def test_both_players_tapping_at_once_moves_only_the_player_to_move(db: Db) -> None:
    games = []
    for i in range(GAMES):
        challenge = await db.games.challenges.create(GROUP_ID - i, ALICE)
        joined = await db.games.challenges.join(challenge.id, BoardRef(chat_id=GROUP_ID - i), BOB)
        assert joined.played
        games.append(challenge)
    rng = random.Random(6)
    for ply in range(4):
        taps = []
        for game in games:
            current = await db.games.store.get_game(game.id)
            assert current is not None and current.ply == ply
            a, b = rng.sample(current.board.free_cells(), 2)
            ref = BoardRef(chat_id=game.chat_id)
            # Both tap a cell, and the player to move taps twice (a double tap).
            mover, other = (ALICE, BOB) if ply % 2 == 0 else (BOB, ALICE)
            taps.append(
                asyncio.gather(
                    db.games.play.tap(game.id, ref, other, ply, a),
                    db.games.play.tap(game.id, ref, mover, ply, a),
                    db.games.play.tap(game.id, ref, mover, ply, b),
                )
            )
        for results in await asyncio.gather(*taps):
            assert len(applied(results)) == 1, results
            assert results[0].status in REFUSED, results[0]
            assert all(r.status in REFUSED for r in results if not r.played), results
    await assert_consistent(db, [g.id for g in games])
    for game in games:
        current = await db.games.store.get_game(game.id)
        assert current is not None and current.ply == 4
        assert current.board.cells.count("X") == 2 and current.board.cells.count("O") == 2


async def test_two_people_joining_a_challenge_at_once_start_one_game(db: Db) -> None:
    for i in range(GAMES):
        challenge = await db.games.challenges.create(GROUP_ID - i, ALICE)
        ref = BoardRef(chat_id=GROUP_ID - i)
        results = await asyncio.gather(
            db.games.challenges.join(challenge.id, ref, BOB),
            db.games.challenges.join(challenge.id, ref, CAROL),
        )
        assert len(applied(results)) == 1, results
        game = await db.games.store.get_game(challenge.id)
        assert game is not None and game.is_active
        winner = BOB if results[0].played else CAROL
        assert game.o_player_id == winner.id


async def test_a_move_racing_a_resignation_ends_consistently(db: Db) -> None:
    for i in range(GAMES):
        challenge = await db.games.challenges.create(GROUP_ID - i, ALICE)
        ref = BoardRef(chat_id=GROUP_ID - i)
        assert (await db.games.challenges.join(challenge.id, ref, BOB)).played
        move, resign = await asyncio.gather(
            db.games.play.tap(challenge.id, ref, ALICE, 0, 4),
            db.games.resigning.resign(challenge.id, ref, BOB),
        )
        assert move.played or resign.played, (move, resign)
        # What is stored is what the applied operations did; never half of one.
        game = await db.games.store.get_game(challenge.id)
        assert game is not None
        assert format_cells(game.board) == ("____X____" if move.played else "_________")
        if resign.played:
            assert game.result == "X" and game.end_reason == "resigned"
        else:
            assert resign.status is MoveStatus.CONFLICT and game.is_active
    await assert_consistent(db)


# --- the whole bot, updates handled concurrently ---------------------------------------------


def cell_buttons(tg: FakeTelegram, message: StoredMessage) -> list[str]:
    """Callback data of the nine cells (board rows come first on the keyboard)."""
    data = [d for row in tg.keyboard(message) for _, d in row if d and d.startswith("m:")]
    assert len(data) == 9, tg.keyboard(message)
    return data


def button_with(tg: FakeTelegram, message: StoredMessage, prefix: str) -> str:
    for row in tg.keyboard(message):
        for _, data in row:
            if data and data.startswith(prefix):
                return data
    raise AssertionError(f"no {prefix!r} button on {tg.keyboard(message)!r}")


async def answered(tg: FakeTelegram, query_ids: list[str]) -> list[dict[str, Any]]:
    """Wait until every query has been answered; their answers, in order."""
    await tg.wait_until(
        lambda: all(q in tg.callback_answers for q in query_ids),
        timeout=30,
        what=f"answers to {len(query_ids)} callback queries",
    )
    await quiesce(tg)
    return [tg.callback_answers[q] for q in query_ids]


def user(info: PlayerInfo) -> dict[str, Any]:
    return FakeTelegram.user(info.id, info.name, username=info.username)


def game_id_on(tg: FakeTelegram, message: StoredMessage) -> int:
    return int(cell_buttons(tg, tg.messages[message.key])[0].split(":")[1])  # type: ignore[index]


async def free_cells(db: Db, tg: FakeTelegram, message: StoredMessage) -> list[str]:
    """Callback data of the cells still free in the stored game."""
    game = await db.games.store.get_game(game_id_on(tg, message))
    assert game is not None
    cells = cell_buttons(tg, tg.messages[message.key])  # type: ignore[index]
    return [cells[i] for i in game.board.free_cells()]


async def test_the_bot_applies_one_of_two_simultaneous_taps_per_game(
    telegram: FakeTelegram, bot: BotRunner, db: Db
) -> None:
    players = [FakeTelegram.user(2000 + i, f"Player {i}") for i in range(GAMES)]
    for player in players:
        telegram.send_text(player, "/start user user")
    await telegram.wait_until(
        lambda: len(telegram.calls_of("sendMessage")) >= GAMES, timeout=30, what="30 boards"
    )
    await quiesce(telegram)
    boards = [telegram.last_bot_message(p["id"]) for p in players]
    rng = random.Random(8)
    for _ply in range(3):
        pairs = []
        for player, board in zip(players, boards, strict=True):
            a, b = rng.sample(await free_cells(db, telegram, board), 2)
            pairs.append((telegram.tap(player, board, a), telegram.tap(player, board, b)))
        # All 60 taps are queued before the bot fetches them: one batch, handled at once.
        answers = await answered(telegram, [q for pair in pairs for q in pair])
        for i in range(GAMES):
            first, second = answers[2 * i], answers[2 * i + 1]
            popups = [bool(first.get("text")), bool(second.get("text"))]
            assert sorted(popups) == [False, True], (first, second)
    game_ids = [game_id_on(telegram, board) for board in boards]
    await assert_consistent(db, game_ids)
    for game_id, board in zip(game_ids, boards, strict=True):
        game = await db.games.store.get_game(game_id)
        assert game is not None and game.ply == 3
        # The board message shows the stored board: the winning tap's edit came last.
        shown = telegram.messages[board.key]  # type: ignore[index]
        assert game_id == int(cell_buttons(telegram, shown)[0].split(":")[1])
        assert f":{game.ply}:" in cell_buttons(telegram, shown)[0]
    # Every query answered exactly once; nothing failed.
    assert_every_query_answered(telegram)


async def test_the_bot_in_groups_two_joiners_and_two_movers_at_once(
    telegram: FakeTelegram, bot: BotRunner, db: Db
) -> None:
    alice, bob, carol = user(ALICE), user(BOB), user(CAROL)
    groups = [telegram.group_chat(GROUP_ID - i, f"Group {i}") for i in range(GAMES)]
    for group in groups:
        telegram.send_text(alice, "/challenge", chat=group)
    await telegram.wait_until(
        lambda: len(telegram.calls_of("sendMessage")) >= GAMES, timeout=30, what="30 challenges"
    )
    await quiesce(telegram)
    boards = [telegram.last_bot_message(g["id"]) for g in groups]
    game_ids = [int(button_with(telegram, b, "j:").split(":")[1]) for b in boards]

    # Bob and Carol both take up every challenge at the same moment: one of them plays.
    joins = [
        (
            telegram.tap(bob, board, button_with(telegram, board, "j:")),
            telegram.tap(carol, board, button_with(telegram, board, "j:")),
        )
        for board in boards
    ]
    answers = await answered(telegram, [q for pair in joins for q in pair])
    opponents = {}
    for i, game_id in enumerate(game_ids):
        game = await db.games.store.get_game(game_id)
        assert game is not None and game.is_active, game
        assert game.o_player_id in (BOB.id, CAROL.id)
        opponents[game_id] = bob if game.o_player_id == BOB.id else carol
        # The one left out is told so in a pop-up.
        left_out = answers[2 * i + (0 if game.o_player_id == CAROL.id else 1)]
        assert left_out.get("text"), answers[2 * i : 2 * i + 2]

    # Then, twice: both players tap a cell at once, and whoever is to move taps twice.
    rng = random.Random(9)
    for ply in range(2):
        taps = []
        for game_id, board in zip(game_ids, boards, strict=True):
            a, b = rng.sample(await free_cells(db, telegram, board), 2)
            mover, other = (alice, opponents[game_id])
            if ply % 2:
                mover, other = other, mover
            taps.append(
                (
                    telegram.tap(other, board, a),
                    telegram.tap(mover, board, a),
                    telegram.tap(mover, board, b),
                )
            )
        answers = await answered(telegram, [q for triple in taps for q in triple])
        for i in range(GAMES):
            triple = answers[3 * i : 3 * i + 3]
            assert triple[0].get("text"), triple  # not your turn
            assert sorted(bool(a.get("text")) for a in triple[1:]) == [False, True], triple
    await assert_consistent(db, game_ids)
    for game_id in game_ids:
        game = await db.games.store.get_game(game_id)
        assert game is not None and game.ply == 2
    assert_every_query_answered(telegram)


async def test_a_new_game_racing_a_move_in_the_current_one_still_starts(
    db: Db, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/start on one instance while a move lands in the chat's current game on another (two
    engines on one database): the move commits after /start has read the chat's games, so
    closing the current game loses the version race. /start then runs again on the chat as it
    is now, instead of failing with StaleDataError."""
    if db.sessions.kw["bind"].dialect.name == "sqlite":
        pytest.skip("SQLite lets one writer in at a time: no move can commit in between")
    other_engine = create_engine(database_url)
    other = open_games(create_session_factory(other_engine), random.Random(12))
    current = (await db.games.play.start_game(GROUP_ID, ALICE, "user", "user")).game
    moves: list[MoveResult] = []
    read_chat = reads.live_games_in_chat

    async def read_then_a_move_lands(session: AsyncSession, chat_id: int) -> list[store.Loaded]:
        found = await read_chat(session, chat_id)
        if not moves:
            ref = BoardRef(chat_id=current.chat_id)
            moves.append(await other.play.tap(current.id, ref, ALICE, 0, 4))
        return found

    monkeypatch.setattr(reads, "live_games_in_chat", read_then_a_move_lands)
    try:
        started = await db.games.play.start_game(GROUP_ID, ALICE, "user", "hard")
    finally:
        await other_engine.dispose()
    assert [m.status for m in moves] == [MoveStatus.PLAYED]
    assert started.game.status == "active"
    assert [(g.id, g.status, g.ply) for g in started.closed] == [(current.id, "abandoned", 1)]
    async with db.sessions() as session:
        live = (await session.execute(select(Game.id).where(Game.status == "active"))).all()
    assert live == [(started.game.id,)]
    await assert_consistent(db)

"""Game use-cases on a real SQLite file, without Telegram."""

from __future__ import annotations

import asyncio

from bot.games.model import BoardRef, GameStatus, MoveStatus, PlayerInfo
from bot.games.use_cases import Games
from core.board import CellOccupiedError, NotNumbersError, OutOfRangeError
from core.notation import format_cells
from core.rules import outcome

ALICE = PlayerInfo(101, "Alice", "en")
BOB = PlayerInfo(202, "Bob", "en")
CHAT = 101
HERE = BoardRef(chat_id=CHAT)


async def test_start_against_ai_as_x_leaves_an_empty_board_for_the_user(
    games: Games,
) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "hard")).game
    assert format_cells(game.board) == "_________"
    assert (game.x_name, game.o_name, game.to_move) == ("Alice", None, "X")
    assert game.is_active and game.ply == 0


async def test_start_as_o_lets_the_ai_move_first(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "medium", "user")).game
    assert game.ply == 1 and game.to_move == "O"


async def test_a_tap_plays_the_cell_and_the_ai_answers_in_the_same_transaction(
    games: Games,
) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "hard")).game
    result = await games.play.tap(game.id, HERE, ALICE, 0, 4)
    assert result.status is MoveStatus.PLAYED
    assert result.game is not None
    assert result.game.board[4] == "X" and result.game.ply == 2
    # Hard answers a centre opening in a corner: anything else loses.
    assert {i for i, c in enumerate(result.game.board.cells) if c == "O"} <= {0, 2, 6, 8}
    stored = await games.store.get_game(game.id)
    assert stored == result.game


async def test_refused_taps_change_nothing(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "hard")).game
    played = (await games.play.tap(game.id, HERE, ALICE, 0, 4)).game
    assert played is not None
    o_cell = played.board.cells.index("O")
    cases = [
        (game.id, HERE, ALICE, 0, 0, MoveStatus.STALE),  # an old board: ply 0 is gone
        (game.id, HERE, ALICE, 2, 4, MoveStatus.OCCUPIED),
        (game.id, HERE, ALICE, 2, o_cell, MoveStatus.OCCUPIED),
        (game.id, HERE, BOB, 2, 0, MoveStatus.NOT_A_PLAYER),
        (game.id, BoardRef(chat_id=999), ALICE, 2, 0, MoveStatus.NO_GAME),  # another chat
        (game.id, BoardRef(inline_message_id="abc"), ALICE, 2, 0, MoveStatus.NO_GAME),
        (game.id + 1000, HERE, ALICE, 2, 0, MoveStatus.NO_GAME),
        (game.id, HERE, ALICE, 2, 9, MoveStatus.INVALID),
    ]
    for game_id, ref, user, ply, cell, expected in cases:
        result = await games.play.tap(game_id, ref, user, ply, cell)
        assert result.status is expected, (ply, cell, user)
    assert await games.store.get_game(game.id) == played


async def test_a_double_tap_applies_one_move(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    first, second = await asyncio.gather(
        games.play.tap(game.id, HERE, ALICE, 0, 0), games.play.tap(game.id, HERE, ALICE, 0, 1)
    )
    statuses = sorted([first.status, second.status])
    assert statuses.count(MoveStatus.PLAYED) == 1
    assert (
        statuses.count(MoveStatus.PLAYED)
        + statuses.count(MoveStatus.STALE)
        + statuses.count(MoveStatus.CONFLICT)
        == 2
    )
    stored = await games.store.get_game(game.id)
    assert stored is not None and stored.ply == 1


async def test_typed_moves_use_the_hyperskill_errors(games: Games) -> None:
    await games.play.start_game(CHAT, ALICE, "user", "user")
    assert (await games.play.typed(CHAT, ALICE, "2 2")).played
    for text, error in [
        ("one", NotNumbersError),
        ("one three", NotNumbersError),
        ("4 1", OutOfRangeError),
        ("0", OutOfRangeError),
        ("10", OutOfRangeError),
        ("2 2", CellOccupiedError),
        ("5", CellOccupiedError),
    ]:
        result = await games.play.typed(CHAT, ALICE, text)
        assert result.status is MoveStatus.INVALID
        assert isinstance(result.error, error), text
    result = await games.play.typed(CHAT, ALICE, "  1   3 ")
    assert result.played and result.game is not None
    assert format_cells(result.game.board) == "__O_X____"
    assert (await games.play.typed(CHAT, ALICE, "7")).game.board[6] == "X"  # type: ignore[union-attr]


async def test_typed_move_without_a_game(games: Games) -> None:
    assert (await games.play.typed(CHAT, ALICE, "1 1")).status is MoveStatus.NO_GAME


async def test_a_new_game_in_a_private_chat_closes_the_old_one(games: Games) -> None:
    old = (await games.play.start_game(CHAT, ALICE, "user", "easy")).game
    started = await games.play.start_game(CHAT, ALICE, "user", "hard")
    assert [g.id for g in started.closed] == [old.id]
    assert (await games.store.get_game(old.id)).status == GameStatus.ABANDONED  # type: ignore[union-attr]
    result = await games.play.tap(old.id, HERE, ALICE, 0, 0)
    assert result.status is MoveStatus.GAME_OVER


async def test_stop_resigns_and_counts_as_a_loss(games: Games) -> None:
    # Stopped before the first move: the game ends, and counts nowhere.
    await games.play.start_game(CHAT, ALICE, "user", "medium")
    assert (await games.play.stop_current(CHAT, ALICE)).played
    assert (await games.records.stats(ALICE.id)).by_opponent == {}

    game = (await games.play.start_game(CHAT, ALICE, "user", "medium")).game
    assert game is not None
    assert (await games.play.tap(game.id, HERE, ALICE, 0, 4)).played
    result = await games.play.stop_current(CHAT, ALICE)
    assert result.played and result.game is not None
    assert (result.game.status, result.game.result, result.game.end_reason) == (
        GameStatus.FINISHED,
        "O",
        "stopped",
    )
    assert (await games.play.stop_current(CHAT, ALICE)).status is MoveStatus.NO_GAME
    record = (await games.records.stats(ALICE.id)).by_opponent["medium"]
    assert (record.wins, record.losses, record.draws) == (0, 1, 0)


async def test_hard_vs_hard_by_ai_steps_ends_in_a_draw(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "hard", "hard")).game
    assert game.ply == 0  # AI matches advance one step at a time, not at start
    steps = 0
    while (step := await games.ai_turns.step(game.id)) is not None:
        steps += 1
        last = step
    assert steps == 9
    assert last.status == GameStatus.FINISHED and last.result == "draw"
    assert outcome(last.board) == "Draw"


async def test_ai_step_does_nothing_on_a_human_turn(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "hard")).game
    assert await games.ai_turns.step(game.id) is None


async def test_stats_count_wins_losses_and_draws_per_level(games: Games) -> None:
    # Alice loses to hard by playing the first free cell every time.
    for _ in range(2):
        game = (await games.play.start_game(CHAT, ALICE, "user", "hard")).game
        while game.is_active:
            cell = game.board.free_cells()[0]
            result = await games.play.tap(game.id, HERE, ALICE, game.ply, cell)
            assert result.game is not None
            game = result.game
        assert game.result == "O"
    # And resigns against easy once, after a move.
    easy = (await games.play.start_game(CHAT, ALICE, "user", "easy")).game
    assert easy is not None and (await games.play.tap(easy.id, HERE, ALICE, 0, 4)).played
    await games.play.stop_current(CHAT, ALICE)
    stats = await games.records.stats(ALICE.id)
    assert set(stats.by_opponent) == {"hard", "easy"}
    assert stats.by_opponent["hard"].losses == 2
    assert stats.total.played == 3
    assert (await games.records.stats(BOB.id)).by_opponent == {}


async def test_players_are_stored_with_their_latest_name(games: Games) -> None:
    await games.play.start_game(CHAT, ALICE, "user", "easy")
    renamed = PlayerInfo(ALICE.id, "Alice B.", "ru")
    game = (await games.play.start_game(CHAT, renamed, "user", "easy")).game
    assert game.x_name == "Alice B."

"""Hints and undo against the AI, on a real database, without Telegram."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.model import BoardRef, GameStatus, GameView, MoveStatus, PlayerInfo
from bot.games.play.assist_rules import take_back
from bot.games.play.lifecycle import PlayedMove
from bot.games.use_cases import Games
from core.board import Board
from core.notation import parse_cells
from core.positions import ULTIMATE, ultimate_board
from core.solver import best_moves, position_score
from core.ultimate import rules as ultimate

ALICE = PlayerInfo(101, "Alice", "en")
BOB = PlayerInfo(202, "Bob", "en")
CHAT = 101
HERE = BoardRef(chat_id=CHAT)


async def _moves(engine: AsyncEngine, game_id: int) -> list[tuple[int, int, str]]:
    async with engine.connect() as connection:
        rows = await connection.execute(
            text("SELECT ply, cell, mark FROM moves WHERE game_id = :g ORDER BY ply"),
            {"g": game_id},
        )
        return [tuple(row) for row in rows]


async def test_a_hint_is_a_best_move_and_marks_the_game_assisted(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "hard")).game
    played = (await games.play.tap(game.id, HERE, ALICE, 0, 1)).game
    assert played is not None and not played.assisted

    result = await games.assists.hint(game.id, HERE, ALICE, played.ply)

    assert result.status is MoveStatus.PLAYED and result.game is not None
    assert result.hint in best_moves(played.board)
    # Nothing is played: the same board, now marked assisted, as stored.
    assert result.game.board == played.board and result.game.assisted
    assert await games.store.get_game(game.id) == result.game
    # Asked again, the same hint, and nothing more to write.
    again = await games.assists.hint(game.id, HERE, ALICE)
    assert again.hint == result.hint and again.game == result.game


async def test_a_hint_on_a_bigger_board_comes_from_the_search_and_takes_a_win(
    games: Games,
) -> None:
    # 5×5, four in a row: X has three in the top row and an empty fourth cell to complete it.
    board = parse_cells("XXX__OO___O______________", k=4)
    game = (await games.play.start_game(CHAT, ALICE, "user", "hard", board=board)).game
    result = await games.assists.hint(game.id, HERE, ALICE, game.ply)
    assert result.status is MoveStatus.PLAYED and result.hint == 3


async def test_two_players_on_one_phone_undo_the_last_move_and_have_no_hints(
    games: Games, engine: AsyncEngine
) -> None:
    phone = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    assert (await games.assists.hint(phone.id, HERE, ALICE)).status is MoveStatus.NOT_AGAINST_AI
    nothing = await games.assists.undo(phone.id, HERE, ALICE)
    assert nothing.status is MoveStatus.NOTHING_TO_UNDO
    for ply, cell in enumerate((4, 0, 8)):
        played = (await games.play.tap(phone.id, HERE, ALICE, ply, cell)).game
    assert played is not None and played.board.cells.count("X") == 2
    # ⭕'s move stays: only the last move (❌'s second) is taken back, and ❌ is to move.
    undone = await games.assists.undo(phone.id, HERE, ALICE, played.ply)
    assert undone.status is MoveStatus.PLAYED and undone.game is not None
    assert undone.game.ply == 2 and undone.game.to_move == "X" and undone.game.last_cell == 0
    assert await _moves(engine, phone.id) == [(1, 4, "X"), (2, 0, "O")]
    # And again: ⭕'s move, then ❌'s.
    again = await games.assists.undo(phone.id, HERE, ALICE)
    assert again.game is not None and again.game.ply == 1 and again.game.to_move == "O"
    # Nobody else takes a move back.
    assert (await games.assists.undo(phone.id, HERE, BOB)).status is MoveStatus.NOT_A_PLAYER


async def test_hints_and_undo_are_refused_where_they_do_not_belong(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "easy")).game
    played = (await games.play.tap(game.id, HERE, ALICE, 0, 4)).game
    assert played is not None
    cases = [
        (game.id, HERE, BOB, None, MoveStatus.NOT_A_PLAYER),
        (game.id, HERE, ALICE, 0, MoveStatus.STALE),  # a board drawn before the last move
        (game.id, BoardRef(chat_id=999), ALICE, None, MoveStatus.NO_GAME),
        (game.id + 100, HERE, ALICE, None, MoveStatus.NO_GAME),
    ]
    for use_case in (games.assists.hint, games.assists.undo):
        for game_id, ref, user, ply, status in cases:
            assert (await use_case(game_id, ref, user, ply)).status is status
    assert await games.store.get_game(game.id) == played  # nothing changed, not even assisted

    await games.resigning.resign(game.id, HERE, ALICE)
    for use_case in (games.assists.hint, games.assists.undo):
        assert (await use_case(game.id, HERE, ALICE)).status is MoveStatus.GAME_OVER


async def test_undo_takes_back_the_move_and_the_ai_reply_down_to_the_empty_board(
    games: Games, engine: AsyncEngine
) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "hard")).game
    first = (await games.play.tap(game.id, HERE, ALICE, 0, 4)).game
    assert first is not None
    second = (await games.play.tap(game.id, HERE, ALICE, 2, first.board.free_cells()[0])).game
    assert second is not None and second.ply == 4

    undone = await games.assists.undo(game.id, HERE, ALICE, 4)
    assert undone.status is MoveStatus.PLAYED and undone.game is not None
    assert undone.game.board == first.board and undone.game.assisted
    assert await games.store.get_game(game.id) == undone.game
    assert [(ply, cell) for ply, cell, _ in await _moves(engine, game.id)] == [
        (1, 4),
        (2, first.board.cells.index("O")),
    ]
    # The same tap delivered again (or tapped twice) finds a newer board: nothing more.
    assert (await games.assists.undo(game.id, HERE, ALICE, 4)).status is MoveStatus.STALE

    emptied = (await games.assists.undo(game.id, HERE, ALICE)).game
    assert emptied is not None and emptied.board == Board.empty() and emptied.is_active
    assert await _moves(engine, game.id) == []
    assert (await games.assists.undo(game.id, HERE, ALICE)).status is MoveStatus.NOTHING_TO_UNDO

    # The game goes on from there, its moves numbered afresh.
    again = (await games.play.tap(game.id, HERE, ALICE, 0, 0)).game
    assert again is not None and again.ply == 2
    assert [ply for ply, _, _ in await _moves(engine, game.id)] == [1, 2]


async def test_undo_as_o_keeps_the_ai_opening(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "medium", "user")).game
    assert game.ply == 1
    assert (await games.assists.undo(game.id, HERE, ALICE)).status is MoveStatus.NOTHING_TO_UNDO
    cell = game.board.free_cells()[0]
    played = (await games.play.tap(game.id, HERE, ALICE, 1, cell)).game
    assert played is not None and played.ply == 3
    undone = (await games.assists.undo(game.id, HERE, ALICE)).game
    assert undone is not None and undone.board == game.board and undone.to_move == "O"


async def test_an_assisted_win_counts_apart_and_leaves_the_streak_alone(games: Games) -> None:
    async def win_against_easy(*, hinted: bool) -> None:
        game = (await games.play.start_game(CHAT, ALICE, "user", "easy")).game
        while game.is_active:
            if hinted:
                hint = await games.assists.hint(game.id, HERE, ALICE)
                assert hint.hint is not None
                cell = hint.hint
            else:
                # The best cell by the solved table (as a strong player would find it).
                cell = max(
                    game.board.free_cells(),
                    key=lambda c: -position_score(game.board.with_mark(c, "X")),
                )
            after = (await games.play.tap(game.id, HERE, ALICE, game.ply, cell)).game
            assert after is not None
            game = after
        assert game.status is GameStatus.FINISHED

    await win_against_easy(hinted=False)
    await win_against_easy(hinted=True)
    stats = await games.records.stats(ALICE.id)
    easy = stats.by_opponent["easy"]
    assert easy.played == 1 and stats.assisted.played == 1
    assert stats.total.played == 1  # the record against the AI leaves the assisted game out
    assert stats.current_streak == (1 if easy.wins else 0)


async def test_hint_and_undo_in_ultimate(games: Games) -> None:
    game = (
        await games.play.start_game(CHAT, ALICE, "user", "medium", board=ULTIMATE.empty_board())
    ).game
    played = (await games.play.tap(game.id, HERE, ALICE, 0, 40)).game  # centre of the centre
    assert played is not None and played.ply == 2 and played.last_cell is not None
    # Medium was sent to the centre board; Alice is sent where medium played.
    assert played.last_cell // 9 == 4

    hint = await games.assists.hint(game.id, HERE, ALICE, played.ply)
    position = ultimate_board(played.board, played.last_cell)
    assert hint.hint in ultimate.legal_moves(position)

    again = (await games.play.tap(game.id, HERE, ALICE, 2, hint.hint or 0)).game
    assert again is not None and again.ply == 4
    undone = (await games.assists.undo(game.id, HERE, ALICE)).game
    assert undone is not None
    assert (undone.board, undone.last_cell) == (played.board, played.last_cell)
    assert await games.store.get_game(game.id) == undone


def test_a_history_that_does_not_lead_to_the_board_read_is_stale() -> None:
    # Two reads of one undo saw different states (another undo committed between them).
    game = GameView(
        id=1,
        chat_id=CHAT,
        message_id=None,
        inline_message_id=None,
        board=parse_cells("____X___O"),
        x_kind="user",
        o_kind="hard",
        x_player_id=ALICE.id,
        o_player_id=None,
        x_name="Alice",
        o_name=None,
        status=GameStatus.ACTIVE,
        result=None,
        end_reason=None,
    )
    now = datetime.now(UTC)
    assert take_back(game, [], ALICE.id, now) is MoveStatus.STALE
    history = [PlayedMove(1, 4, "X", ALICE.id), PlayedMove(2, 8, "O", None)]
    taken = take_back(game, history, ALICE.id, now)
    assert not isinstance(taken, MoveStatus)
    assert taken[0].board == Board.empty() and taken[1] == 0
    assert take_back(game, history[:1], ALICE.id, now) is MoveStatus.STALE

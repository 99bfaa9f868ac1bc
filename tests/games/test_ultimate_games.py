"""Ultimate tic-tac-toe through the use-cases, on a real database: an AI match to the end
(each move through the AI-turns runner, the board stored with its last cell), and the
refusals of taps outside the small board in play."""

from __future__ import annotations

from bot.games.model import BoardRef, GameStatus, MoveStatus, PlayerInfo
from bot.games.use_cases import Games
from core.positions import ULTIMATE, ultimate_board
from core.ultimate import rules as ultimate

ALICE = PlayerInfo(101, "Alice", "en")
CHAT = 101
HERE = BoardRef(chat_id=CHAT)


async def test_an_ultimate_ai_match_plays_to_the_end(games: Games) -> None:
    board = ULTIMATE.empty_board()
    game = (await games.play.start_game(CHAT, ALICE, "easy", "medium", board=board)).game
    for _ in range(81):
        moved = await games.ai_turns.step(game.id)
        if moved is None:
            break
        position = ultimate_board(moved.board, moved.last_cell)
        assert moved.last_cell is not None and moved.board.cells[moved.last_cell] != " "
        assert ultimate.is_over(position) == (moved.status == GameStatus.FINISHED)
    final = await games.store.get_game(game.id)
    assert final is not None and final.status == GameStatus.FINISHED
    position = ultimate_board(final.board, final.last_cell)
    assert final.result == (ultimate.winner(position) or "draw")


async def test_taps_outside_the_small_board_in_play_are_refused(games: Games) -> None:
    game = (
        await games.play.start_game(CHAT, ALICE, "user", "user", board=ULTIMATE.empty_board())
    ).game
    first = await games.play.tap(game.id, HERE, ALICE, 0, 4 * 9 + 2)  # centre board, cell 3
    assert first.status is MoveStatus.PLAYED
    # O is sent to small board 3 (index 2): anywhere else is refused, and changes nothing.
    refused = await games.play.tap(game.id, HERE, ALICE, 1, 0)
    assert refused.status is MoveStatus.WRONG_BOARD
    assert await games.store.get_game(game.id) == first.game
    shown = await games.play.show_block(game.id, HERE, ALICE, 1, 5)
    assert shown.status is MoveStatus.WRONG_BOARD
    assert (await games.play.tap(game.id, HERE, ALICE, 1, 2 * 9 + 4)).status is MoveStatus.PLAYED

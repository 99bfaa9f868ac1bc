"""Review is offered only where it has something to show: a 3×3 game whose person did not win
against the AI, a game between people (for whoever lost, or both after a draw), one phone."""

from __future__ import annotations

import pytest

from bot.games.model import USER, EndReason, GameStatus, GameView
from bot.locales.texts import texts_for
from bot.views.keyboards import board_keyboard
from core.board import Board, BoardSize
from core.notation import parse_cells

en = texts_for("en")
X_WON = parse_cells("XXXOO____")
O_WON = parse_cells("XX_OOOX__")
DRAWN = parse_cells("XOXXOOOXX")


def finished(board: Board, result: str, x_kind: str, o_kind: str) -> GameView:
    return GameView(
        id=7,
        chat_id=1001,
        message_id=3,
        inline_message_id=None,
        board=board,
        x_kind=x_kind,
        o_kind=o_kind,
        x_player_id=1001 if x_kind == USER else None,
        o_player_id=(1002 if x_kind == USER else 1001) if o_kind == USER else None,
        x_name="Ann" if x_kind == USER else None,
        o_name="Bob" if o_kind == USER else None,
        status=GameStatus.FINISHED,
        result=result,
        end_reason=EndReason.LINE if result != "draw" else EndReason.FULL,
        language="en",
    )


def offers_review(game: GameView) -> bool:
    markup = board_keyboard(game, en)
    assert markup is not None
    return any(b.text == en.BUTTON_REVIEW for row in markup.inline_keyboard for b in row)


@pytest.mark.parametrize(
    ("board", "result", "x_kind", "o_kind", "offered"),
    [
        (X_WON, "X", USER, "hard", False),  # the person won: nothing to review
        (O_WON, "O", "easy", USER, False),
        (O_WON, "O", USER, "hard", True),  # the person lost
        (DRAWN, "draw", USER, "hard", True),
        (X_WON, "X", "hard", USER, True),
        (X_WON, "X", "easy", "hard", False),  # two AIs: nobody to review
        (X_WON, "X", USER, USER, True),  # between people: the loser reviews
    ],
)
def test_review_is_offered_only_where_it_shows_something(
    board: Board, result: str, x_kind: str, o_kind: str, offered: bool
) -> None:
    assert offers_review(finished(board, result, x_kind, o_kind)) is offered


def test_no_review_on_bigger_boards() -> None:
    board = BoardSize(4).empty_board()
    assert not offers_review(finished(board, "draw", USER, "hard"))

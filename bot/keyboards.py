"""Inline keyboards: the menu and the board."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import texts
from bot.callback_data import (
    HELP_DATA,
    MENU_DATA,
    cell_data,
    new_game_data,
    resign_data,
)
from bot.service import USER, GameView
from core.ai import LEVELS
from core.board import EMPTY, X
from core.rules import winning_cells


def _button(text: str, data: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(text, callback_data=data)


def menu_keyboard() -> InlineKeyboardMarkup:
    """Levels as X, levels as O, two players, AI vs AI, help."""
    as_x = [
        InlineKeyboardButton(
            texts.MENU_PLAY_X.format(level=texts.LEVEL_NAMES[level]),
            callback_data=new_game_data(USER, level),
        )
        for level in LEVELS
    ]
    as_o = [
        InlineKeyboardButton(
            texts.MENU_PLAY_O.format(level=texts.LEVEL_NAMES[level]),
            callback_data=new_game_data(level, USER),
        )
        for level in LEVELS
    ]
    return InlineKeyboardMarkup(
        [
            as_x,
            as_o,
            [
                InlineKeyboardButton(
                    texts.MENU_TWO_PLAYERS, callback_data=new_game_data(USER, USER)
                ),
                InlineKeyboardButton(
                    texts.MENU_AI_MATCH, callback_data=new_game_data("medium", "hard")
                ),
            ],
            [InlineKeyboardButton(texts.MENU_HELP, callback_data=HELP_DATA)],
        ]
    )


def _cell_label(mark: str, highlighted: bool) -> str:
    if mark == EMPTY:
        return texts.EMPTY_SYMBOL
    if mark == X:
        return texts.X_WIN_SYMBOL if highlighted else texts.X_SYMBOL
    return texts.O_WIN_SYMBOL if highlighted else texts.O_SYMBOL


def board_keyboard(game: GameView) -> InlineKeyboardMarkup:
    """The board, row by row, then the controls that fit the game's state."""
    board = game.board
    line = winning_cells(board)
    rows = [
        [
            InlineKeyboardButton(
                _cell_label(board[cell], cell in line),
                callback_data=cell_data(game.id, game.ply, cell),
            )
            for cell in range(row * board.size, (row + 1) * board.size)
        ]
        for row in range(board.size)
    ]
    if game.is_active and not game.is_ai_match:
        rows.append(
            [
                InlineKeyboardButton(
                    texts.BUTTON_RESIGN, callback_data=resign_data(game.id, game.ply)
                )
            ]
        )
    elif game.status == "finished":
        rows.extend(_after_game_rows(game))
    return InlineKeyboardMarkup(rows)


def _after_game_rows(game: GameView) -> list[list[InlineKeyboardButton]]:
    again = texts.BUTTON_WATCH_AGAIN if game.is_ai_match else texts.BUTTON_PLAY_AGAIN
    first = [InlineKeyboardButton(again, callback_data=new_game_data(game.x_kind, game.o_kind))]
    if game.x_kind != game.o_kind and not game.is_ai_match:
        first.append(
            InlineKeyboardButton(
                texts.BUTTON_SWAP_SIDES, callback_data=new_game_data(game.o_kind, game.x_kind)
            )
        )
    return [first, [InlineKeyboardButton(texts.BUTTON_OTHER_LEVEL, callback_data=MENU_DATA)]]

"""Ultimate tic-tac-toe in chat: the whole 9×9 position as text, and a 3×3 keyboard, since
Telegram allows at most 8 buttons a row: the small board in play, or, when the player may
choose, first the choice of small boards."""

from __future__ import annotations

from collections.abc import Callable

from telegram import InlineKeyboardButton

from bot.games.model import USER, GameView
from bot.locales.texts import Texts
from bot.wire.callback_data import pack
from bot.wire.taps import BlockTap, CellTap
from core.board import EMPTY, X
from core.positions import ultimate_board
from core.ultimate import rules as ultimate

IN_PLAY = "🟩"  # a free cell of a small board the player to move may play in
FREE = "⬜"  # a free cell of a small board not in play now
DRAWN = "➖"  # every cell of a small board that ended without a line
NUMBERS = ("1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣")

Button = Callable[[str, str], InlineKeyboardButton]


def position_lines(game: GameView, tr: Texts) -> list[str]:
    """The 9×9 position, a line per row: a won small board filled with its winner's mark,
    a drawn one with ➖, the free cells of the boards in play green."""
    board = ultimate_board(game.board, game.last_cell)
    results = ultimate.block_results(board)
    in_play = set(ultimate.playable_blocks(board)) if game.is_active else set()
    lines = []
    for row in range(ultimate.SIZE):
        groups = []
        for block in range(row // 3 * 3, row // 3 * 3 + 3):
            cells = range(block * 9 + row % 3 * 3, block * 9 + row % 3 * 3 + 3)
            groups.append(
                "".join(
                    _symbol(board, cell, results[block], block in in_play, tr) for cell in cells
                )
            )
        lines.append(" ".join(groups))
        if row in (2, 5):
            lines.append("")
    return lines


def _symbol(
    board: ultimate.UltimateBoard, cell: int, result: str | None, in_play: bool, tr: Texts
) -> str:
    if result == ultimate.DRAWN:
        return DRAWN
    if result is not None:
        return tr.X_WIN_SYMBOL if result == X else tr.O_WIN_SYMBOL
    mark = board[cell]
    if mark == EMPTY:
        return IN_PLAY if in_play else FREE
    return tr.X_SYMBOL if mark == X else tr.O_SYMBOL


def where_to_play(game: GameView, tr: Texts, chosen: int | None = None) -> str:
    """The line under the turn: the small board to play in, the one the player `chosen` (its
    cells are on the keyboard), or a free choice (the keyboard offers the small boards)."""
    blocks = ultimate.playable_blocks(ultimate_board(game.board, game.last_cell))
    if len(blocks) == 1:
        return tr.ULTIMATE_PLAY_IN.format(board=blocks[0] + 1)
    block = shown_block(game, chosen)
    if block is not None:
        return tr.ULTIMATE_CHOSEN.format(board=block + 1)
    return tr.ULTIMATE_CHOOSE


def shown_block(game: GameView, chosen: int | None) -> int | None:
    """The small board whose cells the keyboard shows: the only one in play, or the one the
    player chose; None for the choice of small boards."""
    blocks = ultimate.playable_blocks(ultimate_board(game.board, game.last_cell))
    if len(blocks) == 1:
        return blocks[0]
    return chosen if chosen in blocks else None


def keyboard_rows(
    game: GameView, tr: Texts, button: Button, chosen: int | None, hint: int | None
) -> list[list[InlineKeyboardButton]]:
    """The cells of the small board in play (with a way back to the choice, when there was
    one; a `hint` cell lit), or the choice of small boards; nothing when no person is to
    move."""
    if not game.is_active or game.kind_to_move != USER:
        return []
    block = shown_block(game, chosen if hint is None else hint // 9)
    if block is None:
        return _choice_rows(game, tr, button)
    board = ultimate_board(game.board, game.last_cell)
    rows = [
        [
            button(
                tr.HINT_SYMBOL if cell == hint else _symbol(board, cell, None, True, tr),
                pack(CellTap(game.id, game.ply, cell)),
            )
            for cell in range(block * 9 + r * 3, block * 9 + r * 3 + 3)
        ]
        for r in range(3)
    ]
    if len(ultimate.playable_blocks(board)) > 1:
        rows.append([button(tr.BUTTON_BOARDS, pack(BlockTap(game.id, game.ply)))])
    return rows


def _choice_rows(game: GameView, tr: Texts, button: Button) -> list[list[InlineKeyboardButton]]:
    results = ultimate.block_results(ultimate_board(game.board, game.last_cell))
    labels = [
        NUMBERS[b]
        if result is None
        else DRAWN
        if result == ultimate.DRAWN
        else (tr.X_SYMBOL if result == X else tr.O_SYMBOL)
        for b, result in enumerate(results)
    ]
    return [
        [button(labels[b], pack(BlockTap(game.id, game.ply, b))) for b in range(r * 3, r * 3 + 3)]
        for r in range(3)
    ]

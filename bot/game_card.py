"""A finished game as its result card shows it: the words in the reader's language, the
board's marks and lines as `bot.card` draws them."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.card import Card
from bot.games.model import DRAW, EndReason, GameView
from bot.render import player_name
from bot.texts import Texts
from core.board import MARKS, other
from core.rules import winning_cells


def card_of(game: GameView, tr: Texts) -> Card:
    """The card of a finished game: who played whom, the final board with the winning line,
    the result, and the day it ended (and whether it was played with help)."""
    names = {mark: player_name(game, mark, tr) for mark in MARKS}
    title = tr.VERSUS.format(x="", o="", x_name=names["X"], o_name=names["O"])
    board = game.board
    return Card(
        cells=board.cells,
        size=board.size,
        winning_cells=winning_cells(board),
        title=" ".join(title.split()),  # the mark symbols are drawn in the legend instead
        result=_result(game, names, tr),
        footer=" · ".join(_footer(game, tr)),
        players=tuple((mark, names[mark]) for mark in MARKS),
    )


def _result(game: GameView, names: dict[str, str], tr: Texts) -> str:
    if game.result == DRAW or game.result is None:
        return tr.RESULT_DRAW
    loser = names[other(game.result)]
    if game.end_reason == EndReason.RESIGNED:
        return tr.RESULT_NAME_RESIGNED.format(name=loser)
    if game.end_reason == EndReason.TIMEOUT:
        return tr.RESULT_NAME_TIMED_OUT.format(name=loser)
    return tr.RESULT_NAME_WON.format(name=names[game.result])


def _footer(game: GameView, tr: Texts) -> list[str]:
    ended = game.turn_started_at or datetime.now(UTC)  # the last move's time
    parts = [ended.date().isoformat()]
    if not game.board.is_classic:
        parts.append(tr.BOARD_SIZE.format(size=game.board.size, k=game.board.k))
    if game.assisted:
        parts.append(tr.CARD_ASSISTED)
    return parts

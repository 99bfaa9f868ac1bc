"""A finished game as its result card shows it: the words in the reader's language, the
board's marks and lines as `bot.views.card` draws them."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import TypedDict

from bot.games.model import FORFEITS, EndReason, GameView, Result
from bot.games.summaries import Replay
from bot.locales.texts import Texts
from bot.views.card import Card
from bot.views.render import player_name
from core.board import other
from core.positions import is_ultimate, ultimate_board
from core.rules import winning_cells
from core.ultimate import rules as ultimate


class _Words(TypedDict):
    """The card's words, the same on every kind of board."""

    title: str
    result: str
    footer: str
    players: tuple[tuple[str, str], ...]


def card_of(game: GameView, tr: Texts) -> Card:
    """The card of a finished game: who played whom, the final board with the winning line,
    the result, and the day it ended (and whether it was played with help)."""
    names = {mark: player_name(game, mark, tr) for mark in game.marks}
    if game.is_many:
        title = " · ".join(names.values())
    else:
        title = tr.VERSUS.format(x="", o="", x_name=names["X"], o_name=names["O"])
    words: _Words = {
        "title": " ".join(title.split()),  # the mark symbols are drawn in the legend instead
        "result": _result(game, names, tr),
        "footer": " · ".join(_footer(game, tr)),
        "players": tuple(names.items()),
    }
    board = game.board
    if not is_ultimate(board):
        return Card(
            board.cells,
            board.size,
            winning_cells=winning_cells(board),
            last_cell=game.last_cell,
            **words,
        )
    position = ultimate_board(board, game.last_cell)
    # The card draws the 9×9 grid row by row; ultimate's cells go small board by small board.
    order = [ultimate.grid_index(r, c) for r in range(1, 10) for c in range(1, 10)]
    grid = tuple(position[cell] for cell in order)
    results = ultimate.block_results(position)
    return Card(
        grid,
        ultimate.SIZE,
        block=3,
        won_blocks=tuple((b, result) for b, result in enumerate(results) if result is not None),
        winning_blocks=ultimate.winning_blocks(position),
        last_cell=None if game.last_cell is None else order.index(game.last_cell),
        **words,
    )


def animation_of(replay: Replay, tr: Texts) -> list[Card]:
    """The frames of a game's animated card: the empty board, then each move, each framed by
    the final card's words (who played whom, the result, the day)."""
    final = card_of(replay.game, tr)
    frames = [
        replace(
            card_of(replay.at(ply), tr),
            title=final.title,
            result=final.result,
            footer=final.footer,
            players=final.players,
        )
        for ply in range(replay.length)
    ]
    return [*frames, final]


def _result(game: GameView, names: dict[str, str], tr: Texts) -> str:
    if game.result == Result.DRAW or game.result is None:
        return tr.RESULT_DRAW
    if game.is_many:
        return tr.RESULT_NAME_WON.format(name=names[game.result])
    loser = names[other(game.result)]
    if game.end_reason in FORFEITS:
        return tr.RESULT_NAME_RESIGNED.format(name=loser)
    if game.end_reason == EndReason.TIMEOUT:
        return tr.RESULT_NAME_TIMED_OUT.format(name=loser)
    return tr.RESULT_NAME_WON.format(name=names[game.result])


def _footer(game: GameView, tr: Texts) -> list[str]:
    ended = game.turn_started_at or datetime.now(UTC)  # the last move's time
    parts = [ended.date().isoformat()]
    if is_ultimate(game.board):
        parts.append(tr.ULTIMATE_LINE)
    elif not game.board.is_classic:
        parts.append(tr.BOARD_SIZE.format(size=game.board.size, k=game.board.k))
    if game.assisted:
        parts.append(tr.CARD_ASSISTED)
    return parts

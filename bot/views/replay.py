"""The replay message: a finished game after some of its moves, with ⏮ ◀ ▶ ⏭ to step
through it (each tap edits the one message) and a button for its animated picture."""

from __future__ import annotations

from bot.games.summaries import Replay
from bot.locales.texts import Texts
from bot.views.keyboards import replay_keyboard
from bot.views.render import BoardMessage, board_lines, game_title, result_lines, symbol
from core.positions import cell_words


def render_replay(replay: Replay, ply: int, tr: Texts) -> BoardMessage:
    """The game after `ply` moves: who played whom, the board, which move this is (of how
    many), and at the last move the result."""
    ply = replay.clamp(ply)
    frame = replay.at(ply)
    lines = [tr.REPLAY_TITLE.format(title=game_title(frame, tr)), *board_lines(frame, tr), ""]
    move = replay.move(ply)
    if move is None:
        lines.append(tr.REPLAY_START.format(total=replay.length))
    else:
        cell, mark = move
        where = cell_words(frame.board, cell)
        lines.append(
            tr.REPLAY_MOVE.format(ply=ply, total=replay.length, mark=symbol(mark, tr), cell=where)
        )
    if ply == replay.length:
        lines.extend(result_lines(replay.game, tr))
    return BoardMessage("\n".join(lines), replay_keyboard(replay, ply, tr))

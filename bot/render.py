"""What a game looks like in chat: a pure function of the game."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import InlineKeyboardMarkup

from bot import texts
from bot.keyboards import board_keyboard
from bot.service import ABANDONED, DRAW, USER, GameView, Stats
from core.ai import LEVELS
from core.rules import O_WINS, X_WINS

SYMBOLS = {"X": texts.X_SYMBOL, "O": texts.O_SYMBOL}


@dataclass(frozen=True)
class BoardMessage:
    text: str
    keyboard: InlineKeyboardMarkup


def render_game(game: GameView) -> BoardMessage:
    """The board message: who plays whom, whose turn or the result, and the keyboard."""
    lines = [_title(game), ""]
    if game.is_active:
        lines.append(_turn_line(game))
    elif game.status == ABANDONED:
        lines.append(texts.GAME_CLOSED)
    else:
        lines.extend(_result_lines(game))
    return BoardMessage("\n".join(lines), board_keyboard(game))


def player_name(game: GameView, mark: str) -> str:
    kind = game.kind_of(mark)
    if kind == USER:
        return game.name_of(mark) or "?"
    return texts.AI_NAME.format(level=texts.LEVEL_NAMES[kind])


def _one_phone(game: GameView) -> bool:
    return game.x_kind == USER and game.o_kind == USER and game.x_player_id == game.o_player_id


def _title(game: GameView) -> str:
    if _one_phone(game):
        return texts.TWO_PLAYERS_TITLE
    return texts.VERSUS.format(
        x=texts.X_SYMBOL,
        x_name=player_name(game, "X"),
        o=texts.O_SYMBOL,
        o_name=player_name(game, "O"),
    )


def _turn_line(game: GameView) -> str:
    mark = game.to_move
    if game.kind_of(mark) != USER:
        return texts.AI_THINKING.format(name=player_name(game, mark), mark=SYMBOLS[mark])
    if _one_phone(game) or game.x_kind == game.o_kind:
        return texts.MARK_TO_MOVE.format(mark=SYMBOLS[mark])
    return texts.YOUR_MOVE.format(mark=SYMBOLS[mark])


def _result_lines(game: GameView) -> list[str]:
    if game.result == DRAW:
        return ["Draw", texts.RESULT_DRAW]
    winner = game.result or "X"
    loser = "O" if winner == "X" else "X"
    words = X_WINS if winner == "X" else O_WINS
    resigned = game.end_reason == "resigned"
    if game.is_ai_match:
        return [words, texts.RESULT_AI_WON.format(name=player_name(game, winner))]
    if _one_phone(game) or game.x_kind == game.o_kind:
        if resigned:
            return [words, texts.RESULT_MARK_RESIGNED.format(mark=SYMBOLS[loser])]
        return [words, texts.RESULT_MARK_WON.format(mark=SYMBOLS[winner])]
    if game.kind_of(winner) == USER:
        return [words, texts.RESULT_YOU_WON]
    return [words, texts.RESULT_YOU_RESIGNED if resigned else texts.RESULT_YOU_LOST]


def render_stats(stats: Stats) -> str:
    """The /stats reply: one line per AI level played, then the total."""
    if not stats.by_opponent:
        return texts.STATS_EMPTY
    lines = [texts.STATS_HEADER]
    for level in LEVELS:
        record = stats.by_opponent.get(level)
        if record is not None:
            lines.append(
                texts.STATS_LINE.format(
                    level=texts.LEVEL_NAMES[level],
                    wins=record.wins,
                    losses=record.losses,
                    draws=record.draws,
                )
            )
    total = stats.total
    lines.append(
        texts.STATS_TOTAL.format(
            wins=total.wins, losses=total.losses, draws=total.draws, played=total.played
        )
    )
    return "\n".join(lines)

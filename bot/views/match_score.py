"""A match game's score on its board, and on the board that ends the match, how the match
ended (`bot.games.matches.rules`): `match_summary` says it as plain values, once, for the chat
board (`match_lines`, in words) and the Mini App (its state) alike."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.games.matches.rules import MatchStatus, Side, mark_of, points
from bot.games.model import GameView
from bot.locales.texts import Texts

#: How a board names the player of a mark (`render.player_name`).
Namer = Callable[[GameView, str, Texts], str]

#: How a match ended, by the words that say it.
ENDINGS = {
    MatchStatus.WON: "MATCH_WON",
    MatchStatus.DRAWN: "MATCH_DRAWN",
    MatchStatus.ABANDONED: "MATCH_STOPPED",
}


@dataclass(frozen=True)
class MatchSummary:
    """What a match game's board says of its match: the length, this game's number, the marks
    sides A and B play in it and their points; once this game ended the match, the words of
    its ending (a catalog name), the winner's mark and the score as written (`2–0`)."""

    best_of: int
    game: int
    a_mark: str
    b_mark: str
    a_score: str
    b_score: str
    ending: str | None = None
    winner: str | None = None
    score: str | None = None


def match_summary(game: GameView) -> MatchSummary | None:
    """The match line of `game` (the score of the games before it while it is played, with
    it once it ended: a game the match went on after keeps its own score, as `reads` gives
    it), and on the game that ended the match, how it ended."""
    score, number = game.match, game.match_game
    if score is None or number is None:
        return None
    summary = MatchSummary(
        score.best_of,
        number,
        mark_of(Side.A, number),
        mark_of(Side.B, number),
        points(score.a_halves),
        points(score.b_halves),
    )
    if game.is_live or not score.is_over or score.played > number:
        return summary
    if score.status is MatchStatus.WON:
        high, low = sorted((score.a_halves, score.b_halves), reverse=True)
        winner = summary.a_mark if score.winner is Side.A else summary.b_mark
        won = f"{points(high)}–{points(low)}"
        return _ended(summary, ENDINGS[MatchStatus.WON], winner, won)
    level = f"{summary.a_score}–{summary.b_score}"
    return _ended(summary, ENDINGS.get(score.status, "MATCH_STOPPED"), None, level)


def _ended(summary: MatchSummary, ending: str, winner: str | None, score: str) -> MatchSummary:
    return replace(summary, ending=ending, winner=winner, score=score)


def match_lines(game: GameView, tr: Texts, name: Namer) -> list[str]:
    """ "🏆 Best of 3 · Ann 1 – 0 Ben · game 2", and under it how the match ended."""
    summary = match_summary(game)
    if summary is None:
        return []
    line = tr.MATCH_LINE.format(
        best_of=summary.best_of,
        a=name(game, summary.a_mark, tr),
        a_score=summary.a_score,
        b_score=summary.b_score,
        b=name(game, summary.b_mark, tr),
        game=summary.game,
    )
    if summary.ending is None:
        return [line]
    winner = "" if summary.winner is None else name(game, summary.winner, tr)
    return [line, tr.text(summary.ending).format(name=winner, score=summary.score)]

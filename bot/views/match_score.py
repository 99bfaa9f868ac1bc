"""A match game's score line on its board, and on the board that ends the match, how the
match ended (`bot.games.match_rules`)."""

from __future__ import annotations

from collections.abc import Callable

from bot.games.match_rules import MatchScore, MatchStatus, Side, mark_of, points
from bot.games.model import GameView
from bot.views.texts import Texts

#: How a board names the player of a mark (`render.player_name`).
Namer = Callable[[GameView, str, Texts], str]


def match_lines(game: GameView, tr: Texts, name: Namer) -> list[str]:
    """ "🏆 Best of 3 · Ann 1 – 0 Ben · game 2" on every board of a match game (the score of
    the games before it while it is played, with it once it ended), and on the game that
    ended the match, who won it and by what score."""
    score, number = game.match, game.match_game
    if score is None or number is None:
        return []
    a, b = (name(game, mark_of(side, number), tr) for side in (Side.A, Side.B))
    lines = [
        tr.MATCH_LINE.format(
            best_of=score.best_of,
            a=a,
            a_score=points(score.a_halves),
            b_score=points(score.b_halves),
            b=b,
            game=number,
        )
    ]
    if game.is_live or not score.is_over or score.played > number:
        return lines
    return [*lines, _ending(score, tr, a if score.winner is Side.A else b)]


def _ending(score: MatchScore, tr: Texts, winner: str) -> str:
    if score.status is MatchStatus.WON:
        high, low = sorted((score.a_halves, score.b_halves), reverse=True)
        return tr.MATCH_WON.format(name=winner, score=f"{points(high)}–{points(low)}")
    level = f"{points(score.a_halves)}–{points(score.b_halves)}"
    if score.status is MatchStatus.DRAWN:
        return tr.MATCH_DRAWN.format(score=level)
    return tr.MATCH_STOPPED.format(score=level)

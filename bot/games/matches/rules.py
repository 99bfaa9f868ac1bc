"""Matches of several games ("best of 3", "best of 5") as pure rules on plain values.

Two players, side A (who plays ❌ in the first game: the challenger, or the one the queue
served first) and side B, play up to `best_of` games with sides alternating: A has ❌ in
games 1, 3, 5, B in games 2 and 4.

A drawn game counts ½ to each, as lichess's and chess.com's matches count it. Why not replay
drawn games until someone wins: tic-tac-toe between two careful players is always a draw, so
such a match might never end; with ½ a match is never longer than `best_of` games. Scores are
kept in half points (integers), so that nothing is rounded.

The match is decided once the side behind cannot catch up in the games left (each game is
worth one point), or after `best_of` games: the higher score wins, an equal score is a drawn
match.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from core.board import O, X

#: The match lengths offered (`bo3`, `bo5`); 1 is a single game, no match.
BEST_OF = (3, 5)


class MatchStatus(StrEnum):
    """A match's stored `status`."""

    PLAYING = "playing"
    WON = "won"  # one side has more points and cannot be caught
    DRAWN = "drawn"  # level after every game
    ABANDONED = "abandoned"  # a game of it ended without being played out (see `match_play`)


class Side(StrEnum):
    A = "a"
    B = "b"


def mark_of(side: Side, game_number: int) -> str:
    """The mark `side` plays in game `game_number` (1-based): A has ❌ in the odd games."""
    a_is_x = game_number % 2 == 1
    return X if (side is Side.A) == a_is_x else O


def side_of(mark: str, game_number: int) -> Side:
    """Which side plays `mark` in game `game_number`."""
    return Side.A if mark_of(Side.A, game_number) == mark else Side.B


@dataclass(frozen=True)
class MatchScore:
    """A match's score after `played` games, in half points; `status` is PLAYING until the
    match is over."""

    best_of: int
    a_halves: int = 0
    b_halves: int = 0
    played: int = 0
    status: MatchStatus = MatchStatus.PLAYING

    @property
    def next_game(self) -> int:
        return self.played + 1

    @property
    def is_over(self) -> bool:
        return self.status is not MatchStatus.PLAYING

    @property
    def winner(self) -> Side | None:
        """The side that won the match, once it is won."""
        if self.status is not MatchStatus.WON:
            return None
        return Side.A if self.a_halves > self.b_halves else Side.B

    def halves_of(self, side: Side) -> int:
        return self.a_halves if side is Side.A else self.b_halves

    def record(self, winner_mark: str | None) -> MatchScore:
        """The score after the next game, won by `winner_mark` (None: a draw)."""
        assert not self.is_over, "the match is over"
        game = self.next_game
        a, b = self.a_halves, self.b_halves
        if winner_mark is None:
            a, b = a + 1, b + 1
        elif side_of(winner_mark, game) is Side.A:
            a += 2
        else:
            b += 2
        return _judged(MatchScore(self.best_of, a, b, game))

    def abandoned(self) -> MatchScore:
        """The match stopped where it is (its score as it stands)."""
        return MatchScore(
            self.best_of, self.a_halves, self.b_halves, self.played, MatchStatus.ABANDONED
        )


def score_after(best_of: int, winners: Iterable[str | None]) -> MatchScore:
    """The score of a match of `best_of` once its games were won by `winners`, in order
    (None: a draw): the score as it stood after a game, for that game's board."""
    score = MatchScore(best_of)
    for winner in winners:
        score = score.record(winner)
    return score


def _judged(score: MatchScore) -> MatchScore:
    left = score.best_of - score.played
    lead = abs(score.a_halves - score.b_halves)
    if lead > 2 * left:
        return MatchScore(
            score.best_of, score.a_halves, score.b_halves, score.played, MatchStatus.WON
        )
    if left == 0:
        return MatchScore(
            score.best_of, score.a_halves, score.b_halves, score.played, MatchStatus.DRAWN
        )
    return score


def points(halves: int) -> str:
    """Half points as a score is written: 0, ½, 1, 1½, 2 …"""
    whole, half = divmod(halves, 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"

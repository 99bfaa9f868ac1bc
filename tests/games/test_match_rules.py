"""Matches of several games: decided exactly when the side behind cannot catch up, never
longer than best_of games, sides alternating (hypothesis over random results)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.games.match_rules import (
    MatchScore,
    MatchStatus,
    Side,
    mark_of,
    points,
    side_of,
)
from bot.wire.game_spec import parse_match_words
from core.board import O, X

RESULTS = st.lists(st.sampled_from([X, O, None]), min_size=0, max_size=10)


def play(best_of: int, results: list[str | None]) -> list[MatchScore]:
    """The scores after each game, until the match is over or the results run out."""
    scores = [MatchScore(best_of)]
    for winner in results:
        if scores[-1].is_over:
            break
        scores.append(scores[-1].record(winner))
    return scores


@given(st.sampled_from([3, 5]), RESULTS)
def test_a_match_is_decided_exactly_when_the_side_behind_cannot_catch_up(
    best_of: int, results: list[str | None]
) -> None:
    scores = play(best_of, results)
    for score in scores:
        left = best_of - score.played
        lead = abs(score.a_halves - score.b_halves)
        assert score.played <= best_of
        assert score.a_halves + score.b_halves == 2 * score.played
        if lead > 2 * left:
            assert score.status is MatchStatus.WON
            assert score.winner is (Side.A if score.a_halves > score.b_halves else Side.B)
        elif left == 0:
            assert score.status is MatchStatus.DRAWN
            assert score.winner is None
        else:
            assert score.status is MatchStatus.PLAYING
    for before in scores[:-1]:
        assert not before.is_over  # nothing is played after the match is over


@given(st.sampled_from([3, 5]), st.lists(st.sampled_from([X, O, None]), min_size=10))
def test_a_match_always_ends_within_best_of_games(best_of: int, results: list[str | None]) -> None:
    last = play(best_of, results)[-1]
    assert last.is_over
    assert last.played <= best_of


@given(st.integers(min_value=1, max_value=9))
def test_sides_alternate_and_a_starts(game: int) -> None:
    assert mark_of(Side.A, 1) == X
    assert mark_of(Side.A, game) != mark_of(Side.A, game + 1)
    assert mark_of(Side.A, game) != mark_of(Side.B, game)
    for mark in (X, O):
        assert mark_of(side_of(mark, game), game) == mark


def test_a_best_of_3_ends_2_0_or_2_1() -> None:
    # A wins game 1 with ❌ and game 2 with ⭕: 2–0 after two games.
    two_nil = play(3, [X, O])[-1]
    assert (two_nil.status, two_nil.winner, two_nil.played) == (MatchStatus.WON, Side.A, 2)
    assert (points(two_nil.a_halves), points(two_nil.b_halves)) == ("2", "0")
    # A wins game 1, B wins game 2 (with ❌), A wins game 3 (with ❌): 2–1.
    two_one = play(3, [X, X, X])[-1]
    assert (two_one.status, two_one.winner, two_one.played) == (MatchStatus.WON, Side.A, 3)
    # A win and a draw are not yet decisive: the third game could level it.
    assert play(3, [X, None])[-1].status is MatchStatus.PLAYING
    # A has ❌ again in game 3: a win there makes it 2½–½.
    assert play(3, [X, None, X])[-1].status is MatchStatus.WON
    level = play(3, [X, None, O])[-1]
    assert (level.status, points(level.a_halves), points(level.b_halves)) == (
        MatchStatus.DRAWN,
        "1½",
        "1½",
    )


def test_match_words() -> None:
    assert parse_match_words(["bo3", "5"]) == (3, ["5"])
    assert parse_match_words(["best5"]) == (5, [])
    assert parse_match_words(["7"]) == (1, ["7"])
    assert parse_match_words(["bo3", "bo5"]) is None

"""Matches of several games: decided exactly when the side behind cannot catch up, never
longer than best_of games, sides alternating (hypothesis over random results)."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from bot.games.matches.rules import (
    MatchScore,
    MatchStatus,
    Side,
    mark_of,
    points,
    side_of,
)
from bot.games.strangers.pairing import Waiting, pairs
from bot.wire.game_spec import Seek, parse_match_words, parse_play_args
from core.board import CLASSIC, O, X

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


def test_play_words_take_a_match_length() -> None:
    seek = parse_play_args(["bo3", "5"])
    assert seek is not None and (seek.best_of, seek.board.size) == (3, 5)
    assert parse_play_args([]) == Seek(CLASSIC)
    assert parse_play_args(["bo3", "bo5"]) is None


@given(st.lists(st.sampled_from([1, 3, 5]), min_size=2, max_size=8))
def test_the_queue_pairs_only_players_asking_for_the_same_match_length(
    lengths: list[int],
) -> None:
    now = datetime(2026, 11, 27, tzinfo=UTC)
    waiting = [
        Waiting(i, f"p{i}", "3x3", 1500.0, i, None, None, now, best_of=length)
        for i, length in enumerate(lengths)
    ]
    made = pairs(waiting, set(), now)
    assert all(first.best_of == second.best_of for first, second in made)
    # Everybody who could be paired is: at most one left waiting per length.
    paired = {player.player_id for pair in made for player in pair}
    left = [w.best_of for w in waiting if w.player_id not in paired]
    assert len(left) == len(set(left))

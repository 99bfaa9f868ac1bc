"""core.glicko2: Glickman's worked example, idle periods, and the rating's invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.glicko2 import (
    MAX_DEVIATION,
    MIN_DEVIATION,
    PROVISIONAL_DEVIATION,
    SCALE,
    Rating,
    Result,
    _variance_and_improvement,
    expected_score,
    rate,
)

# The example of Glickman's "Example of the Glicko-2 system" (2013).
PAPER_PLAYER = Rating(1500.0, 200.0, 0.06)
PAPER_RESULTS = (
    Result(Rating(1400.0, 30.0), 1.0),
    Result(Rating(1550.0, 100.0), 0.0),
    Result(Rating(1700.0, 300.0), 0.0),
)

ratings = st.floats(min_value=100.0, max_value=3000.0)
deviations = st.floats(min_value=MIN_DEVIATION, max_value=MAX_DEVIATION)
volatilities = st.floats(min_value=0.01, max_value=0.2)
# Around the default 0.06; a σ near 0.2 alone adds more to φ* than one game takes off.
usual_volatilities = st.floats(min_value=0.01, max_value=0.1)
players = st.builds(Rating, ratings, deviations, volatilities)
scores = st.sampled_from([0.0, 0.5, 1.0])
partial_weights = st.floats(min_value=0.05, max_value=0.95)


def test_glickmans_example() -> None:
    new = rate(PAPER_PLAYER, PAPER_RESULTS, tau=0.5)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def test_glickmans_intermediate_values() -> None:
    # The paper rounds g and E to four places on the way, so its v and Δ are a little off the
    # exact values (1.77898 and -0.48393); a thousandth covers that rounding.
    variance, delta = _variance_and_improvement(0.0, PAPER_RESULTS)
    assert variance == pytest.approx(1.7785, abs=1e-3)
    assert delta == pytest.approx(-0.4834, abs=1e-3)


def test_weight_one_is_the_paper() -> None:
    weighted = tuple(Result(r.opponent, r.score, weight=1.0) for r in PAPER_RESULTS)
    assert rate(PAPER_PLAYER, weighted) == rate(PAPER_PLAYER, PAPER_RESULTS)


def test_an_idle_period_only_grows_the_deviation() -> None:
    new = rate(PAPER_PLAYER, [])
    assert new.rating == PAPER_PLAYER.rating
    assert new.volatility == PAPER_PLAYER.volatility
    assert new.deviation == pytest.approx(SCALE * math.sqrt((200 / SCALE) ** 2 + 0.06**2))


def test_an_idle_deviation_stops_at_the_newcomers() -> None:
    player = Rating(1500.0, 349.0, 0.2)
    for _ in range(5):
        player = rate(player, [])
    assert player.deviation == MAX_DEVIATION
    assert rate(Rating(), []) == Rating()


@given(players)
def test_an_idle_period_never_passes_the_cap(player: Rating) -> None:
    new = rate(player, [])
    assert player.deviation <= new.deviation <= MAX_DEVIATION
    assert (new.rating, new.volatility) == (player.rating, player.volatility)


def test_a_draw_between_two_new_players_changes_no_rating() -> None:
    new = rate(Rating(), [Result(Rating(), 0.5)])
    assert new.rating == 1500.0
    assert new.deviation < MAX_DEVIATION


def test_the_deviation_is_floored() -> None:
    player = Rating(1500.0, MIN_DEVIATION, 0.01)
    new = rate(player, [Result(Rating(1500.0, 30.0), 1.0)] * 50)
    assert new.deviation == MIN_DEVIATION


def test_a_settled_player_can_grow_less_certain_after_an_uninformative_game() -> None:
    # Glicko-2 adds σ′² before the games shrink φ: a game whose result was a foregone
    # conclusion informs too little to win that back, so RD may rise a little.
    player = Rating(1500.0, 100.0, 0.06)
    new = rate(player, [Result(Rating(3000.0, 30.0), 0.0)])
    assert player.deviation < new.deviation < player.deviation + 1


def test_results_are_validated() -> None:
    with pytest.raises(ValueError):
        Result(Rating(), 1.5)
    with pytest.raises(ValueError):
        Result(Rating(), 1.0, weight=0.0)
    with pytest.raises(ValueError):
        rate(Rating(), [], tau=0.0)


def test_provisional() -> None:
    assert Rating().is_provisional
    assert not Rating(deviation=PROVISIONAL_DEVIATION).is_provisional


@given(players, players)
def test_a_win_never_lowers_the_rating(player: Rating, opponent: Rating) -> None:
    assert rate(player, [Result(opponent, 1.0)]).rating >= player.rating


@given(players, players)
def test_a_loss_never_raises_the_rating(player: Rating, opponent: Rating) -> None:
    assert rate(player, [Result(opponent, 0.0)]).rating <= player.rating


@given(players, st.lists(st.tuples(players, scores), min_size=1, max_size=5))
def test_games_never_leave_the_deviation_above_an_idle_periods(
    player: Rating, games: list[tuple[Rating, float]]
) -> None:
    # The exact Glicko-2 bound: φ′ ≤ φ* = √(φ² + σ′²).
    new = rate(player, [Result(opponent, score) for opponent, score in games])
    idle = SCALE * math.sqrt((player.deviation / SCALE) ** 2 + new.volatility**2)
    assert new.deviation <= idle + 1e-9


@given(
    st.builds(Rating, ratings, st.floats(PROVISIONAL_DEVIATION, MAX_DEVIATION), usual_volatilities),
    st.floats(min_value=-400.0, max_value=400.0),
    deviations,
    scores,
)
def test_a_provisional_player_grows_more_certain_with_a_game(
    player: Rating, gap: float, opponent_deviation: float, score: float
) -> None:
    # Not a law of Glicko-2 (see the two tests above): it holds for an unsettled player of a
    # usual volatility against a plausible opponent, who is who a new player meets.
    opponent = Rating(player.rating + gap, opponent_deviation)
    assert rate(player, [Result(opponent, score)]).deviation <= player.deviation


@given(players, players)
def test_the_expected_score_is_a_probability(player: Rating, opponent: Rating) -> None:
    assert 0.0 < expected_score(player, opponent) < 1.0


@given(ratings, ratings, deviations)
def test_expected_scores_are_complementary(a: float, b: float, deviation: float) -> None:
    first, second = Rating(a, deviation), Rating(b, deviation)
    total = expected_score(first, second) + expected_score(second, first)
    assert total == pytest.approx(1.0)


@given(players, players, scores, partial_weights)
def test_a_lighter_game_moves_the_rating_less(
    player: Rating, opponent: Rating, score: float, weight: float
) -> None:
    full = rate(player, [Result(opponent, score)]).rating - player.rating
    light = rate(player, [Result(opponent, score, weight)]).rating - player.rating
    assert abs(light) <= abs(full) + 1e-9

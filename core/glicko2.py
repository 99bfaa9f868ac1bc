"""Glicko-2 player ratings, after Mark Glickman's "Example of the Glicko-2 system" (2013).

A player is a rating r, a rating deviation RD (how unsure the rating is) and a volatility σ
(how erratic the player's results are). One call to `rate` is one rating period:

1. Take the player's r, RD, σ and the system constant τ (how fast σ may change).
2. Convert to the internal scale: μ = (r − 1500) / 173.7178, φ = RD / 173.7178.
3. For each game j, g(φ_j) = 1 / √(1 + 3φ_j²/π²) discounts an uncertain opponent and
   E_j = 1 / (1 + exp(−g(φ_j)(μ − μ_j))) is the expected score; the estimated variance of
   the rating from the games alone is v = [Σ g(φ_j)² E_j (1 − E_j)]⁻¹.
4. The estimated improvement is Δ = v Σ g(φ_j)(s_j − E_j).
5. The new volatility σ′ is the root of f(x) = eˣ(Δ² − φ² − v − eˣ) / (2(φ² + v + eˣ)²)
   − (x − ln σ²) / τ², found by the Illinois (regula falsi) method to within ε = 0.000001.
6. The pre-period deviation is φ* = √(φ² + σ′²).
7. The new deviation is φ′ = 1 / √(1/φ*² + 1/v) and the new rating μ′ = μ + φ′² Σ g(φ_j)(s_j − E_j).
8. Convert back: r′ = 173.7178 μ′ + 1500, RD′ = 173.7178 φ′.

A player with no games in the period keeps μ and σ; only φ grows to φ* = √(φ² + σ²) (step 6).

Two additions to the paper. Each game may carry a weight w in (0, 1] that multiplies its
terms in v⁻¹ and in the Δ sum (so also in μ′), letting repeated games against one opponent
count for less; with every w = 1 the numbers are exactly Glickman's. And the new deviation is
clamped to [MIN_DEVIATION, MAX_DEVIATION].
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# The factor between the Glicko scale (1500 ± 350) and Glicko-2's internal μ, φ scale.
SCALE = 173.7178
BASE_RATING = 1500.0
# An unrated player's deviation; no one can be less known than a newcomer, hence also the cap.
MAX_DEVIATION = 350.0
# Glicko-2 lets a very active player's deviation shrink towards zero, which freezes the rating:
# later results would barely move it. The floor keeps every rating responsive to new form.
MIN_DEVIATION = 30.0
# Above this a new player's number is still mostly a guess (a 95% interval wider than ±220),
# so it should be shown as provisional rather than compared as if it were settled.
PROVISIONAL_DEVIATION = 110.0
DEFAULT_VOLATILITY = 0.06
DEFAULT_TAU = 0.5
# The paper's convergence tolerance for the volatility iteration (step 5).
CONVERGENCE_TOLERANCE = 0.000001


@dataclass(frozen=True)
class Rating:
    """A player's strength on the Glicko scale (not the internal μ, φ scale)."""

    rating: float = BASE_RATING
    deviation: float = MAX_DEVIATION
    volatility: float = DEFAULT_VOLATILITY

    @property
    def is_provisional(self) -> bool:
        return self.deviation > PROVISIONAL_DEVIATION


@dataclass(frozen=True)
class Result:
    """One game of the period: the opponent as rated before it, the score 1 / 0.5 / 0, and a
    weight in (0, 1] that scales how much the game counts."""

    opponent: Rating
    score: float
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"score must be in [0, 1], got {self.score}")
        if not 0.0 < self.weight <= 1.0:
            raise ValueError(f"weight must be in (0, 1], got {self.weight}")


def _g(phi: float) -> float:
    """How much a game counts given the opponent's uncertainty: 1 for a known opponent."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, opponent_mu: float, opponent_phi: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(opponent_phi) * (mu - opponent_mu)))


def expected_score(player: Rating, opponent: Rating) -> float:
    """The paper's E(μ, μ_j, φ_j): the player's expected score against the opponent."""
    return _expected(
        (player.rating - BASE_RATING) / SCALE,
        (opponent.rating - BASE_RATING) / SCALE,
        opponent.deviation / SCALE,
    )


def _variance_and_improvement(mu: float, results: Sequence[Result]) -> tuple[float, float]:
    """Steps 3 and 4: the estimated variance v and the estimated improvement Δ."""
    information = 0.0  # v⁻¹
    surprise = 0.0  # Σ g(φ_j)(s_j − E_j), the sum that both Δ and μ′ scale
    for result in results:
        opponent_mu = (result.opponent.rating - BASE_RATING) / SCALE
        opponent_phi = result.opponent.deviation / SCALE
        g = _g(opponent_phi)
        expected = _expected(mu, opponent_mu, opponent_phi)
        information += result.weight * g * g * expected * (1.0 - expected)
        surprise += result.weight * g * (result.score - expected)
    variance = 1.0 / information
    return variance, variance * surprise


def _new_volatility(phi: float, sigma: float, variance: float, delta: float, tau: float) -> float:
    """Step 5: σ′ by the Illinois algorithm, as the paper spells it out."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        denominator = 2.0 * (phi2 + variance + ex) ** 2
        return ex * (delta * delta - phi2 - variance - ex) / denominator - (x - a) / (tau * tau)

    # Bracket the root: f(A) > 0 > f(B).
    low = a
    if delta * delta > phi2 + variance:
        high = math.log(delta * delta - phi2 - variance)
    else:
        k = 1
        while f(a - k * tau) < 0.0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > CONVERGENCE_TOLERANCE:
        new = low + (low - high) * f_low / (f_high - f_low)
        f_new = f(new)
        if f_new * f_high <= 0.0:
            low, f_low = high, f_high
        else:
            # The Illinois step: halving the stale end's value stops regula falsi stalling.
            f_low /= 2.0
        high, f_high = new, f_new
    return math.exp(low / 2.0)


def _clamp_deviation(deviation: float) -> float:
    return min(MAX_DEVIATION, max(MIN_DEVIATION, deviation))


def rate(player: Rating, results: Sequence[Result], *, tau: float = DEFAULT_TAU) -> Rating:
    """The player's rating after one rating period with these results (steps 1-8)."""
    if tau <= 0.0:
        raise ValueError(f"tau must be positive, got {tau}")
    mu = (player.rating - BASE_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        # Step 6 alone: an idle player grows less certain, nothing else changes.
        idle_phi = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, _clamp_deviation(SCALE * idle_phi), sigma)
    variance, delta = _variance_and_improvement(mu, results)
    new_sigma = _new_volatility(phi, sigma, variance, delta, tau)
    pre_period_phi = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (pre_period_phi * pre_period_phi) + 1.0 / variance)
    # Σ g(φ_j)(s_j − E_j) is Δ / v; μ′ uses the unclamped φ′, as in the paper.
    new_mu = mu + new_phi * new_phi * delta / variance
    return Rating(
        SCALE * new_mu + BASE_RATING,
        _clamp_deviation(SCALE * new_phi),
        new_sigma,
    )

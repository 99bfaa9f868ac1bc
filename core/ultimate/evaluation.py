"""A learned evaluation of ultimate positions for the tree search (core.ultimate.mcts): the
chance that the player to move wins, from a table of weights.

The evaluation is an n-tuple network, a logistic sum of weights, one per feature that holds:
- for each small board, its exact contents (3⁹ states, or won by either player, or drawn)
  together with whether the mover must play there, may play anywhere, or is sent elsewhere;
- for each of the eight lines of small boards, the three boards' kinds: won by either
  player, drawn, or open, and then whether each player has a cell there that wins it;
- the whole big board: each small board open, won by either player, or drawn;
- a constant.
All are read from the mover's point of view, so one table serves both players.

The weights (core.ultimate.weights, data) were learned offline by bench/ultimate_eval_train.py,
which regenerates them: first fitted to the results of playouts from positions of games
between medium players, then refined by temporal-difference learning over games in which each
side plays the move the evaluation likes best. Pure: arithmetic on the position's masks.
"""

from __future__ import annotations

import base64
import functools
import math
import zlib
from array import array
from collections.abc import Iterable

from core.ultimate.rules import COMPLETING, FULL, HAS_LINE, LINES, Position
from core.ultimate.weights import PACKED_WEIGHTS, WEIGHT_STEP

# A small board's state as a base-3 number: 1 for the mover's marks, 2 for the opponent's.
TERNARY: tuple[int, ...] = tuple(sum(3**i for i in range(9) if m >> i & 1) for m in range(512))
WON_BY_MOVER, WON_BY_OPPONENT, DRAWN = 3**9, 3**9 + 1, 3**9 + 2
BLOCK_STATES = 3**9 + 3
# Where the mover plays relative to a small board: sent elsewhere, sent here, or anywhere.
ELSEWHERE, HERE, ANYWHERE = 0, 1, 2
# A small board's kind in a line: 0 drawn, 1 won by the mover, 2 by the opponent; open boards
# are 3 + (1 if the mover can win it with one cell) + (2 if the opponent can).
KINDS = 7
LINE_BASE = 9 * BLOCK_STATES * 3
BIG_BASE = LINE_BASE + 8 * KINDS**3
FEATURES = BIG_BASE + 4**9 + 1
BIAS = FEATURES - 1
# A kind's digit in the big board's index: open 0, won by the mover 1, by the opponent 2,
# drawn 3.
BIG_DIGIT = (3, 1, 2, 0, 0, 0, 0)


def pack(weights: list[float], step: float) -> bytes:
    """The stored form of `weights` (see `unpack`): each rounded to a multiple of `step`,
    within ±127 steps."""
    steps = array("b", (max(-127, min(127, round(w / step))) for w in weights))
    return base64.b85encode(zlib.compress(steps.tobytes(), 9))


def unpack(packed: bytes, step: float) -> list[float]:
    """The weights from their stored form: base-85 text of zlib-compressed signed bytes, each
    a multiple of `step`."""
    steps = array("b", zlib.decompress(base64.b85decode(packed)))
    values = [i * step for i in range(-128, 128)]  # one float object per distinct weight
    return [values[s + 128] for s in steps]


@functools.cache
def shipped_weights() -> list[float]:
    """The weights of core.ultimate.weights, unpacked on first use: only a process that
    evaluates pays for them (some 60 ms and 6 MB), not the bot's, which only imports this."""
    weights = unpack(PACKED_WEIGHTS, WEIGHT_STEP)
    if len(weights) != FEATURES:
        raise ValueError(f"core.ultimate.weights holds {len(weights)} weights, not {FEATURES}")
    return weights


def features(position: Position) -> list[int]:
    """The indices of the features that hold in `position` (a game not yet over)."""
    p = position.player
    mine, theirs = position.marks[p], position.marks[3 - p]
    won_mine, won_theirs, closed = position.won[p], position.won[3 - p], position.closed
    target = position.target
    found = []
    kinds = []
    for b in range(9):
        bit = 1 << b
        if won_mine & bit:
            state, kind = WON_BY_MOVER, 1
        elif won_theirs & bit:
            state, kind = WON_BY_OPPONENT, 2
        elif closed & bit:
            state, kind = DRAWN, 0
        else:
            m, t = mine[b], theirs[b]
            state = TERNARY[m] + 2 * TERNARY[t]
            kind = 3 + (1 if COMPLETING[m] & ~t else 0) + (2 if COMPLETING[t] & ~m else 0)
        where = ANYWHERE if target < 0 else HERE if target == b else ELSEWHERE
        found.append((b * BLOCK_STATES + state) * 3 + where)
        kinds.append(kind)
    for i, (a, b, c) in enumerate(LINES):
        found.append(LINE_BASE + i * KINDS**3 + (kinds[a] * KINDS + kinds[b]) * KINDS + kinds[c])
    big = 0
    for kind in kinds:
        big = big * 4 + BIG_DIGIT[kind]
    found.append(BIG_BASE + big)
    found.append(BIAS)
    return found


def logistic(z: float) -> float:
    """1 / (1 + e^-z), without overflow for any z."""
    if z < -30.0:
        return 0.0
    if z > 30.0:
        return 1.0
    return 1.0 / (1.0 + math.exp(-z))


def chance(indices: Iterable[int], weights: list[float]) -> float:
    """The logistic sum of the weights of these features."""
    z = 0.0
    for i in indices:  # a plain loop: faster here than sum(map(...))
        z += weights[i]
    return logistic(z)


def mover_wins(position: Position, weights: list[float] | None = None) -> float:
    """The evaluation: the chance, in [0, 1], that the player to move wins (a draw counts ½),
    by `weights` (by default the shipped ones)."""
    return chance(features(position), shipped_weights() if weights is None else weights)


def move_worth(after: Position, mover: int, weights: list[float] | None = None) -> float:
    """What the move to `after` is worth to its `mover`: 1 if it won the game, ½ if it drew
    it, else one minus the next player's chance by the evaluation."""
    if after.result:
        return 1.0 if after.result == mover else 0.5
    return 1.0 - mover_wins(after, weights)


# --- every child at once -------------------------------------------------------------------

# For each block, the lines of blocks through it: (line index, its three blocks).
LINES_THROUGH: tuple[tuple[tuple[int, tuple[int, int, int]], ...], ...] = tuple(
    tuple((i, line) for i, line in enumerate(LINES) if b in line) for b in range(9)
)
BIG_PLACE = tuple(4 ** (8 - b) for b in range(9))  # a block's digit's weight in the big index


def _block_terms(m: int, t: int, won_m: int, won_t: int, closed: int, b: int) -> tuple[int, int]:
    """(state, kind) of block b as `features` reads it, for masks m (the mover's) and t."""
    bit = 1 << b
    if won_m & bit:
        return WON_BY_MOVER, 1
    if won_t & bit:
        return WON_BY_OPPONENT, 2
    if closed & bit:
        return DRAWN, 0
    state = TERNARY[m] + 2 * TERNARY[t]
    return state, 3 + (1 if COMPLETING[m] & ~t else 0) + (2 if COMPLETING[t] & ~m else 0)


def _line_weights(kinds: list[int], w: list[float]) -> list[float]:
    """The weight of each line of blocks' feature, for the blocks' kinds."""
    return [
        w[LINE_BASE + i * KINDS**3 + (kinds[a] * KINDS + kinds[b]) * KINDS + kinds[c]]
        for i, (a, b, c) in enumerate(LINES)
    ]


def _big_index(kinds: list[int]) -> int:
    """The big board's feature index, less BIG_BASE, for the blocks' kinds."""
    big = 0
    for kind in kinds:
        big = big * 4 + BIG_DIGIT[kind]
    return big


def child_worths(
    position: Position, moves: list[int], weights: list[float] | None = None
) -> list[float]:
    """move_worth(position.after(move), position.player) of each move, without playing them:
    a move changes one block and where the next move goes, so the weights of the rest of the
    position are summed once (the same value within 1e-9: the sum is rounded there)."""
    w = shipped_weights() if weights is None else weights
    p = position.player
    q = 3 - p  # the mover after the move, from whose side the features are read
    mine, theirs = position.marks[q], position.marks[p]
    won_q, won_p, closed = position.won[q], position.won[p], position.closed
    terms = [_block_terms(mine[b], theirs[b], won_q, won_p, closed, b) for b in range(9)]
    kinds = [kind for _, kind in terms]
    bases = [(b * BLOCK_STATES + state) * 3 for b, (state, _) in enumerate(terms)]
    sum_else = sum(w[base + ELSEWHERE] for base in bases)
    sum_any = sum(w[base + ANYWHERE] for base in bases)
    line_w = _line_weights(kinds, w)
    line_total = sum(line_w)
    big = _big_index(kinds)
    fixed = w[BIAS]
    found = []
    for move in moves:
        b, c = divmod(move, 9)
        t = theirs[b] | 1 << c
        bit = 1 << b
        after_closed = closed
        if HAS_LINE[t]:
            if HAS_LINE[won_p | bit]:
                found.append(1.0)
                continue
            after_closed |= bit
        elif t | mine[b] == FULL:
            after_closed |= bit
        if after_closed == FULL:
            found.append(0.5)
            continue
        state, kind = _block_terms(
            mine[b], t, won_q, won_p | (bit if HAS_LINE[t] else 0), after_closed, b
        )
        new = (b * BLOCK_STATES + state) * 3
        if after_closed >> c & 1:  # the next mover may play anywhere
            z = sum_any - w[bases[b] + ANYWHERE] + w[new + ANYWHERE]
        else:
            z = sum_else - w[bases[b] + ELSEWHERE] + w[new + (HERE if c == b else ELSEWHERE)]
            if c != b:
                z += w[bases[c] + HERE] - w[bases[c] + ELSEWHERE]
        kinds[b], old_kind = kind, kinds[b]
        z += line_total
        for i, (x, y, v) in LINES_THROUGH[b]:
            z += w[LINE_BASE + i * KINDS**3 + (kinds[x] * KINDS + kinds[y]) * KINDS + kinds[v]]
            z -= line_w[i]
        kinds[b] = old_kind
        z += w[BIG_BASE + big + (BIG_DIGIT[kind] - BIG_DIGIT[old_kind]) * BIG_PLACE[b]] + fixed
        # Rounded: children equal by symmetry stay exactly equal whatever the sum's order.
        found.append(1.0 - logistic(round(z, 9)))
    return found

"""core.ultimate.ai: the levels on ultimate boards, checked against a model built on the rules'
public functions (never on the AI's masks).

Searches run on a fake clock that advances a fixed step at every reading, or with a few
iterations and a clock that never reaches the budget, so every result is deterministic and no
test depends on the machine's speed.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.ultimate.ai
from core.ai import LEVELS
from core.board import GameOverError, O, X, other
from core.ultimate.ai import (
    STRATEGIES,
    checked_best,
    choose_move,
    easy_move,
    hard_move,
    medium_move,
    refuted,
    search,
)
from core.ultimate.mcts import Tree
from core.ultimate.rules import (
    Position,
    UltimateBoard,
    block_cells,
    block_result,
    from_text,
    is_over,
    legal_moves,
    play,
    turn,
    winner,
)
from tests.core.test_ultimate import LINES_3X3, compose, random_game
from tests.support.ai_doubles import STEP, NodeClock, possible_moves


def hard(board: UltimateBoard, seed: int = 0, iterations: int = 30) -> int:
    """A deterministic hard move: `iterations` iterations on a clock that stands still."""
    return hard_move(board, random.Random(seed), clock=NodeClock(0), max_iterations=iterations)


# --- a model of the tactics, on the rules' public functions -------------------------------------


def game_wins(board: UltimateBoard) -> list[int]:
    """Moves with which the player to move wins the game at once."""
    return [m for m in legal_moves(board) if winner(play(board, m)) == turn(board)]


def gives_a_game_win(board: UltimateBoard, move: int) -> bool:
    after = play(board, move)
    return not is_over(after) and bool(game_wins(after))


def wins_small_board(board: UltimateBoard, move: int, mark: str) -> bool:
    """Would `mark` at `move` complete a line of its small board?"""
    nine = list(block_cells(board, move // 9))
    nine[move % 9] = mark
    return any(nine[a] == nine[b] == nine[c] == mark for a, b, c in LINES_3X3)


def medium_candidates(board: UltimateBoard) -> list[int]:
    """The moves medium chooses among, by the cascade in core.ultimate.ai's docstring."""
    me = turn(board)
    wins = game_wins(board)
    if wins:
        return wins
    moves = legal_moves(board)
    safe = [m for m in moves if not gives_a_game_win(board, m)] or moves
    small = [m for m in safe if wins_small_board(board, m, me)]
    blocks = [m for m in safe if wins_small_board(board, m, other(me))]

    def calm(m: int) -> bool:
        after = play(board, m)
        if is_over(after):
            return True
        sent_to = m % 9
        if block_result(after, sent_to) is not None:
            return False  # a free choice
        return not any(wins_small_board(after, r, other(me)) for r in legal_moves(after))

    return small or blocks or [m for m in safe if calm(m)] or safe


@cache
def sample() -> tuple[UltimateBoard, ...]:
    """Unfinished positions of seeded games mixing medium and easy moves (medium makes threats
    and blocks them, easy lets them through)."""
    found = []
    for seed in range(24):
        rng = random.Random(seed)
        board = UltimateBoard.empty()
        while not is_over(board):
            found.append(board)
            strategy = medium_move if rng.random() < 0.6 else easy_move
            board = play(board, strategy(board, rng))
    return tuple(found)


# --- every move a strategy could make ---------------------------------------------------------


# --- easy and medium -----------------------------------------------------------------------------


def test_easy_plays_any_legal_move() -> None:
    for board in sample()[::7]:
        assert possible_moves(easy_move, board) == legal_moves(board)


@pytest.mark.slow
def test_medium_follows_its_cascade() -> None:
    kinds: Counter[str] = Counter()
    for board in sample()[::2]:
        expected = medium_candidates(board)
        assert sorted(possible_moves(medium_move, board)) == sorted(expected)
        kinds["win"] += bool(game_wins(board))
        kinds["free"] += len({m // 9 for m in legal_moves(board)}) > 1
    assert kinds["win"] >= 5 and kinds["free"] >= 5  # the sample holds both kinds


def test_no_level_above_easy_sends_the_opponent_to_a_game_win() -> None:
    # O won blocks 0 and 1 and has two in the top row of block 2. X is sent to block 4:
    # cell 2 there sends O to block 2, cells 0 and 1 give it a free choice, and O would
    # complete the top line of blocks. Cells 3 to 8 are safe.
    o_row = "OOOXX_X__"
    blocks = {0: o_row, 1: o_row, 2: "OO_X_____", 3: "____O____", 5: "X_X______"}
    board = compose(blocks, last=31)
    assert turn(board) == X
    assert legal_moves(board) == list(range(36, 45))
    assert [m for m in legal_moves(board) if gives_a_game_win(board, m)] == [36, 37, 38]
    assert all(39 <= m <= 44 for m in possible_moves(medium_move, board))
    for seed in range(3):
        assert 39 <= hard(board, seed) <= 44


# --- hard: the exact rules ---------------------------------------------------------------------


def test_hard_takes_every_win_in_one() -> None:
    seen = 0
    for seed, board in enumerate(sample()):
        wins = game_wins(board)
        if wins:
            seen += 1
            move = hard(board, seed)
            assert move in wins
            assert winner(play(board, move)) == turn(board)
    assert seen >= 10


@pytest.mark.slow
def test_hard_blocks_every_loss_in_one() -> None:
    seen = 0
    for seed, board in enumerate(sample()[::3]):  # a third: the model is slow on free choices
        if game_wins(board):
            continue
        unsafe = [m for m in legal_moves(board) if gives_a_game_win(board, m)]
        if unsafe and len(unsafe) < len(legal_moves(board)):
            seen += 1
            assert not gives_a_game_win(board, hard(board, seed))
    assert seen >= 10


def forces_a_win(board: UltimateBoard, me: str, plies: int) -> bool:
    """Can `me` force a win within `plies` more moves (whoever is to move)?"""
    if is_over(board) or not plies:
        return winner(board) == me
    outcomes = (forces_a_win(play(board, m), me, plies - 1) for m in legal_moves(board))
    return any(outcomes) if turn(board) == me else all(outcomes)


def wins_in_three(board: UltimateBoard) -> list[int]:
    """Moves after which every reply leaves the mover a game win (and none wins for the
    opponent): the mover wins with its next move whatever happens."""
    found = []
    for move in legal_moves(board):
        after = play(board, move)
        if is_over(after) or game_wins(after):
            continue
        if all(game_wins(play(after, reply)) for reply in legal_moves(after)):
            found.append(move)
    return found


@pytest.mark.slow
def test_hard_proves_and_plays_every_win_in_three() -> None:
    # The tree's children follow the root's rules, so a win two moves ahead is proven within
    # a few hundred iterations; the search then stops and plays it (the search before did
    # not play one in 27% of these cases at 300 iterations, with no proof).
    seen = 0
    for seed, board in enumerate(sample()):
        if is_over(board) or game_wins(board) or not wins_in_three(board):
            continue
        seen += 1
        info = search(board, random.Random(seed), clock=NodeClock(0), max_iterations=300)
        assert info.value == 1.0 and info.iterations < 300
        # a proven move that is not a win in three wins by force all the same
        assert forces_a_win(play(board, info.move), turn(board), 4)
    assert seen >= 10


# --- hard: the check of the chosen move ---------------------------------------------------------

# A game hard (❌, at 0.5 s) lost to bench/opponent_mcts.py at 100,000 simulations, up to its
# move at ply 44: it played 80, which a search from the position after it proves lost (⭕ won
# with 42 57 55 16 68 49 56); 73 was not lost.
LOST_AT_PLY_44 = (
    "17 75 30 32 46 12 33 60 59 52 70 64 11 24 62 76 40 44 77 47 20 26 74 25 69 54 0 5 48 27 "
    "3 28 10 9 1 14 50 45 4 43 66 29 7 71"
)


def _before_ply_44() -> Position:
    board = UltimateBoard.empty()
    for move in LOST_AT_PLY_44.split():
        board = play(board, int(move))
    return Position(board)


def test_the_check_strikes_a_move_the_tree_likes_that_loses_by_force() -> None:
    position = _before_ply_44()
    struck = 0
    for seed in range(10):
        tree = Tree()
        tree.expand(0, [80, 73], [0.5, 0.5])
        first = tree.first[0]
        tree.tried[0] = 2
        tree.visits[first], tree.visits[first + 1] = 100, 10  # the tree prefers 80
        best = checked_best(tree, position, random.Random(seed).random, NodeClock(0), 1.0)
        if tree.move[best] == 73:
            struck += 1
            assert tree.proven[first] == -1  # 80 counts as lost from now on
        else:  # not proven within the check's iterations: the tree's choice stands
            assert tree.proven[first] == 0
        assert tree.proven[first + 1] == 0  # 73 was never struck
    # A check is a short search: 1,000 iterations prove this loss in about half the runs.
    assert struck >= 3


def test_the_check_passes_a_move_with_no_short_forced_loss() -> None:
    position = _before_ply_44()
    for seed in range(3):
        assert not refuted(position.after(73), random.Random(seed).random, NodeClock(0), 1.0)


#: The check's proof below is split into this many tests (the model is slow: 14 s in all), each
#: taking every third sampled position; each finds its share of the cases, so they find as
#: many as the whole (ten) together.
REFUTES_SHARDS = 3


@pytest.mark.parametrize("shard", range(REFUTES_SHARDS))
def test_the_check_refutes_every_move_that_allows_a_win_in_three(shard: int) -> None:
    # A move after which the opponent forces a game win within three moves (its, ours, its)
    # is lost; the model finds those on the rules' public functions.
    seen = 0
    for seed, board in enumerate(sample()[::3]):
        if seed % REFUTES_SHARDS != shard or game_wins(board):
            continue
        for move in legal_moves(board):
            after = play(board, move)
            if is_over(after) or not forces_a_win(after, turn(after), 3):
                continue
            seen += 1
            assert refuted(Position(after), random.Random(seed).random, NodeClock(0), 1.0)
    assert seen >= -(-10 // REFUTES_SHARDS)  # ten in all


def test_the_check_keeps_within_the_budget() -> None:
    position = _before_ply_44()
    clock = NodeClock()
    assert not refuted(position.after(80), random.Random(0).random, clock, 0.05)
    assert clock.now <= 0.05 + STEP  # it stopped at the deadline, unproven


@pytest.mark.parametrize("strategy", [easy_move, medium_move, hard_move])
def test_strategies_refuse_a_finished_board(strategy: Any) -> None:
    for seed in range(5):
        with pytest.raises(GameOverError):
            strategy(random_game(seed)[-1], random.Random(0))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 60))
def test_every_level_plays_a_legal_move(seed: int, plies: int) -> None:
    boards = random_game(seed)
    board = boards[min(plies, len(boards) - 2)]
    rng = random.Random(seed)
    assert easy_move(board, rng) in legal_moves(board)
    assert medium_move(board, rng) in legal_moves(board)
    assert hard(board, seed, iterations=20) in legal_moves(board)


# --- hard: time, iterations, determinism ----------------------------------------------------------


def test_hard_keeps_to_its_budget_on_a_fake_clock() -> None:
    budget = 0.05
    for board in sample()[::40]:
        clock = NodeClock()
        info = search(board, random.Random(1), time_budget=budget, clock=clock)
        assert info.move in legal_moves(board)
        # The first reading is the start: every later one falls within the budget.
        assert clock.now - STEP <= budget + 1e-9
        assert info.iterations <= budget / STEP


def test_hard_answers_even_without_time() -> None:
    board = play(UltimateBoard.empty(), 40)
    for budget in (0.0, 0.001):
        move = hard_move(board, random.Random(0), time_budget=budget, clock=NodeClock())
        assert move in legal_moves(board)


def test_max_iterations_makes_hard_deterministic() -> None:
    for board in sample()[::60]:
        runs = [search(board, random.Random(7), clock=NodeClock(0), max_iterations=200)]
        runs.append(search(board, random.Random(7), clock=NodeClock(0), max_iterations=200))
        assert runs[0] == runs[1]
        assert runs[0].iterations <= 200


@pytest.mark.slow
def test_stopping_early_never_changes_the_move(monkeypatch: Any) -> None:
    boards = [b for b in sample()[::25] if not game_wins(b)]
    # Without the check of the chosen move: when it strikes that move, the next most visited
    # one is played, and that one may well differ after more iterations.
    monkeypatch.setattr(core.ultimate.ai, "refuted", lambda *args: False)
    early = [search(b, random.Random(3), clock=NodeClock(0), max_iterations=600) for b in boards]
    monkeypatch.setattr(core.ultimate.ai, "settled", lambda tree, left: False)
    full = [search(b, random.Random(3), clock=NodeClock(0), max_iterations=600) for b in boards]
    assert [i.move for i in early] == [i.move for i in full]
    assert any(i.iterations < 600 for i in early)  # some searches did stop early
    # a full search stops early only on a proof: a move proven to win, or every one to lose
    assert all(i.iterations in (0, 600) or i.value in (0.0, 1.0) for i in full)


def _play_out(levels: dict[str, Any], seed: int) -> str | None:
    rng = random.Random(seed)
    board = UltimateBoard.empty()
    while not is_over(board):
        board = play(board, levels[turn(board)](board, rng))
    return winner(board)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_hard_beats_easy(seed: int) -> None:
    def strong(board: UltimateBoard, rng: random.Random) -> int:
        return hard_move(board, rng, clock=NodeClock(0), max_iterations=200)

    assert _play_out({X: strong, O: easy_move}, seed) == X
    assert _play_out({X: easy_move, O: strong}, seed) == O


# --- levels and random state ---------------------------------------------------------------------


def test_choose_move_dispatches_on_the_level() -> None:
    assert tuple(STRATEGIES) == LEVELS
    assert {"easy": easy_move, "medium": medium_move, "hard": hard_move} == STRATEGIES
    board = from_text("_" * 81)
    for level in ("easy", "medium"):
        moves = [choose_move(level, board, random.Random(s)) for s in range(5)]
        assert moves == [STRATEGIES[level](board, random.Random(s)) for s in range(5)]
    assert choose_move("hard", board, random.Random(0), time_budget=0.01) in range(81)
    with pytest.raises(ValueError, match="nightmare"):
        choose_move("nightmare", board, random.Random(0))


def test_strategies_ignore_the_global_random_state(monkeypatch: Any) -> None:
    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("global random state used")

    for name in ("random", "choice", "choices", "randrange", "randint", "shuffle", "sample"):
        monkeypatch.setattr(random, name, forbidden)
    board = sample()[30]
    for strategy in (easy_move, medium_move):
        assert strategy(board, random.Random(1)) == strategy(board, random.Random(1))
    assert hard(board, 1) == hard(board, 1)

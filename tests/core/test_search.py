"""The `hard` search on 4×4..8×8 boards, checked against an independent model of threats.

Searches run on a fake clock that advances a fixed step at every reading (the search reads it
once per node), so every result is deterministic and no test depends on the machine's speed.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from core.ai import choose_move, easy_move, hard_move, medium_move
from core.board import EMPTY, Board, GameOverError, O, X, default_k, other
from core.notation import format_cells, parse_cells
from core.rules import is_over, play, turn, winner
from core.search.engine import search, search_move
from tests.support.ai_doubles import STEP, NodeClock

DEFAULTS = [(n, default_k(n)) for n in range(4, 9)]
CUSTOM = [(5, 3), (6, 4), (7, 6), (8, 4)]
CONFIGS = DEFAULTS + CUSTOM
BUDGET = 0.1


def hard(board: Board, seed: int = 0, budget: float = BUDGET) -> int:
    return hard_move(board, random.Random(seed), time_budget=budget, clock=NodeClock())


# --- an independent model of threats ------------------------------------------------------------


@cache
def runs(size: int, k: int) -> tuple[tuple[int, ...], ...]:
    found = []
    for row in range(size):
        for col in range(size):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(row + dr * i, col + dc * i) for i in range(k)]
                if all(0 <= r < size and 0 <= c < size for r, c in cells):
                    found.append(tuple(r * size + c for r, c in cells))
    return tuple(found)


def wins(board: Board, mark: str) -> set[int]:
    """Free cells where `mark` would have k in a row."""
    found = set()
    for run in runs(board.size, board.k):
        marks = [board.cells[i] for i in run]
        if marks.count(mark) == board.k - 1 and EMPTY in marks:
            found.add(run[marks.index(EMPTY)])
    return found


def forks(board: Board, mark: str) -> set[int]:
    """Free cells where `mark` would get two or more winning cells at once."""
    found = set()
    for run in runs(board.size, board.k):
        marks = [board.cells[i] for i in run]
        if marks.count(mark) == board.k - 2 and marks.count(EMPTY) == 2:
            for i in run:
                if board.cells[i] == EMPTY and len(wins(board.with_mark(i, mark), mark)) >= 2:
                    found.add(i)
    return found


def opponent_forces_a_win(after: Board, me: str) -> bool:
    """With the opponent to move after my move: can it win now, or make two winning cells
    while I have none to answer with?"""
    them = other(me)
    if wins(after, them):
        return True
    return any(not wins(after.with_mark(reply, them), me) for reply in forks(after, them))


def builder_move(board: Board, rng: random.Random) -> int:
    """A greedy line builder: the free cell adding most to its own open runs (squared marks),
    a random one among the best. Games of it make many threats, wins and blocks."""
    me, them = turn(board), other(turn(board))
    cells = board.cells
    score = dict.fromkeys(board.free_cells(), 0)
    for run in runs(board.size, board.k):
        marks = [cells[i] for i in run]
        if them not in marks:
            gain = (marks.count(me) + 1) ** 2
            for i in run:
                if i in score:
                    score[i] += gain
    best = max(score.values())
    return rng.choice([cell for cell, value in score.items() if value == best])


def positions(size: int, k: int, count: int, seed: int) -> list[Board]:
    """Unfinished positions of random games mixing builder, medium and easy moves."""
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        board = Board.empty(size, k)
        for _ in range(rng.randrange(1, size * size)):
            strategy = rng.choice((builder_move, builder_move, medium_move, easy_move))
            board = play(board, strategy(board, rng))
            if is_over(board):
                break
        if not is_over(board):
            found.append(board)
    return found


@cache
def sample(size: int, k: int) -> tuple[Board, ...]:
    return tuple(positions(size, k, 150, seed=size * 100 + k))


# --- the model itself ---------------------------------------------------------------------


def test_the_model_on_known_positions() -> None:
    # 5×5, k=4: `_OO__` in the middle row; O at 13 makes `_OOO_` with both ends winning.
    board = parse_cells("X____" + "_____" + "_OO__" + "_____" + "____X", k=4)
    assert wins(board, O) == set()
    assert forks(board, O) == {13}  # and 10 gives `OOO__` with a single winning cell
    assert wins(board.with_mark(13, O), O) == {10, 14}


# --- wins, blocks, open threats -------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("size", "k"), CONFIGS)
def test_hard_takes_every_win_in_one(size: int, k: int) -> None:
    seen = 0
    for seed, board in enumerate(sample(size, k)):
        me = turn(board)
        if wins(board, me):
            seen += 1
            move = hard(board, seed)
            assert move in wins(board, me), format_cells(board)
            assert winner(play(board, move)) == me
    assert seen >= 5


@pytest.mark.parametrize(("size", "k"), CONFIGS)
def test_hard_blocks_every_win_in_one(size: int, k: int) -> None:
    seen = 0
    for seed, board in enumerate(sample(size, k)):
        me = turn(board)
        threats = wins(board, other(me))
        if threats and not wins(board, me):
            seen += 1
            assert hard(board, seed) in threats, format_cells(board)
    assert seen >= 5


@pytest.mark.parametrize(("size", "k"), CONFIGS)
def test_hard_stops_open_threats_before_they_become_unstoppable(size: int, k: int) -> None:
    """The opponent could make two winning cells with its next move (an open k−1 line or a
    fork): hard's move leaves it no such reply, whenever some move can."""
    seen = 0
    for seed, board in enumerate(sample(size, k)):
        me = turn(board)
        them = other(me)
        if wins(board, me) or wins(board, them) or forks(board, me) or not forks(board, them):
            continue
        move = hard(board, seed)
        assert board[move] == EMPTY
        if opponent_forces_a_win(board.with_mark(move, me), me):
            # Only acceptable when every move loses the same way.
            assert all(
                opponent_forces_a_win(board.with_mark(cell, me), me) for cell in board.free_cells()
            ), format_cells(board)
        else:
            seen += 1
    assert seen >= (1 if size == 4 else 3)  # forks are rare on 4×4, where lines span the board


@pytest.mark.parametrize(("size", "k"), CONFIGS)
def test_hard_makes_its_own_unstoppable_threat(size: int, k: int) -> None:
    seen = 0
    for seed, board in enumerate(sample(size, k)):
        me = turn(board)
        if wins(board, me) or wins(board, other(me)) or not forks(board, me):
            continue
        seen += 1
        move = hard(board, seed)
        assert len(wins(board.with_mark(move, me), me)) >= 2, format_cells(board)
    assert seen >= (0 if size == 4 else 3)  # see the hand-made 4×4 fork below


# Hand-made open threats: the opponent's next move would make an open k−1 line.
OPEN_THREATS = [
    # 5×5, k=4, X to move: O's `_OO__` in the middle row; X must take 10, 13 or 14.
    ("X__________OO___________X", 4, {10, 13, 14}),
    # 5×5, k=4, X to move: the split `_O_O_`; O at 12 would make `_OOO_`.
    ("X__________O_O__________X", 4, {10, 12, 14}),
    # 5×5, k=4, X to move: `_OO__` down the second column.
    ("X_____O____O____________X", 4, {1, 16, 21}),
    # 6×6, k=5, X to move: O's `_OOO__` in the third row; O at 16 would make `_OOOO_`.
    ("X____X_______OOO______________X_____", 5, {12, 16, 17}),
    # 8×8, k=5, X to move: O on the main diagonal at (2,2), (3,3), (4,4), far from the edges;
    # only (1,1) and (5,5) keep O from an open four.
    ("_______X" + "_" * 16 + "________" + "________" + "_" * 16 + "X___X___", 5, {9, 45}),
]


@pytest.mark.parametrize(("text", "k", "answers"), OPEN_THREATS)
def test_hard_answers_hand_made_open_threats(text: str, k: int, answers: set[int]) -> None:
    size = round(len(text) ** 0.5)
    cells = list(text)
    if size == 8:
        for i in (2, 3, 4):
            cells[i * 8 + i] = "O"
    board = parse_cells("".join(cells), k=k)
    me = turn(board)
    assert me == X
    assert not wins(board, O)
    assert forks(board, O)
    for seed in range(5):
        move = hard(board, seed)
        assert move in answers, (move, format_cells(board))
        assert not opponent_forces_a_win(board.with_mark(move, me), me)
    # The same shapes with the marks swapped: O (to move after an extra X) answers them too.
    swapped = "".join({"X": "O", "O": "X"}.get(c, c) for c in format_cells(board))
    # One more X, in no run with another X, so the shapes stay the same.
    extra = next(
        cell
        for cell in range(len(swapped))
        if swapped[cell] == "_"
        and not any(cell in run and "X" in {swapped[i] for i in run} for run in runs(size, k))
    )
    swapped = swapped[:extra] + "X" + swapped[extra + 1 :]
    board = parse_cells(swapped, k=k)
    assert turn(board) == O
    assert not wins(board, X)
    assert forks(board, X)
    for seed in range(3):
        assert not opponent_forces_a_win(board.with_mark(hard(board, seed), O), O)


def test_hard_makes_a_fork_on_4x4() -> None:
    # X to move: 0 completes three of the top row and three of the first column at once.
    board = parse_cells("_XX_" + "X_O_" + "X__O" + "_O_O", k=4)
    assert turn(board) == X
    for seed in range(3):
        move = hard(board, seed)
        assert move == 0
        assert wins(board.with_mark(move, X), X) == {3, 12}


def test_hard_makes_an_open_line_on_a_big_board() -> None:
    # 7×7, k=5, X to move with `__XXX__` in the middle row: X makes an open four.
    board = parse_cells(
        "O______" + "_______" + "_______" + "__XXX__" + "_______" + "_______" + "O_____O", k=5
    )
    move = hard(board)
    assert len(wins(board.with_mark(move, X), X)) == 2
    assert move in (22, 26)


# --- legality, errors, determinism, the clock ---------------------------------------------------


@pytest.mark.parametrize(("size", "k"), CONFIGS)
def test_hard_plays_a_free_cell_on_every_sampled_position(size: int, k: int) -> None:
    for seed, board in enumerate(sample(size, k)[::5]):
        move = hard(board, seed, budget=0.03)
        assert board[move] == EMPTY
        play(board, move)


@pytest.mark.parametrize(("size", "k"), CONFIGS)
def test_hard_refuses_finished_boards(size: int, k: int) -> None:
    rng = random.Random(size + k)
    finished = 0
    for _ in range(5):
        board = Board.empty(size, k)
        while not is_over(board):
            board = play(board, rng.choice(board.free_cells()))
        finished += 1
        with pytest.raises(GameOverError):
            hard(board)
        with pytest.raises(GameOverError):
            search_move(board, random.Random(0))
        with pytest.raises(GameOverError):
            choose_move("hard", board, random.Random(0), time_budget=0.01)
    assert finished == 5


@pytest.mark.parametrize(("size", "k"), DEFAULTS)
def test_the_first_move_is_central_and_instant(size: int, k: int) -> None:
    clock = NodeClock()
    moves = set()
    for seed in range(20):
        info = search(Board.empty(size, k), random.Random(seed), time_budget=1, clock=clock)
        assert info.nodes == 0
        moves.add(info.move)
    half = (size - 1) / 2
    assert all(abs(m // size - half) < 1 and abs(m % size - half) < 1 for m in moves)
    assert len(moves) == (1 if size % 2 else 4)  # a random one of the four on even sizes


def _game(size: int, k: int, seed: int) -> list[int]:
    """A game of hard (fake clock) against medium, both drawing from one seeded rng."""
    rng = random.Random(seed)
    board = Board.empty(size, k)
    moves = []
    while not is_over(board):
        if turn(board) == X:
            move = hard_move(board, rng, time_budget=BUDGET, clock=NodeClock())
        else:
            move = medium_move(board, rng)
        moves.append(move)
        board = play(board, move)
    assert winner(board) != O  # hard never loses to medium
    return moves


@pytest.mark.parametrize(("size", "k"), DEFAULTS)
def test_hard_is_deterministic_given_the_rng_and_the_clock(size: int, k: int) -> None:
    assert _game(size, k, 1) == _game(size, k, 1)
    assert len({tuple(_game(size, k, seed)) for seed in range(2, 6)}) > 1  # games differ


@pytest.mark.parametrize(("size", "k"), CONFIGS)
def test_the_search_stops_at_the_first_clock_reading_past_the_budget(size: int, k: int) -> None:
    boards = [b for b in sample(size, k) if not wins(b, X) and not wins(b, O)][:8]
    for budget in (0.05, 0.2):
        for board in boards:
            clock = NodeClock()
            info = search(board, random.Random(0), time_budget=budget, clock=clock)
            assert board[info.move] == EMPTY
            # Readings: one at the start, one per node after depth 1, one per depth. The last
            # reading is the first one past the deadline (or the search finished before).
            assert clock.now <= budget + 3 * STEP + 1e-9
            assert info.depth >= 1 or info.nodes == 0  # 0: a threat search answered


def test_more_time_searches_deeper() -> None:
    board = next(
        b
        for b in sample(8, 5)
        if 6 <= 64 - len(b.free_cells()) <= 12 and not wins(b, X) and not wins(b, O)
    )
    shallow = search(board, random.Random(0), time_budget=0.01, clock=NodeClock())
    deep = search(board, random.Random(0), time_budget=3.0, clock=NodeClock())
    assert deep.depth > shallow.depth >= 1
    assert deep.nodes > shallow.nodes


def test_a_clock_past_the_deadline_still_gets_a_depth_one_answer() -> None:
    # The clock jumps an hour on each reading: only depth 1 (never timed) completes, and it
    # already blocks the open three.
    board = parse_cells("X____" + "_____" + "_OO__" + "_____" + "____X", k=4)
    clock = NodeClock(step=3600.0)
    info = search(board, random.Random(0), time_budget=0.5, clock=clock)
    assert info.depth == 1
    assert info.move in {10, 13, 14}


def test_hard_uses_only_the_passed_rng(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> object:
        raise AssertionError("global random state used")

    for name in ("random", "choice", "choices", "randrange", "randint", "shuffle", "sample"):
        monkeypatch.setattr(random, name, forbidden)
    for size, k in DEFAULTS:
        board = Board.empty(size, k)
        for seed in range(6):
            board = play(board, hard_move(board, random.Random(seed), clock=NodeClock()))
        assert board.count(X) == 3


def test_choose_move_passes_the_budget_to_hard() -> None:
    board = sample(6, 5)[10]
    rng_a, rng_b = random.Random(3), random.Random(3)
    # A zero budget still answers (depth 1), from the same rng draws as hard_move.
    assert choose_move("hard", board, rng_a, time_budget=0.0) == hard_move(
        board, rng_b, time_budget=0.0
    )
    for level in ("easy", "medium"):
        cell = choose_move(level, board, random.Random(1), time_budget=0.0)
        assert board[cell] == EMPTY


@pytest.mark.parametrize(("size", "k"), DEFAULTS)
def test_hard_never_loses_to_easy_or_medium(size: int, k: int) -> None:
    for seed in range(4):
        rng = random.Random(seed)
        hard_mark = (X, O)[seed % 2]
        opponent = (easy_move, medium_move)[seed // 2 % 2]
        board = Board.empty(size, k)
        while not is_over(board):
            if turn(board) == hard_mark:
                board = play(board, hard_move(board, rng, time_budget=BUDGET, clock=NodeClock()))
            else:
                board = play(board, opponent(board, rng))
        assert winner(board) != other(hard_mark), format_cells(board)

"""Boards from 3×3 to 8×8 with k in a row: lines, winners, parsing, coordinates and outcomes.

Every check runs against an independent scan of the grid (walk each direction from each cell),
not against `core.rules.lines`.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from core.ai import completing_cells, easy_move, medium_move
from core.board import (
    EMPTY,
    Board,
    CellOccupiedError,
    InvalidBoardError,
    NotNumbersError,
    O,
    OutOfRangeError,
    X,
    default_k,
)
from core.notation import format_cells, parse_cells, parse_row_col, parse_typed_move
from core.rules import (
    DRAW,
    NOT_FINISHED,
    O_WINS,
    X_WINS,
    is_over,
    lines,
    lines_through,
    outcome,
    play,
    turn,
    winner,
    winning_cells,
)

SIZES = range(3, 9)
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # row, column, diagonal, anti-diagonal


def size_k_pairs() -> list[tuple[int, int]]:
    """Every size with its default k, the shortest k = 3 and the longest k = size."""
    return sorted({(n, k) for n in SIZES for k in (default_k(n), 3, n)})


PAIRS = size_k_pairs()


# --- an independent model ---------------------------------------------------------------------


@cache
def runs(size: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Every k cells in a straight line, by walking from each cell in each direction."""
    found = []
    for row in range(size):
        for col in range(size):
            for dr, dc in DIRECTIONS:
                cells = [(row + dr * i, col + dc * i) for i in range(k)]
                if all(0 <= r < size and 0 <= c < size for r, c in cells):
                    found.append(tuple(r * size + c for r, c in cells))
    return tuple(found)


def has_run(cells: tuple[str, ...], size: int, k: int, mark: str) -> bool:
    return any(all(cells[i] == mark for i in run) for run in runs(size, k))


def board_with(size: int, k: int, marks: dict[int, str]) -> Board:
    cells = [EMPTY] * (size * size)
    for cell, mark in marks.items():
        cells[cell] = mark
    return Board(tuple(cells), size, k)


# --- default k and lines ------------------------------------------------------------------------


def test_default_k_per_size() -> None:
    assert [default_k(n) for n in SIZES] == [3, 4, 4, 5, 5, 5]
    for bad in (2, 9, 0, -1):
        with pytest.raises(ValueError, match="from 3 to 8"):
            default_k(bad)


@pytest.mark.parametrize(("size", "k"), PAIRS)
def test_lines_are_every_run_of_k(size: int, k: int) -> None:
    expected = runs(size, k)
    assert sorted(lines(size, k)) == sorted(expected)
    free = size - k + 1  # start positions along one axis
    assert len(lines(size, k)) == 2 * size * free + 2 * free * free
    for cell in range(size * size):
        assert sorted(lines_through(size, k)[cell]) == sorted(r for r in expected if cell in r)


def test_line_counts_of_the_default_boards() -> None:
    counts = {n: len(lines(n, default_k(n))) for n in SIZES}
    assert counts == {3: 8, 4: 10, 5: 28, 6: 32, 7: 60, 8: 96}


# --- win detection --------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "k"), PAIRS)
@pytest.mark.parametrize("mark", [X, O])
def test_winner_on_every_run_in_every_direction(size: int, k: int, mark: str) -> None:
    directions_seen = set()
    inner_starts = 0
    for run in runs(size, k):
        board = board_with(size, k, dict.fromkeys(run, mark))
        assert winner(board) == mark
        assert winning_cells(board) == frozenset(run)
        assert is_over(board)
        assert outcome(board) == (X_WINS if mark == X else O_WINS)
        (r0, c0), (r1, c1) = divmod(run[0], size), divmod(run[1], size)
        directions_seen.add((r1 - r0, c1 - c0))
        inner_starts += 0 < r0 < size - 1 and 0 < c0 < size - 1
        # One mark short, or one cell taken by the opponent, is no win.
        for i in range(k):
            short = board_with(size, k, {c: mark for j, c in enumerate(run) if j != i})
            assert winner(short) is None
            broken = dict.fromkeys(run, mark)
            broken[run[i]] = X if mark == O else O
            assert winner(board_with(size, k, broken)) is None
    assert directions_seen == set(DIRECTIONS)
    if size - k >= 2:
        assert inner_starts > 0  # runs that start away from every edge were checked


@pytest.mark.parametrize(("size", "k"), PAIRS)
def test_winner_agrees_with_the_model_on_random_fills(size: int, k: int) -> None:
    rng = random.Random(size * 10 + k)
    for _ in range(150):
        cells = tuple(rng.choice((X, O, EMPTY)) for _ in range(size * size))
        board = Board(cells, size, k)
        x_won, o_won = has_run(cells, size, k, X), has_run(cells, size, k, O)
        if x_won != o_won:
            assert winner(board) == (X if x_won else O)
        elif not x_won:
            assert winner(board) is None


def test_longer_than_k_still_wins_and_gaps_do_not() -> None:
    # 8×8, five in a row: six in a row wins; five with a gap does not.
    six = board_with(8, 5, {8 * 3 + c: X for c in range(1, 7)})
    assert winner(six) == X
    assert winning_cells(six) == frozenset(8 * 3 + c for c in range(1, 7))
    gap = board_with(8, 5, {8 * 3 + c: X for c in (0, 1, 2, 4, 5, 6)})
    assert winner(gap) is None
    # 5×5, four in a row along a short diagonal that starts at (1, 0).
    diagonal = board_with(5, 4, {(1 + i) * 5 + i: O for i in range(4)})
    assert winner(diagonal) == O
    # 7×7, five along an anti-diagonal in the middle of the board.
    anti = board_with(7, 5, {(1 + i) * 7 + (5 - i): X for i in range(5)})
    assert winner(anti) == X


# --- parse_cells and coordinates on 4×4..8×8 ----------------------------------------------


@pytest.mark.parametrize("size", range(4, 9))
def test_parse_cells_with_16_to_64_cells(size: int) -> None:
    n = size * size
    empty = parse_cells("_" * n)
    assert (empty.size, empty.k) == (size, size)  # k defaults to the size in the core
    assert parse_cells("_" * n, k=default_k(size)).k == default_k(size)
    # A real game: random moves round-trip through the text form.
    rng = random.Random(size)
    board = Board.empty(size, default_k(size))
    while not is_over(board):
        board = play(board, rng.choice(board.free_cells()))
        text = format_cells(board)
        assert len(text) == n
        again = parse_cells(text, k=board.k)
        assert again == board
        assert parse_cells(text.replace("_", " "), k=board.k) == board


@pytest.mark.parametrize("size", range(4, 9))
def test_parse_cells_rejects_bad_big_boards(size: int) -> None:
    n = size * size
    with pytest.raises(InvalidBoardError):
        parse_cells("_" * (n - 1))
    with pytest.raises(InvalidBoardError):
        parse_cells("XX" + "_" * (n - 2))  # two X, no O
    with pytest.raises(InvalidBoardError):
        parse_cells("_" * n, k=size + 1)
    with pytest.raises(InvalidBoardError):
        parse_cells("_" * n, k=2)


@pytest.mark.parametrize("size", SIZES)
def test_typed_moves_per_size(size: int) -> None:
    board = Board.empty(size, default_k(size))
    for row in range(1, size + 1):
        for col in range(1, size + 1):
            cell = (row - 1) * size + col - 1
            assert parse_row_col(f"{row} {col}", size) == (row, col)
            assert parse_typed_move(f"{row} {col}", board) == cell
            assert parse_typed_move(f"  {row}   {col} ", board) == cell
            assert parse_typed_move(str(cell + 1), board) == cell
            assert board.row_col(cell) == (row, col)
            assert board.ij(cell) == (row - 1, col - 1)
    for text in (f"{size + 1} 1", f"1 {size + 1}", "0 1", "1 0", f"-1 {size}"):
        with pytest.raises(OutOfRangeError) as caught:
            parse_typed_move(text, board)
        assert caught.value.size == size  # the console says "from 1 to {size}"
    for number in (0, size * size + 1, -1):
        with pytest.raises(OutOfRangeError) as caught:
            parse_typed_move(str(number), board)
        assert caught.value.size == size
    for text in ("a b", "1 2 3", "1.0 2", "", "x", "1 b"):
        with pytest.raises(NotNumbersError):
            parse_typed_move(text, board)
    taken = play(board, 0)
    with pytest.raises(CellOccupiedError):
        parse_typed_move("1 1", taken)
    with pytest.raises(CellOccupiedError):
        parse_typed_move("1", taken)


# --- outcomes -----------------------------------------------------------------------------------


def striped_draw(size: int, k: int) -> Board:
    """A full board with no k in a row: pairs of marks, shifted by a pair every row."""
    cells = [X if (col // 2 + row) % 2 == 0 else O for row in range(size) for col in range(size)]
    if cells.count(X) < cells.count(O):
        cells = [O if c == X else X for c in cells]
    return Board(tuple(cells), size, k)


@pytest.mark.parametrize(("size", "k"), [(n, default_k(n)) for n in range(4, 9)])
def test_outcome_words_on_big_boards(size: int, k: int) -> None:
    assert outcome(Board.empty(size, k)) == NOT_FINISHED
    draw = striped_draw(size, k)
    assert not has_run(draw.cells, size, k, X)
    assert not has_run(draw.cells, size, k, O)
    assert draw.count(X) - draw.count(O) in (0, 1)
    assert outcome(draw) == DRAW
    assert is_over(draw)
    assert parse_cells(format_cells(draw), k=k) == draw  # a position that can arise
    # Games of random and medium play end in the word the model predicts.
    rng = random.Random(size)
    seen = set()
    for game in range(40):
        board = Board.empty(size, k)
        strategy = (easy_move, medium_move)[game % 2]
        while not is_over(board):
            assert outcome(board) == NOT_FINISHED
            mover = turn(board)
            board = play(board, strategy(board, rng))
            if has_run(board.cells, size, k, mover):
                assert outcome(board) == (X_WINS if mover == X else O_WINS)
        if not has_run(board.cells, size, k, X) and not has_run(board.cells, size, k, O):
            assert outcome(board) == DRAW
            assert EMPTY not in board.cells
        seen.add(outcome(board))
    assert {X_WINS, O_WINS} <= seen


def test_medium_and_easy_keep_their_meaning_on_big_boards() -> None:
    # X to move on 6×6 (k=5) with four in the second row: medium completes it.
    board = parse_cells("______" + "_XXXX_" + "_OOOO_" + "______" * 3, k=5)
    assert turn(board) == X
    for seed in range(10):
        assert medium_move(board, random.Random(seed)) in (6, 11)
        assert easy_move(board, random.Random(seed)) in board.free_cells()
    # O to move, X threatens the first column (four of five) and O has no win: block it.
    board = parse_cells("X_____" * 4 + "______" + "OO_O__", k=5)
    assert turn(board) == O
    assert medium_move(board, random.Random(0)) == 24


@pytest.mark.parametrize(("size", "k"), [(n, default_k(n)) for n in range(4, 9)] + [(6, 4), (8, 6)])
def test_medium_wins_else_blocks_else_plays_anywhere_on_every_size(size: int, k: int) -> None:
    rng = random.Random(size * k)
    checked = 0
    for _ in range(6):
        board = Board.empty(size, k)
        while not is_over(board):
            me = turn(board)
            them = X if me == O else O
            own = model_wins(board, me)
            theirs = model_wins(board, them)
            assert sorted(completing_cells(board, me)) == sorted(own)
            assert sorted(completing_cells(board, them)) == sorted(theirs)
            move = medium_move(board, rng)
            assert move in (own or theirs or set(board.free_cells()))
            checked += bool(own or theirs)
            board = play(board, easy_move(board, rng) if rng.random() < 0.5 else move)
    assert checked > 0


def model_wins(board: Board, mark: str) -> set[int]:
    """Free cells where `mark` completes k in a row, by the independent model."""
    found = set()
    for cell in board.free_cells():
        after = board.with_mark(cell, mark).cells
        if any(
            cell in run and all(after[i] == mark for i in run) for run in runs(board.size, board.k)
        ):
            found.add(cell)
    return found

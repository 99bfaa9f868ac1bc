"""core.ultimate.rules: the rules of ultimate tic-tac-toe, its coordinates and text form, checked
against an independent model written on strings, and the AI's mutable Position against both."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.board import (
    EMPTY,
    CellOccupiedError,
    GameOverError,
    InvalidBoardError,
    MoveError,
    O,
    OutOfRangeError,
    X,
)
from core.rules import DRAW, NOT_FINISHED, O_WINS, X_WINS
from core.ultimate.rules import (
    DRAWN,
    Position,
    UltimateBoard,
    WrongBlockError,
    block_cell_numbers,
    block_cells,
    block_result,
    block_results,
    from_text,
    grid_index,
    grid_row_col,
    index_from_block_cell,
    is_over,
    legal_moves,
    outcome,
    play,
    playable_blocks,
    to_text,
    turn,
    winner,
    winning_blocks,
    winning_cells,
)

LINES_3X3 = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


# --- an independent model, on the 81-character text -------------------------------------------


def ref_small(nine: str) -> str | None:
    """'X', 'O', 'draw' or None for a 9-character `XO_` small board."""
    for a, b, c in LINES_3X3:
        if nine[a] == nine[b] == nine[c] != "_":
            return nine[a]
    return "draw" if "_" not in nine else None


def ref_results(text: str) -> list[str | None]:
    return [ref_small(text[9 * b : 9 * b + 9]) for b in range(9)]


def ref_winner(text: str) -> str | None:
    results = ref_results(text)
    for mark in "XO":
        if any(results[a] == results[b] == results[c] == mark for a, b, c in LINES_3X3):
            return mark
    return None


def ref_legal(text: str, last: int | None) -> list[int]:
    results = ref_results(text)
    if ref_winner(text) or None not in results:
        return []
    if last is not None and results[last % 9] is None:
        blocks = [last % 9]
    else:
        blocks = [b for b in range(9) if results[b] is None]
    return [9 * b + c for b in blocks for c in range(9) if text[9 * b + c] == "_"]


def compose(blocks: dict[int, str], last: int | None = None) -> UltimateBoard:
    """A board from some small boards as 9-character `XO_` strings (the others empty)."""
    return from_text("".join(blocks.get(b, "_" * 9) for b in range(9)), last)


def random_game(seed: int) -> list[UltimateBoard]:
    """Every board of one game of uniformly random legal moves, from the empty one."""
    rng = random.Random(seed)
    boards = [UltimateBoard.empty()]
    while not is_over(boards[-1]):
        boards.append(play(boards[-1], rng.choice(legal_moves(boards[-1]))))
    return boards


# --- coordinates ------------------------------------------------------------------------------


def test_grid_coordinates() -> None:
    assert grid_index(1, 1) == 0
    assert grid_index(1, 3) == 2
    assert grid_index(1, 4) == 9  # the top-left cell of small board 2 (block 1)
    assert grid_index(2, 1) == 3
    assert grid_index(4, 1) == 27  # small board 4 (block 3), cell 0
    assert grid_index(5, 5) == 40  # the centre of the centre
    assert grid_index(9, 9) == 80
    indexes = {grid_index(r, c) for r in range(1, 10) for c in range(1, 10)}
    assert indexes == set(range(81))
    for row in range(1, 10):
        for col in range(1, 10):
            assert grid_row_col(grid_index(row, col)) == (row, col)


def test_block_cell_numbers() -> None:
    assert index_from_block_cell(1, 1) == 0
    assert index_from_block_cell(5, 3) == 38  # typed `5 3`: small board 5, cell 3
    assert index_from_block_cell(9, 9) == 80
    for index in range(81):
        assert index_from_block_cell(*block_cell_numbers(index)) == index
    # The two systems agree: small board 5 cell 3 is row 4, column 6 of the grid.
    assert grid_row_col(index_from_block_cell(5, 3)) == (4, 6)


@pytest.mark.parametrize(
    "call",
    [
        lambda: grid_index(0, 1),
        lambda: grid_index(1, 10),
        lambda: grid_row_col(-1),
        lambda: grid_row_col(81),
        lambda: index_from_block_cell(0, 5),
        lambda: index_from_block_cell(5, 10),
        lambda: block_cell_numbers(81),
        lambda: block_cells(UltimateBoard.empty(), 9),
    ],
)
def test_converters_refuse_out_of_range(call: object) -> None:
    with pytest.raises(OutOfRangeError) as error:
        call()  # type: ignore[operator]
    assert error.value.size == 9


# --- the board value and its text -------------------------------------------------------------


def test_the_empty_board() -> None:
    board = UltimateBoard.empty()
    assert board.ply == 0
    assert board.last is None
    assert turn(board) == X
    assert playable_blocks(board) == tuple(range(9))
    assert legal_moves(board) == list(range(81))
    assert outcome(board) == NOT_FINISHED
    assert block_results(board) == (None,) * 9
    assert to_text(board) == "_" * 81


@pytest.mark.parametrize(
    ("cells", "last"),
    [
        ((EMPTY,) * 80, None),  # too short
        ((EMPTY,) * 82, None),  # too long
        (("x",) + (EMPTY,) * 80, None),  # not a mark
        ((EMPTY,) * 81, 81),  # the last move off the board
        ((EMPTY,) * 81, 0),  # the last move on an empty cell
        ((X, O) + (EMPTY,) * 79, 0),  # X moved last, but it is X's turn: O moved last
    ],
)
def test_invalid_boards_are_refused(cells: tuple[str, ...], last: int | None) -> None:
    with pytest.raises(InvalidBoardError):
        UltimateBoard(cells, last)


@pytest.mark.parametrize("text", ["_" * 80, "_" * 82, "x" + "_" * 80, " " * 81, "Z" + "_" * 80])
def test_from_text_refuses_bad_text(text: str) -> None:
    with pytest.raises(InvalidBoardError):
        from_text(text)


def test_text_round_trip_over_random_games() -> None:
    for seed in range(20):
        for board in random_game(seed):
            text = to_text(board)
            assert len(text) == 81
            assert set(text) <= set("XO_")
            assert from_text(text, board.last) == board


# --- sending, closing, winning ------------------------------------------------------------------


def test_a_move_sends_the_opponent_to_the_block_of_its_cell() -> None:
    board = play(UltimateBoard.empty(), index_from_block_cell(1, 5))  # X: board 1, centre
    assert board.last == 4
    assert turn(board) == O
    assert playable_blocks(board) == (4,)
    assert legal_moves(board) == list(range(36, 45))
    board = play(board, 36 + 2)  # O: the centre board's cell 3 (index 2 within it)
    assert playable_blocks(board) == (2,)
    assert board.ply == 2


def test_a_move_outside_the_block_in_play_is_refused_with_the_allowed_blocks() -> None:
    board = play(UltimateBoard.empty(), 4)
    for index in (0, 35, 45, 80):
        with pytest.raises(WrongBlockError) as error:
            play(board, index)
        assert error.value.allowed == (4,)
        assert isinstance(error.value, MoveError)


def test_errors_on_a_game_in_play() -> None:
    board = play(UltimateBoard.empty(), 40)  # X in the centre of the centre: O goes there too
    with pytest.raises(CellOccupiedError):
        play(board, 40)
    with pytest.raises(OutOfRangeError):
        play(board, 81)
    with pytest.raises(OutOfRangeError):
        play(board, -1)
    # A taken cell outside the block in play: the block is the mistake to report.
    board = play(board, 36)  # O, sent to block 0
    with pytest.raises(WrongBlockError):
        play(board, 40)


def test_a_won_small_board_is_closed_and_sending_there_gives_a_free_choice() -> None:
    # X won block 0 (top row); O's last move, cell 0 of block 5, sends X to block 0.
    board = compose({0: "XXX_O____", 5: "O___O____"}, last=45)
    assert turn(board) == X
    assert block_result(board, 0) == X
    assert winning_cells(board) == frozenset({0, 1, 2})
    assert playable_blocks(board) == (1, 2, 3, 4, 5, 6, 7, 8)
    assert len(legal_moves(board)) == 72 - 2
    with pytest.raises(WrongBlockError) as error:
        play(board, 3)  # a free cell of the won block
    assert error.value.allowed == (1, 2, 3, 4, 5, 6, 7, 8)
    after = play(board, 9 + 8)  # block 1, cell 8: O must go to block 8
    assert playable_blocks(after) == (8,)


def test_winning_a_small_board_closes_it() -> None:
    # X to move in block 0 with two in the top row: the third wins and closes it.
    board = compose({0: "XX__O____", 5: "O________"}, last=45)
    after = play(board, 2)
    assert block_result(board, 0) is None
    assert block_result(after, 0) == X
    assert 0 not in playable_blocks(play(after, 18 + 0))  # O in block 2, cell 0: sent to 0
    assert playable_blocks(play(after, 18 + 0)) == (1, 2, 3, 4, 5, 6, 7, 8)


def test_a_full_small_board_without_a_line_is_drawn_and_closed() -> None:
    drawn = "XOXXOOOXX"
    assert ref_small(drawn) == "draw"
    board = compose({4: drawn})
    assert block_result(board, 4) == DRAWN
    assert 4 not in playable_blocks(board)
    assert winning_cells(board) == frozenset()  # a drawn block has no line to show
    # O's last move, the centre of block 0, sends X to the drawn block: a free choice.
    sent = compose({4: drawn, 0: "____O____"}, last=4)
    assert turn(sent) == X
    assert playable_blocks(sent) == (0, 1, 2, 3, 5, 6, 7, 8)
    with pytest.raises(WrongBlockError):
        play(sent, 36)


def test_three_won_small_boards_in_a_row_win_the_game() -> None:
    # X won blocks 2, 4 and 6 (the anti-diagonal); O has some cells elsewhere.
    won, some = "XXX______", "OO_O_____"
    board = compose({2: won, 4: won, 6: "X___X___X", 0: some, 8: some, 1: "O_O______"}, last=62)
    assert winner(board) == X
    assert winning_blocks(board) == frozenset({2, 4, 6})
    assert winning_cells(board) == frozenset({18, 19, 20, 36, 37, 38, 54, 58, 62})
    assert outcome(board) == X_WINS
    assert is_over(board)
    assert playable_blocks(board) == ()
    assert legal_moves(board) == []
    with pytest.raises(GameOverError):
        play(board, 80)


def test_o_wins_too() -> None:
    col = "O__O__O__"
    some = "XX_X_____"
    board = compose({1: col, 4: col, 7: col, 0: some, 2: some, 3: some}, last=69)
    assert winner(board) == O
    assert outcome(board) == O_WINS
    assert winning_blocks(board) == frozenset({1, 4, 7})


def test_a_game_with_every_block_closed_and_no_line_is_a_draw() -> None:
    # Wins for X in blocks 0, 5, 7; for O in 1, 3, 8; blocks 2, 4, 6 drawn: no line of three.
    x_row, o_row, drawn = "XXXOO_O__", "OOOXX_X__", "XOXXOOOXX"
    blocks = dict.fromkeys((0, 5, 7), x_row) | dict.fromkeys((1, 3, 8), o_row)
    blocks |= dict.fromkeys((2, 4, 6), drawn)
    board = compose(blocks)
    assert block_results(board) == (X, O, DRAWN, O, DRAWN, X, DRAWN, X, O)
    assert winner(board) is None
    assert outcome(board) == DRAW
    assert is_over(board)
    assert legal_moves(board) == []
    assert winning_blocks(board) == frozenset()


def test_moves_after_the_game_is_over_are_refused() -> None:
    for seed in range(10):
        final = random_game(seed)[-1]
        for index in range(81):
            with pytest.raises(GameOverError):
                play(final, index)


# --- properties of random games -----------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_follow_the_rules(seed: int) -> None:
    boards = random_game(seed)
    assert len(boards) <= 82  # a game ends within 81 moves
    for before, after in itertools.pairwise(boards):
        text, move = to_text(before), after.last
        assert move is not None
        assert legal_moves(before) == ref_legal(text, before.last)
        assert move // 9 in playable_blocks(before)
        assert block_result(before, move // 9) is None  # never a move in a closed block
        assert after.cells[move] == turn(before) and before.cells[move] == EMPTY
        assert after.ply == before.ply + 1
    final = boards[-1]
    text = to_text(final)
    assert is_over(final)
    assert ref_legal(text, final.last) == []
    assert winner(final) == ref_winner(text)
    assert list(block_results(final)) == [r if r != "draw" else DRAWN for r in ref_results(text)]
    expected = {"X": X_WINS, "O": O_WINS, None: DRAW}[ref_winner(text)]
    assert outcome(final) == expected


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_position_follows_the_board(seed: int) -> None:
    boards = random_game(seed)
    position = Position(boards[0])
    for before, after in itertools.pairwise(boards):
        assert position.moves() == legal_moves(before)
        assert position.blocks() == playable_blocks(before)
        assert position.player == (1 if turn(before) == X else 2)
        assert after.last is not None
        position.play(after.last)
        fresh = Position(after)
        for field in ("marks", "won", "closed", "target", "player", "result"):
            assert getattr(position, field) == getattr(fresh, field), field
    final = boards[-1]
    assert position.result == {X: 1, O: 2, None: 3}[winner(final)]
    assert position.moves() == []

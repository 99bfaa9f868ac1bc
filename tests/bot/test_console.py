"""bot.console: the seed's Hyperskill dialogues, byte for byte, and the shape of every game.

The transcripts below are copied verbatim from the Hyperskill stages (seed 000). A line such
as `Input command: > start easy` means the program wrote `Input command: ` (no newline) and the
user typed `start easy` and Enter.
"""

from __future__ import annotations

import io
import itertools
import random
import re
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.console import hyperskill_error, run_console
from core.board import (
    CellOccupiedError,
    MoveError,
    NotNumbersError,
    NumberCountError,
    OutOfRangeError,
)
from core.solver import solved_table
from tests.support.processes import sigint_at_its_default

ROOT = Path(__file__).resolve().parents[2]

# --- the seed's transcripts, verbatim ---------------------------------------------------------

STAGE_1_EXAMPLE_1 = """\
Enter the cells: > _XXOO_OX_
---------
|   X X |
| O O   |
| O X   |
---------
Enter the coordinates: > 3 1
This cell is occupied! Choose another one!
Enter the coordinates: > one
You should enter numbers!
Enter the coordinates: > one three
You should enter numbers!
Enter the coordinates: > 4 1
Coordinates should be from 1 to 3!
Enter the coordinates: > 1 1
---------
| X X X |
| O O   |
| O X   |
---------
X wins
"""

STAGE_1_EXAMPLE_2 = """\
Enter the cells: > XX_XOXOO_
---------
| X X   |
| X O X |
| O O   |
---------
Enter the coordinates: > 3 3
---------
| X X   |
| X O X |
| O O O |
---------
O wins
"""

STAGE_1_EXAMPLE_3 = """\
Enter the cells: > XX_XOXOO_
---------
| X X   |
| X O X |
| O O   |
---------
Enter the coordinates: > 1 3
---------
| X X O |
| X O X |
| O O   |
---------
O wins
"""

STAGE_1_EXAMPLE_4 = """\
Enter the cells: > OX_XOOOXX
---------
| O X   |
| X O O |
| O X X |
---------
Enter the coordinates: > 1 3
---------
| O X X |
| X O O |
| O X X |
---------
Draw
"""

STAGE_1_EXAMPLE_5 = """\
Enter the cells: >  _XO_OX___
---------
|   X O |
|   O X |
|       |
---------
Enter the coordinates: > 3 1
---------
|   X O |
|   O X |
| X     |
---------
Game not finished
"""

STAGE_2 = """\
---------
|       |
|       |
|       |
---------
Enter the coordinates: > 2 2
---------
|       |
|   X   |
|       |
---------
Making move level "easy"
---------
| O     |
|   X   |
|       |
---------
Enter the coordinates: > 3 3
---------
| O     |
|   X   |
|     X |
---------
Making move level "easy"
---------
| O     |
| O X   |
|     X |
---------
Enter the coordinates: > 3 1
---------
| O     |
| O X   |
| X   X |
---------
Making move level "easy"
---------
| O     |
| O X O |
| X   X |
---------
Enter the coordinates: > 3 2
---------
| O     |
| O X O |
| X X X |
---------
X wins
"""

STAGE_3 = """\
Input command: > start
Bad parameters!
Input command: > start easy
Bad parameters!
Input command: > start easy easy
---------
|       |
|       |
|       |
---------
Making move level "easy"
---------
|       |
|     X |
|       |
---------
Making move level "easy"
---------
|       |
| O   X |
|       |
---------
Making move level "easy"
---------
|       |
| O   X |
|     X |
---------
Making move level "easy"
---------
|       |
| O   X |
|   O X |
---------
Making move level "easy"
---------
|       |
| O X X |
|   O X |
---------
Making move level "easy"
---------
|     O |
| O X X |
|   O X |
---------
Making move level "easy"
---------
| X   O |
| O X X |
|   O X |
---------
X wins

Input command: > start easy user
---------
|       |
|       |
|       |
---------
Making move level "easy"
---------
|       |
|       |
|     X |
---------
Enter the coordinates: > 2 2
---------
|       |
|   O   |
|     X |
---------
Making move level "easy"
---------
|   X   |
|   O   |
|     X |
---------
Enter the coordinates: > 3 1
---------
|   X   |
|   O   |
| O   X |
---------
Making move level "easy"
---------
|   X X |
|   O   |
| O   X |
---------
Enter the coordinates: > 2 3
---------
|   X X |
|   O O |
| O   X |
---------
Making move level "easy"
---------
| X X X |
|   O O |
| O   X |
---------
X wins

Input command: > start user user
---------
|       |
|       |
|       |
---------
Enter the coordinates: > 3 1
---------
|       |
|       |
| X     |
---------
Enter the coordinates: > 2 2
---------
|       |
|   O   |
| X     |
---------
Enter the coordinates: > 2 1
---------
|       |
| X O   |
| X     |
---------
Enter the coordinates: > 3 2
---------
|       |
| X O   |
| X O   |
---------
Enter the coordinates: > 1 1
---------
| X     |
| X O   |
| X O   |
---------
X wins

Input command: > exit
"""

# --- reading transcripts ----------------------------------------------------------------------

BORDER = "---------"
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
ROW = re.compile(r"^\| ([XO ]) ([XO ]) ([XO ]) \|$")


def split_transcript(transcript: str) -> tuple[str, str]:
    """(what the user typed, what the program wrote) for a transcript."""
    typed, written = [], []
    for line in transcript.splitlines():
        prompt, sep, text = line.partition(": > ")
        if sep:
            written.append(prompt + ": ")
            typed.append(text + "\n")
        else:
            written.append(line + "\n")
    return "".join(typed), "".join(written)


def render(cells: str) -> str:
    """The Hyperskill board for `XO_` cells, written here independently of core.render."""
    cells = cells.replace("_", " ")
    rows = "".join(f"| {cells[r]} {cells[r + 1]} {cells[r + 2]} |\n" for r in (0, 3, 6))
    return f"{BORDER}\n{rows}{BORDER}\n"


def boards_in(lines: Sequence[str]) -> list[tuple[int, str]]:
    """(line index, `XO_` cells) of every board drawn in `lines`."""
    found = []
    for i in range(len(lines) - 4):
        if lines[i] == BORDER == lines[i + 4]:
            rows = [ROW.match(line) for line in lines[i + 1 : i + 4]]
            if all(rows):
                found.append((i, "".join(m.group(k) for m in rows for k in (1, 2, 3))))  # type: ignore[union-attr]
    return [(i, cells.replace(" ", "_")) for i, cells in found]


def ai_moves_in(transcript: str) -> list[int]:
    """The cells the AI chose in a transcript: the board after each `Making move` line."""
    lines = transcript.splitlines()
    boards = dict(boards_in(lines))
    moves = []
    previous = None
    for i in range(len(lines)):
        if i in boards:
            if lines[i - 1].startswith("Making move level"):
                changed = [k for k in range(9) if boards[i][k] != previous[k]]  # type: ignore[index]
                assert len(changed) == 1
                moves.append(changed[0])
            previous = boards[i]
    return moves


def winner_of(cells: str) -> str | None:
    for a, b, c in LINES:
        if cells[a] == cells[b] == cells[c] != "_":
            return cells[a]
    return None


def result_line(cells: str) -> str | None:
    """The state line once a game is over, else None."""
    won = winner_of(cells)
    if won:
        return f"{won} wins"
    return None if "_" in cells else "Draw"


class ScriptedRandom(random.Random):
    """Replays the AI's moves of a transcript through `choice`, checking each one is offered."""

    def __init__(self, moves: Sequence[int], offers: Sequence[Sequence[int]] | None = None):
        super().__init__(0)
        self.moves = list(moves)
        self.offers = None if offers is None else [sorted(o) for o in offers]

    def choice(self, seq: Sequence[Any]) -> Any:
        assert self.moves, "the AI moved more often than in the transcript"
        move = self.moves.pop(0)
        assert move in seq, f"scripted move {move} is not among {list(seq)}"
        if self.offers is not None:
            assert sorted(seq) == self.offers.pop(0)
        return move


def run(stdin: str, rng: random.Random | None = None) -> str:
    stdout = io.StringIO()
    assert run_console(io.StringIO(stdin), stdout, rng or random.Random(0)) is None
    return stdout.getvalue()


# --- the transcripts, byte for byte -----------------------------------------------------------


def test_transcript_reader() -> None:
    typed, written = split_transcript("Input command: > start easy\nBad parameters!\n")
    assert typed == "start easy\n"
    assert written == "Input command: Bad parameters!\n"
    assert ai_moves_in(STAGE_2) == [0, 3, 5]


def test_stage_3_dialogue() -> None:
    typed, written = split_transcript(STAGE_3)
    moves = ai_moves_in(STAGE_3)
    assert len(moves) == 7 + 4  # easy vs easy, then easy as X against the user
    rng = ScriptedRandom(moves)
    assert run(typed, rng) == written
    assert rng.moves == []


def test_stage_2_dialogue_as_start_user_easy() -> None:
    typed, written = split_transcript(STAGE_2)
    rng = ScriptedRandom(ai_moves_in(STAGE_2))
    out = run("start user easy\n" + typed + "exit\n", rng)
    assert out == "Input command: " + written + "\n" + "Input command: "
    assert rng.moves == []


def _orders(cells: str) -> list[int]:
    """Moves from the empty board to `cells` (X to move next) with no winner on the way."""
    xs = [i for i, c in enumerate(cells) if c == "X"]
    os_ = [i for i, c in enumerate(cells) if c == "O"]
    for x_order in itertools.permutations(xs):
        for o_order in itertools.permutations(os_):
            moves = [m for pair in itertools.zip_longest(x_order, o_order) for m in pair]
            moves = [m for m in moves if m is not None]
            board = ["_"] * 9
            ok = True
            for n, m in enumerate(moves):
                board[m] = "XO"[n % 2]
                if winner_of("".join(board)):
                    ok = False
                    break
            if ok:
                return moves
    raise AssertionError(f"{cells} is not reachable")


@pytest.mark.parametrize(
    "example",
    [STAGE_1_EXAMPLE_1, STAGE_1_EXAMPLE_2, STAGE_1_EXAMPLE_3, STAGE_1_EXAMPLE_4, STAGE_1_EXAMPLE_5],
)
def test_stage_1_examples_inside_a_user_user_game(example: str) -> None:
    """Reach the example's board by typed moves, then type what the example's user typed."""
    lines = example.splitlines()
    start = lines[0].removeprefix("Enter the cells: > ").strip()
    assert lines[1:6] == render(start).splitlines()
    setup = _orders(start)
    typed, written = ["start user user\n"], ["Input command: ", render("_" * 9)]
    board = ["_"] * 9
    for n, cell in enumerate(setup):
        board[cell] = "XO"[n % 2]
        typed.append(f"{cell // 3 + 1} {cell % 3 + 1}\n")
        written += ["Enter the coordinates: ", render("".join(board))]
    assert "".join(board) == start
    tail_typed, tail_written = split_transcript("\n".join(lines[6:]) + "\n")
    typed.append(tail_typed)
    if lines[-1] == "Game not finished":
        # The game goes on: O is asked next, and the end of input ends the program.
        written += [tail_written.removesuffix("Game not finished\n"), "Enter the coordinates: "]
    else:
        typed.append("exit\n")
        written += [tail_written, "\n", "Input command: "]
    assert run("".join(typed)) == "".join(written)


def test_stage_1_error_texts_in_a_user_user_game() -> None:
    out = run("start user user\n2 2\n2 2\none\none three\n4 1\n0 0\n1 4\n+1 2\n1 x 3\n1 1\n")
    assert out == (
        "Input command: "
        + render("_________")
        + "Enter the coordinates: "
        + render("____X____")
        + "Enter the coordinates: This cell is occupied! Choose another one!\n"
        + "Enter the coordinates: You should enter numbers!\n"
        + "Enter the coordinates: You should enter numbers!\n"
        + "Enter the coordinates: Coordinates should be from 1 to 3!\n"
        + "Enter the coordinates: Coordinates should be from 1 to 3!\n"
        + "Enter the coordinates: Coordinates should be from 1 to 3!\n"
        + "Enter the coordinates: You should enter numbers!\n"
        + "Enter the coordinates: You should enter numbers!\n"
        + "Enter the coordinates: "
        + render("O___X____")
        + "Enter the coordinates: "
    )


@pytest.mark.parametrize("typed", ["2 2 2", "1", "1 2 3 4", " 3   1  1 "])
def test_numbers_but_not_two_are_asked_for_two(typed: str) -> None:
    """They are numbers, so "You should enter numbers!" would be untrue. The seed's stage 1
    says the user "inputs two numbers" and has no text for another count: this one says what
    is wanted, in the voice of its three."""
    out = run(f"start user user\n{typed}\n")
    asked_again = "Enter the coordinates: You should enter two numbers!\nEnter the coordinates: "
    assert out.endswith(asked_again)


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (NotNumbersError(), "You should enter numbers!"),
        (NumberCountError(), "You should enter two numbers!"),
        (OutOfRangeError(), "Coordinates should be from 1 to 3!"),
        (OutOfRangeError(4), "Coordinates should be from 1 to 4!"),
        (OutOfRangeError(8), "Coordinates should be from 1 to 8!"),
        (CellOccupiedError(), "This cell is occupied! Choose another one!"),
    ],
)
def test_hyperskill_error_texts(error: MoveError, text: str) -> None:
    # core's errors carry no words: the Hyperskill texts are the console's.
    assert hyperskill_error(error) == text


def test_the_solved_table_is_built_before_the_first_prompt() -> None:
    """A first hard move looks its answer up: nothing is built after `Making move level`."""
    solved_table.cache_clear()
    stdout = io.StringIO()
    built_by_then = []

    class Reader(io.StringIO):
        def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
            built_by_then.append(solved_table.cache_info().currsize)
            return "exit\n"

    run_console(Reader(), stdout, random.Random(0))
    assert stdout.getvalue() == "Input command: "
    assert built_by_then == [1]


# --- the menu ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "start",
        "start easy",
        "start easy nobody",
        "begin user user",
        "",
        "   ",
        "start user user user",
        "start hard",
        "start impossible user",
        "exit now",
        "user user",
    ],
)
def test_bad_parameters(command: str) -> None:
    assert run(command + "\nexit\n") == "Input command: Bad parameters!\nInput command: "


def test_bad_parameters_then_a_game() -> None:
    out = run("start\nstart easy\nstart user user\n")
    assert out.startswith(
        "Input command: Bad parameters!\nInput command: Bad parameters!\nInput command: "
        + render("_" * 9)
        + "Enter the coordinates: "
    )


def test_exit_ends_at_once() -> None:
    stdin = io.StringIO("exit\nstart easy easy\n")
    stdout = io.StringIO()
    assert run_console(stdin, stdout, random.Random(0)) is None
    assert stdout.getvalue() == "Input command: "
    assert stdin.readline() == "start easy easy\n"  # nothing read after `exit`


def test_extra_spaces_around_commands() -> None:
    out = run("  start   user   user  \n 1   1 \n  exit \n")
    assert out.startswith("Input command: " + render("_" * 9) + "Enter the coordinates: ")
    assert render("X________") in out


@pytest.mark.parametrize(
    "stdin",
    ["", "start user user\n", "start user user\n1 1\n2 2\n", "start user hard\n2 2", "start easy"],
)
def test_end_of_input_ends_quietly(stdin: str) -> None:
    out = run(stdin)  # returns normally, nothing raised
    assert out.endswith(("Input command: ", "Enter the coordinates: ", "Bad parameters!\n"))
    assert "Traceback" not in out


def test_end_of_input_while_an_ai_game_is_over() -> None:
    out = run("start hard hard\n")
    assert out.endswith("Draw\n\nInput command: ")


@pytest.mark.parametrize("typed", ["exit", "  exit  "])
def test_exit_in_the_middle_of_a_game_ends_the_program(typed: str) -> None:
    out = run(f"start user user\n2 2\n{typed}\nstart easy easy\n")
    assert out == (
        "Input command: "
        + render("_________")
        + "Enter the coordinates: "
        + render("____X____")
        + "Enter the coordinates: "  # and nothing after: no error text, no new game
    )


def test_exit_against_the_ai_ends_the_program() -> None:
    out = run("start hard user\nexit\nstart easy easy\n")
    lines = out.splitlines()
    assert lines[-1] == "Enter the coordinates: "
    assert out.count('Making move level "hard"') == 1  # one move, then the program ended
    # The board after that move (the empty one shares its line with the prompt).
    assert [cells.count("X") for _, cells in boards_in(lines)] == [1]


@pytest.mark.parametrize("typed", ["exit now", "exit 1", "EXIT", "quit"])
def test_other_words_in_a_game_keep_the_hyperskill_error(typed: str) -> None:
    out = run(f"start user user\n{typed}\n")
    assert out.endswith("Enter the coordinates: You should enter numbers!\nEnter the coordinates: ")


# --- the shape of medium and hard games ---------------------------------------------------------


class TypingUser(io.StringIO):
    """A user who answers each prompt: the next command, or cells in reading order.

    Occupied cells get the Hyperskill error and the user tries the next one, so a user's move is
    always the first free cell in reading order.
    """

    def __init__(self, stdout: io.StringIO, commands: list[str]) -> None:
        super().__init__()
        self.stdout = stdout
        self.commands = commands
        self.next_cell = 0

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        written = self.stdout.getvalue()
        if written.endswith("Input command: "):
            self.next_cell = 0
            return self.commands.pop(0) + "\n" if self.commands else ""
        assert written.endswith("Enter the coordinates: ")
        row, col = divmod(self.next_cell, 3)
        self.next_cell += 1
        return f"{row + 1} {col + 1}\n"


def play_session(games: list[tuple[str, str]], seed: int) -> str:
    stdout = io.StringIO()
    commands = [f"start {x} {o}" for x, o in games] + ["exit"]
    run_console(TypingUser(stdout, commands), stdout, random.Random(seed))
    return stdout.getvalue()


def check_session(out: str, games: list[tuple[str, str]]) -> list[str]:
    """Walk the output line by line; return each game's result line."""
    lines = out.replace(": ", ": \n").split("\n")
    i = 0
    results = []
    boards = dict(boards_in(lines))

    def board_at(k: int) -> str:
        assert k in boards, f"no board at line {k}: {lines[k : k + 5]}"
        return boards[k]

    for x_kind, o_kind in games:
        assert lines[i] == "Input command: "
        cells = board_at(i + 1)
        assert cells == "_" * 9
        i += 6
        mover = "X"
        while result_line(cells) is None:
            kind = x_kind if mover == "X" else o_kind
            if kind == "user":
                while lines[i + 1] == "This cell is occupied! Choose another one!":
                    assert lines[i] == "Enter the coordinates: "
                    i += 2
                assert lines[i] == "Enter the coordinates: "
            else:
                assert lines[i] == f'Making move level "{kind}"'
            after = board_at(i + 1)
            changed = [k for k in range(9) if after[k] != cells[k]]
            assert len(changed) == 1
            assert cells[changed[0]] == "_"
            assert after[changed[0]] == mover
            if kind == "user":
                assert changed[0] == cells.index("_")
            cells = after
            i += 6
            mover = "O" if mover == "X" else "X"
        assert lines[i] == result_line(cells)
        assert lines[i + 1] == ""
        results.append(lines[i])
        i += 2
    assert lines[i:] == ["Input command: ", ""]
    return results


@pytest.mark.parametrize("seed", range(3))
def test_games_of_every_kind(seed: int) -> None:
    kinds = ["user", "easy", "medium", "hard"]
    games = list(itertools.product(kinds, repeat=2))
    results = check_session(play_session(games, seed), games)
    for (x_kind, o_kind), result in zip(games, results, strict=True):
        if x_kind == "hard":
            assert result != "O wins"
        if o_kind == "hard":
            assert result != "X wins"
    # The reading-order user loses to hard: as X it gets punished on move three.
    assert results[games.index(("user", "hard"))] == "O wins"


def test_hard_against_hard_is_always_a_draw() -> None:
    games = [("hard", "hard")] * 40
    assert set(check_session(play_session(games, 1), games)) == {"Draw"}


def test_medium_against_hard_never_wins() -> None:
    games = [("medium", "hard"), ("hard", "medium")] * 15
    results = check_session(play_session(games, 2), games)
    for (x_kind, _), result in zip(games, results, strict=True):
        assert result in ("Draw", "X wins" if x_kind == "hard" else "O wins")


def test_medium_wins_and_blocks_in_a_dialogue() -> None:
    """X (the user) builds threats; medium (O) is offered only the cells that matter."""
    rng = ScriptedRandom(
        moves=[4, 2, 3, 5],
        offers=[[1, 2, 3, 4, 5, 6, 7, 8], [2], [3], [5]],
    )
    out = run("start user medium\n1 1\n1 2\n3 1\n3 3\nexit\n", rng)
    medium = 'Making move level "medium"\n'
    assert out == (
        "Input command: "
        + render("_________")
        + "Enter the coordinates: "
        + render("X________")
        + medium
        + render("X___O____")
        + "Enter the coordinates: "
        + render("XX__O____")
        + medium  # blocks the top row
        + render("XXO_O____")
        + "Enter the coordinates: "
        + render("XXO_O_X__")
        + medium  # blocks the left column
        + render("XXOOO_X__")
        + "Enter the coordinates: "
        + render("XXOOO_X_X")
        + medium  # wins the middle row rather than block the bottom one
        + render("XXOOOOX_X")
        + "O wins\n\nInput command: "
    )
    assert rng.moves == []


# --- the real program ---------------------------------------------------------------------------


@pytest.mark.process
def test_python_m_bot_console() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "console"],
        input="start\nstart hard hard\nstart easy medium\nexit\nstart user user\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert done.stderr == ""
    out = done.stdout
    assert out.startswith("Input command: Bad parameters!\nInput command: " + render("_" * 9))
    body = out.removeprefix("Input command: Bad parameters!\n")
    results = check_session(body, [("hard", "hard"), ("easy", "medium")])
    assert results[0] == "Draw"
    assert out.endswith("\n\nInput command: ")


@pytest.mark.process
@pytest.mark.parametrize(
    ("typed", "prompt"),
    [("", "Input command: "), ("start user hard\n", "Enter the coordinates: ")],
)
def test_ctrl_c_ends_the_console_quietly(typed: str, prompt: str) -> None:
    """Ctrl-C at the menu or in a game: no traceback, a fresh line, exit code 130."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "console"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        preexec_fn=sigint_at_its_default,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(typed.encode())
        proc.stdin.flush()
        written = b""
        while not written.endswith(prompt.encode()):  # the program waits for input now
            chunk = proc.stdout.read1(4096)
            assert chunk, written
            written += chunk
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130
    assert err == b""
    assert out == b"\n"

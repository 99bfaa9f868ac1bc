"""The terminal game: Hyperskill "Tic-Tac-Toe with AI", stages 3 to 5, to the letter.

    Input command: start hard user
    ---------
    ...
    Making move level "hard"

Input is read line by line. `exit` ends the program, at the menu or in the middle of a game
(where the coordinates are asked); so does the end of input, quietly, and Ctrl-C.
"""

from __future__ import annotations

import random
import sys
from typing import TextIO

from bot.games.model import PLAYER_KINDS, PlayerKind
from core.ai import choose_move
from core.board import (
    Board,
    CellOccupiedError,
    MoveError,
    NotNumbersError,
    NumberCountError,
    OutOfRangeError,
)
from core.notation import parse_row_col
from core.render import render_hyperskill
from core.rules import NOT_FINISHED, outcome, play, turn
from core.solver import solved_table

# The words are the Hyperskill stages', to the letter; `{size}` is the error's own data. The
# stages have no text for numbers of another count than two (`2 2 2`): theirs for letters
# would be untrue, so that one says what is wanted, in the same voice.
_HYPERSKILL_ERRORS: dict[type[MoveError], str] = {
    NotNumbersError: "You should enter numbers!",
    NumberCountError: "You should enter two numbers!",
    OutOfRangeError: "Coordinates should be from 1 to {size}!",
    CellOccupiedError: "This cell is occupied! Choose another one!",
}


class _EndOfInput(Exception):
    """stdin is exhausted, or `exit` was typed in a game: the program ends quietly."""


def _ask(prompt: str, stdin: TextIO, stdout: TextIO) -> str:
    stdout.write(prompt)
    stdout.flush()
    line = stdin.readline()
    if not line:
        raise _EndOfInput
    return line


def hyperskill_error(error: MoveError) -> str:
    """The Hyperskill text for an error in typed coordinates (core's errors carry no words)."""
    return _HYPERSKILL_ERRORS[type(error)].format_map(vars(error))


def parse_start(words: list[str]) -> tuple[PlayerKind, PlayerKind] | None:
    """`start X O` with two player kinds, or None for anything else."""
    if len(words) == 3 and words[0] == "start" and all(w in PLAYER_KINDS for w in words[1:]):
        return PlayerKind(words[1]), PlayerKind(words[2])
    return None


def play_console_game(
    players: dict[str, PlayerKind], rng: random.Random, stdin: TextIO, stdout: TextIO
) -> None:
    """One game from the empty board to its result line."""
    board = Board.empty()
    stdout.write(render_hyperskill(board) + "\n")
    while outcome(board) == NOT_FINISHED:
        level = PlayerKind(players[turn(board)]).level
        if level is None:
            board = play(board, _read_user_move(board, stdin, stdout))
        else:
            stdout.write(f'Making move level "{level}"\n')
            board = play(board, choose_move(level, board, rng))
        stdout.write(render_hyperskill(board) + "\n")
    stdout.write(outcome(board) + "\n\n")


def _read_user_move(board: Board, stdin: TextIO, stdout: TextIO) -> int:
    while True:
        text = _ask("Enter the coordinates: ", stdin, stdout)
        if text.split() == ["exit"]:
            raise _EndOfInput
        try:
            cell = board.cell_from_row_col(*parse_row_col(text, board.size))
            if board[cell] != " ":
                raise CellOccupiedError()
            return cell
        except MoveError as error:
            stdout.write(hyperskill_error(error) + "\n")


def run_console(
    stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout, rng: random.Random | None = None
) -> None:
    """The menu loop: `start X O` plays a game, `exit` (or end of input) quits."""
    rng = rng or random.Random()
    # Solved now, while nobody waits: built at the first hard move, it kept that move silent
    # for a tenth of a second or more after `Making move level "hard"`.
    solved_table()
    try:
        while True:
            words = _ask("Input command: ", stdin, stdout).split()
            if words == ["exit"]:
                return
            players = parse_start(words)
            if players is None:
                stdout.write("Bad parameters!\n")
                continue
            play_console_game({"X": players[0], "O": players[1]}, rng, stdin, stdout)
    except _EndOfInput:
        return


def play_in_terminal() -> int:
    """`python -m bot console`: the game on stdin and stdout; the process's exit code.

    Ctrl-C ends it without a traceback, with 130 (128 + SIGINT) as a shell would report an
    interrupted program, so a script can tell it from `exit` or the end of input (0)."""
    try:
        run_console()
    except KeyboardInterrupt:
        sys.stdout.write("\n")  # the shell's prompt starts on a line of its own
        sys.stdout.flush()
        return 130
    return 0

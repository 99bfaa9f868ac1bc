"""bench/opponent_mcts.py's search in C (bench/opponent_native.c), for the issue's 100,000
simulations a move: the same algorithm, about fifty times the speed.

The C source is compiled on first use with the machine's C compiler (`cc`, or $CC) into the
temporary directory, under a name made of the source's hash, and loaded with ctypes; the game
state stays in opponent_mcts.py's Python classes, and each move hands the search their cells.
Bench code only: the bot never loads it.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import random
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from opponent_mcts import Game, Mnk, Ultimate

SOURCE = Path(__file__).with_name("opponent_native.c")


@cache
def library() -> ctypes.CDLL:
    """The compiled search, built once per version of its source."""
    source = SOURCE.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    built = Path(tempfile.gettempdir()) / f"opponent_native-{digest}.so"
    if not built.exists():
        partial = built.with_suffix(f".{os.getpid()}.tmp")
        compiler = os.environ.get("CC", "cc")
        command = [compiler, "-O2", "-shared", "-fPIC", "-o", str(partial), str(SOURCE), "-lm"]
        subprocess.run(command, check=True)
        partial.replace(built)  # atomic: parallel workers never load a half-written file
    lib = ctypes.CDLL(str(built))
    lib.opponent_move.restype = ctypes.c_int
    lib.opponent_move.argtypes = [
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
        ctypes.c_uint64,
        ctypes.POINTER(ctypes.c_long),
        ctypes.POINTER(ctypes.c_double),
    ]
    return lib


def native_move(game: Game, simulations: int, rng: random.Random) -> int:
    """The opponent's move in `game` (not changed) after `simulations` simulations (fewer once
    the root is proven), searched in C; chance from `rng`."""
    return native_search(game, simulations, rng)[0]


def native_search(game: Game, simulations: int, rng: random.Random) -> tuple[int, float, int]:
    """`native_move` with what the search found: the move, its value for the player to move
    in [-1, 1] (exactly -1, 0 or 1 once proven) and the simulations run."""
    if game.result:
        raise ValueError("the game is over")
    if isinstance(game, Ultimate):
        ultimate, size, k, send = 1, 9, 3, game.send
    else:
        assert isinstance(game, Mnk)
        ultimate, size, k, send = 0, game.size, game.k, -1
    cells = bytes(game.cells)
    done, worth = ctypes.c_long(0), ctypes.c_double(0.0)
    seed = rng.getrandbits(64)
    found = library().opponent_move(
        ultimate, size, k, cells, send, game.to_move, simulations, seed, done, worth
    )
    if found < 0:
        raise ValueError("the game is over")
    return int(found), worth.value, done.value

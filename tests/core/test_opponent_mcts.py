"""The strength bench's independent opponent (bench/opponent_mcts.py): its own rules agree with
core's, and its search takes a win in one, blocks a loss in one and proves what it should.
Small simulation counts: these are checks of correctness, not of strength."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from core.board import Board, O, X
from core.rules import is_over, play, winner
from core.ultimate import rules as ultimate

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("opponent_mcts", BENCH / "opponent_mcts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


opponent = _load()
MARK = {0: None, 1: X, 2: O, 3: None}


def _game(size: int, k: int, moves: list[int]) -> Any:
    game = opponent.new_game(size, k)
    for move in moves:
        game.play(move)
    return game


@pytest.mark.parametrize(("size", "k"), [(3, 3), (4, 3), (5, 4), (6, 4), (8, 5)])
def test_its_rules_agree_with_core_on_random_games(size: int, k: int) -> None:
    rng = random.Random(size * 10 + k)
    for _ in range(30):
        game, board = opponent.new_game(size, k), Board.empty(size, k)
        while not game.result:
            move = rng.choice(game.moves())
            game.play(move)
            board = play(board, move)
            assert bool(game.result) == is_over(board)
            assert MARK[game.result] == winner(board)


def test_its_ultimate_rules_agree_with_core_on_random_games() -> None:
    rng = random.Random(9)
    for _ in range(30):
        game, board = opponent.new_game(9, 3, ultimate=True), ultimate.UltimateBoard.empty()
        while not game.result:
            assert game.moves() == ultimate.legal_moves(board)
            move = rng.choice(game.moves())
            game.play(move)
            board = ultimate.play(board, move)
            assert bool(game.result) == ultimate.is_over(board)
            assert MARK[game.result] == ultimate.winner(board)


def test_it_takes_a_win_in_one() -> None:
    # X: 0 1 . / O: 3 4 — X to move wins at 2 (O would win at 5).
    game = _game(3, 3, [0, 3, 1, 4])
    assert opponent.mcts_move(game, 200, random.Random(1)) == 2


def test_it_blocks_a_loss_in_one() -> None:
    # 5×5, k = 4: O holds 6 7 8 of row 5..9, whose 5 is X's: X must take 9.
    game = _game(5, 4, [5, 6, 24, 7, 20, 8])
    assert opponent.mcts_move(game, 500, random.Random(2)) == 9


def _search_until_proven(game: Any, simulations: int, seed: int) -> Any:
    """The root of a search from `game` (O moved into it) after at most `simulations`
    simulations, fewer once the root is proven."""
    root = opponent.Node(-1, 2)
    rng = random.Random(seed)
    for _ in range(simulations):
        if root.proven is not None:
            break
        opponent.simulate(root, game, rng)
    return root


def test_the_solver_proves_a_won_root_and_a_lost_child() -> None:
    root = _search_until_proven(_game(3, 3, [0, 3, 1, 4]), 500, seed=3)
    # X to move wins at once: the root is proven lost for O, who moved into it.
    assert root.proven == -1
    assert opponent.best_child(root).proven == 1


def test_the_solver_proves_a_drawn_ending() -> None:
    # X: 4 8 1, O: 0 2 7, X to move on 3, 5 or 6: a draw whatever is played.
    root = _search_until_proven(_game(3, 3, [4, 0, 8, 2, 1, 7]), 1000, seed=4)
    assert root.proven == 0


# --- the same search in C (bench/opponent_native.py), the one the bench plays by default ------


def _load_native() -> ModuleType:
    sys.path.insert(0, str(BENCH))  # it imports opponent_mcts by its bench name
    try:
        spec = importlib.util.spec_from_file_location(
            "opponent_native", BENCH / "opponent_native.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


native = _load_native()


def test_in_c_it_takes_a_win_in_one_and_blocks_a_loss_in_one() -> None:
    assert native.native_move(_game(3, 3, [0, 3, 1, 4]), 200, random.Random(1)) == 2
    assert native.native_move(_game(5, 4, [5, 6, 24, 7, 20, 8]), 500, random.Random(2)) == 9


def test_in_c_it_never_loses_3x3_and_only_plays_legal_moves() -> None:
    # Its whole rule book is in C too: every move it chooses must be legal by core, in ultimate
    # as well, and a solver at 20,000 simulations plays 3×3 perfectly (a draw against itself).
    rng = random.Random(5)
    game, board = opponent.new_game(3, 3), Board.empty(3, 3)
    while not game.result:
        move = native.native_move(game, 20_000, rng)
        game.play(move)
        board = play(board, move)
    assert winner(board) is None
    game, big = opponent.new_game(9, 3, ultimate=True), ultimate.UltimateBoard.empty()
    while not game.result:
        move = native.native_move(game, 300, rng)
        assert move in ultimate.legal_moves(big)
        game.play(move)
        big = ultimate.play(big, move)


def test_in_c_it_takes_ultimates_game_wins() -> None:
    # Positions of random games where the player to move can win the game at once: it must.
    rng, found = random.Random(6), 0
    while found < 10:
        game = opponent.new_game(9, 3, ultimate=True)
        while not game.result:
            wins = [m for m in game.moves() if _wins_ultimate(game, m)]
            if wins:
                assert native.native_move(game, 2000, rng) in wins
                found += 1
                break
            game.play(rng.choice(game.moves()))


def _wins_ultimate(game: Any, move: int) -> bool:
    after = game.copy()
    after.play(move)
    return after.result == game.to_move

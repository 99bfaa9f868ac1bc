"""An independent opponent for the strength bench (issue 39): plain UCT with an MCTS-Solver and
uniformly random rollouts, at a fixed number of simulations a move.

Written apart from hard on purpose, so that it shares none of hard's blind spots: it imports
nothing from `core` and carries its own rules (m,n,k boards and ultimate tic-tac-toe), written
from the rules' statements, not from core's code. The bench (bench/versus.py) checks after
every move that these rules and core's agree on the game's end and winner, so the two rule
books test each other as a side effect.

The search, modelled on the usual reference design (UCT with a solver, random rollouts):

- a node's children are all its legal moves, made when the node is first selected after its
  first visit, in a random order; an unvisited child is always tried before any visited one;
- selection by UCT: mean reward (for the player who made the child's move, in [-1, 1]) +
  C·sqrt(ln N / n), C = 2;
- from a new node, a rollout plays uniformly random moves to the end of the game;
- the result (+1 win, 0 draw, -1 loss) is backed up along the path;
- the solver: a terminal node is proven at its game value; a node with a child proven won for
  the player to move is proven lost for the player who moved into it, and a node whose children
  are all proven is proven at minus the best of them (so draws are proven too). Proven nodes
  count at their proven value in selection; children proven lost are skipped while any other
  is left; the search stops early once the root is proven;
- the move played: a child proven won, else the most visited child not proven lost (ties by
  mean).

Cells are numbered as in core: row-major for m,n,k; `block * 9 + cell` for ultimate. Pure:
all chance comes from the random.Random passed in.
"""

from __future__ import annotations

import math
import random
from functools import cache
from typing import Protocol

UCT_C = 2.0
ONGOING, DRAW = 0, 3  # `result` of a game: 0 going on, 1 or 2 the winner, 3 a draw


class Game(Protocol):
    to_move: int
    result: int

    def copy(self) -> Game: ...
    def moves(self) -> list[int]: ...
    def play(self, move: int) -> None: ...
    def rollout(self, rng: random.Random) -> int: ...


# --- k in a row on an n×n board ----------------------------------------------------------------


@cache
def _rays(size: int) -> tuple[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], ...]:
    """For each cell, per direction (row, column, two diagonals), the cells walking away from
    it one way and the other way."""
    found = []
    for cell in range(size * size):
        r, c = divmod(cell, size)
        per_direction = []
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            ways = []
            for sign in (1, -1):
                walk = []
                rr, cc = r + sign * dr, c + sign * dc
                while 0 <= rr < size and 0 <= cc < size:
                    walk.append(rr * size + cc)
                    rr, cc = rr + sign * dr, cc + sign * dc
                ways.append(tuple(walk))
            per_direction.append((ways[0], ways[1]))
        found.append(tuple(per_direction))
    return tuple(found)


class Mnk:
    """k in a row on an n×n board; players 1 (X, first) and 2 (O)."""

    __slots__ = ("cells", "free", "k", "rays", "result", "size", "to_move")

    def __init__(self, size: int, k: int) -> None:
        self.size, self.k = size, k
        self.cells = [0] * (size * size)
        self.free = size * size
        self.rays = _rays(size)
        self.to_move = 1
        self.result = ONGOING

    def copy(self) -> Mnk:
        other = Mnk.__new__(Mnk)
        other.size, other.k, other.rays = self.size, self.k, self.rays
        other.cells = self.cells[:]
        other.free, other.to_move, other.result = self.free, self.to_move, self.result
        return other

    def moves(self) -> list[int]:
        if self.result:
            return []
        return [i for i, v in enumerate(self.cells) if not v]

    def _wins(self, cell: int, p: int) -> bool:
        cells, need = self.cells, self.k - 1
        for ahead, behind in self.rays[cell]:
            run = 0
            for other in ahead:
                if cells[other] != p:
                    break
                run += 1
            for other in behind:
                if cells[other] != p:
                    break
                run += 1
            if run >= need:
                return True
        return False

    def play(self, move: int) -> None:
        p = self.to_move
        self.cells[move] = p
        self.free -= 1
        if self._wins(move, p):
            self.result = p
        elif not self.free:
            self.result = DRAW
        self.to_move = 3 - p

    def rollout(self, rng: random.Random) -> int:
        """Random moves to the end (this copy changes); the result."""
        if self.result:
            return self.result
        free = [i for i, v in enumerate(self.cells) if not v]
        rng.shuffle(free)
        cells, p = self.cells, self.to_move
        for move in free:
            cells[move] = p
            if self._wins(move, p):
                self.result = p
                return p
            p = 3 - p
        self.result = DRAW
        return DRAW


# --- ultimate tic-tac-toe ----------------------------------------------------------------------

_TRIPLES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _three(values: list[int], p: int) -> bool:
    return any(values[a] == p and values[b] == p and values[c] == p for a, b, c in _TRIPLES)


class Ultimate:
    """Ultimate tic-tac-toe: `cells` 81 (block*9+cell), `small` each block's state (0 open,
    1 or 2 won, 3 full); the next move goes to block `send` unless it is -1 (any open block)."""

    __slots__ = ("cells", "result", "send", "small", "to_move")

    def __init__(self) -> None:
        self.cells = [0] * 81
        self.small = [0] * 9
        self.send = -1
        self.to_move = 1
        self.result = ONGOING

    def copy(self) -> Ultimate:
        other = Ultimate.__new__(Ultimate)
        other.cells, other.small = self.cells[:], self.small[:]
        other.send, other.to_move, other.result = self.send, self.to_move, self.result
        return other

    def moves(self) -> list[int]:
        if self.result:
            return []
        cells = self.cells
        blocks = [self.send] if self.send >= 0 else [b for b in range(9) if not self.small[b]]
        return [b * 9 + c for b in blocks for c in range(9) if not cells[b * 9 + c]]

    def play(self, move: int) -> None:
        p = self.to_move
        block, cell = divmod(move, 9)
        self.cells[move] = p
        small = self.small
        part = self.cells[block * 9 : block * 9 + 9]
        if _three(part, p):
            small[block] = p
            if _three(small, p):
                self.result = p
        elif 0 not in part:
            small[block] = DRAW
        if not self.result and 0 not in small:
            self.result = DRAW
        self.send = -1 if small[cell] else cell
        self.to_move = 3 - p

    def rollout(self, rng: random.Random) -> int:
        while not self.result:
            moves = self.moves()
            self.play(moves[int(rng.random() * len(moves))])
        return self.result


# --- the search --------------------------------------------------------------------------------


class Node:
    """`player` made `move` to reach this node; `total` sums rollout rewards for that player;
    `proven` is +1/0/-1 (won/drawn/lost for that player) once proven, else None."""

    __slots__ = ("children", "move", "player", "proven", "total", "visits")

    def __init__(self, move: int, player: int) -> None:
        self.move, self.player = move, player
        self.children: list[Node] | None = None
        self.visits = 0
        self.total = 0.0
        self.proven: int | None = None


def _value(child: Node) -> float:
    if child.proven is not None:
        return float(child.proven)
    return child.total / child.visits


def _select(node: Node) -> Node:
    children = node.children
    assert children is not None
    for child in children:
        if child.proven == 1:
            return child
    log_n = math.log(max(node.visits, 1))
    best, best_score = children[0], -math.inf
    alive = [c for c in children if c.proven != -1] or children
    for child in alive:
        if not child.visits:
            return child
        score = _value(child) + UCT_C * math.sqrt(log_n / child.visits)
        if score > best_score:
            best, best_score = child, score
    return best


def _prove(node: Node) -> None:
    """Prove `node` from its children, if they settle it (see the module docstring)."""
    children = node.children
    if not children:
        return
    if any(c.proven == 1 for c in children):
        node.proven = -1
    elif all(c.proven is not None for c in children):
        node.proven = -max(c.proven for c in children if c.proven is not None)


def _reward(result: int, player: int) -> float:
    return 0.0 if result == DRAW else (1.0 if result == player else -1.0)


def simulate(root: Node, game: Game, rng: random.Random) -> None:
    """One simulation from `root` (whose position is `game`, not changed)."""
    game = game.copy()
    path = [root]
    node = root
    while node.proven is None and not game.result:
        if node.children is None:
            if node.visits == 0 and node is not root:
                break
            moves = game.moves()
            rng.shuffle(moves)
            node.children = [Node(m, game.to_move) for m in moves]
        node = _select(node)
        game.play(node.move)
        path.append(node)
    if game.result and node.proven is None:
        node.proven = int(_reward(game.result, node.player))
    if node.proven is not None:
        result = 0 if node.proven == 0 else (node.player if node.proven > 0 else 3 - node.player)
        result = result or DRAW
    else:
        result = game.rollout(rng)
    for index in range(len(path) - 1, -1, -1):
        here = path[index]
        here.visits += 1
        here.total += _reward(result, here.player)
        if index < len(path) - 1 and here.proven is None:
            _prove(here)


def best_child(root: Node) -> Node:
    children = root.children
    assert children
    won = [c for c in children if c.proven == 1]
    if won:
        return won[0]
    alive = [c for c in children if c.proven != -1] or children
    return max(alive, key=lambda c: (c.visits, _value(c) if c.visits else -2.0))


def mcts_move(game: Game, simulations: int, rng: random.Random) -> int:
    """The opponent's move in `game` (not changed) after `simulations` simulations (fewer
    once the root is proven)."""
    moves = game.moves()
    if not moves:
        raise ValueError("the game is over")
    if len(moves) == 1:
        return moves[0]
    root = Node(-1, 3 - game.to_move)
    for _ in range(simulations):
        if root.proven is not None:
            break
        simulate(root, game, rng)
    return best_child(root).move


def new_game(size: int, k: int, ultimate: bool = False) -> Game:
    """The empty board of the opponent's own rules."""
    return Ultimate() if ultimate else Mnk(size, k)

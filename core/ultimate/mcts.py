"""The machinery of ultimate's hard level (core.ultimate.ai.search): a UCT tree search with
all-moves-as-first statistics, proofs of forced wins and the minimax of a learned evaluation
(core.ultimate.evaluation), over heavy playouts. One iteration:

1. it walks down the tree from the root: at a node with untried moves it takes the next of
   them (best first by the evaluation, in the order fixed when the node's children were made,
   the second time an iteration passed through it), else a child proven won if there is one,
   else the child with the best value: its mean reward, blended with its all-moves-as-first
   (AMAF, "RAVE") mean, and that mixed half and half (EVALUATION_SHARE) with the minimax
   value of the evaluation below it, + EXPLORATION * sqrt(ln N / n); children proven lost are
   skipped while any other is left.
   It stops at the first node it has never visited. A node's children follow the root's two
   rules: a game-winning move as the only child if there is one, else the moves that leave
   the opponent no game win (all of them if none does), so no iteration is spent on a
   blunder seen one move ahead, and a win two moves ahead is soon proven;
2. a walk that ends in a won game proves its last node won for the player who moved there;
   a node with a child proven won is proven lost for its own mover, and a node whose
   children are all proven lost is proven won (MCTS-Solver, without proven draws);
3. from a new node a playout plays the game to its end: a player who can win a small board in
   the block it is sent to does so (which wins the game when that block completes a line), with
   a free choice it wins the game at once if it can, else it plays a random cell of a random
   open block. Such games end sooner than uniform random ones, so more of them fit in the
   budget: at 0.1 s a move this beat uniform playouts 19-11 (10 draws). Making them heavier
   (blocking the opponent's small boards, not sending it to a free choice) lost more in
   iterations than it gained;
4. when a node's children are made, each is evaluated (the chance the player to move after
   it wins, by core.ultimate.evaluation), and the minimax of the evaluations is carried up the path
   ("implicit minimax backups", Lanctot et al. 2014): a node with children is worth to the
   player who made its move one minus the best of them. An evaluation is biased, a playout is
   noisy; the mix of the two ranks moves better than either (module constants). Evaluating
   all the children at once costs about a fifth of the iterations, and pays: it orders the
   untried moves, and the minimax sees every reply, not only those tried (64%, 60% and 59% in
   three sets of 80 games at 0.05 s a move against evaluating each node when first visited);
5. the result (1 for a win, ½ for a draw, 0 for a loss) is added to every node on the path,
   each from the point of view of the player who made the node's move, and to the AMAF
   statistics of every child of a node on the path whose move its player made later in the
   same iteration: a move's value depends mostly on its cell (which is also where it sends
   the opponent), so results from other orders of play are a fair first estimate, trusted
   while a child has few visits: weight a / (a + n + n·a·RAVE_BIAS) for a AMAF results and n
   visits.

Positions are held in a mutable `Position`: per player a 9-bit mask of its marks in each block,
masks of the blocks each player has won and of the closed blocks, and the block the next move
must go to; the tables of core.ultimate.rules (lines, completing cells) answer every rule
question in a lookup. Pure: all chance comes from the `rand` passed in.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from core.ultimate.evaluation import child_worths
from core.ultimate.rules import COMPLETING, FULL, HAS_LINE, MASK_CELLS, Position
from core.ultimate.tactics import game_wins, safe_moves

# The UCT constant, for rewards in [0, 1], and how soon a child's own mean replaces its AMAF
# mean. With the tree's tactics and AMAF, 80 games each at 0.03 s a move against the previous
# search: 0.25 scored 73%, 0.15 59%, 0.4 50%; RAVE_BIAS 0.0001 62%. Without AMAF, 0.25 lost to
# the previous search's 1.0 (40% at 0.1 s).
EXPLORATION = 0.25
RAVE_BIAS = 0.001
# How much a child's value owes to the minimax of the learned evaluation below it, against
# its results. 80 games each at 0.05 s a move against the search without it: 0.5 scored 70%
# and 69% (two sets of weights), 0.3 59%, 0.7 52%.
EVALUATION_SHARE = 0.5


def playout(position: Position, rand: Callable[[], float], seen: list[int]) -> int:
    """Play `position` (a throwaway copy: its masks change) to the end with the playout policy
    of the module docstring; the result. Each player's moves are added to `seen[player]`, a
    mask of the 81 cells, for the AMAF statistics.

    The hot loop of the search: everything is a local variable or a table lookup."""
    marks, won, closed = position.marks, position.won, position.closed
    t, p, result = position.target, position.player, position.result
    while not result:
        mine, theirs = marks[p], marks[3 - p]
        if t < 0:
            open_blocks = MASK_CELLS[FULL & ~closed]
            b = -1
            for d in MASK_CELLS[COMPLETING[won[p]] & ~closed]:
                if COMPLETING[mine[d]] & ~theirs[d]:
                    b = d  # the game-winning block; its winning cell is taken below
                    break
            if b < 0:
                b = open_blocks[int(rand() * len(open_blocks))]
        else:
            b = t
        m = mine[b]
        free = FULL & ~(m | theirs[b])
        wins = COMPLETING[m] & free
        cells = MASK_CELLS[wins or free]
        c = cells[int(rand() * len(cells))]
        seen[p] |= 1 << b * 9 + c
        m |= 1 << c
        mine[b] = m
        bit = 1 << b
        if HAS_LINE[m]:
            won[p] |= bit
            closed |= bit
            if HAS_LINE[won[p]]:
                return p
        elif m | theirs[b] == FULL:
            closed |= bit
        if closed == FULL:
            return 3
        t = -1 if closed >> c & 1 else c
        p = 3 - p
    return result


class Tree:
    """The search tree as flat lists indexed by node number (0 is the root).

    Lists of numbers, not node objects: a tree of tens of thousands of nodes is then a
    handful of objects, so the cyclic garbage collector never walks it (a full collection
    over old trees of node objects took over 100 ms, in the middle of a move) and it is freed
    the moment the search returns.

    A node's children are numbered `first[n]` to `first[n] + count[n] - 1`, created together
    (in random order) the first time an iteration passes through it; `tried[n]` of them have
    been visited, in that order. `score` counts half points (2 a win, 1 a draw) for the player
    who made the node's move; `amaf_visits` and `amaf_score` count the same for the iterations
    in which that player made the node's move later than at its place in the tree.
    `proven` is 1 where that player wins by force, -1 where it loses by force, else 0.
    """

    __slots__ = (
        "amaf_score",
        "amaf_visits",
        "count",
        "evaluation",
        "first",
        "move",
        "proven",
        "score",
        "tried",
        "visits",
    )

    def __init__(self) -> None:
        self.move = [-1]
        self.first = [-1]
        self.count = [0]
        self.tried = [0]
        self.visits = [0]
        self.score = [0]
        self.amaf_visits = [0]
        self.amaf_score = [0]
        self.proven = [0]
        self.evaluation = [-1.0]

    def expand(self, node: int, moves: list[int], values: list[float]) -> None:
        """Give `node` its children: `moves` in the order they will be tried, each worth
        `values` (its evaluation, to the player who makes it); the node is then worth one
        minus the best of them."""
        n = len(moves)
        self.first[node] = len(self.move)
        self.count[node] = n
        self.move += moves
        self.first += [-1] * n
        self.count += [0] * n
        self.tried += [0] * n
        self.visits += [0] * n
        self.score += [0] * n
        self.amaf_visits += [0] * n
        self.amaf_score += [0] * n
        self.proven += [0] * n
        self.evaluation += values
        self.evaluation[node] = 1.0 - max(values)

    def select(self, node: int) -> int:
        """The next untried child, else a child proven won, else the child with the best
        value (module docstring); a child proven lost only when every child is."""
        tried = self.tried[node]
        first = self.first[node]
        if tried < self.count[node]:
            self.tried[node] = tried + 1
            return first + tried
        visits, score = self.visits, self.score
        amaf_visits, amaf_score, proven = self.amaf_visits, self.amaf_score, self.proven
        evaluation = self.evaluation
        # Twice the value, in one division: with k = 1 + a·RAVE_BIAS the blend of the mean
        # s / 2n and the AMAF mean s' / 2a with weight a / (a + n·k) is (s·k + s') / 2(a + n·k).
        scale = 2 * EXPLORATION * math.sqrt(math.log(visits[node]))
        sqrt = math.sqrt
        results_share, evaluation_share = 1 - EVALUATION_SHARE, 2 * EVALUATION_SHARE
        best, best_value = first, -1.0
        for child in range(first, first + tried):
            if proven[child]:
                if proven[child] > 0:
                    return child
                continue
            n = visits[child]
            a = amaf_visits[child]
            k = 1 + a * RAVE_BIAS
            results = (score[child] * k + amaf_score[child]) / (a + n * k)
            value = results_share * results + evaluation_share * evaluation[child] + scale / sqrt(n)
            if value > best_value:
                best, best_value = child, value
        return best  # the first child when every one is proven lost

    def root_children(self) -> range:
        return range(self.first[0], self.first[0] + self.tried[0])


def tree_moves(position: Position) -> list[int]:
    """The moves of a node's children: a game win alone if there is one, else the safe moves."""
    wins = game_wins(position)
    return wins[:1] if wins else safe_moves(position, position.moves())


def ranked_children(
    position: Position, moves: list[int], rand: Callable[[], float]
) -> tuple[list[int], list[float]]:
    """`moves` from `position`, best first for the player to move by the evaluation (ties in
    a random order), and what each is worth to that player: the chance it wins after the move
    (1 for a won game, ½ for a drawn one)."""
    moves = moves[:]
    for i in range(len(moves) - 1, 0, -1):  # Fisher-Yates, so equal moves come at random
        j = int(rand() * (i + 1))
        moves[i], moves[j] = moves[j], moves[i]
    ranked = list(zip(child_worths(position, moves), moves, strict=True))
    ranked.sort(key=lambda pair: -pair[0])  # stable: ties keep their random order
    return [move for _, move in ranked], [value for value, _ in ranked]


def iterate(tree: Tree, position: Position, rand: Callable[[], float]) -> None:
    """One iteration: select down to a new node, play out from it, back the result up."""
    position = position.copy()
    me = position.player  # the root's player: it makes the moves into odd depths
    path = [0]
    node = 0
    seen = [0, 0, 0]  # per player, the cells it marked in this iteration
    while not position.result:
        if tree.first[node] < 0:
            if tree.visits[node] == 0 and node:
                break  # a new node: play out from here
            tree.expand(node, *ranked_children(position, tree_moves(position), rand))
        node = tree.select(node)
        move = tree.move[node]
        seen[position.player] |= 1 << move
        position.play(move)
        path.append(node)
    if position.result in (1, 2):
        prove(tree, path)
    back_up_evaluation(tree, path)
    result = position.result or playout(position, rand, seen)
    mine = 2 if result == me else 1 if result == 3 else 0  # half points for the root's player
    back_up(tree, path, mine, (seen[me], seen[3 - me]))


def back_up(tree: Tree, path: list[int], mine: int, seen: tuple[int, int]) -> None:
    """Add an iteration's result to the nodes on its path and to the AMAF statistics of
    their children; `mine` is in half points for the root's player, `seen` holds the cells
    the root's player and its opponent marked."""
    visits, score, first, count = tree.visits, tree.score, tree.first, tree.count
    amaf_visits, amaf_score, moves = tree.amaf_visits, tree.amaf_score, tree.move
    for depth, n in enumerate(path):
        visits[n] += 1
        score[n] += mine if depth & 1 else 2 - mine
        if first[n] < 0:
            continue
        # n's children are moves of the player to move at n: the root's at even depths
        played, reward = (seen[1], 2 - mine) if depth & 1 else (seen[0], mine)
        for child in range(first[n], first[n] + count[n]):
            if played >> moves[child] & 1:
                amaf_visits[child] += 1
                amaf_score[child] += reward


def back_up_evaluation(tree: Tree, path: list[int]) -> None:
    """Carry a node's new value (the walk expanded the one before its last) up the path, as
    long as it changes a node's value: an expanded node is worth to the player who made its
    move one minus the best of its children."""
    evaluation, first, count = tree.evaluation, tree.first, tree.count
    for i in range(len(path) - 3, -1, -1):
        node = path[i]
        start = first[node]
        value = 1.0 - max(evaluation[start : start + count[node]])
        if value == evaluation[node]:
            return
        evaluation[node] = value


def prove(tree: Tree, path: list[int]) -> None:
    """`path` ends in a game won by its last move: mark that, and what it proves upwards (a
    node is lost for its mover once a child is won, won once every child is lost)."""
    proven, first, count = tree.proven, tree.first, tree.count
    proven[path[-1]] = 1
    for i in range(len(path) - 2, -1, -1):
        node, child = path[i], path[i + 1]
        if proven[child] > 0:
            proven[node] = -1
        elif all(proven[c] < 0 for c in range(first[node], first[node] + count[node])):
            proven[node] = 1
        else:
            return


def settled(tree: Tree, left: float) -> bool:
    """No root move can overtake the most visited one in `left` more iterations (moves proven
    lost are out of the race: they are played only when every move is)."""
    first = second = 0
    for child in tree.root_children():
        if tree.proven[child] < 0:
            continue
        n = tree.visits[child]
        if n > first:
            first, second = n, first
        elif n > second:
            second = n
    return first - second > left

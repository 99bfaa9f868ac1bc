"""A tournament's rules as pure functions on plain values: its format, how many rounds, who
plays whom (and with which mark) in each round, and the standings. No I/O: the pairings played
so far come in, the next round's pairings or the table go out.

- **Round robin** (up to `ROUND_ROBIN_MAX` players): everyone meets everyone once, by the
  circle method (the first seed stays, the others turn round him one place a round; with an
  odd number a seat of nobody makes the bye). A player who withdrew loses what is left of
  their schedule: their opponents win those pairings without a game (a forfeit).
- **Swiss** (above that): `ceil(log2(players))` rounds. Each round the players still in are
  ranked (points, tie-break, seed) and paired top down inside their score group, a player
  with one of the next group when his own runs out, never with someone he met already
  (backtracking till a pairing without a repeat is found). With an odd number the bye goes
  to the lowest-ranked player who has not had one: each has at most one. A player who
  withdrew is paired no more.

Points: a win 1, a draw ½, a bye (or a forfeit win) 1, a loss 0.

Tie-break: **Sonneborn–Berger** — the points of every opponent you beat, plus half the points
of every opponent you drew. Chosen over Buchholz (the sum of all your opponents' points)
because most tournaments in a group are round robins, and in a round robin everyone meets
everyone: Buchholz is then the same total for everybody less their own points, so it only
ever ranks the player it ties the wrong way round. Sonneborn–Berger asks *whom* you scored
against, which separates players in both formats alike; one tie-break for both.
Players level on points and tie-break share a place ("2–3"), as a club prints them: the
order they are listed in (by seed) ranks nobody; the title, if it is the first, is shared.

Sides (❌ moves first): in a round robin the circle's own (the top row plays ❌, the first
seed every other round), so everyone's ❌ and ⭕ differ by one at most; in a Swiss ❌ goes to
the player who had it less often so far (then to who had ⭕ last, then to the lower seed).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import groupby

from bot.games.model import EndReason, GameStatus, Result
from bot.games.play.clock_rules import Clock

#: Round robin up to this many players; Swiss above.
ROUND_ROBIN_MAX = 8
#: Fewer players than this make a challenge, not a tournament.
MIN_PLAYERS = 3
#: More than this many do not fit one message's standings.
MAX_PLAYERS = 32


class Format(StrEnum):
    """How a tournament pairs its players (the stored `tournaments.format`, and the words of
    `/tournament`)."""

    ROUND_ROBIN = "roundrobin"
    SWISS = "swiss"


class TournamentStatus(StrEnum):
    """The stored `tournaments.status`."""

    SIGNUP = "signup"  # players join and leave; the organiser starts or cancels
    RUNNING = "running"
    FINISHED = "finished"  # the last round played, or ended early by the organiser
    CANCELLED = "cancelled"  # before it started


class PairResult(StrEnum):
    """How a pairing ended (the stored `tournament_pairings.result`): ❌ won, ⭕ won, a draw,
    or a bye (❌ alone, a point). A forfeit is a win without a game."""

    X = "x"
    O = "o"
    DRAW = "draw"
    BYE = "bye"


@dataclass(frozen=True)
class Pairing:
    """Who plays whom in a round: `x` plays ❌; `o` None is a bye for `x`. `result` None: not
    decided yet (the game is being played)."""

    round: int
    x: int
    o: int | None
    result: PairResult | None = None
    #: The game played for it (None: a bye, a forfeit, or not stored yet), and its row's id.
    game_id: int | None = field(default=None, compare=False)
    id: int = field(default=0, compare=False)

    @property
    def is_bye(self) -> bool:
        return self.o is None

    def score_of(self, player: int) -> float | None:
        """The points this pairing gave `player` (None: undecided, or not theirs)."""
        if self.result is None or player not in (self.x, self.o):
            return None
        if self.result in (PairResult.BYE, PairResult.DRAW):
            return 1.0 if self.result is PairResult.BYE else 0.5
        won = PairResult.X if player == self.x else PairResult.O
        return 1.0 if self.result is won else 0.0

    def opponent_of(self, player: int) -> int | None:
        return self.o if player == self.x else self.x


@dataclass(frozen=True)
class Standing:
    """One line of the table."""

    player: int
    points: float
    tiebreak: float  # Sonneborn–Berger
    played: int  # pairings decided (byes and forfeits too)


def game_result(
    status: GameStatus | None, result: Result | None, reason: EndReason | None
) -> PairResult | None:
    """What a pairing's game gave it once over (None: still being played). Won or drawn as
    it ended; aborted because ❌ never made a first move: ❌'s loss, a forfeit, as a club
    scores a player who is not at the board by the default time (the FIDE Laws' 6.7): the
    round needs a result, and a game void for the one who did not turn up would reward the
    absence. Unrated all the same, and its board says so (`TOURNAMENT_GAME_ABORTED`). Closed
    without a result otherwise (the bot left the group) or gone (/forget): a draw."""
    if status in (GameStatus.OPEN, GameStatus.ACTIVE):
        return None
    if status is GameStatus.FINISHED and result in (Result.X, Result.O):
        return PairResult.X if result is Result.X else PairResult.O
    if status is GameStatus.ABANDONED and reason is EndReason.ABORTED:
        return PairResult.O
    return PairResult.DRAW


def choose_format(players: int) -> Format:
    """The format a tournament of this many players gets when none was asked for."""
    return Format.ROUND_ROBIN if players <= ROUND_ROBIN_MAX else Format.SWISS


def rounds_for(fmt: Format, players: int) -> int:
    """How many rounds: everyone meets everyone once (one round more with an odd number, for
    the byes); Swiss: ⌈log₂ players⌉."""
    if players < 2:
        return 0
    if fmt is Format.ROUND_ROBIN:
        return players - 1 if players % 2 == 0 else players
    return math.ceil(math.log2(players))


def circle(seeds: Sequence[int]) -> list[list[tuple[int | None, int | None]]]:
    """Every round of a round robin by the circle method: pairs of seeds (None: the seat of
    nobody, a bye for the other)."""
    seats: list[int | None] = list(seeds)
    if len(seats) % 2:
        seats.append(None)
    half = len(seats) // 2
    schedule = []
    for _ in range(len(seats) - 1):
        schedule.append([(seats[i], seats[-1 - i]) for i in range(half)])
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return schedule


def pair_round(
    fmt: Format,
    seeds: Sequence[int],
    withdrawn: Collection[int],
    history: Sequence[Pairing],
    number: int,
) -> list[Pairing] | None:
    """Round `number` (from 1): its pairings, forfeits and byes decided already. None: the
    round cannot be paired (too few players left, or in a Swiss no pairing without a repeat
    or a second bye): the tournament is over."""
    if fmt is Format.ROUND_ROBIN:
        return _round_robin(seeds, withdrawn, number)
    return _swiss(seeds, withdrawn, history, number)


def _round_robin(
    seeds: Sequence[int], withdrawn: Collection[int], number: int
) -> list[Pairing] | None:
    schedule = circle(seeds)
    if not 1 <= number <= len(schedule):
        return None
    pairings = []
    for seat, (a, b) in enumerate(schedule[number - 1]):
        if a is None or b is None:
            alone = a if b is None else b
            if alone is not None and alone not in withdrawn:
                pairings.append(Pairing(number, alone, None, PairResult.BYE))
            continue
        if a in withdrawn and b in withdrawn:
            continue
        # The circle's sides: the top row plays ❌; the first seed, who never moves, ❌ every
        # other round. Everyone's ❌ and ⭕ then differ by one at most.
        x, o = (a, b) if seat > 0 or number % 2 else (b, a)
        result = None
        if x in withdrawn or o in withdrawn:
            result = PairResult.O if x in withdrawn else PairResult.X  # a forfeit
        pairings.append(Pairing(number, x, o, result))
    return pairings


def _swiss(
    seeds: Sequence[int], withdrawn: Collection[int], history: Sequence[Pairing], number: int
) -> list[Pairing] | None:
    playing = [p for p in ranked(seeds, history) if p not in withdrawn]
    if len(playing) < 2:
        return None
    met = {frozenset((p.x, p.o)) for p in history if p.o is not None}
    had_bye = {p.x for p in history if p.is_bye}
    sides = _sides_so_far(history)
    candidates: list[int | None] = [None]
    if len(playing) % 2:
        candidates = [p for p in reversed(playing) if p not in had_bye]
    for bye in candidates:
        rest = [p for p in playing if p != bye]
        pairs = _match(rest, met)
        if pairs is None:
            continue
        pairings = [Pairing(number, *_sided(a, b, sides, seeds)) for a, b in pairs]
        if bye is not None:
            pairings.append(Pairing(number, bye, None, PairResult.BYE))
        return pairings
    return None


def _match(order: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]] | None:
    """Pair `order` (ranked) top down, each with the highest-ranked one left he has not met:
    backtracking until nobody meets anyone twice; None if that cannot be done."""
    if not order:
        return []
    first, rest = order[0], order[1:]
    for i, partner in enumerate(rest):
        if frozenset((first, partner)) in met:
            continue
        tail = _match(rest[:i] + rest[i + 1 :], met)
        if tail is not None:
            return [(first, partner), *tail]
    return None


def _sides_so_far(history: Iterable[Pairing]) -> dict[int, list[str]]:
    """Each player's marks in the games so far, in order ("x", "o")."""
    sides: dict[int, list[str]] = {}
    for p in sorted(history, key=lambda p: p.round):
        if p.o is None:
            continue
        sides.setdefault(p.x, []).append("x")
        sides.setdefault(p.o, []).append("o")
    return sides


def _sided(a: int, b: int, sides: dict[int, list[str]], seeds: Sequence[int]) -> tuple[int, int]:
    """(❌, ⭕) of a pair: ❌ to who had it less often, then to who had ⭕ last, then the
    lower seed. The choice is remembered in `sides` for the rest of the round."""

    def claim(player: int) -> tuple[int, int, int]:
        had = sides.get(player, [])
        last_o = 1 if had and had[-1] == "o" else 0
        return (had.count("x") - had.count("o"), -last_o, seeds.index(player))

    x, o = (a, b) if claim(a) <= claim(b) else (b, a)
    sides.setdefault(x, []).append("x")
    sides.setdefault(o, []).append("o")
    return x, o


def points(seeds: Sequence[int], history: Iterable[Pairing]) -> dict[int, float]:
    """Each player's points from the decided pairings."""
    total = dict.fromkeys(seeds, 0.0)
    for pairing in history:
        for player in (pairing.x, pairing.o):
            score = pairing.score_of(player) if player is not None else None
            if score is not None and player in total:
                total[player] += score
    return total


def standings(seeds: Sequence[int], history: Sequence[Pairing]) -> list[Standing]:
    """The table: by points, then Sonneborn–Berger, then seed (who joined first)."""
    total = points(seeds, history)
    tiebreak = dict.fromkeys(seeds, 0.0)
    played: Counter[int] = Counter()
    for pairing in history:
        for player in (pairing.x, pairing.o):
            score = pairing.score_of(player) if player is not None else None
            if score is None or player not in total:
                continue
            played[player] += 1
            opponent = pairing.opponent_of(player)
            if opponent is not None and opponent in total:
                tiebreak[player] += score * total[opponent]
    table = [Standing(p, total[p], tiebreak[p], played[p]) for p in seeds]
    return sorted(table, key=lambda s: (-s.points, -s.tiebreak, seeds.index(s.player)))


def places(table: Sequence[Standing]) -> list[tuple[int, int]]:
    """Each line's place in `table` (ordered as `standings` orders it), as its first and
    last: players level on points and tie-break share the places they span, (2, 3) for
    both, as a club prints a shared place ("2–3"); their order within it (by seed) is only
    the order they are listed in."""
    shared: list[tuple[int, int]] = []
    for _, level in groupby(table, key=_level):
        first, count = len(shared) + 1, len(list(level))
        shared += [(first, first + count - 1)] * count
    return shared


def _level(standing: Standing) -> tuple[float, float]:
    """What the table ranks by, but for the seed: two with the same share a place."""
    return standing.points, standing.tiebreak


def ranked(seeds: Sequence[int], history: Sequence[Pairing]) -> list[int]:
    """The players in the order of the table."""
    return [standing.player for standing in standings(seeds, history)]


def winners(seeds: Sequence[int], history: Sequence[Pairing]) -> list[int]:
    """Who tops the table (more than one if points and tie-break are equal)."""
    table = standings(seeds, history)
    return [s.player for s, (first, _) in zip(table, places(table), strict=True) if first == 1]


@dataclass(frozen=True)
class Entrant:
    """A player of a tournament: `seed` is the order they joined in."""

    player_id: int
    name: str
    seed: int
    withdrawn: bool = False


@dataclass(frozen=True)
class TournamentView:
    """A tournament as stored: what its use-cases decide on and its message shows."""

    id: int
    chat_id: int
    message_id: int | None
    organiser_id: int | None
    board: str  # a `pairing.board_key`
    format: Format | None  # None: chosen by the number of players at the start
    status: TournamentStatus
    round: int
    rounds: int
    language: str | None = None
    clock: Clock | None = None  # its games' time control (None: the friends' turn timeout)
    entrants: tuple[Entrant, ...] = ()
    pairings: tuple[Pairing, ...] = ()

    @property
    def seeds(self) -> list[int]:
        return [e.player_id for e in sorted(self.entrants, key=lambda e: e.seed)]

    @property
    def withdrawn(self) -> set[int]:
        return {e.player_id for e in self.entrants if e.withdrawn}

    def entrant(self, player_id: int) -> Entrant | None:
        return next((e for e in self.entrants if e.player_id == player_id), None)

    def name_of(self, player_id: int) -> str:
        found = self.entrant(player_id)
        return found.name if found is not None else str(player_id)

    @property
    def current(self) -> list[Pairing]:
        """The pairings of the round being played."""
        return [p for p in self.pairings if p.round == self.round]

    @property
    def games_left(self) -> int:
        """Games of the round being played not decided yet."""
        return sum(1 for p in self.current if p.result is None)

    @property
    def table(self) -> list[Standing]:
        return standings(self.seeds, self.pairings)

    @property
    def is_signup(self) -> bool:
        return self.status is TournamentStatus.SIGNUP

    @property
    def is_running(self) -> bool:
        return self.status is TournamentStatus.RUNNING

    def open_pairing_of(self, player_id: int) -> Pairing | None:
        """The player's game of the round being played, while it is undecided."""
        return next((p for p in self.current if p.result is None and player_id in (p.x, p.o)), None)

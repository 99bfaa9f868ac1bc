"""What a command or button asks for: who plays X and O, and on which board."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.games.matches.rules import BEST_OF
from bot.games.model import PLAYER_KINDS, USER, PlayerKind
from bot.games.play.clock_rules import Clock, parse_clock
from bot.games.strangers.pairing import board_key
from bot.games.tournaments.rules import Format
from core.board import CLASSIC, SIZES, ULTIMATE, BoardSize, board_size

#: The /start parameter that only opens the menu (the "Add to a group" link sends it).
MENU_DEEP_LINK = "menu"
#: The /start parameter that looks for a stranger, as /play does (a size may follow).
PLAY_DEEP_LINK = "play"
#: The first word of a /start that plays ultimate tic-tac-toe.
ULTIMATE_WORD = "ultimate"

#: The words that ask for a match of several games (`match_rules`), and the length of each.
MATCH_WORDS = {f"{word}{n}": n for n in BEST_OF for word in ("bo", "best")}

_SIZE = re.compile(r"^([3-8])(?:[x×х]([3-8]))?$")  # 5, 5x5, 5×5 (and a Cyrillic х)
_ANY_SIZE = re.compile(r"^([0-9]+)(?:[x×х]([0-9]+))?$")  # a size, even one no board has


#: The boards of games for three and four people, unless a size is given: 6×6 and 7×7, four
#: in a row (a longer line is hardly ever completed against several opponents).
MANY_BOARDS = {3: BoardSize(6, 4), 4: BoardSize(7, 4)}
MANY_K = 4
#: The menu's AI match: medium plays ❌ against hard.
AI_MATCH = (PlayerKind.MEDIUM, PlayerKind.HARD)
MANY_SIZES = range(5, 9)


@dataclass(frozen=True)
class GameSpec:
    x_kind: PlayerKind
    o_kind: PlayerKind
    board: BoardSize = CLASSIC
    seats: int = 2  # 3 or 4 people, all `user`
    best_of: int = 1  # a match of so many games (`user user` in a group only)


def kind_pair(words: Sequence[str]) -> tuple[PlayerKind, PlayerKind] | None:
    """The kinds of X and O named by two words (`user hard`), or None."""
    if len(words) != 2 or not all(word in PLAYER_KINDS for word in words):
        return None
    return PlayerKind(words[0]), PlayerKind(words[1])


def parse_board_size(words: list[str]) -> BoardSize | None:
    """`[]` → 3×3; `5` or `5x5` → 5×5 with its usual k; `6 4` → 6×6 with 4 in a row."""
    if not words:
        return CLASSIC
    if len(words) > 2:
        return None
    match = _SIZE.match(words[0])
    if match is None or (match.group(2) and match.group(2) != match.group(1)):
        return None
    size = int(match.group(1))
    if len(words) == 1:
        return board_size(size)
    if not (words[1].isascii() and words[1].isdigit()):
        return None
    return board_size(size, int(words[1]))


def parse_match_words(words: list[str]) -> tuple[int, list[str]] | None:
    """The match length asked for among `words` (1: a single game) and the other words; None
    when more than one length is asked for."""
    lengths = [MATCH_WORDS[word] for word in words if word in MATCH_WORDS]
    if len(lengths) > 1:
        return None
    rest = [word for word in words if word not in MATCH_WORDS]
    return (lengths[0] if lengths else 1), rest


@dataclass(frozen=True)
class Seek:
    """What /play looks for: a board, a time control (None: the bot's default), and a match
    of `best_of` games (1: a single game)."""

    board: BoardSize
    clock: Clock | None = None
    best_of: int = 1


def parse_play_args(args: list[str]) -> Seek | None:
    """/play's words: none → 3×3; `ultimate`; a size (and k) as /start takes them; and,
    anywhere among them, a time control (`3+2`) and a match length (`bo3`)."""
    match = parse_match_words("_".join(args).lower().replace("_", " ").split())
    if match is None:
        return None
    best_of, words = match
    controls = [word for word in words if "+" in word]
    clock = parse_clock(controls[0]) if len(controls) == 1 else None
    if controls and clock is None:
        return None
    words = [word for word in words if "+" not in word]
    board = ULTIMATE if words == [ULTIMATE_WORD] else parse_board_size(words)
    return None if board is None else Seek(board, clock, best_of)


def _many(kinds: list[PlayerKind], words: list[str]) -> GameSpec | None:
    """`user user user [size [k]]`: a game for three or four people, on 5×5 to 8×8."""
    if set(kinds) != {USER}:
        return None
    board = MANY_BOARDS[len(kinds)] if not words else parse_board_size(words)
    if board is not None and len(words) == 1:
        board = board_size(board.size, min(MANY_K, board.size))
    if board is None or board.size not in MANY_SIZES:
        return None
    return GameSpec(USER, USER, board, len(kinds))


def parse_start_args(args: list[str]) -> GameSpec | None:
    """`hard` → you vs hard; `hard user`, `hard_user` → hard plays X; a size may follow:
    `hard 5`, `user user 7`, `hard 6 4`, `hard_5`. `ultimate` first plays ultimate
    tic-tac-toe: `ultimate` (against hard), `ultimate user user`, `ultimate_hard`. Two people
    may play a match: `user user bo3`. None for anything else."""
    match = parse_match_words("_".join(args).lower().replace("_", " ").split())
    if match is None:
        return None
    best_of, words = match
    spec = _start_spec(words)
    if best_of == 1 or spec is None:
        return spec
    two_people = (spec.x_kind, spec.o_kind, spec.seats) == (USER, USER, 2)
    return replace(spec, best_of=best_of) if two_people else None


def _start_spec(words: list[str]) -> GameSpec | None:
    ultimate = bool(words) and words[0] == ULTIMATE_WORD
    if ultimate:
        words = words[1:] or ["hard"]
    kinds: list[PlayerKind] = []
    while words and words[0] in PLAYER_KINDS and len(kinds) < 4:
        kinds.append(PlayerKind(words.pop(0)))
    if len(kinds) > 2:
        return None if ultimate else _many(kinds, words)
    size = (None if words else ULTIMATE) if ultimate else parse_board_size(words)
    if size is None:
        return None
    if len(kinds) == 1 and kinds[0] != USER:
        return GameSpec(USER, kinds[0], size)
    if len(kinds) == 2:
        return GameSpec(kinds[0], kinds[1], size)
    return None


@dataclass(frozen=True)
class StartProblem:
    """What is wrong with a /start's size, when that can be told: `size` (no such board),
    `k` (no such line length on a `size`×`size` board), `ultimate_size` (ultimate has no
    size) or `many_size` (no such board for three or four players)."""

    what: str
    size: int = 0


def start_problem(args: list[str]) -> StartProblem | None:
    """Why `parse_start_args` refused these words, if it was the size or k that did (None:
    some other mistake, which only the usage line can answer)."""
    words = "_".join(args).lower().replace("_", " ").split()
    ultimate = bool(words) and words[0] == ULTIMATE_WORD
    words = words[1:] if ultimate else words
    kinds = 0
    while words and words[0] in PLAYER_KINDS and kinds < 4:
        kinds, words = kinds + 1, words[1:]
    match = _ANY_SIZE.match(words[0]) if 1 <= len(words) <= 2 else None
    if match is None or (match.group(2) and match.group(2) != match.group(1)):
        return None
    if ultimate:
        return StartProblem("ultimate_size")
    size = int(match.group(1))
    if kinds > 2 and size not in MANY_SIZES:
        return StartProblem("many_size")
    if size not in SIZES:
        return StartProblem("size")
    k = words[1] if len(words) == 2 else None
    if k is not None and k.isascii() and k.isdigit() and board_size(size, int(k)) is None:
        return StartProblem("k", size)
    return None


#: The format words of `/tournament` (any case): round robin or Swiss.
TOURNAMENT_FORMATS = {
    "roundrobin": Format.ROUND_ROBIN,
    "rr": Format.ROUND_ROBIN,
    "swiss": Format.SWISS,
}


@dataclass(frozen=True)
class TournamentSpec:
    """What `/tournament` asks for: a board (a `pairing.board_key`), a format (None: by the
    number of players at the start), and its games' time control (None: the bot's default)."""

    board: str
    format: Format | None = None
    clock: Clock | None = None


def parse_tournament_args(args: list[str]) -> TournamentSpec | None:
    """`/tournament`'s words: the board as /start (and /play) take it — none → 3×3, `4`,
    `6 4`, `ultimate` — and, anywhere among them, `roundrobin` or `swiss` and a time control
    as /play takes it (`3+2`)."""
    words = "_".join(args).lower().replace("_", " ").split()
    formats = [TOURNAMENT_FORMATS[word] for word in words if word in TOURNAMENT_FORMATS]
    controls = [word for word in words if "+" in word]
    clock = parse_clock(controls[0]) if len(controls) == 1 else None
    if len(formats) > 1 or (controls and clock is None):
        return None
    words = [word for word in words if word not in TOURNAMENT_FORMATS and "+" not in word]
    board = ULTIMATE if words == [ULTIMATE_WORD] else parse_board_size(words)
    if board is None:
        return None
    return TournamentSpec(board_key(board), formats[0] if formats else None, clock)

"""The taps: what each kind of button carries, as plain values (`callback_data`'s table
says how each is written and read)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.games.model import PlayerKind
from core.ai import Level
from core.board import CLASSIC, BoardSize


@dataclass(frozen=True)
class CellTap:
    game_id: int
    ply: int
    cell: int


@dataclass(frozen=True)
class ResignTap:
    game_id: int
    ply: int


@dataclass(frozen=True)
class ResignAnswer:
    """Yes (resign) or No on the question a Resign tap asked `user_id`."""

    confirmed: bool
    game_id: int
    ply: int
    user_id: int


@dataclass(frozen=True)
class DrawTap:
    """🤝 Offer a draw, on a board drawn at move `ply`."""

    game_id: int
    ply: int


@dataclass(frozen=True)
class DrawAnswer:
    """Accept or decline the draw offered to `user_id`."""

    accepted: bool
    game_id: int
    ply: int
    user_id: int


@dataclass(frozen=True)
class AssistTap:
    """Hint or undo, on a board drawn at move `ply`."""

    action: str
    game_id: int
    ply: int


@dataclass(frozen=True)
class BlockTap:
    """Ultimate: the small board to show (None: the choice of them), on a board drawn at
    move `ply`."""

    game_id: int
    ply: int
    block: int | None = None


@dataclass(frozen=True)
class GameTap:
    """A button acting on one game as a whole: join, decline, cancel, rematch, review,
    picture, replay, animation."""

    action: str
    game_id: int


@dataclass(frozen=True)
class ReplayTap:
    """rs: show a finished game's replay at `ply` (0: the empty board)."""

    game_id: int
    ply: int


@dataclass(frozen=True)
class NewGameTap:
    x_kind: PlayerKind
    o_kind: PlayerKind
    board: BoardSize = CLASSIC
    seats: int = 2  # 3 or 4: a game of more people (all of them `user`)
    owner: int | None = None  # whose buttons these are (None: data from before owners)
    #: The answer to "resign your game and start a new one?": the game the tapper moved in
    #: counts as a loss.
    resign_underway: bool = False


@dataclass(frozen=True)
class KeepPlayingTap:
    """The other answer: keep the game that is on."""

    owner: int | None = None


@dataclass(frozen=True)
class InlineJoinTap:
    creator_id: int
    creator_mark: str
    board: BoardSize = CLASSIC
    # The signed part of the data and its signature (see `codec.is_authentic`).
    payload: str = field(default="", compare=False, repr=False)
    signature: str = field(default="", compare=False, repr=False)


@dataclass(frozen=True)
class InlineAiTap:
    creator_id: int
    level: Level
    cell: int
    board: BoardSize = CLASSIC
    payload: str = field(default="", compare=False, repr=False)
    signature: str = field(default="", compare=False, repr=False)


@dataclass(frozen=True)
class ForgetTap:
    confirmed: bool
    user_id: int


@dataclass(frozen=True)
class MenuTap:
    board: BoardSize = CLASSIC
    owner: int | None = None


@dataclass(frozen=True)
class HelpTap:
    owner: int | None = None


@dataclass(frozen=True)
class LanguageTap:
    code: str
    owner: int | None = None


@dataclass(frozen=True)
class QueueTap:
    """qp, qc, qa: `board` (a `pairing.board_key`) for qp and qa, `level` for qa, a time
    control for qp."""

    kind: str
    board: str | None = None
    level: Level | None = None
    clock: str | None = None  # qp: a `clock_rules.clock_key`; None: the bot's default
    resign_underway: bool = False  # qr: the game underway in the chat is resigned first


@dataclass(frozen=True)
class BlockPlayerTap:
    """🚫 Don't pair me with them again (`confirmed` None: it asks first), or Yes / No on its
    question."""

    game_id: int
    confirmed: bool | None = None


@dataclass(frozen=True)
class LadderTap:
    on: bool


@dataclass(frozen=True)
class TournamentTap:
    """Join, Leave, Start or Cancel (End) on a tournament's message."""

    action: str
    tournament_id: int


#: The taps of a menu: each names the person whose menu it is.
OwnedTap = NewGameTap | KeepPlayingTap | MenuTap | HelpTap | LanguageTap

Tap = (
    CellTap
    | ResignTap
    | ResignAnswer
    | DrawTap
    | DrawAnswer
    | AssistTap
    | BlockTap
    | GameTap
    | ReplayTap
    | NewGameTap
    | KeepPlayingTap
    | InlineJoinTap
    | InlineAiTap
    | ForgetTap
    | MenuTap
    | HelpTap
    | LanguageTap
    | QueueTap
    | BlockPlayerTap
    | LadderTap
    | TournamentTap
)

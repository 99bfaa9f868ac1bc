"""Callback data: short text formats for every button, and a parser that trusts nothing.

m:<game>:<ply>:<cell>       tap on a board cell (ply = moves played when it was drawn)
r:<game>:<ply>              resign: asks first, the button becomes Yes / No for the tapper
ry:<game>:<ply>:<user>      yes, <user> resigns;  rn:<game>:<ply>:<user>  no, play on
h:<game>:<ply> u:<game>:<ply>  hint, undo (games against the AI)
ub:<game>:<ply>[:<block>]   ultimate: show small board <block> (0-8), or all of them
j:<game> d:<game> c:<game>  join (accept), decline, cancel a challenge
rm:<game> rv:<game>         rematch, review a finished game
pc:<game>                   the picture (result card) of a finished game
n:<x>:<o>                   start a new game with these player kinds
n:user:user:user[:user]     a game for three (four) people; a size may follow as above
ij:<user>:<mark>            inline challenge: join the game of <user>, who plays <mark>
ia:<user>:<level>:<cell>    inline game against the AI: <user>'s first move
fy:<user> fn:<user>         /forget: yes, delete everything about <user> / keep it
menu, help                  show the menu, the help
lang:<code>                 /language: speak this language (a catalog's code) with me

A menu's buttons (n, menu, help, lang) end in `:o<user>`: they belong to the person who asked
for the menu (or, under a finished game, to its player), and nobody else's tap does anything.
Data without it is from before buttons had owners: taken in a private chat (only its user taps
there), refused in a group.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass, field, replace

from bot.games.model import PLAYER_KINDS, USER, PlayerKind
from bot.views.texts import available_languages
from bot.wire.game_spec import kind_pair
from core.ai import LEVELS, Level
from core.board import CLASSIC, MARKS, BoardSize, board_size
from core.positions import ULTIMATE

MAX_ID = 2**63 - 1
MAX_GAME_ID = 2**31 - 1  # games.id is a 32-bit INTEGER: PostgreSQL refuses bigger parameters


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
    picture."""

    action: str
    game_id: int


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
    # The signed part of the data and its signature (see `is_authentic`).
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


#: The taps of a menu: each names the person whose menu it is.
OwnedTap = NewGameTap | KeepPlayingTap | MenuTap | HelpTap | LanguageTap


Tap = (
    CellTap
    | ResignTap
    | ResignAnswer
    | AssistTap
    | BlockTap
    | GameTap
    | NewGameTap
    | KeepPlayingTap
    | InlineJoinTap
    | InlineAiTap
    | ForgetTap
    | MenuTap
    | HelpTap
    | LanguageTap
)

# The kinds of data: the prefix before the first colon. Each has a handler of its own.
CELL, RESIGN, NEW_GAME = "m", "r", "n"
# "Your game is still on": resign it and start the new one, or keep playing it.
NEW_GAME_RESIGNING, KEEP_PLAYING = "nr", "nk"
RESIGN_YES, RESIGN_NO = "ry", "rn"
HINT, UNDO = "h", "u"
BLOCK = "ub"
JOIN, DECLINE, CANCEL, REMATCH, REVIEW, PICTURE = "j", "d", "c", "rm", "rv", "pc"
GAME_ACTIONS = (JOIN, DECLINE, CANCEL, REMATCH, REVIEW, PICTURE)
INLINE_JOIN, INLINE_AI = "ij", "ia"
FORGET_YES, FORGET_NO = "fy", "fn"
MENU_DATA = "menu"
HELP_DATA = "help"
LANGUAGE = "lang"
OWNED = (NEW_GAME, NEW_GAME_RESIGNING, KEEP_PLAYING, MENU_DATA, HELP_DATA, LANGUAGE)
OWNER_MARK = "o"


def pattern(*kinds: str) -> re.Pattern[str]:
    """Data of these kinds, for `CallbackQueryHandler(pattern=...)`. Only the prefix is
    matched here: the handler parses the rest with `parse_callback_data`, trusting nothing."""
    return re.compile("^(?:" + "|".join(re.escape(kind) for kind in kinds) + ")(?::|$)")


def cell_data(game_id: int, ply: int, cell: int) -> str:
    return f"{CELL}:{game_id}:{ply}:{cell}"


def resign_data(game_id: int, ply: int) -> str:
    return f"{RESIGN}:{game_id}:{ply}"


def resign_answer_data(confirmed: bool, game_id: int, ply: int, user_id: int) -> str:
    return f"{RESIGN_YES if confirmed else RESIGN_NO}:{game_id}:{ply}:{user_id}"


def assist_data(action: str, game_id: int, ply: int) -> str:
    return f"{action}:{game_id}:{ply}"


def block_data(game_id: int, ply: int, block: int | None = None) -> str:
    return f"{BLOCK}:{game_id}:{ply}" + ("" if block is None else f":{block}")


def game_data(action: str, game_id: int) -> str:
    return f"{action}:{game_id}"


def _size_suffix(board: BoardSize) -> str:
    return "" if board.is_classic else f":{board.size}:{board.k}"


def _owner_suffix(owner: int | None) -> str:
    return "" if owner is None else f":{OWNER_MARK}{owner}"


def new_game_data(
    x_kind: PlayerKind,
    o_kind: PlayerKind,
    board: BoardSize = CLASSIC,
    seats: int = 2,
    owner: int | None = None,
    *,
    resign_underway: bool = False,
) -> str:
    more = f":{USER}" * (seats - 2)
    kind = NEW_GAME_RESIGNING if resign_underway else NEW_GAME
    return f"{kind}:{x_kind}:{o_kind}{more}{_size_suffix(board)}{_owner_suffix(owner)}"


def keep_playing_data(owner: int) -> str:
    return f"{KEEP_PLAYING}{_owner_suffix(owner)}"


# Inline buttons name the person who posted them, and the bot never sees an inline
# message's keyboard to compare a tap with: they carry an HMAC, so that data made up by a
# modified client cannot start a game in someone else's name.
SIGNATURE_LENGTH = 8
_SIGNATURE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def inline_key(token: str) -> bytes:
    """The signing key of inline buttons, derived from the bot's token."""
    return hashlib.sha256(b"tictactoe inline buttons\x00" + token.encode()).digest()


def _signature(payload: str, key: bytes) -> str:
    digest = hmac.new(key, payload.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:6]).decode()


def is_authentic(tap: InlineJoinTap | InlineAiTap, key: bytes) -> bool:
    """Whether an inline tap's data was made by this bot."""
    return hmac.compare_digest(_signature(tap.payload, key), tap.signature)


def inline_join_data(
    creator_id: int, creator_mark: str, board: BoardSize = CLASSIC, *, key: bytes
) -> str:
    payload = f"{INLINE_JOIN}:{creator_id}:{creator_mark}{_size_suffix(board)}"
    return f"{payload}:{_signature(payload, key)}"


def inline_ai_data(
    creator_id: int, level: Level, cell: int, board: BoardSize = CLASSIC, *, key: bytes
) -> str:
    payload = f"{INLINE_AI}:{creator_id}:{level}:{cell}{_size_suffix(board)}"
    return f"{payload}:{_signature(payload, key)}"


def language_data(code: str, owner: int | None = None) -> str:
    return f"{LANGUAGE}:{code}{_owner_suffix(owner)}"


def menu_data(board: BoardSize = CLASSIC, owner: int | None = None) -> str:
    return f"{MENU_DATA}{_size_suffix(board)}{_owner_suffix(owner)}"


def help_data(owner: int | None = None) -> str:
    return f"{HELP_DATA}{_owner_suffix(owner)}"


def forget_data(confirmed: bool, user_id: int) -> str:
    return f"{FORGET_YES if confirmed else FORGET_NO}:{user_id}"


def parse_callback_data(data: str | None) -> Tap | None:
    """The tap a button carries, or None for anything malformed or forged."""
    if not data or len(data.encode("utf-8", "replace")) > 64:
        return None
    kind, *fields = data.split(":")
    owner = None
    if kind in OWNED and fields and fields[-1].startswith(OWNER_MARK):
        owner = plain_int(fields.pop()[len(OWNER_MARK) :])
        if owner is None:
            return None
    tap = _parse_tap(kind, fields, data)
    if owner is not None and isinstance(tap, OwnedTap):
        return replace(tap, owner=owner)
    return tap


def _parse_tap(kind: str, fields: list[str], data: str) -> Tap | None:
    if kind in (HELP_DATA, KEEP_PLAYING) and not fields:
        return HelpTap() if kind == HELP_DATA else KeepPlayingTap()
    if kind == LANGUAGE:
        # Only a language the bot speaks; any other code is forged.
        known = len(fields) == 1 and fields[0] in available_languages()
        return LanguageTap(fields[0]) if known else None
    payload = signature = ""
    if kind in (INLINE_JOIN, INLINE_AI):
        if not fields or len(fields[-1]) != SIGNATURE_LENGTH:
            return None
        signature = fields.pop()
        if not set(signature) <= _SIGNATURE_CHARS:
            return None
        payload = data[: -SIGNATURE_LENGTH - 1]
    kinds = next((i for i, f in enumerate(fields) if f not in PLAYER_KINDS), len(fields))
    new_game = kind in (NEW_GAME, NEW_GAME_RESIGNING)
    fields, board = _split_size(
        fields, {MENU_DATA: 0, INLINE_JOIN: 2, INLINE_AI: 3}.get(kind, kinds if new_game else None)
    )
    if board is None:
        return None
    if kind == MENU_DATA and not fields:
        return MenuTap(board)
    resigning = kind == NEW_GAME_RESIGNING
    if new_game and (pair := kind_pair(fields)) is not None:
        return NewGameTap(*pair, board, resign_underway=resigning)
    if new_game and len(fields) in (3, 4) and set(fields) == {USER}:
        return NewGameTap(USER, USER, board, len(fields), resign_underway=resigning)
    if kind == INLINE_JOIN and len(fields) == 2 and fields[1] in MARKS:
        creator = plain_int(fields[0])
        if creator is None:
            return None
        return InlineJoinTap(creator, fields[1], board, payload, signature)
    if kind == INLINE_AI and len(fields) == 3 and fields[1] in LEVELS:
        creator, cell = plain_int(fields[0]), plain_int(fields[2])
        if creator is None or cell is None:
            return None
        return InlineAiTap(creator, Level(fields[1]), cell, board, payload, signature)
    numbers = [plain_int(f) for f in fields]
    if not numbers or any(n is None for n in numbers):
        return None
    game_kinds = (CELL, RESIGN, RESIGN_YES, RESIGN_NO, HINT, UNDO, BLOCK, *GAME_ACTIONS)
    if kind in game_kinds and numbers[0] > MAX_GAME_ID:  # type: ignore[operator]
        return None
    if kind in (RESIGN_YES, RESIGN_NO) and len(numbers) == 3:
        return ResignAnswer(kind == RESIGN_YES, *numbers)  # type: ignore[arg-type]
    if kind == CELL and len(numbers) == 3:
        return CellTap(*numbers)  # type: ignore[arg-type]
    if kind == RESIGN and len(numbers) == 2:
        return ResignTap(*numbers)  # type: ignore[arg-type]
    if kind == BLOCK and len(numbers) in (2, 3) and (len(numbers) == 2 or numbers[2] < 9):  # type: ignore[operator]
        return BlockTap(*numbers)  # type: ignore[arg-type]
    if kind in (HINT, UNDO) and len(numbers) == 2:
        return AssistTap(kind, *numbers)  # type: ignore[arg-type]
    if kind in (FORGET_YES, FORGET_NO) and len(numbers) == 1:
        return ForgetTap(kind == FORGET_YES, numbers[0])  # type: ignore[arg-type]
    if kind in GAME_ACTIONS and len(numbers) == 1:
        return GameTap(kind, numbers[0])  # type: ignore[arg-type]
    return None


def _split_size(fields: list[str], plain: int | None) -> tuple[list[str], BoardSize | None]:
    """Fields without a trailing `<size>:<k>`, and the board size they name (3×3 if none)."""
    if plain is None or len(fields) != plain + 2:
        return fields, CLASSIC
    size, k = plain_int(fields[-2]), plain_int(fields[-1])
    if size is None or k is None:
        return fields, None
    if (size, k) == (ULTIMATE.size, ULTIMATE.k):  # ultimate's data: its shape, `9:3`
        return fields[:-2], ULTIMATE
    return fields[:-2], board_size(size, k)


def plain_int(text: str) -> int | None:
    # Plain ASCII digits only: int() would also take "+1", " 1", "1_0" and other scripts' digits.
    if not (0 < len(text) <= 19 and text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= MAX_ID else None

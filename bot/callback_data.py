"""Callback data: short text formats for every button, and a parser that trusts nothing.

m:<game>:<ply>:<cell>   tap on a board cell (ply = moves played when the board was drawn)
r:<game>:<ply>          resign
n:<x>:<o>               start a new game with these player kinds
menu                    show the menu
help                    show the help
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.service import PLAYER_KINDS

MAX_GAME_ID = 2**63 - 1


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
class NewGameTap:
    x_kind: str
    o_kind: str


@dataclass(frozen=True)
class MenuTap:
    pass


@dataclass(frozen=True)
class HelpTap:
    pass


Tap = CellTap | ResignTap | NewGameTap | MenuTap | HelpTap


def cell_data(game_id: int, ply: int, cell: int) -> str:
    return f"m:{game_id}:{ply}:{cell}"


def resign_data(game_id: int, ply: int) -> str:
    return f"r:{game_id}:{ply}"


def new_game_data(x_kind: str, o_kind: str) -> str:
    return f"n:{x_kind}:{o_kind}"


MENU_DATA = "menu"
HELP_DATA = "help"


def parse_callback_data(data: str | None) -> Tap | None:
    """The tap a button carries, or None for anything malformed or forged."""
    if not data or len(data) > 64:
        return None
    if data == MENU_DATA:
        return MenuTap()
    if data == HELP_DATA:
        return HelpTap()
    kind, *fields = data.split(":")
    if kind == "n" and len(fields) == 2 and all(f in PLAYER_KINDS for f in fields):
        return NewGameTap(fields[0], fields[1])
    numbers = [_small_int(f) for f in fields]
    if any(n is None for n in numbers):
        return None
    if kind == "m" and len(numbers) == 3:
        return CellTap(*numbers)  # type: ignore[arg-type]
    if kind == "r" and len(numbers) == 2:
        return ResignTap(*numbers)  # type: ignore[arg-type]
    return None


def _small_int(text: str) -> int | None:
    # Plain ASCII digits only: int() would also take "+1", " 1", "1_0" and other scripts' digits.
    if not (0 < len(text) <= 19 and text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= MAX_GAME_ID else None

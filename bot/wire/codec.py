"""How the callback-data table (`bot.wire.callback_data`) writes and reads its buttons.

A kind of button is one `Button`: its prefix, the tap it stands for, where it lives, and its
values in the order they are written, each either a `Field` (read from the data, checked) or a
constant that the prefix itself says (`ry` is a resign answer with `confirmed=True`). After the
fields come the suffixes the kind may carry, always in this order:

    <prefix>[:<field>...][:<size>:<k>][:o<owner>][:<signature>]

- `sized`: `:<size>:<k>` when the board is not 3×3 (the tap's `board`);
- `owned`: `:o<user>` when the buttons belong to someone (the tap's `owner`; see
  `bot.wire.callback_data`);
- `Place.INLINE`: an HMAC of everything before it (the tap's `payload` and `signature`).

Reading trusts nothing: data longer than Telegram's 64 bytes, an unknown prefix, a field out of
its range, a missing or extra field: None. Writing checks the same, and raises on a value the
reading would refuse (or data too long): no button is made that its own handler would call
unknown. That every tap reads back as written is tested for every kind of button
(tests/bot/test_callback_table.py), from the table itself.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from core.board import CLASSIC, ULTIMATE, BoardSize, board_size

MAX_ID = 2**63 - 1
MAX_GAME_ID = 2**31 - 1  # games.id is a 32-bit INTEGER: PostgreSQL refuses bigger parameters
#: Telegram: "callback_data: Data to be sent in a callback query to the bot when the button is
#: pressed, 1-64 bytes".
MAX_BYTES = 64
OWNER_MARK = "o"
SIGNATURE_LENGTH = 8
_SIGNATURE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def plain_int(text: str) -> int | None:
    # Plain ASCII digits only: int() would also take "+1", " 1", "1_0" and other scripts' digits.
    if not (0 < len(text) <= 19 and text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= MAX_ID else None


class Field:
    """One value of a tap as one field of the data (`Count` may take a few)."""

    def read(self, tokens: list[str], at: int) -> tuple[Any, int] | None:
        """The value at `tokens[at]` and the index after it; None if it is not one."""
        if at >= len(tokens):
            return None
        value = self.parse(tokens[at])
        return None if value is None else (value, at + 1)

    def write(self, value: Any) -> list[str]:
        """The value as fields; ValueError if reading them would not give it back."""
        text = self.format(value)
        if self.parse(text) != value:
            raise ValueError(f"{value!r} is not {self!r}")
        return [text]

    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def format(self, value: Any) -> str:
        return str(value)


@dataclass(frozen=True)
class Number(Field):
    """A plain decimal number from 0 to `maximum`."""

    maximum: int = MAX_ID

    def parse(self, text: str) -> int | None:
        value = plain_int(text)
        return value if value is not None and value <= self.maximum else None

    def write(self, value: Any) -> list[str]:
        # The busiest writer (every cell of every board): checked without a round trip.
        if type(value) is not int or not 0 <= value <= self.maximum:
            raise ValueError(f"{value!r} is not {self!r}")
        return [str(value)]


@dataclass(frozen=True)
class Choice(Field):
    """One of a few words: what `choices()` offers at the time (checked against it, and read
    as the choice itself, so an enum of strings reads as its members)."""

    choices: Callable[[], Iterable[Any]]

    def parse(self, text: str) -> Any:
        return next((choice for choice in self.choices() if choice == text), None)


@dataclass(frozen=True)
class Checked(Field):
    """A word that `valid` accepts."""

    valid: Callable[[str], bool]

    def parse(self, text: str) -> str | None:
        return text if self.valid(text) else None


class Flag(Field):
    """Yes or no, as `1` or `0`."""

    def parse(self, text: str) -> bool | None:
        return {"1": True, "0": False}.get(text)

    def format(self, value: Any) -> str:
        return str(int(value))


@dataclass(frozen=True)
class Optional(Field):
    """A last field that may be left out (None)."""

    field: Field

    def read(self, tokens: list[str], at: int) -> tuple[Any, int] | None:
        return (None, at) if at >= len(tokens) else self.field.read(tokens, at)

    def write(self, value: Any) -> list[str]:
        return [] if value is None else self.field.write(value)


@dataclass(frozen=True)
class Count(Field):
    """`base` plus how many times `word` is repeated (at most `up_to` times)."""

    word: str
    base: int
    up_to: int

    def read(self, tokens: list[str], at: int) -> tuple[Any, int] | None:
        end = at
        while end < len(tokens) and end - at < self.up_to and tokens[end] == self.word:
            end += 1
        return self.base + end - at, end

    def write(self, value: Any) -> list[str]:
        if type(value) is not int or not 0 <= value - self.base <= self.up_to:
            raise ValueError(f"{value!r} is not {self!r}")
        return [self.word] * (value - self.base)


class Place(Enum):
    """Where a button lives: its handler is called only for a tap there."""

    BOARD = "a chat message or an inline message"
    CHAT = "a chat message"
    INLINE = "an inline message (the data is signed: see `is_authentic`)"
    ANYWHERE = "anywhere"


def board_of(tokens: list[str]) -> BoardSize | None:
    """The board a `<size>:<k>` suffix names: a size the bot plays, or ultimate."""
    size, k = (plain_int(token) for token in tokens) if len(tokens) == 2 else (None, None)
    if size is None or k is None:
        return None
    # Ultimate's data is its shape, `9:3` (its variant is not written).
    return ULTIMATE if (size, k) == (ULTIMATE.size, ULTIMATE.k) else board_size(size, k)


@dataclass(frozen=True)
class Button:
    """One kind of button: see the module's docstring."""

    prefix: str
    tap: type
    place: Place
    fields: tuple[tuple[str, Field], ...]
    constants: tuple[tuple[str, object], ...]
    sized: bool = False
    owned: bool = False
    check: Callable[[Any], bool] | None = None
    once: bool = False
    once_a_drawing: bool = False

    def read(self, data: str, tokens: list[str]) -> Any:
        """The tap `data` stands for (its prefix is this kind's; `tokens` the rest), or None."""
        values: dict[str, Any] = dict(self.constants)
        if self.place is Place.INLINE:
            if not tokens or not _is_signature(tokens[-1]):
                return None
            values["signature"] = tokens.pop()
            values["payload"] = data[: -SIGNATURE_LENGTH - 1]
        if self.owned and tokens and tokens[-1].startswith(OWNER_MARK):
            values["owner"] = plain_int(tokens.pop()[len(OWNER_MARK) :])
            if values["owner"] is None:
                return None
        at = 0
        for name, field in self.fields:
            found = field.read(tokens, at)
            if found is None:
                return None
            values[name], at = found
        if self.sized and at < len(tokens):
            values["board"] = board_of(tokens[at:])
            if values["board"] is None:
                return None
        elif at < len(tokens):
            return None
        tap = self.tap(**values)
        return tap if self.check is None or self.check(tap) else None

    def write(self, tap: Any, key: bytes | None) -> str:
        """The data of `tap`; ValueError for a tap that `read` would not give back (each
        field checks its value) or data over 64 bytes."""
        parts = [self.prefix]
        for name, field in self.fields:
            parts += field.write(getattr(tap, name))
        board: BoardSize = getattr(tap, "board", CLASSIC) if self.sized else CLASSIC
        if not board.is_classic:
            parts += [str(board.size), str(board.k)]
            if board_of(parts[-2:]) != board:
                raise ValueError(f"no such board: {board!r}")
        owner = getattr(tap, "owner", None) if self.owned else None
        if owner is not None:
            parts += [OWNER_MARK + Number().write(owner)[0]]
        if self.check is not None and not self.check(tap):
            raise ValueError(f"{tap!r} is refused by {self.check.__name__}")
        data = ":".join(parts)
        if self.place is Place.INLINE:
            if key is None:
                raise ValueError(f"{self.prefix}: inline data is signed: a key is needed")
            data += ":" + signature(data, key)
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data over {MAX_BYTES} bytes: {data!r}")
        return data


def button(
    prefix: str,
    tap: type,
    place: Place,
    *,
    sized: bool = False,
    owned: bool = False,
    check: Callable[[Any], bool] | None = None,
    once: bool = False,
    once_a_drawing: bool = False,
    **layout: object,
) -> Button:
    """A row of the table: `layout` names the tap's values in the order they are written,
    each a `Field` or a constant the prefix stands for. `once`: a button that makes something
    (a game, a message), which a second tap in the same moment must not make again.
    `once_a_drawing`: a button that only changes how its message is drawn, which a second tap
    on the same drawing (a double tap) must not draw again."""
    fields = tuple((name, f) for name, f in layout.items() if isinstance(f, Field))
    constants = tuple((name, c) for name, c in layout.items() if not isinstance(c, Field))
    return Button(prefix, tap, place, fields, constants, sized, owned, check, once, once_a_drawing)


class Table:
    """Every kind of button: reads data into taps, writes taps as data, and tells a handler's
    `CallbackQueryHandler` which data is its own."""

    def __init__(self, *buttons: Button) -> None:
        self.buttons = {b.prefix: b for b in buttons}
        assert len(self.buttons) == len(buttons), "a prefix is declared twice"
        self._of_tap: dict[type, list[Button]] = {}
        for b in buttons:
            self._of_tap.setdefault(b.tap, []).append(b)

    def read(self, data: str | None) -> tuple[Button, Any] | None:
        """The kind of button `data` comes from and its tap; None for anything malformed."""
        if not data or len(data.encode("utf-8", "replace")) > MAX_BYTES:
            return None
        prefix, *tokens = data.split(":")
        kind = self.buttons.get(prefix)
        if kind is None:
            return None
        tap = kind.read(data, tokens)
        return None if tap is None else (kind, tap)

    def kind_of(self, tap: object) -> Button:
        """The kind of button a tap is written as (the one whose constants it has)."""
        for kind in self._of_tap.get(type(tap), ()):
            if all(getattr(tap, name) == value for name, value in kind.constants):
                return kind
        raise ValueError(f"no kind of button writes {tap!r}")

    def write(self, tap: object, *, key: bytes | None = None) -> str:
        """The data of a button for `tap` (inline taps are signed with `key`)."""
        return self.kind_of(tap).write(tap, key)

    def pattern(self, *prefixes: str) -> re.Pattern[str]:
        """Data of these kinds, for `CallbackQueryHandler(pattern=...)`: only the prefix is
        matched here; the handler's preamble reads the rest, trusting nothing."""
        unknown = set(prefixes) - set(self.buttons)
        assert not unknown, f"no such kinds of button: {unknown}"
        return re.compile("^(?:" + "|".join(re.escape(p) for p in prefixes) + ")(?::|$)")


# Inline buttons name the person who posted them, and the bot never sees an inline
# message's keyboard to compare a tap with: they carry an HMAC, so that data made up by a
# modified client cannot start a game in someone else's name.


def inline_key(token: str) -> bytes:
    """The signing key of inline buttons, derived from the bot's token."""
    return hashlib.sha256(b"tictactoe inline buttons\x00" + token.encode()).digest()


def signature(payload: str, key: bytes) -> str:
    digest = hmac.new(key, payload.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:6]).decode()


def _is_signature(text: str) -> bool:
    return len(text) == SIGNATURE_LENGTH and set(text) <= _SIGNATURE_CHARS


def is_authentic(tap: Any, key: bytes) -> bool:
    """Whether an inline tap's data (its `payload` and `signature`) was made by this bot."""
    return hmac.compare_digest(signature(tap.payload, key), tap.signature)

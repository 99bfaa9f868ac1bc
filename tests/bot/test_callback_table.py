"""The callback-data table, property-based: every kind of button it declares packs into at
most 64 bytes and parses back to the same tap, whatever its values; out-of-range values are
refused when packing, as when parsing; and every kind has exactly one handler.

The taps are drawn from the table itself (each field's type says what it holds), so a kind
added to the table is tested here without a word more."""

from __future__ import annotations

from typing import Any, get_args, get_origin, get_type_hints

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.app import BUTTONS
from bot.handlers.taps import Tapped
from bot.wire.callback_data import (
    CLOCK_KEY,
    TABLE,
    pack,
    parse_callback_data,
    pattern,
    read_callback_data,
)
from bot.wire.codec import (
    MAX_BYTES,
    MAX_GAME_ID,
    MAX_ID,
    Button,
    Checked,
    Choice,
    Count,
    Field,
    Flag,
    Number,
    Optional,
    Place,
)
from bot.wire.taps import CellTap, GameTap, InlineJoinTap, LadderTap, NewGameTap, QueueTap
from core.board import BoardSize
from core.positions import ULTIMATE

KEY = b"a key for round trips"
BOARDS = st.one_of(
    st.just(ULTIMATE),
    st.integers(3, 8).flatmap(lambda n: st.integers(3, n).map(lambda k: BoardSize(n, k))),
)
CLOCK_KEYS = st.builds("{}+{}".format, st.integers(1, 10), st.integers(0, 30))
BOARD_KEYS = BOARDS.map(lambda b: "ultimate" if b == ULTIMATE else f"{b.size}x{b.size}k{b.k}")
NUMBERS_NEAR = [0, 1, 2**31 - 1, 2**53 + 1, MAX_ID]


def values(field: Field) -> st.SearchStrategy[Any]:
    """What a field of the table holds."""
    match field:
        case Number(maximum):
            edges = [n for n in NUMBERS_NEAR if n <= maximum]
            return st.one_of(st.integers(0, maximum), st.sampled_from([*edges, maximum]))
        case Choice(choices):
            return st.sampled_from(list(choices()))
        case Checked() if field == CLOCK_KEY.field:
            return CLOCK_KEYS
        case Checked():
            return BOARD_KEYS.map(lambda key: "3x3" if key == "3x3k3" else key)
        case Flag():
            return st.booleans()
        case Optional(inner):
            return st.one_of(st.none(), values(inner))
        case Count(_, base, up_to):
            return st.integers(base, base + up_to)
    raise AssertionError(f"no strategy for {field!r}: add one")


def taps(kind: Button) -> st.SearchStrategy[Any]:
    """Taps of one kind of button."""
    drawn: dict[str, st.SearchStrategy[Any]] = {n: st.just(v) for n, v in kind.constants}
    drawn |= {name: values(field) for name, field in kind.fields}
    if kind.sized:
        drawn["board"] = BOARDS
    if kind.owned:
        drawn["owner"] = st.one_of(st.none(), st.integers(0, MAX_ID))
    tapped = st.fixed_dictionaries(drawn).map(lambda v: kind.tap(**v))
    return tapped if kind.check is None else tapped.filter(kind.check)


KINDS = st.sampled_from(list(TABLE.buttons.values()))


@settings(max_examples=500)
@given(KINDS.flatmap(lambda kind: st.tuples(st.just(kind), taps(kind))))
def test_every_kind_packs_into_64_bytes_and_parses_back(drawn: tuple[Button, Any]) -> None:
    kind, tap = drawn
    data = pack(tap, key=KEY)
    assert 1 <= len(data.encode()) <= MAX_BYTES
    assert data.isascii()
    assert data.split(":")[0] == kind.prefix
    assert pattern(kind.prefix).match(data)
    assert read_callback_data(data) == (kind, tap)
    parsed = parse_callback_data(data)
    assert parsed == tap
    if kind.place is Place.INLINE:
        assert parsed.payload + ":" + parsed.signature == data  # type: ignore[union-attr]
    assert pack(parsed, key=KEY) == data  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "tap",
    [
        CellTap(MAX_GAME_ID + 1, 0, 0),
        CellTap(-1, 0, 0),
        CellTap(1, MAX_ID + 1, 0),
        GameTap("x", 1),
        NewGameTap("hard", "user", seats=3),
        NewGameTap("user", "user", seats=5),
        NewGameTap("user", "god"),
        NewGameTap("user", "hard", BoardSize(9, 9)),
        NewGameTap("user", "hard", owner=-1),
        QueueTap("qp", "9x9k3"),
        QueueTap("qa", "3x3", "god"),
        LadderTap(2),  # type: ignore[arg-type]
        InlineJoinTap(1, "Z"),
    ],
    ids=repr,
)
def test_what_would_not_parse_is_not_packed(tap: Any) -> None:
    with pytest.raises(ValueError):
        pack(tap, key=KEY)


def test_inline_data_needs_the_key() -> None:
    with pytest.raises(ValueError, match="key"):
        pack(InlineJoinTap(1, "X"))


def test_every_kind_of_button_has_one_handler_typed_for_its_taps() -> None:
    handled = [prefix for prefixes in BUTTONS for prefix in prefixes]
    assert sorted(handled) == sorted(TABLE.buttons)
    for prefixes, handler in BUTTONS.items():
        # The handler's `tapped: Tapped[...]` names the tap its kinds of button carry.
        annotation = get_type_hints(handler)["tapped"]
        assert get_origin(annotation) is Tapped, handler
        assert {TABLE.buttons[p].tap for p in prefixes} == set(get_args(annotation)), handler


def test_patterns_match_the_prefix_alone() -> None:
    assert pattern("m").match("m:1:2:3")
    assert pattern("m").match("m")
    assert not pattern("m").match("menu")
    assert not pattern("n").match("nr:user:hard")
    assert pattern("n", "nr").match("nr:user:hard")
    with pytest.raises(AssertionError):
        pattern("zz")

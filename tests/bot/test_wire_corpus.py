"""Old buttons keep working: a corpus of callback data as the bot wrote it before the
callback-data table (issue 35), each string with the tap it parsed to then (or None).

`wire_corpus.json` was made once by the packers and parsers of that time: "packed" holds the
data of every kind of button, with edge values (ids at their bounds, every board, owners,
signed inline data under the key in the file); "raw" holds near misses and leniencies (leading
zeros, an explicit 3×3 size, fields added, dropped or changed) with what they parsed to. Old
messages in users' chats carry such data: it must parse the same, and the bot's own buttons
must still be written byte for byte the same."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from bot.wire import callback_data as cd
from core.board import ULTIMATE, BoardSize

CORPUS = json.loads((Path(__file__).parent / "wire_corpus.json").read_text(encoding="utf-8"))
KEY = CORPUS["key"].encode()


#: Fields added to taps after the corpus was made: absent from it, at their default in old
#: data.
ADDED_SINCE = {
    ("QueueTap", "clock"),
    ("QueueTap", "resign_underway"),
    ("BlockPlayerTap", "confirmed"),
}


def describe(tap: object) -> dict[str, Any] | None:
    if tap is None:
        return None
    out: dict[str, Any] = {"type": type(tap).__name__}
    for field in fields(tap):  # type: ignore[arg-type]
        value = getattr(tap, field.name)
        if value == field.default and (out["type"], field.name) in ADDED_SINCE:
            continue
        out[field.name] = [value.size, value.k] if isinstance(value, BoardSize) else value
    return out


def tap_of(described: dict[str, Any]) -> Any:
    values = dict(described)
    kind = getattr(cd, values.pop("type"))
    if "board" in values and isinstance(values["board"], list):
        size, k = values["board"]
        # The data names ultimate by its shape, 9:3; the board is ultimate's (its variant).
        values["board"] = (
            ULTIMATE if (size, k) == (ULTIMATE.size, ULTIMATE.k) else BoardSize(size, k)
        )
    return kind(**values)


def parse(data: str) -> object:
    return cd.parse_callback_data(data)


def pack(tap: Any) -> str:
    return cd.pack(tap, key=KEY)


ENTRIES = [(entry["data"], entry["tap"]) for entry in CORPUS["packed"] + CORPUS["raw"]]


@pytest.mark.parametrize("part", ["packed", "raw"])
def test_data_of_the_old_buttons_parses_as_it_did(part: str) -> None:
    wrong = [
        (entry["data"], entry["tap"], describe(parse(entry["data"])))
        for entry in CORPUS[part]
        if describe(parse(entry["data"])) != entry["tap"]
    ]
    assert wrong == []


def test_buttons_are_written_byte_for_byte_as_before() -> None:
    wrong = [
        (entry["data"], pack(tap_of(entry["tap"])))
        for entry in CORPUS["packed"]
        if pack(tap_of(entry["tap"])) != entry["data"]
    ]
    assert wrong == []


def test_the_corpus_covers_every_kind_of_button() -> None:
    kinds = {entry["data"].split(":")[0] for entry in CORPUS["packed"]}
    assert len(kinds) == 28
    assert sum(entry["tap"] is not None for entry in CORPUS["raw"]) > 1000

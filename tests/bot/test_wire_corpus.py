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
from bot.wire import queue_data as qd
from core.board import BoardSize

CORPUS = json.loads((Path(__file__).parent / "wire_corpus.json").read_text(encoding="utf-8"))
KEY = CORPUS["key"].encode()


def describe(tap: object) -> dict[str, Any] | None:
    if tap is None:
        return None
    out: dict[str, Any] = {"type": type(tap).__name__}
    for field in fields(tap):  # type: ignore[arg-type]
        value = getattr(tap, field.name)
        out[field.name] = [value.size, value.k] if isinstance(value, BoardSize) else value
    return out


def tap_of(described: dict[str, Any]) -> Any:
    values = dict(described)
    kind = getattr(cd, values.pop("type"), None) or getattr(qd, described["type"])
    if "board" in values and isinstance(values["board"], list):
        values["board"] = BoardSize(*values["board"])
    return kind(**values)


def parse(data: str) -> object:
    return cd.parse_callback_data(data) or qd.parse(data)


def pack(tap: Any) -> str:
    """Today's packers, by kind."""
    owner = getattr(tap, "owner", None)
    match tap:
        case cd.CellTap(game_id, ply, cell):
            return cd.cell_data(game_id, ply, cell)
        case cd.ResignTap(game_id, ply):
            return cd.resign_data(game_id, ply)
        case cd.ResignAnswer(confirmed, game_id, ply, user_id):
            return cd.resign_answer_data(confirmed, game_id, ply, user_id)
        case cd.AssistTap(action, game_id, ply):
            return cd.assist_data(action, game_id, ply)
        case cd.BlockTap(game_id, ply, block):
            return cd.block_data(game_id, ply, block)
        case cd.GameTap(action, game_id):
            return cd.game_data(action, game_id)
        case cd.NewGameTap(x, o, board, seats, _, resigning):
            return cd.new_game_data(x, o, board, seats, owner, resign_underway=resigning)
        case cd.KeepPlayingTap():
            return cd.keep_playing_data(owner) if owner is not None else cd.KEEP_PLAYING
        case cd.InlineJoinTap(creator, mark, board):
            return cd.inline_join_data(creator, mark, board, key=KEY)
        case cd.InlineAiTap(creator, level, cell, board):
            return cd.inline_ai_data(creator, level, cell, board, key=KEY)
        case cd.ForgetTap(confirmed, user_id):
            return cd.forget_data(confirmed, user_id)
        case cd.MenuTap(board):
            return cd.menu_data(board, owner)
        case cd.HelpTap():
            return cd.help_data(owner)
        case cd.LanguageTap(code):
            return cd.language_data(code, owner)
        case qd.QueueTap(qd.STOP_LOOKING):
            return qd.STOP_LOOKING
        case qd.QueueTap(qd.PLAY_SOMEONE, board):
            return f"{qd.PLAY_SOMEONE}:{board}"
        case qd.QueueTap(qd.PLAY_AI_INSTEAD, board, level):
            return qd.play_ai_data(level, board)
        case qd.BlockPlayerTap(game_id):
            return qd.block_player_data(game_id)
        case qd.LadderTap(on):
            return qd.ladder_data(on)
    raise AssertionError(f"unknown tap {tap!r}")


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

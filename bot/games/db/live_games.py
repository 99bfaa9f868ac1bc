"""The live games this process stored or read last, with the version each was stored at: a tap
on one of them is decided without reading it again (see `LiveGames`)."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, replace

from bot.games.model import LIVE, GameView
from bot.games.play.clock_rules import clock_waits


@dataclass(frozen=True)
class Loaded:
    """A stored game: its view (to decide with) and the version it was read at (to write it
    back only if nobody changed it since)."""

    view: GameView
    version: int


def stored(view: GameView, version: int) -> Loaded:
    """A view as stored at `version` (the view carries it too, for the board outbox)."""
    return Loaded(replace(view, version=version), version)


class LiveGames:
    """The live games this process stored or read last, with their versions, so that a tap
    is decided without reading its game again.

    Never trusted blindly: a write says `WHERE version = <cached>`, so a game that another
    instance changed meanwhile loses the race and is read afresh, and a refusal decided on a
    cached game is checked again on a fresh read. What the version does not cover (a player's
    new name, a board message another instance recorded) is trusted for `ttl` seconds, except
    a clock waiting for its board: its start comes with no new version, from whichever
    instance hears that the board was shown (`bot.games.play.turn_starts`), so such a game is
    not kept, and a move in it reads when its clock started."""

    def __init__(self, size: int = 4096, ttl: float = 60.0) -> None:
        self._games: OrderedDict[int, tuple[float, Loaded]] = OrderedDict()
        self._size = size
        self._ttl = ttl

    def get(self, game_id: int) -> Loaded | None:
        entry = self._games.get(game_id)
        if entry is None:
            return None
        if time.monotonic() - entry[0] > self._ttl:
            del self._games[game_id]
            return None
        return entry[1]

    def put(self, loaded: Loaded) -> None:
        game_id = loaded.view.id
        if loaded.view.status not in LIVE or clock_waits(loaded.view):
            self._games.pop(game_id, None)
            return
        held = self._games.get(game_id)
        if held is not None and held[1].version > loaded.version:
            return  # a later write got here first
        self._games[game_id] = (time.monotonic(), loaded)
        self._games.move_to_end(game_id)
        if len(self._games) > self._size:
            self._games.popitem(last=False)

    def drop(self, game_id: int) -> None:
        self._games.pop(game_id, None)

    def note_message(self, game_id: int, message_id: int) -> None:
        """The game's board is this message now (not game state: no new version)."""
        entry = self._games.get(game_id)
        if entry is not None:
            moment, loaded = entry
            self._games[game_id] = (
                moment,
                replace(loaded, view=replace(loaded.view, message_id=message_id)),
            )

    def clear(self) -> None:
        self._games.clear()

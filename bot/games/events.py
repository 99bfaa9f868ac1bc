"""What happens to a game, as typed events: the one stream every view and chore listens to.

The store records them in the transaction that makes the change (`bot.games.db.store.save` and
`insert`) and hands them to the game's stream once that transaction has committed
(`bot.games.event_stream`): a rolled-back change says nothing, a committed one says it once.
Each event carries the game as stored by that change, so a listener needs no read to act.

A listener joins a feature to the others by hearing these, never by being called by them:
the chat's ended boards, the stranger announcer, the matchmaking queue, the AI matches, a
match's next game, a tournament's standings and the Mini App's live pages each subscribe.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.games.model import EndReason, GameView


@dataclass(frozen=True)
class GameStarted:
    """A game was stored: its seats so far are in `game` (an open challenge has one)."""

    game: GameView


@dataclass(frozen=True)
class GameMoved:
    """A live game changed: a move, a seat taken, its clock, its boards attached."""

    game: GameView


@dataclass(frozen=True)
class SeatsTaken:
    """Players took a seat in a game stored before (an accepted challenge or rematch, an
    inline join), told before the change's `GameMoved`: most changes are moves, and only the
    few listeners of seats are woken for these."""

    game: GameView
    players: tuple[int, ...]


@dataclass(frozen=True)
class GameEnded:
    """A game ended, settled (`bot.games.play.endings`: rated, its match carried on)."""

    game: GameView
    #: The game just before: it still names who left it with /forget, which `game`, as
    #: stored, no longer does (None: a game deleted, or made up by a test).
    before: GameView | None = None

    @property
    def reason(self) -> EndReason | None:
        return self.game.end_reason


GameEvent = GameStarted | SeatsTaken | GameMoved | GameEnded


def players_of(game: GameView) -> tuple[int, ...]:
    """The players seated in a game, by mark."""
    return tuple(player for mark in game.marks if (player := game.player_id_of(mark)) is not None)


def events_of(before: GameView | None, after: GameView, *, ended: bool) -> list[GameEvent]:
    """The events of one stored change from `before` (None: a new game) to `after`."""
    if before is None:
        return [GameStarted(after)]
    if ended:
        return [GameEnded(after, before)]
    earlier = set(players_of(before))
    seated = tuple(player for player in players_of(after) if player not in earlier)
    return [SeatsTaken(after, seated), GameMoved(after)] if seated else [GameMoved(after)]

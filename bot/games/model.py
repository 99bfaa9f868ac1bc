"""The games layer's plain values: who plays, where a board lives, a game as shown, and what
each use-case answers. No database objects and nothing from Telegram: handlers, rendering and
tests all speak these."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from functools import cached_property

from bot.games.matches.rules import MatchScore
from core.ai import Level
from core.board import SEAT_MARKS, Board, MoveError, O, T, X
from core.rules import turn


class PlayerKind(StrEnum):
    """Who plays a side: a person, or the AI at a level of `core.ai.Level` (the same words).
    The values are the stored `x_kind`/`o_kind` and the words of buttons and /start."""

    USER = "user"
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"

    @property
    def level(self) -> Level | None:
        """The AI's level, None for a person."""
        return None if self is PlayerKind.USER else Level(self.value)

    @classmethod
    def of(cls, level: Level) -> PlayerKind:
        """The kind of a side the AI plays at `level`."""
        return cls(level.value)


USER = PlayerKind.USER  # a person (in `x_kind`/`o_kind`); the other kinds are the AI levels
PLAYER_KINDS = tuple(PlayerKind)
HUMAN = "human"  # the opponent kind of a game between two people, in stats


class Result(StrEnum):
    """A finished game's result (the stored `result`): the mark of the side that won (🔺 T or
    🟦 S too, in games of more), or a draw."""

    X = "X"
    O = "O"
    T = "T"
    S = "S"
    DRAW = "draw"

    @property
    def winner(self) -> str | None:
        """The mark that won, None for a draw."""
        return None if self is Result.DRAW else self.value

    @classmethod
    def won_by(cls, mark: str) -> Result:
        return cls(mark)


class Outcome(StrEnum):
    """A finished game as one side sees it (records, streaks)."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"


class GameStatus(StrEnum):
    OPEN = "open"  # a challenge waiting for an opponent
    ACTIVE = "active"
    FINISHED = "finished"
    ABANDONED = "abandoned"
    CANCELLED = "cancelled"
    DECLINED = "declined"


LIVE = (GameStatus.OPEN, GameStatus.ACTIVE)


class EndReason(StrEnum):
    """How a game ended (`bot.games.play.endings`): the stored `end_reason`."""

    LINE = "line"  # won: a line of k
    FULL = "full"  # drawn: the board is full
    RESIGNED = "resigned"
    STOPPED = "stopped"  # /stop: a resignation
    TIMEOUT = "timeout"  # flagged: the turn ran out after a nudge
    BLOCKED = "blocked"  # the player blocked the bot: they walked away, a loss
    REPLACED = "replaced"  # the player started a new game over this one
    FORGOTTEN = "forgotten"  # the player deleted their data with /forget
    ABANDONED = "abandoned"  # closed from outside with no result (the bot left the group)
    CANCELLED = "cancelled"
    DECLINED = "declined"
    EXPIRED = "expired"  # lapsed: a challenge nobody joined in time
    ABORTED = "aborted"  # ❌ made no first move in time: unrated (in a tournament, a forfeit)
    AGREED = "agreed"  # drawn: a draw offered and accepted (`draw_rules`)


#: Endings where one player gave the game up (the others win): worded as a resignation.
FORFEITS = frozenset(
    {
        EndReason.RESIGNED,
        EndReason.STOPPED,
        EndReason.BLOCKED,
        EndReason.REPLACED,
        EndReason.FORGOTTEN,
    }
)


@dataclass(frozen=True)
class PlayerInfo:
    """Who sent an update: a Telegram user as plain values."""

    id: int
    name: str
    language_code: str | None = None
    username: str | None = None


@dataclass(frozen=True)
class BoardRef:
    """Where a tap came from: a chat message, or an inline message (any chat)."""

    chat_id: int | None = None
    inline_message_id: str | None = None

    def matches(self, game: GameView) -> bool:
        if self.inline_message_id is not None:
            return game.inline_message_id == self.inline_message_id
        return self.chat_id is None or self.chat_id in (game.chat_id, game.second_chat_id)


@dataclass(frozen=True)
class GameView:
    """A game as the bot shows it: everything rendering needs, parsed once per load."""

    id: int
    chat_id: int | None
    message_id: int | None
    inline_message_id: str | None
    board: Board
    x_kind: PlayerKind
    o_kind: PlayerKind
    x_player_id: int | None
    o_player_id: int | None
    x_name: str | None
    o_name: str | None
    status: GameStatus
    result: Result | None
    end_reason: EndReason | None
    language: str | None = None
    created_by_id: int | None = None
    invited_player_id: int | None = None
    invited_name: str | None = None
    invited_username: str | None = None
    rematch_of_id: int | None = None
    nudges: int = 0
    #: A hint or an undo was used: marked on the final board, counted apart in the stats.
    assisted: bool = False
    #: The cell of the last move (ultimate sends the next player to the small board it names).
    last_cell: int | None = None
    #: Games of three or four players: the seats of 🔺 (T) and 🟦 (S), the marks of those out
    #: of the game (resigned, timed out), and whose turn it is.
    seats: int = 2
    t_player_id: int | None = None
    s_player_id: int | None = None
    t_name: str | None = None
    s_name: str | None = None
    out: str = ""
    turn_mark: str | None = None
    #: A game between strangers: its second board, in ⭕'s private chat and language.
    second_chat_id: int | None = None
    second_message_id: int | None = None
    second_language: str | None = None
    #: What a rated game did to its players' ratings (None: not rated, or not yet).
    x_rating_change: int | None = None
    o_rating_change: int | None = None
    #: Strangers' clocks (`clock_rules`): the control, each side's time at the turn's start;
    #: when the side to move flags, and when the clocks shown were read (None: turn start).
    clock_seconds: float | None = None
    clock_delay: float | None = None
    x_clock: float | None = None
    o_clock: float | None = None
    flag_at: datetime | None = field(default=None, compare=False, repr=False)
    clock_read_at: datetime | None = field(default=None, compare=False, repr=False)
    # When the player to move got the turn: bookkeeping for the turn clock, not for display.
    turn_started_at: datetime | None = field(default=None, compare=False, repr=False)
    # The stored version this view is of, and the one its board message shows (the board
    # outbox, `bot.chores.board_catch_up`): bookkeeping, not game state.
    version: int = field(default=0, compare=False, repr=False)
    shown_version: int = field(default=0, compare=False, repr=False)
    # When it was stored last (as read): a board just behind may still be on its way.
    updated_at: datetime | None = field(default=None, compare=False, repr=False)
    #: The game's public id (`new_public_id`, given when it is stored): its name in links.
    public_id: str = field(default="", compare=False, repr=False)
    #: A game of a match (`match_rules`): which, its number, the score as of it (`reads`).
    match_id: int | None = None
    match_game: int | None = None
    match: MatchScore | None = None
    tournament_id: int | None = None  # a round's game of a group tournament: which
    #: Resign's question, whose and asked at which move (`resign_rules.resign_question`).
    resign_asked_by: int | None = None
    resign_asked_ply: int | None = None
    #: A draw's open offer, whose and made at which move (`draw_rules.draw_offer`).
    draw_offered_by: int | None = None
    draw_offer_ply: int | None = None

    @cached_property
    def ply(self) -> int:
        """Moves played so far; callback data carries it to spot stale taps."""
        return self.board.ply

    @cached_property
    def to_move(self) -> str:
        # With more than two players the turns skip those out: the marks' counts do not tell.
        if self.turn_mark is not None:
            return self.turn_mark
        return turn(self.board)

    @property
    def marks(self) -> tuple[str, ...]:
        """The marks of the game's seats, in the order of turns."""
        return SEAT_MARKS[: self.seats]

    @property
    def is_many(self) -> bool:
        """Three or four players."""
        return self.seats > 2

    @property
    def in_play(self) -> tuple[str, ...]:
        """The marks of the players still in the game."""
        return tuple(mark for mark in self.marks if mark not in self.out)

    @property
    def is_active(self) -> bool:
        return self.status == GameStatus.ACTIVE

    @property
    def is_open(self) -> bool:
        return self.status == GameStatus.OPEN

    @property
    def is_live(self) -> bool:
        """Open for a player to join, or being played: not over."""
        return self.is_active or self.is_open

    @property
    def is_finished(self) -> bool:
        return self.status == GameStatus.FINISHED

    def kind_of(self, mark: str) -> PlayerKind:
        # As a kind even where the view was made of plain words (a test's, a script's).
        return PlayerKind({X: self.x_kind, O: self.o_kind}.get(mark, USER))

    def player_id_of(self, mark: str) -> int | None:
        seats = {X: self.x_player_id, O: self.o_player_id, T: self.t_player_id}
        return seats.get(mark, self.s_player_id)

    def name_of(self, mark: str) -> str | None:
        return {X: self.x_name, O: self.o_name, T: self.t_name}.get(mark, self.s_name)

    def is_player(self, mark: str, user_id: int) -> bool:
        """Whether the user plays this side (a person, not an AI level)."""
        return self.kind_of(mark) == USER and self.player_id_of(mark) == user_id

    def mark_of(self, user_id: int) -> str | None:
        """The side a user plays (X on one phone, where they play both)."""
        return next((mark for mark in self.marks if self.is_player(mark, user_id)), None)

    @property
    def kind_to_move(self) -> PlayerKind:
        return self.kind_of(self.to_move)

    @property
    def waits_for_ai(self) -> bool:
        return self.is_active and self.kind_to_move != USER

    @property
    def is_ai_match(self) -> bool:
        return self.x_kind != USER and self.o_kind != USER

    @property
    def is_one_phone(self) -> bool:
        people = self.x_kind == USER and self.o_kind == USER
        return people and self.x_player_id is not None and self.x_player_id == self.o_player_id

    @property
    def is_between_people(self) -> bool:
        """Two different people (or a challenge waiting for the second one)."""
        return self.x_kind == USER and self.o_kind == USER and not self.is_one_phone

    @property
    def is_invitation(self) -> bool:
        """A challenge addressed to one person (by id or @username), not to anyone."""
        return self.invited_player_id is not None or self.invited_username is not None

    @property
    def is_against_ai(self) -> bool:
        """A person against an AI level: the only games with hints and undo."""
        return (self.x_kind == USER) != (self.o_kind == USER)

    @property
    def is_between_strangers(self) -> bool:
        """Paired through the queue: one board in each player's private chat."""
        return self.second_chat_id is not None

    @property
    def is_rated(self) -> bool:
        return self.x_rating_change is not None or self.o_rating_change is not None

    @property
    def has_board_message(self) -> bool:
        return self.message_id is not None or self.inline_message_id is not None


class MoveStatus(StrEnum):
    PLAYED = "played"
    NO_GAME = "no_game"
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_TURN = "not_your_turn"
    STALE = "stale"
    GAME_OVER = "game_over"
    OCCUPIED = "occupied"
    INVALID = "invalid"
    CONFLICT = "conflict"
    WAITING = "waiting"  # the game waits for an opponent to join
    OWN_GAME = "own_game"  # a challenger tapping Join on their own challenge
    NOT_INVITED = "not_invited"
    NOT_CHALLENGER = "not_challenger"
    REMATCH_TAKEN = "rematch_taken"
    REMATCH_OFFERED = "rematch_offered"  # the one who offered a rematch taps it again
    REMATCH_CLOSED = "rematch_closed"  # the rematch offer was declined, withdrawn or lapsed
    DUPLICATE = "duplicate"  # the update was handled already (a repeated delivery)
    WRONG_BOARD = "wrong_board"  # ultimate: a cell outside the small board in play
    JOINED_ALREADY = "joined_already"  # a seat taken in a game of more, still waiting
    NOT_AGAINST_AI = "not_against_ai"  # hint and undo: for games against the AI only
    NOTHING_TO_UNDO = "nothing_to_undo"
    ASKED_ALREADY = "asked_already"  # Resign (a draw offer) tapped again while it is open


@dataclass(frozen=True)
class UpdateClaim:
    """A Telegram update for a use-case to claim in its own transaction, so that it acts
    once however often it is delivered (and one commit does for both)."""

    update_id: int
    user_id: int | None = None


@dataclass(frozen=True)
class Claim:
    """Whether an update was new (and is now claimed) or handled already."""

    new: bool
    #: The language the update's sender chose with /language, if any.
    chosen_language: str | None = None


@dataclass(frozen=True)
class MoveResult:
    """What a move attempt did. `error` is core's typed error of a typed move (no wording:
    the bot words it in the player's language). `claim` is the update's claim when the
    use-case made it."""

    status: MoveStatus
    game: GameView | None = None
    error: MoveError | None = None
    claim: Claim | None = None
    #: The cell a hint suggests.
    hint: int | None = None

    @property
    def played(self) -> bool:
        return self.status is MoveStatus.PLAYED


@dataclass(frozen=True)
class StartResult:
    """A new game. With a claim that found its update handled already (`claim.new` False),
    nothing was done: no game."""

    game: GameView | None
    # Games this start replaced (a private chat has one current game); their boards need closing.
    closed: tuple[GameView, ...] = ()
    #: The update's claim, when the use-case made it.
    claim: Claim | None = None
    #: Nothing started: the sender's game here is underway (they moved in it), and a new one
    #: would count it as a loss, so they are asked first (`resign_underway`).
    underway: GameView | None = None
    #: The sender's running games against people in this chat, which the new one leaves
    #: running (they are told so).
    going_on: tuple[GameView, ...] = ()
    #: Nothing started: the sender plays a stranger already, and may play one at a time.
    stranger: GameView | None = None

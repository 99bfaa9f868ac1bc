"""Bad input, property-based: arbitrary text, arbitrary /start and /challenge arguments,
arbitrary callback data up to 64 bytes, arbitrary user and chat ids. No handler raises, no game
changes that should not, every callback query is answered exactly once.

The parsers are tested alone with many examples; the real bot (one per test function, reused
by every example of it) gets batches of garbage around two known games: Alice's game on one
phone in her private chat, and Alice against Bob in a group."""

from __future__ import annotations

import copy
import logging
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from bot.console import hyperskill_error
from bot.games.db.models import Game, Move
from bot.games.model import PLAYER_KINDS, USER
from bot.locales import en
from bot.locales.texts import texts_for
from bot.views.keyboards import inline_ai_keyboard, inline_challenge_keyboard
from bot.views.render import render_bad_parameters, render_move_error
from bot.wire.callback_data import GAME_ACTIONS, HELP_DATA, UNDO, pack, parse_callback_data
from bot.wire.codec import MAX_GAME_ID, MAX_ID, inline_key
from bot.wire.game_spec import GameSpec, parse_board_size, parse_start_args, start_problem
from bot.wire.taps import (
    AssistTap,
    CellTap,
    DrawAnswer,
    DrawTap,
    ForgetTap,
    GameTap,
    HelpTap,
    InlineAiTap,
    InlineJoinTap,
    MenuTap,
    NewGameTap,
    ResignTap,
    Tap,
)
from core.ai import LEVELS
from core.board import (
    EMPTY,
    MARKS,
    SIZES,
    Board,
    BoardSize,
    CellNumberError,
    CellOccupiedError,
    MoveError,
    NotNumbersError,
    NumberCountError,
    OutOfRangeError,
)
from core.notation import format_cells, parse_cells, parse_typed_move
from tests.support.bot_runner import BotRunner, settle
from tests.support.chat import assert_every_query_answered, game_id_on, send
from tests.support.fake_telegram import FakeTelegram, StoredMessage

# ---------------------------------------------------------------------------------- strategies

#: Any code point, lone surrogates too: the parsers take any Python str.
ANY_CHAR = st.characters(exclude_categories=())
#: What Telegram can deliver: valid UTF-8 (no lone surrogates).
WIRE_CHAR = st.characters(exclude_categories=("Cs",))
#: For whatever the bot stores (names, language codes, @mentions): no NUL. Telegram is taken
#: not to deliver it (its apps clean control characters out of input); PostgreSQL text cannot
#: hold it.
NAME_CHAR = st.characters(exclude_categories=("Cs",), exclude_characters="\x00")
#: Control characters, format characters (RTL marks, zero widths), odd spaces, combining
#: marks, emoji and other scripts' digits.
ODD_CHAR = st.characters(categories=["Cc", "Cf", "Zs", "Zl", "Zp", "Mn", "Me", "So", "Nd", "No"])

EDGE_INTEGERS = [0, 1, 2**31 - 1, 2**31, 2**32, 2**52, 2**53 + 1, MAX_ID, MAX_ID + 1, 2**64]
NUMBERS = st.one_of(
    st.integers(0, 20),
    st.integers(-(2**70), 2**70),
    st.sampled_from(EDGE_INTEGERS),
).map(str)
ODD_NUMBERS = st.sampled_from(
    ["", "-1", "-0", "+1", "1_0", " 1", "1 ", "٣", "𝟓", "²", "0x1", "1e3", "00", "01", "1.0",
     "١٢", "Ⅻ", "¹", "\n1", "1\n", "0" * 18 + "1", "0" * 19 + "1", "9" * 19, "9" * 20]
)  # fmt: skip
WORDS = st.sampled_from(
    ["m", "r", "j", "d", "c", "rm", "rv", "n", "ij", "ia", "fy", "fn", "menu", "help", "M",
     "user", "easy", "medium", "hard", "USER", "Hard", "X", "O", "x", "o", "0", "·"]
)  # fmt: skip
FIELD = st.one_of(NUMBERS, ODD_NUMBERS, WORDS, st.text(ANY_CHAR, max_size=5))
COLON_FIELDS = st.lists(FIELD, max_size=9).map(":".join)
LONG_DIGITS = st.builds(
    lambda head, n: head + "9" * n,
    st.sampled_from(["", "m:", "m:1:", "m:1:2:", "r:", "j:", "fy:", "ij:", "ia:1:easy:", "menu:"]),
    st.integers(15, 300),
)
RAW_CALLBACK_DATA = st.one_of(
    st.none(),
    st.text(ANY_CHAR, max_size=80),
    st.text(":0123456789", max_size=80),
    COLON_FIELDS,
    LONG_DIGITS,
    st.binary(max_size=80).map(lambda b: b.decode("utf-8", "surrogateescape")),
)

BOARD_SIZES = st.integers(3, 8).flatmap(lambda n: st.integers(3, n).map(lambda k: BoardSize(n, k)))
IDS = st.one_of(st.integers(0, MAX_ID), st.sampled_from([i for i in EDGE_INTEGERS if i <= MAX_ID]))
GAME_IDS = st.one_of(st.integers(0, MAX_GAME_ID), st.sampled_from([0, 1, MAX_GAME_ID]))
KINDS = st.sampled_from(PLAYER_KINDS)
EVERY_TAP: st.SearchStrategy[Tap] = st.one_of(
    st.builds(CellTap, GAME_IDS, IDS, IDS),
    st.builds(ResignTap, GAME_IDS, IDS),
    st.builds(DrawTap, GAME_IDS, IDS),
    st.builds(DrawAnswer, st.booleans(), GAME_IDS, IDS, IDS),
    st.builds(GameTap, st.sampled_from(GAME_ACTIONS), GAME_IDS),
    st.builds(NewGameTap, KINDS, KINDS, BOARD_SIZES),
    st.builds(InlineJoinTap, IDS, st.sampled_from(MARKS), BOARD_SIZES),
    st.builds(InlineAiTap, IDS, st.sampled_from(LEVELS), IDS, BOARD_SIZES),
    st.builds(ForgetTap, st.booleans(), IDS),
    st.builds(MenuTap, BOARD_SIZES),
    st.just(HelpTap()),
)


FUZZ_KEY = b"a key for round trips"
# Forged inline buttons: signed with a key that is not the bot's, or (rarely) with the bot's
# own, as if a result had been chosen; only the latter may start a game.
KEYS = st.sampled_from([b"forger", b"", FUZZ_KEY])


def scene_key(tg: FakeTelegram) -> bytes:
    """The key the bot under test signs its inline buttons with."""
    return inline_key(tg.token)


def encode(tap: Tap) -> str:
    """The callback data the bot's own buttons carry for a tap."""
    return pack(tap, key=FUZZ_KEY)


def valid_size(board: BoardSize) -> bool:
    return board.size in SIZES and 3 <= board.k <= board.size


START_VOCABULARY = (
    ["user", "easy", "medium", "hard", "USER", "Hard_User", "easy_hard", "user_user_5",
     "_", "__", "3", "5", "8", "9", "2", "0", "6", "4", "5x5", "8×8", "6х6", "5x6", "5X5",
     "x", "05", "٥", "5x", "x5", "10", "3x3x3", "@bob", "@", "5\n", "hard 5", "user\tuser"]
)  # fmt: skip


def start_words(chars: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Words of /start and /challenge arguments."""
    return st.one_of(
        st.sampled_from(START_VOCABULARY),
        NUMBERS,
        ODD_NUMBERS,
        st.text(chars, max_size=8),
        # Telegram messages hold at most 4096 characters: no argument is longer.
        st.integers(1, 4090).map(lambda n: "9" * n),
    )


START_WORDS = start_words(ANY_CHAR)

TYPED_WORDS = st.one_of(st.integers(-10, 70).map(str), NUMBERS, ODD_NUMBERS, WORDS)
SEPARATORS = st.sampled_from([" ", "  ", "\t", "\n", "\u3000", "\xa0", " \u2028 ", "\x1f", ""])


def joined(words: list[str], separators: list[str]) -> str:
    out = ""
    for i, word in enumerate(words):
        out += word + (separators[i % len(separators)] if separators else " ")
    return out


TYPED_TEXT = st.one_of(
    st.text(ANY_CHAR, max_size=30),
    st.text(ODD_CHAR, max_size=10),
    st.builds(joined, st.lists(TYPED_WORDS, max_size=4), st.lists(SEPARATORS, max_size=3)),
    st.builds(
        lambda unit, n: unit * n,
        st.sampled_from(["9", "1 ", " ", "0", "-"]),
        st.integers(1, 4096),
    ).map(lambda text: text[:4096]),
)
PLAYED_BOARDS = st.integers(3, 8).flatmap(
    lambda n: st.lists(st.sampled_from(["X", "O", EMPTY]), min_size=n * n, max_size=n * n).map(
        lambda cells: Board(tuple(cells), n, 3)
    )
)

# ---------------------------------------------------------------------------------- parsers


@settings(max_examples=500)
@given(RAW_CALLBACK_DATA)
def test_parse_callback_data_never_raises_and_accepts_only_canonical_taps(
    data: str | None,
) -> None:
    tap = parse_callback_data(data)
    if not data or len(data.encode("utf-8", "replace")) > 64:
        assert tap is None
    if tap is None:
        return
    assert data.isascii()  # no other scripts' digits, no look-alikes
    canonical = encode(tap)
    assert 1 <= len(canonical.encode()) <= len(data.encode())
    assert parse_callback_data(canonical) == tap


@settings(max_examples=500)
@given(EVERY_TAP)
def test_every_button_fits_in_64_bytes_and_parses_back(tap: Tap) -> None:
    data = encode(tap)
    assert 1 <= len(data.encode()) <= 64
    assert parse_callback_data(data) == tap


@settings(max_examples=200)
@given(st.integers(MAX_GAME_ID + 1, MAX_ID), IDS, st.sampled_from(["m", "r", *GAME_ACTIONS]))
def test_game_ids_beyond_the_games_column_are_refused(game_id: int, number: int, kind: str) -> None:
    # games.id is a 32-bit INTEGER: PostgreSQL would refuse such an id as a query parameter.
    data = {"m": f"m:{game_id}:{number}:0", "r": f"r:{game_id}:{number}"}.get(kind)
    assert parse_callback_data(data or f"{kind}:{game_id}") is None


@settings(max_examples=500)
@given(st.lists(START_WORDS, max_size=6))
def test_start_arguments_never_raise(words: list[str]) -> None:
    spec = parse_start_args(words)
    if spec is not None:
        assert spec.x_kind in PLAYER_KINDS and spec.o_kind in PLAYER_KINDS
        assert valid_size(spec.board)
        if len(words) <= 4 and all(w.isascii() for w in words):
            # Whatever was accepted is also accepted in its plain spelling (every seat named:
            # three or four `user`s for a game of three or four).
            kinds = [spec.x_kind, spec.o_kind] if spec.seats == 2 else [USER] * spec.seats
            plain = [*kinds, str(spec.board.size), str(spec.board.k)]
            assert parse_start_args(plain) == spec
    size = parse_board_size(words)
    assert size is None or valid_size(size)


@settings(max_examples=200)
@given(KINDS, KINDS, BOARD_SIZES, st.sampled_from([" ", "_"]))
def test_plain_start_arguments_parse(x: str, o: str, board: BoardSize, glue: str) -> None:
    words = glue.join([x, o, str(board.size), str(board.k)]).split(" ")
    assert parse_start_args(words) == GameSpec(x, o, board)
    assert parse_board_size([f"{board.size}x{board.size}", str(board.k)]) == board


@settings(max_examples=500)
@given(PLAYED_BOARDS, TYPED_TEXT)
def test_typed_moves_give_a_free_cell_or_a_hyperskill_error(board: Board, text: str) -> None:
    texts = {
        NotNumbersError: "You should enter numbers!",
        OutOfRangeError: f"Coordinates should be from 1 to {board.size}!",
        CellOccupiedError: "This cell is occupied! Choose another one!",
        # One number, not a row and a column: the chat names the cells (the console never
        # reads cell numbers).
        CellNumberError: f"Cell numbers are from 1 to {board.size**2}!",
        # Numbers, but not two: the console says so; the chat, its "enter numbers".
        NumberCountError: "You should enter two numbers!",
    }
    try:
        cell = parse_typed_move(text, board)
    except MoveError as error:
        assert type(error) in texts, repr(error)
        # core's errors carry no words: the console and the bot (in English) word them.
        if not isinstance(error, CellNumberError):
            assert hyperskill_error(error) == texts[type(error)]
        said = NotNumbersError if isinstance(error, NumberCountError) else type(error)
        assert render_move_error(error, texts_for("en")) == texts[said]
    else:
        assert 0 <= cell < board.size**2 and board[cell] == EMPTY


@settings(max_examples=200)
@given(PLAYED_BOARDS, SEPARATORS.filter(bool), SEPARATORS)
def test_every_cell_can_be_typed_both_ways(board: Board, between: str, around: str) -> None:
    for cell in range(board.size**2):
        row, col = board.row_col(cell)
        for text in (f"{around}{row}{between}{col}{around}", f"{around}{cell + 1}{around}"):
            if board[cell] == EMPTY:
                assert parse_typed_move(text, board) == cell
            else:
                with pytest.raises(CellOccupiedError):
                    parse_typed_move(text, board)


# ---------------------------------------------------------------------------------- the bot

ALICE = FakeTelegram.user(1001, "Alice", username="alice")
BOB = FakeTelegram.user(1002, "Bob", username="bob")
GROUP = FakeTelegram.group_chat(-100500, "Friends")
PLAYERS = {ALICE["id"], BOB["id"]}

user_ids = st.one_of(
    st.integers(1, 2**52),
    st.integers(1, MAX_ID),
    st.sampled_from([i for i in EDGE_INTEGERS if 0 < i <= MAX_ID] + [777000, 123456]),
).filter(lambda i: i not in PLAYERS)
names = st.text(NAME_CHAR, min_size=1, max_size=64)
languages = st.one_of(
    st.none(),
    st.sampled_from(["en", "ru", "RU", "ru-RU", "ru_RU", "pt-br", "uk", "zz", "-", "en-", "RU-"]),
    st.text(NAME_CHAR, max_size=35),
)
USERNAME = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{4,31}", fullmatch=True)
usernames = st.none() | USERNAME
STRANGERS = st.builds(FakeTelegram.user, user_ids, names, languages, usernames, st.none() | names)
GROUPS = st.builds(
    lambda chat_id, title, supergroup: FakeTelegram.group_chat(
        chat_id, title, supergroup=supergroup
    ),
    st.one_of(st.integers(-(2**63), -1), st.sampled_from([-1, -(2**31), -(10**12) - 1])),
    st.text(NAME_CHAR, min_size=1, max_size=128),
    st.booleans(),
).filter(lambda chat: chat["id"] != GROUP["id"])


def mutate(data: str, edits: list[tuple[int, str, str]]) -> str:
    """Real callback data with a few characters inserted, deleted or replaced."""
    chars = list(data)
    for position, op, char in edits:
        if op == "insert":
            chars.insert(position % (len(chars) + 1), char)
        elif chars and op == "delete":
            del chars[position % len(chars)]
        elif chars:
            chars[position % len(chars)] = char
    return "".join(chars)


EDITS = st.lists(
    st.tuples(
        st.integers(0, 64),
        st.sampled_from(["insert", "delete", "replace"]),
        st.one_of(st.sampled_from(list(":0123456789-+ _xX")), WIRE_CHAR),
    ),
    min_size=1,
    max_size=4,
)


def fits(data: str) -> bool:
    """What Telegram lets a button carry: 1 to 64 bytes of UTF-8."""
    return 1 <= len(data.encode()) <= 64


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@dataclass(frozen=True)
class KnownGame:
    chat_id: int
    players: frozenset[int]
    to_move: int
    ply: int
    free: frozenset[int]


@dataclass(repr=False)
class Scene:
    """Two games in known states, and what they must still look like after any garbage."""

    telegram: FakeTelegram
    bot: BotRunner
    private: StoredMessage  # Alice on one phone: X 1 1, O 2 2, X to move
    group: StoredMessage  # Alice (X) against Bob (O): X 1 1, Bob to move
    menu: StoredMessage  # the menu posted in the group
    private_id: int = 0
    group_id: int = 0
    games: dict[int, KnownGame] = field(default_factory=dict)
    #: The callback data on the three messages' keyboards after the setup.
    buttons: list[str] = field(default_factory=list)
    baseline: Any = None

    def __repr__(self) -> str:
        return f"Scene(private game {self.private_id}, group game {self.group_id})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    async def snapshot(self) -> Any:
        """The two games' rows (version included) and moves, and their boards' messages.
        Not the version each board shows (`shown_version`) nor who draws it (`drawer`,
        `drawer_until`): the bot marks those in batches, a moment after it drew the board
        (a refused tap may redraw a board left behind), and the messages are compared anyway."""
        engine = self.bot.application.bot_data.engine  # type: ignore[union-attr]
        ids = sorted(self.games)
        games, moves = Game.__table__, Move.__table__
        drawing = {"shown_version", "drawer", "drawer_until"}
        columns = [column for column in games.c if column.name not in drawing]
        async with engine.connect() as connection:
            game_rows = await connection.execute(
                select(*columns).where(games.c.id.in_(ids)).order_by(games.c.id)
            )
            move_rows = await connection.execute(
                select(moves).where(moves.c.game_id.in_(ids)).order_by(moves.c.id)
            )
            stored = ([tuple(row) for row in game_rows], [tuple(row) for row in move_rows])
        boards = [self.telegram.messages[b.key] for b in (self.private, self.group) if b.key]
        shown = [(m.text, copy.deepcopy(m.reply_markup), m.edit_count, m.deleted) for m in boards]
        return stored, shown

    def may_change(self, where: str, user: dict[str, Any], data: str) -> bool:
        """Whether a tap may legitimately change one of the two games: a legal move or a
        resignation by its player, or a new game in Alice's private chat (it replaces hers).
        Everything else must change nothing (/forget taps too: none of these messages is the
        /forget question)."""
        tap = parse_callback_data(data)
        uid = user["id"]
        chat_id = {"private": ALICE["id"], "group": GROUP["id"], "menu": GROUP["id"]}.get(where)
        if isinstance(tap, NewGameTap):
            return chat_id == ALICE["id"]
        if isinstance(tap, AssistTap) and tap.action == UNDO:
            # On one phone, Undo takes back the last move of either side (issue 52).
            game = self.games.get(tap.game_id)
            if game is None or game.chat_id != chat_id or game.players != frozenset({uid}):
                return False
            return tap.ply == game.ply > 0
        if isinstance(tap, CellTap | ResignTap | DrawTap):
            game = self.games.get(tap.game_id)
            if game is None or game.chat_id != chat_id or uid not in game.players:
                return False
            if isinstance(tap, ResignTap | DrawTap):  # asks, or offers a draw (a game of two)
                return True
            return uid == game.to_move and tap.ply == game.ply and tap.cell in game.free
        return False


async def tap(tg: FakeTelegram, user: dict[str, Any], message: StoredMessage, data: str) -> dict:
    query_id = tg.tap(user, message, data)
    await settle(tg)
    return tg.callback_answers[query_id]


@pytest.fixture
async def telegram() -> AsyncIterator[FakeTelegram]:
    """The fake with no flood limits: these examples send hundreds of messages into one
    group to fuzz what the bot parses, which at Telegram's 20 a minute would take an hour;
    pacing is tested in tests/e2e/test_flood.py and by the journeys."""
    async with FakeTelegram(flood_limits=False) as fake:
        yield fake


@pytest.fixture
async def scene(telegram: FakeTelegram, bot: BotRunner) -> Scene:
    await send(telegram, ALICE, "/start user user")
    private = telegram.last_bot_message(ALICE["id"])
    for move in ("1 1", "2 2"):
        await send(telegram, ALICE, move)
    await send(telegram, ALICE, "/challenge", GROUP)
    group = telegram.last_bot_message(GROUP["id"])
    join = telegram.keyboard(group)[0][0][1]
    assert join is not None and join.startswith("j:")
    assert (await tap(telegram, BOB, group, join)).get("text") == "You're in! You play ⭕."
    first_cell = telegram.keyboard(group)[0][0][1]
    assert first_cell is not None
    assert not (await tap(telegram, ALICE, group, first_cell)).get("text")
    await send(telegram, ALICE, "/start", GROUP)
    menu = telegram.last_bot_message(GROUP["id"])
    assert menu.key != group.key

    scene = Scene(telegram, bot, private, group, menu)
    scene.private_id = game_id_on(telegram, private)
    scene.group_id = game_id_on(telegram, group)
    scene.buttons = [
        data
        for message in (private, group, menu)
        for row in telegram.keyboard(message)
        for _, data in row
        if data
    ]
    everything = frozenset(range(9))
    scene.games = {
        scene.private_id: KnownGame(
            ALICE["id"], frozenset({ALICE["id"]}), ALICE["id"], 2, everything - {0, 4}
        ),
        scene.group_id: KnownGame(GROUP["id"], frozenset(PLAYERS), BOB["id"], 1, everything - {0}),
    }
    games = bot.application.bot_data.running.games  # type: ignore[union-attr]
    for game_id, cells in ((scene.private_id, "X___O____"), (scene.group_id, "X________")):
        game = await games.store.get_game(game_id)
        assert game is not None and game.is_active and format_cells(game.board) == cells
    scene.baseline = await scene.snapshot()
    return scene


PLAYER_IDS = st.one_of(st.sampled_from(sorted(PLAYERS)), IDS)
SMALL = st.one_of(st.integers(0, 10), IDS)


INLINE_JOINS = st.builds(
    lambda tap, key: pack(tap, key=key),
    st.builds(InlineJoinTap, PLAYER_IDS, st.sampled_from(MARKS), BOARD_SIZES),
    KEYS,
)
INLINE_AI_CELLS = st.builds(
    lambda tap, key: pack(tap, key=key),
    st.builds(InlineAiTap, PLAYER_IDS, st.sampled_from(LEVELS), SMALL, BOARD_SIZES),
    KEYS,
)


def callback_data(scene: Scene) -> st.SearchStrategy[str]:
    """Callback data a client might send: the real buttons, buttons of any kind for these and
    for arbitrary games and users, those with a few characters changed, and garbage."""
    game_ids = st.one_of(st.sampled_from([scene.private_id, scene.group_id]), IDS)
    forged = st.one_of(
        # Made up: any game id a client may send, in range or not.
        st.builds("m:{}:{}:{}".format, game_ids, SMALL, SMALL),
        st.builds("r:{}:{}".format, game_ids, SMALL),
        st.builds("{}:{}".format, st.sampled_from(GAME_ACTIONS), game_ids),
        st.builds(NewGameTap, KINDS, KINDS, BOARD_SIZES).map(pack),
        INLINE_JOINS,
        INLINE_AI_CELLS,
        st.builds(ForgetTap, st.booleans(), PLAYER_IDS).map(pack),
        st.builds(MenuTap, BOARD_SIZES).map(pack),
        st.just(HELP_DATA),
        st.sampled_from(scene.buttons),
    )
    garbage = st.one_of(
        st.text(WIRE_CHAR, min_size=1, max_size=64),
        st.text(ODD_CHAR, min_size=1, max_size=20),
        st.binary(min_size=1, max_size=64).map(lambda b: b.decode("utf-8", "ignore")),
        st.text(":0123456789", min_size=1, max_size=64),
        COLON_FIELDS.map(lambda d: d.encode("utf-8", "ignore").decode()),
    )
    return st.one_of(forged, st.builds(mutate, forged, EDITS), garbage).filter(fits)


def no_errors(caplog: pytest.LogCaptureFixture) -> None:
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, "\n".join(
        f"{r.name}: {r.getMessage()}\n{r.exc_text or ''}" for r in errors[:3]
    )


BOT_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)


@BOT_SETTINGS
@given(data=st.data())
async def test_garbage_taps_change_no_game(
    scene: Scene, caplog: pytest.LogCaptureFixture, data: st.DataObject
) -> None:
    caplog.set_level(logging.WARNING)
    caplog.clear()
    tg = scene.telegram
    payloads = callback_data(scene)
    one_tap = st.one_of(
        # In a private chat only its user can tap; in the group anyone.
        st.tuples(st.just("private"), st.just(ALICE), payloads),
        st.tuples(
            st.sampled_from(["group", "menu"]),
            st.one_of(st.sampled_from([ALICE, BOB]), STRANGERS),
            payloads,
        ),
    ).filter(lambda t: not scene.may_change(*t))
    taps = data.draw(st.lists(one_tap, min_size=1, max_size=10), label="taps")
    taps += data.draw(st.lists(st.sampled_from(taps), max_size=3), label="double taps")
    # A fresh menu each time: its size buttons redraw it, and examples must not depend on
    # what earlier ones did to it.
    await send(tg, ALICE, "/start", GROUP)
    menu = tg.last_bot_message(GROUP["id"])
    targets = {"private": scene.private, "group": scene.group, "menu": menu}
    unknown: dict[str, str] = {}
    for where, user, payload in taps:
        event(f"tap {type(parse_callback_data(payload)).__name__}")
        query_id = tg.tap(user, targets[where], payload)
        if parse_callback_data(payload) is None:
            unknown[query_id] = texts_for(user.get("language_code")).POPUP_UNKNOWN_BUTTON
    await settle(tg)

    no_errors(caplog)
    assert_every_query_answered(tg)
    for query_id, text in unknown.items():
        assert tg.callback_answers[query_id].get("text") == text
    assert await scene.snapshot() == scene.baseline


def expected_typed_reply(board: Board, text: str) -> str | None:
    """The Hyperskill error a typed text gets, or None when it is a legal move."""
    try:
        parse_typed_move(text, board)
    except MoveError as error:
        return render_move_error(error, texts_for("en"))  # the Hyperskill words, in English
    return None


TEXTS = st.one_of(
    st.text(WIRE_CHAR, min_size=1, max_size=200),
    st.text(ODD_CHAR, min_size=1, max_size=40),
    st.builds(joined, st.lists(TYPED_WORDS, min_size=1, max_size=4), st.lists(SEPARATORS)),
    st.builds(
        lambda unit, n: unit * n,
        st.sampled_from(["9", "1 ", "é", "🙂", "\u202e", "\x00", "١", " x"]),
        st.integers(1, 4096),
    ),
    st.sampled_from(["\u202e1 1", "١ ١", "1\u200b1", "𝟏 𝟐", "one two", "🙂", "1 1 1", "+1 +1"]),
).filter(lambda t: bool(t.strip()) and not t.startswith("/") and utf16_len(t) <= 4096)

PRIVATE_BOARD = parse_cells("X___O____")
GROUP_BOARD = parse_cells("X________")


@BOT_SETTINGS
@given(data=st.data())
async def test_garbage_text_changes_no_game(
    scene: Scene, caplog: pytest.LogCaptureFixture, data: st.DataObject
) -> None:
    caplog.set_level(logging.WARNING)
    caplog.clear()
    tg = scene.telegram
    not_a_move = TEXTS.filter(lambda t: expected_typed_reply(PRIVATE_BOARD, t) is not None)
    bob_text = TEXTS.filter(lambda t: expected_typed_reply(GROUP_BOARD, t) is not None)
    one_text = st.one_of(
        st.tuples(st.just("private"), st.just(ALICE), not_a_move),
        st.tuples(st.just("reply"), st.one_of(st.just(ALICE), STRANGERS), TEXTS),
        st.tuples(st.just("reply"), st.just(BOB), bob_text),
        st.tuples(st.just("chatter"), st.one_of(st.sampled_from([ALICE, BOB]), STRANGERS), TEXTS),
    )
    sends = data.draw(st.lists(one_text, min_size=1, max_size=8), label="texts")
    before = set(tg.messages)
    expected: Counter[tuple[int, str]] = Counter()
    for where, user, text in sends:
        tr = texts_for(user.get("language_code"))
        if where == "private":
            tg.send_text(user, text)
            expected[ALICE["id"], expected_typed_reply(PRIVATE_BOARD, text) or "a move"] += 1
        elif where == "reply":
            tg.send_text(user, text, chat=GROUP, reply_to=scene.group)
            if user["id"] == BOB["id"]:
                reply = expected_typed_reply(GROUP_BOARD, text) or "a move"
            elif user["id"] == ALICE["id"]:
                reply = tr.POPUP_NOT_YOUR_TURN
            else:
                reply = tr.POPUP_NOT_A_PLAYER
            expected[GROUP["id"], reply] += 1
        else:
            tg.send_text(user, text, chat=GROUP)  # not a reply to a board: ignored
    await settle(tg)

    no_errors(caplog)
    replies = Counter(
        (message.chat_id, message.text) for key, message in tg.messages.items() if key not in before
    )
    assert replies == expected
    assert await scene.snapshot() == scene.baseline


def command_text(command: str, args: list[str]) -> str:
    return " ".join([command, *args])


COMMAND_ARGS = st.lists(
    st.one_of(
        start_words(NAME_CHAR),
        st.sampled_from(["@alice", "@Bob", "@", "@@", "@x", "@5"]),
        st.text(NAME_CHAR, min_size=1, max_size=64).map(lambda name: "@" + name),
    ).filter(lambda w: bool(w.strip())),
    max_size=5,
)

#: Arguments that (mostly) start a game: `hard`, `Easy_User 5`, `user user 6 4`, `medium 7x7`.
GAME_ARGS = st.builds(
    lambda kinds, size, glue: glue.join(kinds + size).split(" "),
    st.lists(st.sampled_from([*PLAYER_KINDS, "Hard", "USER"]), min_size=1, max_size=2),
    st.one_of(
        st.just([]),
        BOARD_SIZES.map(lambda b: [str(b.size)]),
        BOARD_SIZES.map(lambda b: [str(b.size), str(b.k)]),
        BOARD_SIZES.map(lambda b: [f"{b.size}x{b.size}"]),
    ),
    st.sampled_from([" ", "_"]),
)
CHALLENGE_ARGS = st.builds(
    lambda size, mention: size + mention,
    st.one_of(st.just([]), BOARD_SIZES.map(lambda b: [str(b.size), str(b.k)])),
    st.one_of(st.just([]), USERNAME.map(lambda name: ["@" + name])),
)


@BOT_SETTINGS
@given(data=st.data())
async def test_garbage_commands_and_inline_queries_change_no_game(
    scene: Scene, caplog: pytest.LogCaptureFixture, data: st.DataObject
) -> None:
    caplog.set_level(logging.WARNING)
    caplog.clear()
    tg = scene.telegram
    garbage = st.builds(command_text, st.sampled_from(["/start", "/challenge"]), COMMAND_ARGS)
    challenges = st.builds(command_text, st.just("/challenge"), CHALLENGE_ARGS)
    games = st.builds(command_text, st.just("/start"), GAME_ARGS)
    texts = st.one_of(garbage, challenges, games).filter(lambda t: utf16_len(t) <= 4096)
    alice_private = st.one_of(garbage, challenges).filter(
        lambda t: (
            utf16_len(t) <= 4096
            and (t.startswith("/challenge") or parse_start_args(t.split()[1:]) is None)
        )
    )
    one_action = st.one_of(
        # Alice's own chat: only commands that cannot start a game (hers would be replaced).
        st.tuples(st.just("command"), st.just(ALICE), st.none(), alice_private),
        st.tuples(
            st.just("command"),
            st.one_of(st.sampled_from([ALICE, BOB]), STRANGERS),
            st.one_of(st.just(GROUP), GROUPS),
            texts,
        ),
        st.tuples(st.just("command"), STRANGERS, st.none(), texts),
        st.tuples(
            st.just("inline"),
            st.one_of(st.sampled_from([ALICE, BOB]), STRANGERS),
            st.none(),
            st.one_of(st.text(WIRE_CHAR, max_size=256), COMMAND_ARGS.map(" ".join)).filter(
                lambda q: utf16_len(q) <= 256
            ),
        ),
    )
    actions = data.draw(st.lists(one_action, min_size=1, max_size=6), label="actions")
    before = set(tg.messages)
    commands: Counter[int] = Counter()
    expected: Counter[tuple[int, str]] = Counter()
    inline_queries = []
    for kind, user, chat, text in actions:
        if kind == "inline":
            inline_queries.append((tg.inline_query(user, text), text))
            continue
        tg.send_text(user, text, chat=chat)
        chat_id = user["id"] if chat is None else chat["id"]
        commands[chat_id] += 1
        tr = texts_for(user.get("language_code"))
        command, *args = text.split()
        spec = parse_start_args(args) if command == "/start" else None
        if spec is not None and chat_id == GROUP["id"] and user in (ALICE, BOB):
            # Alice and Bob play each other there: a second message says that game goes on.
            commands[chat_id] += 1
        where = "a private chat" if chat is None else "a group"
        event(f"{command} in {where}" + (": a game" if spec else ""))
        if command == "/challenge" and chat is None:
            expected[chat_id, tr.GROUP_ONLY.format(bot=tg.bot_username)] += 1
        elif command == "/start" and args and spec is None:
            expected[chat_id, render_bad_parameters(start_problem(args), tr)] += 1
    await settle(tg)

    no_errors(caplog)
    new = [message for key, message in tg.messages.items() if key not in before]
    # One answer per command: a usage message, the menu, or a new board.
    assert Counter(message.chat_id for message in new) == commands
    assert not expected - Counter((message.chat_id, message.text) for message in new)
    for query_id, query in inline_queries:
        results = tg.inline_answers[query_id]["results"]
        # The five games; a query that names no board gets a note on the sizes first.
        named = parse_board_size(query.lower().split()) is not None
        assert len(results) == (5 if named else 6)
        assert named or results[0]["id"] == "sizes"
    assert_every_query_answered(tg)
    assert await scene.snapshot() == scene.baseline


@BOT_SETTINGS
@given(data=st.data())
async def test_refused_taps_leave_an_inline_invitation_usable(
    scene: Scene, caplog: pytest.LogCaptureFixture, data: st.DataObject
) -> None:
    caplog.set_level(logging.WARNING)
    caplog.clear()
    tg = scene.telegram
    board = data.draw(BOARD_SIZES, label="board")
    kind = data.draw(st.sampled_from(["challenge", *LEVELS]), label="invitation")
    if kind == "challenge":
        # Alice challenges anyone as X: Bob joins.
        markup = inline_challenge_keyboard(en, ALICE["id"], "X", board, key=scene_key(tg))
        invited = BOB
    else:
        # Alice plays this AI level: her first tap starts the game.
        markup = inline_ai_keyboard(en, ALICE["id"], kind, board, key=scene_key(tg))
        invited = ALICE
    message = tg.add_inline_message("Alice's invitation", markup.to_dict())
    legit = tg.keyboard(message)[0][0][1]
    assert legit is not None
    user = data.draw(st.one_of(st.sampled_from([ALICE, BOB]), STRANGERS), label="tapper")
    invitation = [button for row in tg.keyboard(message) for _, button in row if button]
    near_misses = st.one_of(
        st.builds(mutate, st.sampled_from(invitation), EDITS),
        INLINE_AI_CELLS,
        INLINE_JOINS,
    ).filter(fits)
    payloads = st.one_of(callback_data(scene), near_misses).filter(lambda d: d != legit)
    payload = data.draw(payloads, label="data")

    await tap(tg, user, message, payload)
    no_errors(caplog)
    # Nothing but the bot's own signed button can start a game on an inline message.
    assert message.edit_count == 0, payload
    # Refused: the invitation must still work for the person it is meant for.
    answer = await tap(tg, invited, message, legit)
    # One edit starts the game; on a board bigger than 3×3 the AI thinks its reply in the
    # background, and may have shown it already.
    shown = {1, 2} if kind in LEVELS and board.size > 3 else {1}
    assert message.edit_count in shown, answer
    assert answer.get("text") in (None, "", en.POPUP_JOINED.format(mark="⭕")), answer
    no_errors(caplog)
    assert_every_query_answered(tg)
    assert await scene.snapshot() == scene.baseline

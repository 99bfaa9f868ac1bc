"""Callback data: every kind of button in one table (`TABLE`, below), declared once: its
prefix, its tap, where it lives, its fields. Packing (`pack`), parsing (`parse_callback_data`,
trusting nothing), the 64-byte limit and each handler's `pattern` all come from the table (see
`bot.wire.codec` for how). The formats, which old buttons in users' chats still carry:

m:<game>:<ply>:<cell>       tap on a board cell (ply = moves played when it was drawn)
r:<game>:<ply>              resign: asks first, the button becomes Yes / No for the tapper
ry:<game>:<ply>:<user>      yes, <user> resigns;  rn:<game>:<ply>:<user>  no, play on
dr:<game>:<ply>             offer a draw (games of two people): stored on the game, the
                            opponent's board offers it to them
dy:<game>:<ply>:<user>      <user> accepts the draw offered;  dn:<game>:<ply>:<user>  declines
h:<game>:<ply> u:<game>:<ply>  hint, undo (games against the AI)
ub:<game>:<ply>[:<block>]   ultimate: show small board <block> (0-8), or all of them
j:<game> d:<game> c:<game>  join (accept), decline, cancel a challenge
rm:<game> rv:<game>         rematch, review a finished game
pc:<game>                   the picture (result card) of a finished game
rp:<game> gf:<game>         replay a finished game (a message stepping through it), its
                            animated picture (a GIF of every move)
rs:<game>:<ply>             the replay message: show the game after <ply> moves
n:<x>:<o>[:<size>:<k>]      start a new game with these player kinds (on a size×size board)
n:user:user:user[:user]     a game for three (four) people; a size may follow as above
nr:…  nk                    "your game is still on": resign it and start n:…, or keep playing
ij:<user>:<mark>:<sig>      inline challenge: join the game of <user>, who plays <mark>
ia:<user>:<level>:<cell>:<sig>  inline game against the AI: <user>'s first move
fy:<user> fn:<user>         /forget: yes, delete everything about <user> / keep it
menu[:<size>:<k>], help     show the menu (for a board size), the help
lang:<code>                 /language: speak this language (a catalog's code) with me
qp:<board>[:<clock>]        play someone on <board> (a `pairing.board_key`: 3x3, 6x6k5,
                            ultimate) with <clock> (a time control: 3+2; else the default):
                            the tapper joins the queue, from their private chat
qr:<board>[:<clock>]        as qp, resigning the tapper's game underway in the chat first
qc                          stop looking (the tapper's own queue entry)
qa:<level>:<board>          play the AI at <level> instead, on <board>
bk:<game>                   don't pair me with my opponent of <game> again
lad:1 lad:0                 show me on the global ladder / take me off it
tj:<t> tl:<t>               join, leave tournament <t> (once running, leaving forfeits the rest)
ts:<t> tc:<t>               the organiser starts tournament <t>; cancels it (once running: ends
                            it early, standings as they are)

Inline data (ij, ia) ends in an HMAC of the rest (`codec.is_authentic`): the bot never sees an
inline message's keyboard, and nobody else can make up a button in someone's name.

The buttons that make something (n, nr, help, pc, rp, gf, qp, qr, qa: a game, a message, a
search) or end a search (qc) act once per message: a tap of one claims it, by its message and
data, for a moment (`bot.games.db.rows.handled_updates.claim_button`), so the second tap of a
double tap makes nothing more. The buttons that redraw their own message (ub, h, u, rs, nk,
menu, lang, fy, fn, bky, bkn, bk, lad) act once a drawing of it, per tapper: a double tap's
second update (the same message, edited last at the same time) draws nothing twice.

A menu's buttons (n, nr, nk, menu, help, lang) end in `:o<user>`: they belong to the person who
asked for the menu (or, under a finished game, to its player), and nobody else's tap does
anything. Data without it is from before buttons had owners: taken in a private chat (only its
user taps there), refused in a group. The queue's buttons (qp, qc, qa, bk, lad) act for the one
who taps and on nothing else of anyone's (qr resigns only the tapper's own game): no owner
is needed.
"""

from __future__ import annotations

import re
from typing import Any

from bot.games.model import PLAYER_KINDS, USER
from bot.games.play.clock_rules import Clock, clock_key, clock_of_key
from bot.games.strangers.pairing import ULTIMATE_KEY, board_key
from bot.locales.texts import available_languages
from bot.wire.codec import (
    MAX_GAME_ID,
    Button,
    Checked,
    Choice,
    Count,
    Flag,
    Number,
    Optional,
    Place,
    Table,
    button,
)
from bot.wire.taps import (
    AssistTap,
    BlockPlayerTap,
    BlockTap,
    CellTap,
    DrawAnswer,
    DrawTap,
    ForgetTap,
    GameTap,
    HelpTap,
    InlineAiTap,
    InlineJoinTap,
    KeepPlayingTap,
    LadderTap,
    LanguageTap,
    MenuTap,
    NewGameTap,
    QueueTap,
    ReplayTap,
    ResignAnswer,
    ResignTap,
    Tap,
    TournamentTap,
)
from core.ai import LEVELS
from core.board import MARKS, Board, BoardSize

# The kinds of data: the prefix before the first colon.
CELL, RESIGN, NEW_GAME = "m", "r", "n"
# "Your game is still on": resign it and start the new one, or keep playing it.
NEW_GAME_RESIGNING, KEEP_PLAYING = "nr", "nk"
RESIGN_YES, RESIGN_NO = "ry", "rn"
DRAW, DRAW_YES, DRAW_NO = "dr", "dy", "dn"
HINT, UNDO = "h", "u"
BLOCK = "ub"
JOIN, DECLINE, CANCEL, REMATCH, REVIEW, PICTURE = "j", "d", "c", "rm", "rv", "pc"
REPLAY, ANIMATION = "rp", "gf"
GAME_ACTIONS = (JOIN, DECLINE, CANCEL, REMATCH, REVIEW, PICTURE, REPLAY, ANIMATION)
#: Of those, the ones that post a message (Rematch is once per game already: one offer).
GAME_MAKERS = (PICTURE, REPLAY, ANIMATION)
REPLAY_STEP = "rs"
INLINE_JOIN, INLINE_AI = "ij", "ia"
FORGET_YES, FORGET_NO = "fy", "fn"
MENU_DATA = "menu"
HELP_DATA = "help"
LANGUAGE = "lang"
PLAY_SOMEONE, STOP_LOOKING, PLAY_AI_INSTEAD, BLOCK_PLAYER, LADDER = "qp", "qc", "qa", "bk", "lad"
BLOCK_YES, BLOCK_NO = "bky", "bkn"
PLAY_SOMEONE_RESIGNING = "qr"
QUEUE_ACTIONS = (PLAY_SOMEONE, PLAY_SOMEONE_RESIGNING, STOP_LOOKING, PLAY_AI_INSTEAD)
TOURNAMENT_JOIN, TOURNAMENT_LEAVE, TOURNAMENT_START, TOURNAMENT_CANCEL = "tj", "tl", "ts", "tc"
TOURNAMENT_ACTIONS = (TOURNAMENT_JOIN, TOURNAMENT_LEAVE, TOURNAMENT_START, TOURNAMENT_CANCEL)

_BIG_BOARD_KEY = re.compile(r"([4-8])x\1k([3-8])")


def _is_board_key(key: str) -> bool:
    """A key of a board the bot offers: 3×3, ultimate, or 4×4..8×8 with 3 ≤ k ≤ size."""
    if key in ("3x3", ULTIMATE_KEY):
        return True
    found = _BIG_BOARD_KEY.fullmatch(key)
    return found is not None and int(found.group(2)) <= int(found.group(1))


def _seated(tap: NewGameTap) -> bool:
    """A game of three or four is one of people only."""
    return tap.seats == 2 or tap.x_kind == tap.o_kind == USER


GAME, ID = Number(MAX_GAME_ID), Number()
KIND, LEVEL = Choice(lambda: PLAYER_KINDS), Choice(lambda: LEVELS)
BOARD_KEY = Checked(_is_board_key)
BLOCK_NUMBER = Optional(Number(8))  # ultimate's small boards, 0-8
CLOCK_KEY = Optional(Checked(lambda key: clock_of_key(key) is not None))
BOARD, CHAT, INLINE, ANYWHERE = Place.BOARD, Place.CHAT, Place.INLINE, Place.ANYWHERE
#: A new game's buttons (n, nr): a menu's, for any board, each starting one game; X's and O's
#: kinds, then one or two more `user`s for a game of three or four.
NEW: dict[str, Any] = {"sized": True, "owned": True, "check": _seated, "once": True}
PLAYERS: dict[str, Any] = {"x_kind": KIND, "o_kind": KIND, "seats": Count(USER, base=2, up_to=2)}
#: Play someone (qp, qr): a search, once per message, for a board and a clock.
SEARCH: dict[str, Any] = {"once": True, "kind": PLAY_SOMEONE}
#: A button that redraws the message it is on: once a drawing (a double tap draws it once).
IN_PLACE: dict[str, Any] = {"once_a_drawing": True}
SEARCHED: dict[str, Any] = {"board": BOARD_KEY, "clock": CLOCK_KEY}

#: Every kind of button: prefix, tap, where it lives, then its values in the order written.
TABLE = Table(
    button(CELL, CellTap, BOARD, game_id=GAME, ply=ID, cell=ID),
    button(RESIGN, ResignTap, BOARD, game_id=GAME, ply=ID),
    button(RESIGN_YES, ResignAnswer, BOARD, confirmed=True, game_id=GAME, ply=ID, user_id=ID),
    button(RESIGN_NO, ResignAnswer, BOARD, confirmed=False, game_id=GAME, ply=ID, user_id=ID),
    button(DRAW, DrawTap, BOARD, game_id=GAME, ply=ID),
    button(DRAW_YES, DrawAnswer, BOARD, accepted=True, game_id=GAME, ply=ID, user_id=ID),
    button(DRAW_NO, DrawAnswer, BOARD, accepted=False, game_id=GAME, ply=ID, user_id=ID),
    *(
        button(a, AssistTap, BOARD, once_a_drawing=True, action=a, game_id=GAME, ply=ID)
        for a in (HINT, UNDO)
    ),
    button(BLOCK, BlockTap, BOARD, once_a_drawing=True, game_id=GAME, ply=ID, block=BLOCK_NUMBER),
    *(
        button(action, GameTap, BOARD, once=action in GAME_MAKERS, action=action, game_id=GAME)
        for action in GAME_ACTIONS
    ),
    button(REPLAY_STEP, ReplayTap, CHAT, **IN_PLACE, game_id=GAME, ply=Number(81)),  # ultimate: 81
    button(NEW_GAME, NewGameTap, CHAT, **NEW, resign_underway=False, **PLAYERS),
    button(NEW_GAME_RESIGNING, NewGameTap, CHAT, **NEW, resign_underway=True, **PLAYERS),
    button(KEEP_PLAYING, KeepPlayingTap, CHAT, owned=True, **IN_PLACE),
    button(MENU_DATA, MenuTap, CHAT, sized=True, owned=True, **IN_PLACE),
    button(HELP_DATA, HelpTap, CHAT, owned=True, once=True),
    button(LANGUAGE, LanguageTap, CHAT, owned=True, **IN_PLACE, code=Choice(available_languages)),
    button(
        INLINE_JOIN,
        InlineJoinTap,
        INLINE,
        sized=True,
        creator_id=ID,
        creator_mark=Choice(lambda: MARKS),
    ),
    button(INLINE_AI, InlineAiTap, INLINE, sized=True, creator_id=ID, level=LEVEL, cell=ID),
    button(FORGET_YES, ForgetTap, ANYWHERE, **IN_PLACE, confirmed=True, user_id=ID),
    button(FORGET_NO, ForgetTap, ANYWHERE, **IN_PLACE, confirmed=False, user_id=ID),
    button(PLAY_SOMEONE, QueueTap, CHAT, **SEARCH, resign_underway=False, **SEARCHED),
    button(PLAY_SOMEONE_RESIGNING, QueueTap, CHAT, **SEARCH, resign_underway=True, **SEARCHED),
    button(STOP_LOOKING, QueueTap, CHAT, once=True, kind=STOP_LOOKING),
    button(
        PLAY_AI_INSTEAD,
        QueueTap,
        CHAT,
        once=True,
        kind=PLAY_AI_INSTEAD,
        level=LEVEL,
        board=BOARD_KEY,
    ),
    # Yes and No first: a tap is written as the first kind whose constants it has.
    button(BLOCK_YES, BlockPlayerTap, ANYWHERE, **IN_PLACE, confirmed=True, game_id=GAME),
    button(BLOCK_NO, BlockPlayerTap, ANYWHERE, **IN_PLACE, confirmed=False, game_id=GAME),
    button(BLOCK_PLAYER, BlockPlayerTap, ANYWHERE, **IN_PLACE, game_id=GAME),
    button(LADDER, LadderTap, ANYWHERE, **IN_PLACE, on=Flag()),
    *(
        button(action, TournamentTap, CHAT, action=action, tournament_id=ID)
        for action in TOURNAMENT_ACTIONS
    ),
)


def parse_callback_data(data: str | None) -> Tap | None:
    """The tap a button carries, or None for anything malformed or forged."""
    read = TABLE.read(data)
    return None if read is None else read[1]


def read_callback_data(data: str | None) -> tuple[Button, Any] | None:
    """The kind of button the data comes from, and its tap (None as above)."""
    return TABLE.read(data)


def pack(tap: Tap, *, key: bytes | None = None) -> str:
    """The callback data of a button for `tap` (an inline tap is signed with `key`)."""
    return TABLE.write(tap, key=key)


def pattern(*kinds: str) -> re.Pattern[str]:
    """Data of these kinds (prefixes), for `CallbackQueryHandler(pattern=...)`."""
    return TABLE.pattern(*kinds)


def play_someone(board: Board | BoardSize, clock: Clock | None = None) -> QueueTap:
    """Play someone on this board (with this time control; None: the bot's default)."""
    control = None if clock is None else clock_key(clock)
    return QueueTap(PLAY_SOMEONE, board_key(board), clock=control)

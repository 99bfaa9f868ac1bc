"""Inline keyboards: the menu, the board in every state, inline-mode invitations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, SwitchInlineQueryChosenChat

from bot.games.model import USER, GameStatus, GameView, PlayerKind
from bot.games.play import draw_rules, resign_rules
from bot.games.play.clock_rules import Clock, control_of
from bot.games.summaries import Replay
from bot.locales.texts import LANGUAGE_NAMES, Texts, available_languages
from bot.views import ultimate as ultimate_view
from bot.views.questions import block_button, draw_answers, resign_answers
from bot.wire.callback_data import (
    ANIMATION,
    CANCEL,
    DECLINE,
    HINT,
    JOIN,
    PICTURE,
    REMATCH,
    REPLAY,
    REVIEW,
    UNDO,
    pack,
    play_someone,
)
from bot.wire.game_spec import AI_MATCH, MANY_BOARDS, MENU_DEEP_LINK, GameSpec
from bot.wire.taps import (
    AssistTap,
    CellTap,
    DrawTap,
    ForgetTap,
    GameTap,
    HelpTap,
    InlineAiTap,
    InlineJoinTap,
    KeepPlayingTap,
    LanguageTap,
    MenuTap,
    NewGameTap,
    ReplayTap,
    ResignTap,
    Tap,
)
from core.ai import LEVELS, Level
from core.board import CLASSIC, EMPTY, SIZES, ULTIMATE, Board, BoardSize, O, X, board_size
from core.positions import is_ultimate
from core.rules import winning_cells


def _button(text: str, data: str | Tap) -> InlineKeyboardButton:
    return InlineKeyboardButton(text, callback_data=data if isinstance(data, str) else pack(data))


def _cell_data(game_id: int, ply: int, cell: int) -> str:
    return pack(CellTap(game_id, ply, cell))


def replace_keyboard(tr: Texts, spec: GameSpec, owner: int) -> InlineKeyboardMarkup:
    """ "Your game is still on": resign it and start `spec`, or keep playing. The `owner`'s."""
    resign = NewGameTap(
        spec.x_kind, spec.o_kind, spec.board, spec.seats, owner, resign_underway=True
    )
    return InlineKeyboardMarkup(
        [
            [_button(tr.BUTTON_REPLACE, resign)],
            [_button(tr.BUTTON_KEEP_PLAYING, KeepPlayingTap(owner))],
        ]
    )


def replace_for_search_keyboard(
    tr: Texts, board: BoardSize, clock: Clock | None, owner: int
) -> InlineKeyboardMarkup:
    """ "Your game is still on" before a search: resign it and look for an opponent on
    `board` with `clock`, or keep playing. The `owner`'s."""
    looking = replace(play_someone(board, clock), resign_underway=True)
    return InlineKeyboardMarkup(
        [
            [_button(tr.BUTTON_REPLACE_SEARCH, looking)],
            [_button(tr.BUTTON_KEEP_PLAYING, KeepPlayingTap(owner))],
        ]
    )


def menu_keyboard(
    tr: Texts, owner: int, *, group: bool = False, board: BoardSize = CLASSIC
) -> InlineKeyboardMarkup:
    """Levels as X, levels as O, two players (a challenge in groups), AI vs AI, the board
    size (a tap redraws the menu for that size), ultimate, games for 3 and 4 people (groups),
    help. Every button is the `owner`'s, who asked for the menu: in a group, another member's
    tap would redraw their menu or start a game from it, so it is refused (anyone can send
    /start for a menu of their own)."""

    def new(
        x_kind: PlayerKind, o_kind: PlayerKind, size: BoardSize = board, seats: int = 2
    ) -> NewGameTap:
        return NewGameTap(x_kind, o_kind, size, seats, owner=owner)

    as_x = [
        _button(tr.MENU_PLAY_X.format(level=tr.LEVEL_NAMES[lv]), new(USER, PlayerKind.of(lv)))
        for lv in LEVELS
    ]
    as_o = [
        _button(tr.MENU_PLAY_O.format(level=tr.LEVEL_NAMES[lv]), new(PlayerKind.of(lv), USER))
        for lv in LEVELS
    ]
    people = tr.MENU_CHALLENGE if group else tr.MENU_TWO_PLAYERS
    sizes = [
        _button(
            (tr.MENU_SIZE_CHOSEN if size == board.size else tr.MENU_SIZE).format(size=size),
            MenuTap(board_size(size) or CLASSIC, owner),
        )
        for size in SIZES
    ]
    many = [
        _button(label, new(USER, USER, MANY_BOARDS[seats], seats))
        for seats, label in ((3, tr.MENU_THREE_PLAYERS), (4, tr.MENU_FOUR_PLAYERS))
    ]
    return InlineKeyboardMarkup(
        [
            as_x,
            as_o,
            [
                _button(people, new(USER, USER)),
                _button(tr.MENU_AI_MATCH, new(*AI_MATCH)),
            ],
            sizes,
            [
                _button(tr.MENU_ULTIMATE_AI, new(USER, PlayerKind.HARD, ULTIMATE)),
                _button(tr.MENU_ULTIMATE_PEOPLE, new(USER, USER, ULTIMATE)),
            ],
            *([many] if group else []),  # games for three and four people: groups only
            # A stranger, now: from a private chat (each gets the board in their own).
            *([] if group else [[_button(tr.MENU_PLAY_SOMEONE, play_someone(board))]]),
            [_button(tr.MENU_HELP, HelpTap(owner))],
        ]
    )


def language_keyboard(current: str, owner: int) -> InlineKeyboardMarkup:
    """Every language the bot speaks, in its own name, two a row; the current one ticked.
    The buttons are the `owner`'s, who sent /language."""
    buttons = [
        _button(("✔ " if code == current else "") + LANGUAGE_NAMES[code], LanguageTap(code, owner))
        for code in available_languages()
    ]
    return InlineKeyboardMarkup([buttons[i : i + 2] for i in range(0, len(buttons), 2)])


def help_keyboard(tr: Texts, bot_username: str, *, group: bool) -> InlineKeyboardMarkup:
    """Ways to play with people: add the bot to a group (private chats only; the group then
    gets the menu), and challenge a friend in a chat the user picks (inline mode)."""
    challenge = InlineKeyboardButton(
        tr.BUTTON_CHALLENGE_FRIEND,
        switch_inline_query_chosen_chat=SwitchInlineQueryChosenChat(
            query="", allow_user_chats=True, allow_group_chats=True
        ),
    )
    add = InlineKeyboardButton(
        tr.BUTTON_ADD_TO_GROUP, url=f"https://t.me/{bot_username}?startgroup={MENU_DEEP_LINK}"
    )
    return InlineKeyboardMarkup([[challenge]] if group else [[add], [challenge]])


def _cell_label(tr: Texts, mark: str, highlighted: bool, last: bool = False) -> str:
    if mark == EMPTY:
        return tr.EMPTY_SYMBOL
    if highlighted:
        return tr.text(f"{mark}_WIN_SYMBOL")
    symbol = tr.text(f"{mark}_SYMBOL")
    # The last move stands out, so a player sees at once where the AI or the opponent went.
    return tr.LAST_MOVE_FRAME.format(mark=symbol) if last else symbol


def _cell_rows(
    tr: Texts,
    board: Board,
    data: Callable[[int], str],
    hint: int | None = None,
    last: int | None = None,
) -> list[list[InlineKeyboardButton]]:
    line = winning_cells(board)
    return [
        [
            _button(
                tr.HINT_SYMBOL
                if cell == hint
                else _cell_label(tr, board[cell], cell in line, cell == last),
                data(cell),
            )
            for cell in range(row * board.size, (row + 1) * board.size)
        ]
        for row in range(board.size)
    ]


def board_keyboard(
    game: GameView,
    tr: Texts,
    hint: int | None = None,
    block: int | None = None,
    seat: str | None = None,
) -> InlineKeyboardMarkup | None:
    """The board, row by row (a hinted cell lit), then the controls that fit the game's
    state. Ultimate shows one small board (`block`, if the player chose it) or the choice.
    `seat`: whose board this is, where each player has their own (strangers'); Resign's
    question shows on the asker's only."""
    if game.is_open:
        first = (
            [
                _button(tr.BUTTON_ACCEPT, GameTap(JOIN, game.id)),
                _button(tr.BUTTON_DECLINE, GameTap(DECLINE, game.id)),
            ]
            if game.invited_player_id or game.invited_username
            else [_button(tr.BUTTON_JOIN, GameTap(JOIN, game.id))]
        )
        return InlineKeyboardMarkup([first, [_button(tr.BUTTON_CANCEL, GameTap(CANCEL, game.id))]])
    if game.status in (GameStatus.CANCELLED, GameStatus.DECLINED):
        return None
    if is_ultimate(game.board):
        rows = ultimate_view.keyboard_rows(game, tr, _button, block, hint)
    else:
        data = partial(_cell_data, game.id, game.ply)
        rows = _cell_rows(tr, game.board, data, hint, game.last_cell)
    if game.is_active and not game.is_ai_match:
        offer, answers = _draw_buttons(game, tr, seat)
        rows.append([*_assist_buttons(game, tr), *_resign_buttons(game, tr, seat), *offer])
        rows.extend([answers] if answers else [])
    elif game.is_finished:
        rows.extend(_after_game_rows(game, tr))
    # No buttons is no keyboard: Telegram refuses an empty one, and an edit without one
    # removes the old buttons (a closed ultimate board, an AI's turn in an ultimate match).
    return InlineKeyboardMarkup(rows) if any(rows) else None


def _resign_buttons(game: GameView, tr: Texts, seat: str | None) -> list[InlineKeyboardButton]:
    """🏳 Resign, or Yes / No while it asks the player whose board this is."""
    asked = resign_rules.resign_question(game)
    if asked is not None and (seat is None or game.mark_of(asked) == seat):
        return resign_answers(game.id, game.ply, asked, tr)
    return [_button(tr.BUTTON_RESIGN, ResignTap(game.id, game.ply))]


def _draw_buttons(
    game: GameView, tr: Texts, seat: str | None
) -> tuple[list[InlineKeyboardButton], list[InlineKeyboardButton]]:
    """Between two people, 🤝 Offer a draw beside Resign; while a draw is offered, Accept /
    Decline in a row of their own, on the board the opponent sees (a group's, or their own),
    for the opponent alone to tap. The offerer's own board keeps 🤝 (a tap says it waits)."""
    if not draw_rules.may_offer_draw(game):
        return [], []
    offer = [_button(tr.BUTTON_DRAW_OFFER, DrawTap(game.id, game.ply))]
    asked = draw_rules.draw_offered_to(game)
    if asked is None or seat not in (None, game.mark_of(asked)):
        return offer, []
    return [], draw_answers(game.id, game.ply, asked, tr)


def _assist_buttons(game: GameView, tr: Texts) -> list[InlineKeyboardButton]:
    """Hint (on the person's turn) and undo (once they have a move to take back), in games
    against the AI; on one phone, undo (once a move was made)."""
    if game.is_one_phone:
        return [_button(tr.BUTTON_UNDO, AssistTap(UNDO, game.id, game.ply))] if game.ply else []
    if not game.is_against_ai or game.kind_to_move != USER:
        return []
    buttons = [_button(tr.BUTTON_HINT, AssistTap(HINT, game.id, game.ply))]
    person = X if game.x_kind == USER else O
    if game.board.count(person):
        buttons.append(_button(tr.BUTTON_UNDO, AssistTap(UNDO, game.id, game.ply)))
    return buttons


def reviewable(game: GameView) -> bool:
    """Whether Review has something to show: on 3×3 (the solved table covers it alone), for
    a person who did not win against the AI; between people, for the one who lost (or
    both, after a draw); on one phone, for both sides."""
    if not game.board.is_classic:
        return False
    if game.is_against_ai:
        person = X if game.x_kind == USER else O
        return game.result != person
    return not game.is_ai_match


def _after_game_rows(game: GameView, tr: Texts) -> list[list[InlineKeyboardButton]]:
    """Under a finished game. Who may tap what (design §6): Rematch is the players' (an offer
    the other one accepts); Play again, Swap sides and Another level carry their player as
    owner, like a menu. Review and Picture are open on purpose: Review answers each tapper
    about their own moves (a pop-up only they see), and Picture posts the card of a finished
    game, which anyone in the chat can ask for with /card anyway; neither changes a game."""
    review = _button(tr.BUTTON_REVIEW, GameTap(REVIEW, game.id))
    size = game.board.shape
    reviews = [review] if reviewable(game) else []
    # No chat to send a picture or a replay to from an inline message.
    inline = game.inline_message_id is not None
    picture = _button(tr.BUTTON_PICTURE, GameTap(PICTURE, game.id))
    replay = _button(tr.BUTTON_REPLAY, GameTap(REPLAY, game.id))
    pictures = [] if inline else [[picture, replay]]
    if game.match is not None and not game.match.is_over:
        # The match goes on, on its next game's board: nothing here starts another game or
        # parts its players.
        shared = [[replay]] if game.is_between_strangers else pictures
        return [row for row in (reviews, *shared) if row]
    if game.is_between_strangers:
        # Each button acts for its tapper alone: queue again, or never meet this one again.
        someone = play_someone(game.board, control_of(game))
        again_someone = _button(tr.BUTTON_PLAY_SOMEONE_AGAIN, someone)
        block = block_button(game.id, tr)
        return [[again_someone], [block, *reviews], [replay]]
    if game.is_between_people:
        return [[_button(tr.BUTTON_REMATCH, GameTap(REMATCH, game.id)), *reviews], *pictures]
    if inline:
        # No chat to post a new game in: only what fits on this message.
        return [reviews] if reviews else []
    # Play again, swap sides, another level: the buttons of the game's player (of an AI
    # match, of whoever started it), like a menu's.
    owner = (
        game.created_by_id
        if game.is_ai_match
        else game.player_id_of(X if game.x_kind == USER else O)
    )
    again = NewGameTap(game.x_kind, game.o_kind, size, owner=owner)
    if game.is_ai_match:
        other_level = _button(tr.BUTTON_OTHER_LEVEL, MenuTap(size, owner))
        return [[_button(tr.BUTTON_WATCH_AGAIN, again)], [other_level], [picture, replay]]
    first = [_button(tr.BUTTON_PLAY_AGAIN, again)]
    if game.x_kind != game.o_kind:
        swapped = NewGameTap(game.o_kind, game.x_kind, size, owner=owner)
        first.append(_button(tr.BUTTON_SWAP_SIDES, swapped))
    second = [_button(tr.BUTTON_OTHER_LEVEL, MenuTap(size, owner))]
    second.extend(reviews)
    return [first, second, [picture, replay]]


def replay_keyboard(replay: Replay, ply: int, tr: Texts) -> InlineKeyboardMarkup:
    """The replay at `ply`: the board (not ultimate's, which its text shows whole), its cells
    showing the same position again; ⏮ ◀ ▶ ⏭ where they lead somewhere; the animation."""
    frame, game_id = replay.at(ply), replay.game.id
    rows: list[list[InlineKeyboardButton]] = []
    if not is_ultimate(frame.board):
        here = pack(ReplayTap(game_id, ply))
        rows = _cell_rows(tr, frame.board, lambda _cell: here, last=frame.last_cell)
    steps = (
        (tr.BUTTON_REPLAY_FIRST, 0),
        (tr.BUTTON_REPLAY_BACK, ply - 1),
        (tr.BUTTON_REPLAY_NEXT, ply + 1),
        (tr.BUTTON_REPLAY_LAST, replay.length),
    )
    rows.append(
        [
            _button(label, ReplayTap(game_id, to))
            for label, to in steps
            if 0 <= to <= replay.length and to != ply
        ]
    )
    rows.append([_button(tr.BUTTON_ANIMATION, GameTap(ANIMATION, game_id))])
    return InlineKeyboardMarkup([row for row in rows if row])


def forget_keyboard(tr: Texts, user_id: int) -> InlineKeyboardMarkup:
    """Confirm or refuse /forget."""
    return InlineKeyboardMarkup(
        [
            [
                _button(tr.BUTTON_FORGET_YES, ForgetTap(True, user_id)),
                _button(tr.BUTTON_FORGET_NO, ForgetTap(False, user_id)),
            ]
        ]
    )


def inline_challenge_keyboard(
    tr: Texts, creator_id: int, mark: str, board: BoardSize = CLASSIC, *, key: bytes
) -> InlineKeyboardMarkup:
    """The invitation posted through inline mode: one Join button (signed with `key`)."""
    join = pack(InlineJoinTap(creator_id, mark, board), key=key)
    return InlineKeyboardMarkup([[_button(tr.BUTTON_JOIN, join)]])


def inline_ai_keyboard(
    tr: Texts, creator_id: int, level: Level, board: BoardSize = CLASSIC, *, key: bytes
) -> InlineKeyboardMarkup:
    """An empty board posted through inline mode; the game starts with the first tap."""

    def data(cell: int) -> str:
        return pack(InlineAiTap(creator_id, level, cell, board), key=key)

    return InlineKeyboardMarkup(_cell_rows(tr, board.empty_board(), data))

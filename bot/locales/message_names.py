"""The name and type of every message a language's `Texts` holds (`tr.WELCOME`), so that mypy
checks each use: a name no catalog has (`tr.WELCOM`) is an error before anything runs.

Each declaration is a message of `bot/locales/messages.pot` (its `msgctxt`), or one of the
language-neutral `SYMBOLS` of `bot/locales/texts.py`; `tests/bot/test_locales.py` fails when a
message has no declaration here or a declaration no message. A message is a `str`; a group of
them (`LEVEL_NAMES.hard`) is a dict by the part after the dot (`tr.LEVEL_NAMES["hard"]`); the
command menu is its `(command, description)` pairs. The messages about a number are no
attributes: they are `PluralName`s, read with `tr.count(name, n)`.

The names are split by how they begin, only to keep each class short; each class is in
alphabetical order.
"""

from __future__ import annotations

from typing import Literal

#: The messages with plural forms (`tr.count("COUNT_GAMES", 5)`).
PluralName = Literal[
    "COUNT_GAMES", "COUNT_MOVES", "COUNT_POINTS", "FORGET_ANONYMIZED", "QUEUE_TIMED_OUT"
]


class _Symbols:
    """The same in every language (`texts.SYMBOLS`)."""

    EMPTY_SYMBOL: str
    HINT_SYMBOL: str
    LAST_MOVE_FRAME: str
    O_SYMBOL: str
    O_WIN_SYMBOL: str
    S_SYMBOL: str
    S_WIN_SYMBOL: str
    T_SYMBOL: str
    T_WIN_SYMBOL: str
    X_SYMBOL: str
    X_WIN_SYMBOL: str


class _Groups:
    """Messages named `GROUP.item` in the catalogs, one dict a group."""

    COMMANDS: tuple[tuple[str, str], ...]
    LEVEL_NAMES: dict[str, str]
    PAGE: dict[str, str]
    POOL_NAMES: dict[str, str]
    TOURNAMENT_FORMATS: dict[str, str]


class _Buttons:
    """`BUTTON_*` and `MENU_*`: what buttons and menus say."""

    BUTTON_ACCEPT: str
    BUTTON_ADD_TO_GROUP: str
    BUTTON_ANIMATION: str
    BUTTON_BLOCK: str
    BUTTON_BLOCK_NO: str
    BUTTON_BLOCK_YES: str
    BUTTON_BOARDS: str
    BUTTON_CANCEL: str
    BUTTON_CHALLENGE_FRIEND: str
    BUTTON_DECLINE: str
    BUTTON_DRAW_ACCEPT: str
    BUTTON_DRAW_DECLINE: str
    BUTTON_DRAW_OFFER: str
    BUTTON_FORGET_NO: str
    BUTTON_FORGET_YES: str
    BUTTON_HINT: str
    BUTTON_JOIN: str
    BUTTON_KEEP_PLAYING: str
    BUTTON_LADDER_JOIN: str
    BUTTON_LADDER_LEAVE: str
    BUTTON_OPEN_BOARD: str
    BUTTON_OPEN_PRIVATE: str
    BUTTON_OTHER_LEVEL: str
    BUTTON_PICTURE: str
    BUTTON_PLAY_AGAIN: str
    BUTTON_PLAY_AI_LEVEL: str
    BUTTON_PLAY_SOMEONE_AGAIN: str
    BUTTON_REMATCH: str
    BUTTON_REPLACE: str
    BUTTON_REPLACE_SEARCH: str
    BUTTON_REPLAY: str
    BUTTON_REPLAY_BACK: str
    BUTTON_REPLAY_FIRST: str
    BUTTON_REPLAY_LAST: str
    BUTTON_REPLAY_NEXT: str
    BUTTON_RESIGN: str
    BUTTON_RESIGN_NO: str
    BUTTON_RESIGN_YES: str
    BUTTON_REVIEW: str
    BUTTON_SWAP_SIDES: str
    BUTTON_UNDO: str
    BUTTON_WATCH_AGAIN: str
    MENU_AI_MATCH: str
    MENU_BUTTON_WEBAPP: str
    MENU_CHALLENGE: str
    MENU_FOUR_PLAYERS: str
    MENU_HELP: str
    MENU_PLAY_O: str
    MENU_PLAY_SOMEONE: str
    MENU_PLAY_X: str
    MENU_SIZE: str
    MENU_SIZE_CHOSEN: str
    MENU_THREE_PLAYERS: str
    MENU_TWO_PLAYERS: str
    MENU_ULTIMATE_AI: str
    MENU_ULTIMATE_PEOPLE: str


class _Popups:
    """`POPUP_*`: the answer to a tap, shown as a pop-up."""

    POPUP_BLOCKED: str
    POPUP_BLOCK_CONFIRM: str
    POPUP_BUSY: str
    POPUP_CONFLICT: str
    POPUP_DRAW_DECLINED: str
    POPUP_DRAW_OFFERED: str
    POPUP_DRAW_OPEN: str
    POPUP_ERROR: str
    POPUP_GAME_BUSY: str
    POPUP_GAME_OVER: str
    POPUP_JOINED: str
    POPUP_JOINED_ALREADY: str
    POPUP_LADDER_OFF: str
    POPUP_LADDER_ON: str
    POPUP_MATCH_GOES_ON: str
    POPUP_NOTHING_TO_UNDO: str
    POPUP_NOT_AGAINST_AI: str
    POPUP_NOT_A_PLAYER: str
    POPUP_NOT_CHALLENGER: str
    POPUP_NOT_INVITED: str
    POPUP_NOT_SAVED: str
    POPUP_NOT_WAITING: str
    POPUP_NOT_YOURS: str
    POPUP_NOT_YOUR_MENU: str
    POPUP_NOT_YOUR_TURN: str
    POPUP_NO_GAME: str
    POPUP_NO_REVIEW: str
    POPUP_OCCUPIED: str
    POPUP_OLD_MENU: str
    POPUP_OWN_GAME: str
    POPUP_REMATCH_CLOSED: str
    POPUP_REMATCH_OFFERED: str
    POPUP_REMATCH_TAKEN: str
    POPUP_RESIGN_CONFIRM: str
    POPUP_STALE: str
    POPUP_TAPPED_ALREADY: str
    POPUP_TOURNAMENT_CONFLICT: str
    POPUP_TOURNAMENT_FORFEIT: str
    POPUP_TOURNAMENT_FULL: str
    POPUP_TOURNAMENT_JOINED: str
    POPUP_TOURNAMENT_JOINED_ALREADY: str
    POPUP_TOURNAMENT_LEFT: str
    POPUP_TOURNAMENT_NOT_JOINED: str
    POPUP_TOURNAMENT_NOT_ORGANISER: str
    POPUP_TOURNAMENT_OVER: str
    POPUP_TOURNAMENT_STARTED: str
    POPUP_TOURNAMENT_TOO_FEW: str
    POPUP_UNKNOWN_BUTTON: str
    POPUP_WAITING: str
    POPUP_WRONG_BOARD: str


class _Others:
    """Every other message."""

    AI_NAME: str
    AI_THINKING: str
    ASSISTED_LINE: str
    BAD_CHALLENGE: str
    BAD_K: str
    BAD_MANY_SIZE: str
    BAD_PARAMETERS: str
    BAD_SIZE: str
    BAD_TOURNAMENT: str
    BAD_ULTIMATE_SIZE: str
    BOARD_POSTED_AGAIN: str
    BOARD_SIZE: str
    CARD_ASSISTED: str
    CARD_CAPTION: str
    CHALLENGE_BOT: str
    CHALLENGE_CANCELLED: str
    CHALLENGE_DECLINED: str
    CHALLENGE_EXPIRED: str
    CHALLENGE_MATCH_HINT: str
    CHALLENGE_YOURSELF: str
    CLOCK_LINE: str
    CONFLICT: str
    DESCRIPTION: str
    DRAW_OFFER_LINE: str
    ERROR_CELL_OUT_OF_RANGE: str
    ERROR_NOT_NUMBERS: str
    ERROR_OCCUPIED: str
    ERROR_OUT_OF_RANGE: str
    ERROR_WRONG_BOARD: str
    FORGET_ASK: str
    FORGET_DONE: str
    FORGET_KEPT: str
    FORGET_NOTHING: str
    GAMES_GO_ON: str
    GAME_ABORTED: str
    GAME_ABORTED_NOTICE: str
    GAME_CLOSED: str
    GAME_LEFT_UNPLAYED: str
    GAME_LEFT_UNPLAYED_NOTICE: str
    GAME_REPLACED: str
    GROUP_HELLO: str
    GROUP_ONLY: str
    HELP: str
    HELP_ASSISTS: str
    HELP_COMMANDS: str
    HELP_MANY: str
    HELP_MATCHES: str
    HELP_ULTIMATE: str
    HINT: str
    INLINE_AI_DESCRIPTION: str
    INLINE_AI_TEXT: str
    INLINE_AI_TITLE: str
    INLINE_CHALLENGE_DESCRIPTION: str
    INLINE_CHALLENGE_O_TITLE: str
    INLINE_CHALLENGE_TEXT: str
    INLINE_CHALLENGE_X_TITLE: str
    INLINE_SIZES_DESCRIPTION: str
    INLINE_SIZES_TEXT: str
    INLINE_SIZES_TITLE: str
    INVITATION: str
    KEEP_PLAYING: str
    LADDER_EMPTY: str
    LADDER_HEADER: str
    LADDER_LINE: str
    LANGUAGE_ASK: str
    LANGUAGE_CHOSEN: str
    MANY_GROUPS_ONLY: str
    MANY_OPEN: str
    MANY_OUT: str
    MARK_TO_MOVE: str
    MATCH_DRAWN: str
    MATCH_LINE: str
    MATCH_OPPONENT_LEFT: str
    MATCH_OPPONENT_RESIGNED: str
    MATCH_OPPONENT_TIMED_OUT: str
    MATCH_STOPPED: str
    MATCH_WON: str
    MATCH_YOU_FLAGGED: str
    NAME_TO_MOVE: str
    NOBODY_YET: str
    NO_AI_GAME: str
    NO_FINISHED_GAME: str
    NO_GAME: str
    NUDGE_LINE: str
    NUDGE_MESSAGE: str
    OPEN_CHALLENGE: str
    OPPONENT_LEFT: str
    OPPONENT_TIMED_OUT: str
    OUTCOME_DRAW: str
    OUTCOME_O_WINS: str
    OUTCOME_X_WINS: str
    PLAY_USAGE: str
    POINTS_FRACTION: str
    POOL_VS_AI: str
    QUEUE_AI_OFFER: str
    QUEUE_CANCELLED: str
    QUEUE_ENDED_AWAY: str
    QUEUE_FOUND: str
    QUEUE_LOOKING: str
    QUEUE_OTHER_GAME: str
    QUEUE_PLAYING: str
    QUEUE_PRIVATE_ONLY: str
    QUEUE_REPLACE_QUESTION: str
    RATING_AI_LEVELS: str
    RATING_EMPTY: str
    RATING_HEADER: str
    RATING_LINE: str
    RATING_LINE_AI: str
    RATING_PROVISIONAL: str
    RATING_ROW: str
    REMATCH_LAPSED: str
    REMATCH_OFFER: str
    REPLACED_NOTICE: str
    REPLACE_QUESTION: str
    REPLAY_MOVE: str
    REPLAY_START: str
    REPLAY_TITLE: str
    RESULT_AI_WON: str
    RESULT_DRAW: str
    RESULT_DRAW_AGREED: str
    RESULT_MARK_RESIGNED: str
    RESULT_MARK_WON: str
    RESULT_NAME_LEFT: str
    RESULT_NAME_RESIGNED: str
    RESULT_NAME_TIMED_OUT: str
    RESULT_NAME_WON: str
    RESULT_YOU_LOST: str
    RESULT_YOU_REPLACED: str
    RESULT_YOU_RESIGNED: str
    RESULT_YOU_WON: str
    REVIEW_MISTAKE: str
    REVIEW_PERFECT: str
    REVIEW_WON: str
    REVIEW_WOULD_DRAW: str
    REVIEW_WOULD_LOSE_LATER: str
    REVIEW_WOULD_WIN: str
    REVIEW_WOULD_WIN_SOONER: str
    SHORT_DESCRIPTION: str
    SORRY_ERROR: str
    STATS_ASSISTED: str
    STATS_EMPTY: str
    STATS_HEADER: str
    STATS_HUMANS: str
    STATS_LINE: str
    STATS_STREAK: str
    STATS_TOTAL: str
    STATS_UNRATED: str
    STOPPED: str
    STOPPED_AI_MATCH: str
    STOPPED_CHALLENGE: str
    STRANGER_ROOM: str
    TOP_EMPTY: str
    TOP_HEADER: str
    TOP_LINE: str
    TOURNAMENT_BYE: str
    TOURNAMENT_CANCEL: str
    TOURNAMENT_CANCELLED: str
    TOURNAMENT_END: str
    TOURNAMENT_ENDED_EARLY: str
    TOURNAMENT_GAME_ABORTED: str
    TOURNAMENT_GROUP_ONLY: str
    TOURNAMENT_JOIN: str
    TOURNAMENT_LEAVE: str
    TOURNAMENT_LINE: str
    TOURNAMENT_PLAYERS: str
    TOURNAMENT_ROUND: str
    TOURNAMENT_SIGNUP: str
    TOURNAMENT_START: str
    TOURNAMENT_TIEBREAK: str
    TOURNAMENT_TITLE: str
    TOURNAMENT_TITLE_CLOCK: str
    TOURNAMENT_UNDERWAY: str
    TOURNAMENT_WINNER: str
    TOURNAMENT_WITHDRAWN: str
    TWO_PLAYERS_TITLE: str
    ULTIMATE_CHOOSE: str
    ULTIMATE_CHOSEN: str
    ULTIMATE_LINE: str
    ULTIMATE_PLAY_IN: str
    UNDONE: str
    UNDONE_LAST: str
    UNRATED_FORCED_WIN: str
    VERSUS: str
    WELCOME: str
    WELCOME_COMMANDS: str
    WELCOME_GROUP: str
    YOUR_MOVE: str
    YOU_FLAGGED: str


class Messages(_Symbols, _Groups, _Buttons, _Popups, _Others):
    """Every message and symbol of one language, declared: the base of `texts.Texts`, which
    fills them in from the catalogs."""

"""The page's words, in the player's language, from the same catalogs as the chat (pure).

The page asks for them once (`GET /app/api/texts`) and fills their `{placeholders}` itself.
Where the chat already says a thing (a refusal's pop-up, a button, a result) the page says it
in the same words; what only the page says is the catalogs' `PAGE.*` group.
"""

from __future__ import annotations

from typing import Any

from bot.locales.texts import Texts, texts_for
from bot.webapp.state import PageStatus

#: The chat's messages the page says too, by their names in the catalogs.
SHARED = (
    "BOARD_SIZE",
    "ULTIMATE_LINE",
    "ULTIMATE_PLAY_IN",
    "AI_NAME",
    "NAME_TO_MOVE",
    "AI_THINKING",
    "POPUP_WAITING",
    "RESULT_YOU_WON",
    "RESULT_DRAW",
    "RESULT_DRAW_AGREED",
    "RESULT_YOU_RESIGNED",
    "RESULT_NAME_WON",
    "RESULT_NAME_RESIGNED",
    "RESULT_NAME_TIMED_OUT",
    "YOU_FLAGGED",
    "GAME_CLOSED",
    "GAME_REPLACED",
    "GAME_LEFT_UNPLAYED",
    "RESULT_NAME_LEFT",
    "RESULT_YOU_REPLACED",
    "RESULT_YOU_LOST",
    "RESULT_MARK_WON",
    "RESULT_MARK_RESIGNED",
    "RESULT_AI_WON",
    "GAME_ABORTED",
    "TOURNAMENT_GAME_ABORTED",
    "X_SYMBOL",
    "O_SYMBOL",
    "T_SYMBOL",
    "S_SYMBOL",
    "BUTTON_HINT",
    "BUTTON_UNDO",
    "BUTTON_RESIGN",
    "BUTTON_RESIGN_YES",
    "BUTTON_RESIGN_NO",
    "BUTTON_DRAW_OFFER",
    "BUTTON_DRAW_ACCEPT",
    "BUTTON_DRAW_DECLINE",
    "BUTTON_PLAY_AGAIN",
    "BUTTON_SWAP_SIDES",
    "BUTTON_REMATCH",
    "POPUP_RESIGN_CONFIRM",
    "UNDONE",
    "UNDONE_LAST",
    "MENU_SIZE",
    "BUTTON_REPLAY",
    "BUTTON_REPLAY_FIRST",
    "BUTTON_REPLAY_BACK",
    "BUTTON_REPLAY_NEXT",
    "BUTTON_REPLAY_LAST",
    "REPLAY_START",
    "REPLAY_MOVE",
    "MATCH_LINE",
    "MATCH_WON",
    "MATCH_DRAWN",
    "MATCH_STOPPED",
    "MENU_ULTIMATE_AI",
    "MENU_TWO_PLAYERS",
    "MENU_AI_MATCH",
    "MENU_PLAY_SOMEONE",
    "BUTTON_CHALLENGE_FRIEND",
    "BUTTON_OTHER_LEVEL",
    "BUTTON_WATCH_AGAIN",
    "BUTTON_REVIEW",
    "BUTTON_PICTURE",
    "BUTTON_JOIN",
    "BUTTON_ACCEPT",
    "BUTTON_DECLINE",
    "BUTTON_CANCEL",
    "REMATCH_OFFER",
    "MANY_OPEN",
    "MANY_OUT",
    "INVITATION",
    "OPEN_CHALLENGE",
    "POPUP_NO_REVIEW",
    "CHALLENGE_DECLINED",
    "CHALLENGE_CANCELLED",
    "RATING_LINE",
    "RATING_LINE_AI",
)

#: A refusal's status (bot.games.model.MoveStatus) → the pop-up the chat shows for it.
REFUSALS = {
    "game_over": "POPUP_GAME_OVER",
    "stale": "POPUP_STALE",
    "occupied": "POPUP_OCCUPIED",
    "not_your_turn": "POPUP_NOT_YOUR_TURN",
    "not_a_player": "POPUP_NOT_A_PLAYER",
    "no_game": "POPUP_NO_GAME",
    "conflict": "POPUP_CONFLICT",
    "waiting": "POPUP_WAITING",
    "rematch_taken": "POPUP_REMATCH_TAKEN",
    "rematch_offered": "POPUP_REMATCH_OFFERED",
    "rematch_closed": "POPUP_REMATCH_CLOSED",
    "not_against_ai": "POPUP_NOT_AGAINST_AI",
    "nothing_to_undo": "POPUP_NOTHING_TO_UNDO",
    "wrong_board": "POPUP_WRONG_BOARD",
    "not_invited": "POPUP_NOT_INVITED",
    "own_game": "POPUP_OWN_GAME",
    "joined_already": "POPUP_JOINED_ALREADY",
    "asked_already": "POPUP_RESIGN_CONFIRM",
}


def page_texts(language: str | None) -> dict[str, Any]:
    """What `GET /app/api/texts` answers: the language, its direction and every word."""
    tr = texts_for(language)
    words: dict[str, Any] = {key: tr.text(key) for key in SHARED}
    words.update({f"PAGE.{key}": text for key, text in tr.PAGE.items()})
    words["LEVEL_NAMES"] = dict(tr.LEVEL_NAMES)
    words["REFUSALS"] = {status: tr.text(key) for status, key in REFUSALS.items()}
    words["REFUSALS"]["error"] = tr.POPUP_ERROR
    # A new game beyond the user's pace (bot.webapp.pace): only the page has one.
    words["REFUSALS"][PageStatus.TOO_FAST] = tr.PAGE["too_fast"]
    return {"language": _html_language(tr), "rtl": tr.rtl, "texts": words}


def refusal(tr: Texts, status: str) -> str:
    """A refusal in words, as the chat's pop-up says it."""
    return tr.text(REFUSALS.get(status, "POPUP_ERROR"))


def _html_language(tr: Texts) -> str:
    """The page's `lang`: `pt-BR` for the catalog `pt_BR`."""
    return tr.code.replace("_", "-")

"""What Telegram refuses, as pure checks for the fake Bot API (`fake_telegram.py`).

Each rule quotes the sentence of the Bot API documentation (https://core.telegram.org/bots/api,
and the Bots FAQ for flood limits) it comes from, and refuses with the error text Telegram
gives. `tests/support/test_fake_rules.py` has a test per rule: the bad request refused, the
nearest good one taken.
"""

from __future__ import annotations

import logging
import re
from typing import Any

log = logging.getLogger("fake_telegram")

JSONDict = dict[str, Any]

#: InlineKeyboardButton: "You must use exactly one of the optional fields."
BUTTON_KINDS = (
    "url",
    "callback_data",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
#: Telegram's limits on inline keyboards (refused past them: "too many buttons" is refused
#: as a markup Telegram cannot take).
MAX_ROW_BUTTONS = 8
MAX_BUTTONS = 100
#: answerCallbackQuery text: "Text of the notification. If not specified, nothing will be shown
#: to the user, 0-200 characters".
MAX_POPUP = 200
#: sendPhoto caption: "Photo caption ..., 0-1024 characters after entities parsing".
MAX_CAPTION = 1024
#: answerInlineQuery results: "A JSON-serialized array of results for the inline query";
#: "No more than 50 results per query are allowed."
MAX_INLINE_RESULTS = 50
#: InlineQueryResult id: "Unique identifier for this result, 1-64 Bytes".
MAX_RESULT_ID = 64
#: next_offset: "Offset length can't exceed 64 bytes."
MAX_NEXT_OFFSET = 64
#: setMyCommands: "At most 100 commands can be specified."; BotCommand description:
#: "Description of the command; 1-256 characters."
MAX_COMMANDS = 100
MAX_COMMAND_DESCRIPTION = 256
#: setMyDescription "0-512 characters", setMyShortDescription "0-120 characters",
#: setMyName "0-64 characters".
MAX_PROFILE_TEXT = {"description": 512, "short_description": 120, "name": 64}
#: How long Telegram waits for a callback query's answer (the client's progress bar), after
#: which "query is too old".
CALLBACK_ANSWER_DEADLINE = 15.0

#: The InlineQueryResult types (the `type` field of each).
INLINE_RESULT_TYPES = frozenset(
    {
        "article",
        "photo",
        "gif",
        "mpeg4_gif",
        "video",
        "audio",
        "voice",
        "document",
        "location",
        "venue",
        "contact",
        "game",
        "sticker",
    }
)
_URL_RE = re.compile(r"(https?|tg)://[^\s/$.?#][^\s]*", re.IGNORECASE)

CANT_PARSE_REPLY_MARKUP = "Bad Request: can't parse reply keyboard markup JSON object"
CANT_PARSE_INLINE_MARKUP = "Bad Request: can't parse inline keyboard markup JSON object"


class Refused(Exception):
    """A request Telegram would refuse: its HTTP code and description."""

    def __init__(self, error_code: int, description: str) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description


def bad(description: str) -> Refused:
    return Refused(400, f"Bad Request: {description}")


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def check_inline_keyboard(
    value: Any, *, edit: bool, private: bool, test_environment: bool = False
) -> JSONDict:
    """A reply_markup that must be an InlineKeyboardMarkup ("inline_keyboard: Array of button
    rows, each represented by an Array of InlineKeyboardButton objects"), with at least one
    button: an empty one is refused, and an edit without reply_markup removes the keyboard.
    `private`: the message is in a private chat between a user and the bot;
    `test_environment`: Telegram's test environment, where "Mini Apps ... can use HTTP links
    without TLS" (Mini Apps documentation, "Testing Mini Apps")."""
    cant_parse = bad(
        "can't parse inline keyboard markup JSON object"
        if edit
        else "can't parse reply keyboard markup JSON object"
    )
    if not isinstance(value, dict):
        raise cant_parse
    rows = value.get("inline_keyboard")
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise cant_parse
    buttons = [button for row in rows for button in row]
    if not buttons or not all(rows):
        raise cant_parse
    if max(len(row) for row in rows) > MAX_ROW_BUTTONS or len(buttons) > MAX_BUTTONS:
        raise bad("BUTTONS_TOO_MUCH")
    for button in buttons:
        _check_button(button, private, test_environment)
    return value


def _check_button(button: Any, private: bool, test_environment: bool) -> None:
    if not isinstance(button, dict) or not isinstance(button.get("text"), str):
        raise bad('can\'t parse inline keyboard button: Field "text" must be of type String')
    if not button["text"].strip():
        # "text: Label text on the button": Telegram refuses a button with nothing on it.
        raise bad("BUTTON_TEXT_INVALID")
    kinds = [kind for kind in BUTTON_KINDS if kind in button]
    if not kinds:
        raise bad(
            "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
        )
    if len(kinds) > 1:
        # "You must use exactly one of the optional fields."
        raise bad("can't parse inline keyboard button: exactly one of its fields is expected")
    if "callback_data" in button:
        data = button["callback_data"]
        # "callback_data: Data to be sent in a callback query to the bot when the button is
        # pressed, 1-64 bytes"
        if not isinstance(data, str) or not 1 <= len(data.encode()) <= 64:
            raise bad("BUTTON_DATA_INVALID")
    if "url" in button and not (
        isinstance(button["url"], str) and _URL_RE.fullmatch(button["url"])
    ):
        # "url: HTTP or tg:// URL to be opened when the button is pressed."
        raise bad("BUTTON_URL_INVALID")
    if "web_app" in button:
        web_app = button["web_app"]
        url = web_app.get("url") if isinstance(web_app, dict) else None
        if not private:
            # "web_app: ... Available only in private chats between a user and the bot."
            raise bad("BUTTON_TYPE_INVALID")
        check_web_app_url(url, test_environment)


def check_web_app_url(url: Any, test_environment: bool) -> None:
    """WebAppInfo url: "An HTTPS URL of a Web App to be opened"; plain HTTP only in the test
    environment."""
    schemes = ("https://", "http://") if test_environment else ("https://",)
    if not isinstance(url, str) or not url.lower().startswith(schemes):
        raise bad("BUTTON_URL_INVALID")


def check_send_markup(
    value: Any, *, private: bool, test_environment: bool = False
) -> JSONDict | None:
    """reply_markup of sendMessage / sendPhoto: "Additional interface options. A
    JSON-serialized object for an inline keyboard, custom reply keyboard, instructions to
    remove a reply keyboard or to force a reply from the user." Anything else is refused;
    the inline keyboard to keep on the message (None: none)."""
    if value is None or value == "":
        return None
    if not isinstance(value, dict):
        raise bad("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in value:
        return check_inline_keyboard(
            value, edit=False, private=private, test_environment=test_environment
        )
    keyboard = value.get("keyboard")
    if "keyboard" in value:
        if (
            not isinstance(keyboard, list)
            or not keyboard
            or not all(isinstance(row, list) and row for row in keyboard)
        ):
            raise bad("can't parse reply keyboard markup JSON object")
        return None
    if value.get("remove_keyboard") is True or value.get("force_reply") is True:
        return None
    raise bad("can't parse reply keyboard markup JSON object")


def check_popup(params: JSONDict) -> None:
    text = params.get("text")
    if text is not None and _utf16_len(str(text)) > MAX_POPUP:
        raise bad("MESSAGE_TOO_LONG")


def check_caption(plain: str) -> None:
    if _utf16_len(plain) > MAX_CAPTION:
        raise bad("message caption is too long")


def check_image(data: bytes) -> None:
    """sendPhoto: "The photo must be at most 10 MB in size."; a file that is no picture
    Telegram cannot process."""
    if len(data) > 10 * 1024 * 1024:
        raise bad("PHOTO_INVALID_DIMENSIONS")
    signatures = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")
    webp = data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    if not (webp or data.startswith(signatures)):
        raise bad("IMAGE_PROCESS_FAILED")


def check_animation(data: bytes) -> None:
    """sendAnimation: "Animation to send … Bots can currently send animation files of up to
    50 MB in size"; an animation is a GIF or an H.264/MPEG-4 AVC video without sound (an
    MP4's `ftyp` box first): anything else Telegram cannot process as one."""
    if len(data) > 50 * 1024 * 1024:
        raise bad("Request Entity Too Large")
    if not (data.startswith((b"GIF87a", b"GIF89a")) or data[4:8] == b"ftyp"):
        raise bad("wrong file type")


def check_inline_results(params: JSONDict) -> None:
    results = params.get("results")
    if not isinstance(results, list):
        raise bad("can't parse inline query results JSON object")
    if len(results) > MAX_INLINE_RESULTS:
        raise bad("RESULTS_TOO_MUCH")
    ids: list[str] = []
    for result in results:
        if not isinstance(result, dict) or result.get("type") not in INLINE_RESULT_TYPES:
            raise bad("can't parse inline query result: unsupported result type")
        result_id = str(result.get("id") or "")
        if not 1 <= len(result_id.encode()) <= MAX_RESULT_ID:
            raise bad("RESULT_ID_INVALID")
        ids.append(result_id)
        content = result.get("input_message_content")
        if isinstance(content, dict) and "message_text" in content:
            # InputTextMessageContent message_text: "Text of the message to be sent,
            # 1-4096 characters"
            text = str(content.get("message_text") or "")
            if not text.strip():
                raise bad("MESSAGE_EMPTY")
            if _utf16_len(text) > 4096:
                raise bad("MESSAGE_TOO_LONG")
        if result.get("reply_markup") is not None:
            # An inline message is in no chat: web_app buttons are refused there.
            check_inline_keyboard(result["reply_markup"], edit=False, private=False)
    if len(ids) != len(set(ids)):
        raise bad("RESULT_ID_DUPLICATE")
    offset = params.get("next_offset")
    if offset is not None and len(str(offset).encode()) > MAX_NEXT_OFFSET:
        raise bad("NEXT_OFFSET_INVALID")


def check_commands(commands: Any) -> None:
    if not isinstance(commands, list):
        raise bad("can't parse commands JSON object")
    if len(commands) > MAX_COMMANDS:
        raise bad("BOT_COMMANDS_TOO_MUCH")
    for command in commands:
        description = str(command.get("description", "")) if isinstance(command, dict) else ""
        if not description.strip():
            raise bad("command description is empty")
        if len(description) > MAX_COMMAND_DESCRIPTION:
            raise bad("BOT_COMMAND_DESCRIPTION_INVALID")


def check_profile_text(kind: str, value: str) -> None:
    if len(value) > MAX_PROFILE_TEXT[kind]:
        raise bad(f"BOT_{kind.upper()}_INVALID")

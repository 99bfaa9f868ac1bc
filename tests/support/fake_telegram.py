"""A fake Telegram Bot API server for offline end-to-end tests.

The real python-telegram-bot ``Bot``/``Application`` talks plain HTTP to it::

    async with FakeTelegram() as tg:
        app = ApplicationBuilder().token(tg.token).base_url(tg.base_url).build()
        ...
        alice = tg.user(1001, "Alice")
        tg.send_text(alice, "/start")
        call = await tg.wait_for("sendMessage")  # a Call: .method, .params, .ok, .result
        query_id = tg.tap_button(alice, tg.last_bot_message(alice["id"]), "Play")
        answer = await tg.answer_to(query_id)  # the answerCallbackQuery params
        await tg.wait_idle()  # nothing else happens

It speaks the Bot API envelope (``{"ok": true, "result": ...}`` and
``{"ok": false, "error_code": ..., "description": ...}``), keeps the state of every message the
bot sent (text, inline keyboard, edits, deletions), validates what Telegram validates for the
methods a game bot uses (unknown or unmodified messages, stale callback queries, broken HTML,
inline keyboards), records every call, and serves ``getUpdates`` with real long polling.

Helpers are synchronous where they only queue updates; they must be called from the event loop
that runs the server (the test's loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import html
import inspect
import itertools
import json
import math
import re
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support import telegram_rules as rules
from tests.support.telegram_rules import Refused
from tests.support.time_scale import time_scale as current_time_scale

JSONDict = dict[str, Any]
Handler = Callable[[JSONDict], Any]

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
QUERY_INVALID = "Bad Request: query is too old and response timeout expired or query ID is invalid"
EDIT_NOT_FOUND = "Bad Request: message to edit not found"
DELETE_NOT_FOUND = "Bad Request: message to delete not found"
REPLY_NOT_FOUND = "Bad Request: message to be replied not found"
CHAT_NOT_FOUND = "Bad Request: chat not found"
#: getChatMember for a user the bot never met: "It can return 'User not found' only if the
#: user never contacted the bot" (Telegram's levlam, tdlib/telegram-bot-api#332).
USER_NOT_FOUND = "Bad Request: user not found"
TEXT_EMPTY = "Bad Request: message text is empty"
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
BLOCKED = "Forbidden: bot was blocked by the user"
KICKED = "Forbidden: bot was kicked from the group chat"
NOT_MEMBER = "Forbidden: bot is not a member of the group chat"
POLL_CONFLICT = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance is "
    "running"
)
WEBHOOK_CONFLICT = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete "
    "the webhook first"
)

#: Parameters whose string values must never be JSON-decoded (``"123"`` stays a string).
_STRING_PARAMS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "callback_query_id",
        "inline_query_id",
        "inline_message_id",
        "url",
        "action",
        "description",
        "short_description",
        "name",
        "title",
        "next_offset",
        "switch_pm_text",
        "switch_pm_parameter",
        "query",
        "language_code",
        "message_effect_id",
        "business_connection_id",
        "emoji",
        "secret_token",
        "ip_address",
        "first_name",
        "last_name",
    }
)
_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
_HTML_TAGS = frozenset(
    {
        "b",
        "strong",
        "i",
        "em",
        "u",
        "ins",
        "s",
        "strike",
        "del",
        "a",
        "code",
        "pre",
        "span",
        "tg-spoiler",
        "tg-emoji",
        "blockquote",
    }
)
#: Update types Telegram does not deliver unless explicitly listed in ``allowed_updates``.
_OPT_IN_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
_TAG_RE = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)([^<>]*)>")
_COMMAND_RE = re.compile(r"/[A-Za-z0-9_]{1,32}(?:@[A-Za-z][A-Za-z0-9_]{2,31})?")
_BOT_COMMAND_NAME_RE = re.compile(r"[a-z0-9_]{1,32}")
_TOKEN_PATH_RE = re.compile(r"/bot([^/]+)/([^/]*)/?")


class FakeApiError(Exception):
    """Raise from a method handler to answer with a Telegram error envelope."""

    def __init__(
        self, error_code: int, description: str, parameters: JSONDict | None = None
    ) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.parameters = parameters

    def envelope(self) -> JSONDict:
        """The JSON body Telegram would send for this error."""
        body: JSONDict = {"ok": False, "error_code": self.error_code}
        body["description"] = self.description
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def _bad(description: str) -> FakeApiError:
    return FakeApiError(400, f"Bad Request: {description}")


@dataclass
class Call:
    """One recorded Bot API request and what the fake answered."""

    index: int
    method: str
    params: JSONDict
    ok: bool
    result: Any = None
    error_code: int | None = None
    description: str | None = None
    started: float = 0.0
    finished: float = 0.0

    def __repr__(self) -> str:
        outcome = "ok" if self.ok else f"{self.error_code} {self.description!r}"
        params = json.dumps(self.params, ensure_ascii=False, default=str)
        if len(params) > 160:
            params = params[:157] + "..."
        return f"<Call #{self.index} {self.method} {params} -> {outcome}>"


@dataclass
class StoredMessage:
    """Current state of a message the bot sent (or of an inline message)."""

    chat: JSONDict | None
    message_id: int | None
    text: str
    parse_mode: str | None
    reply_markup: JSONDict | None
    sender: JSONDict
    date: int
    plain_text: str = ""
    reply_to_message: JSONDict | None = None
    inline_message_id: str | None = None
    edit_count: int = 0
    edit_date: int | None = None
    deleted: bool = False
    history: list[tuple[str, JSONDict | None]] = field(default_factory=list)
    #: The uploaded picture of a photo message (its `text` is the caption).
    photo: bytes | None = None
    #: The uploaded GIF of an animation message (its `text` is the caption).
    animation: bytes | None = None
    #: The formatting the user sees (HTML entities, normalised), for "not modified".
    entities: tuple[Any, ...] = ()

    @property
    def is_media(self) -> bool:
        """A photo or an animation: its words are a caption, which editMessageText cannot
        reach."""
        return self.photo is not None or self.animation is not None

    @property
    def mentioned_ids(self) -> list[int]:
        """The users the message mentions by id, as Telegram makes a `text_mention` of an
        HTML link to `tg://user?id=<id>` (Telegram notifies them)."""
        links = (attrs for kind, _start, _end, attrs in self.entities if kind == "a")
        found = (re.fullmatch(r'href="tg://user\?id=(\d+)"', attrs) for attrs in links)
        return [int(match.group(1)) for match in found if match is not None]

    @property
    def chat_id(self) -> int | None:
        """Id of the chat the message is in (None for inline messages)."""
        return None if self.chat is None else self.chat["id"]

    @property
    def key(self) -> tuple[int, int] | None:
        """``(chat_id, message_id)``, the key in :attr:`FakeTelegram.messages`."""
        if self.chat is None or self.message_id is None:
            return None
        return (self.chat["id"], self.message_id)

    def to_dict(self) -> JSONDict:
        """The Telegram ``Message`` object for the current state."""
        msg: JSONDict = {
            "message_id": self.message_id,
            "from": dict(self.sender),
            "chat": dict(self.chat or {}),
            "date": self.date,
        }
        if self.photo is not None:
            size = {"file_id": f"photo-{self.message_id}", "file_unique_id": f"p{self.message_id}"}
            msg["photo"] = [{**size, "width": 900, "height": 1100, "file_size": len(self.photo)}]
        elif self.animation is not None:
            # "Message.animation: … For backward compatibility, when this field is set, the
            # document field will also be set."
            file = {
                "file_id": f"animation-{self.message_id}",
                "file_unique_id": f"a{self.message_id}",
                "file_name": "game.gif",
                "mime_type": "image/gif",
                "file_size": len(self.animation),
            }
            msg["animation"] = {**file, "width": 450, "height": 550, "duration": 1}
            msg["document"] = file
        else:
            msg["text"] = self.plain_text
        if self.is_media and self.plain_text:
            msg["caption"] = self.plain_text
        if self.edit_date is not None:
            msg["edit_date"] = self.edit_date
        if self.reply_to_message is not None:
            msg["reply_to_message"] = copy.deepcopy(self.reply_to_message)
        if self.reply_markup is not None:
            msg["reply_markup"] = copy.deepcopy(self.reply_markup)
        return msg


MessageRef = StoredMessage | Mapping[str, Any] | tuple[int, int] | Any
Predicate = Callable[[Call], bool] | str


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _decode_value(name: str, value: Any) -> Any:
    """Decode a form/JSON parameter value the way the Bot API does for its declared type."""
    if not isinstance(value, str) or name in _STRING_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


#: HTML tags that make the same entity.
_SAME_ENTITY = {"strong": "b", "em": "i", "ins": "u", "strike": "s", "del": "s"}

Entity = tuple[str, int, int, str]


def _html_to_plain(text: str) -> str:
    """Validate Telegram-HTML and return the plain text; raise 400 on broken markup."""
    return _parse_html(text)[0]


def _parse_html(text: str) -> tuple[str, tuple[Entity, ...]]:
    """Validate Telegram-HTML; the plain text and its entities (kind, start, end, attributes),
    which is what a user sees: `<b>` and `<strong>` are one entity, `&amp;` and `&#38;` one
    character. Raises 400 on broken markup."""
    out: list[str] = []
    stack: list[tuple[str, int, str]] = []
    entities: list[Entity] = []
    pos = 0
    length = 0

    def fail(detail: str) -> FakeApiError:
        return _bad(f"can't parse entities: {detail}")

    def emit(chunk: str) -> None:
        nonlocal length
        plain = html.unescape(chunk)
        out.append(plain)
        length += _utf16_len(plain)

    while True:
        lt = text.find("<", pos)
        if lt == -1:
            emit(text[pos:])
            break
        emit(text[pos:lt])
        offset = len(text[:lt].encode())
        match = _TAG_RE.match(text, lt)
        if match is None:
            word = re.match(r"</?([^\s<>]*)", text[lt:])
            name = word.group(1) if word else ""
            raise fail(f'Unsupported start tag "{name}" at byte offset {offset}')
        closing, name, attrs = match.group(1), match.group(2).lower(), match.group(3)
        if not closing:
            if name not in _HTML_TAGS:
                raise fail(f'Unsupported start tag "{name}" at byte offset {offset}')
            if name == "span" and "tg-spoiler" not in attrs:
                raise fail('Tag "span" must have class "tg-spoiler"')
            stack.append((name, length, attrs.strip()))
        else:
            if not stack:
                raise fail(f"Unexpected end tag at byte offset {offset}")
            expected, start, opened_with = stack.pop()
            if expected != name:
                raise fail(
                    f'Unmatched end tag at byte offset {offset}, expected "</{expected}>", '
                    f'found "</{name}>"'
                )
            kind = _SAME_ENTITY.get(name, name)
            if length > start:
                entities.append((kind, start, length, opened_with if kind == "a" else ""))
        pos = match.end()
    if stack:
        raise fail(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    return "".join(out), tuple(sorted(entities))


def _is_private(chat: Mapping[str, Any]) -> bool:
    return chat.get("type") == "private"


def _chat_member(stored: Mapping[str, Any], user: Mapping[str, Any]) -> JSONDict:
    """A ChatMember object of the Bot API (core.telegram.org/bots/api#chatmember) with
    every field its kind requires: ChatMemberOwner, -Administrator, -Member, -Restricted,
    -Left or -Banned, by `status`."""
    status = stored["status"]
    member: JSONDict = {"status": status, "user": dict(user)}
    if status == "creator":
        member["is_anonymous"] = False
    elif status == "administrator":
        rights = ("manage_chat", "delete_messages", "manage_video_chats", "restrict_members")
        rights += ("promote_members", "change_info", "invite_users", "post_stories")
        rights += ("edit_stories", "delete_stories")
        member.update({"can_be_edited": False, "is_anonymous": False})
        member.update({f"can_{right}": True for right in rights})
    elif status == "restricted":
        rights = ("send_messages", "send_audios", "send_documents", "send_photos")
        rights += ("send_videos", "send_video_notes", "send_voice_notes", "send_polls")
        rights += ("send_other_messages", "add_web_page_previews", "change_info")
        rights += ("invite_users", "pin_messages", "manage_topics", "react_to_messages")
        rights += ("edit_tag",)
        member.update({f"can_{right}": False for right in rights})
        member.update({"is_member": bool(stored.get("is_member")), "until_date": 0})
    elif status == "kicked":
        member["until_date"] = 0
    return member


def _entities_of(text: str, parse_mode: str | None) -> tuple[Any, ...]:
    """The formatting of a text as the user sees it (Markdown is kept as written)."""
    mode = (parse_mode or "").lower()
    if mode == "html":
        return _parse_html(text)[1]
    return (("markdown", text),) if mode else ()


def _int_param(params: Mapping[str, Any], name: str, default: int) -> int:
    value = params.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise _bad(f"wrong parameter {name} in request") from None


class FakeTelegram:
    """An aiohttp server on 127.0.0.1 that imitates the Telegram Bot API for tests."""

    def __init__(
        self,
        token: str = "123456:TEST-token",
        bot_username: str = "tictactoe_test_bot",
        *,
        bot_first_name: str = "TicTacToe Test Bot",
        max_poll_timeout: float = 50.0,
        first_update_id: int = 100_000_001,
        flood_limits: bool = True,
        callback_answer_deadline: float = rules.CALLBACK_ANSWER_DEADLINE,
        clock: Callable[[], float] = time.monotonic,
        test_environment: bool = False,
        time_scale: float | None = None,
    ) -> None:
        self.token = token
        self.bot_username = bot_username
        self.bot_first_name = bot_first_name
        self.max_poll_timeout = max_poll_timeout
        prefix = token.split(":", 1)[0]
        self.bot_id = int(prefix) if prefix.isdigit() else 123456

        #: Every request, in order of completion.
        self.calls: list[Call] = []
        #: Every message the bot sent, keyed by ``(chat_id, message_id)``.
        self.messages: dict[tuple[int, int], StoredMessage] = {}
        #: Inline messages (sent via inline mode), keyed by ``inline_message_id``.
        self.inline_messages: dict[str, StoredMessage] = {}
        #: Chats the bot knows about (a user wrote from them, or added with :meth:`add_chat`).
        self.chats: dict[int, JSONDict] = {}
        #: Every update ever queued, in order.
        self.updates: list[JSONDict] = []
        #: answerCallbackQuery params by query id.
        self.callback_answers: dict[str, JSONDict] = {}
        #: answerInlineQuery params by query id.
        self.inline_answers: dict[str, JSONDict] = {}
        #: Callback queries issued by :meth:`tap`, by id.
        self.callback_queries: dict[str, JSONDict] = {}
        #: Inline queries issued by :meth:`inline_query`, by id.
        self.inline_queries: dict[str, JSONDict] = {}
        #: Commands set with setMyCommands, by ``(scope JSON, language_code)``.
        self.commands: dict[tuple[str, str], list[JSONDict]] = {}
        #: Texts set with setMyDescription / setMyShortDescription / setMyName.
        self.descriptions: dict[tuple[str, str], str] = {}
        self.webhook_url = ""

        self._pending: deque[JSONDict] = deque()
        self._user_messages: dict[tuple[int, int], JSONDict] = {}
        self._deleted_user_messages: set[tuple[int, int]] = set()
        self._message_counters: dict[int, int] = {}
        # Telegram's ids only grow: a bot that keeps its handled ids must see new ones.
        self._update_ids = itertools.count(first_update_id)
        self._last_update_id = 100_000_000
        self._delivered_update_id = 100_000_000
        self._query_ids = itertools.count(4_200_000_000_000_000_001)
        self._inline_ids = itertools.count(1)
        self._allowed_updates: list[str] | None = None
        self._failures: dict[str, deque[FakeApiError]] = {}
        #: Calls still to be dropped without an answer, by lower-case method name.
        self._drops: dict[str, int] = {}
        self.clock = clock
        #: How much shorter than Telegram's the flood windows are (default: the run's setting,
        #: `tests.support.time_scale`; 1: Telegram's own).
        self.time_scale = current_time_scale() if time_scale is None else time_scale
        #: Telegram's test environment, where Mini Apps may use plain HTTP links.
        self.test_environment = test_environment
        #: Flood limits enforced (see :meth:`enforce_flood_limits`); None: no limits. On by
        #: default, with Telegram's numbers: a test that needs them off says so.
        self._flood: _FloodBuckets | None = None
        if flood_limits:
            self.enforce_flood_limits()
        #: How long a callback query waits for its answer (Telegram: about 15 s).
        self.callback_answer_deadline = callback_answer_deadline
        #: When each callback query was sent (the fake's clock), by id.
        self._tapped_at: dict[str, float] = {}
        #: People seen in updates. Those who started the bot (wrote in their private chat, or
        #: a test added that chat) have their private chat in `chats`.
        self._users_seen: set[int] = set()
        #: Those people's `User` objects, by id (getChatMember answers with one).
        self._user_objects: dict[int, JSONDict] = {}
        #: Members of groups: their ChatMember `status` (and `is_member` for "restricted"),
        #: by chat id and user id. Writing or tapping in a group makes one a "member";
        #: :meth:`set_member` says otherwise. Anybody else the bot knows has "left".
        self.members: dict[int, dict[int, JSONDict]] = {}
        #: Chats the bot may not write to any more, with Telegram's reason.
        self._forbidden: dict[int, str] = {}
        #: Answers still to be lost (:meth:`lose_answer_next`): a hold in seconds, or None.
        self._answers_to_lose: dict[str, deque[float | None]] = {}
        #: Chats whose calls alone lose their answers, by method (see :meth:`lose_answer_next`).
        self._lose_chats: dict[str, int] = {}
        self._holds: dict[str, int] = {}
        #: Chats whose calls alone are held, by method (see :meth:`hold_next`).
        self._hold_chats: dict[str, int] = {}
        #: Calls still to be carried out late (:meth:`land_late_next`): seconds, by method.
        self._late: dict[str, deque[float]] = {}
        self._released = asyncio.Event()
        #: Calls held back right now (see :meth:`hold_next`).
        self.held = 0
        #: Calls carried out whose answers were lost on purpose, in order.
        self.lost_answers: list[Call] = []
        self._poll_generation = 0
        self._polls_waiting = 0
        self._inflight = 0
        self._last_activity = time.monotonic()
        self._changed = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

        self._methods: dict[str, tuple[str, Handler]] = {}
        builtin: dict[str, Handler] = {
            "getMe": self._get_me,
            "logOut": lambda _p: True,
            "close": lambda _p: True,
            "setWebhook": self._set_webhook,
            "deleteWebhook": self._delete_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "getUpdates": self._get_updates,
            "setMyCommands": self._set_my_commands,
            "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "setMyDescription": lambda p: self._set_text("description", p),
            "getMyDescription": lambda p: self._get_text("description", p),
            "setMyShortDescription": lambda p: self._set_text("short_description", p),
            "getMyShortDescription": lambda p: self._get_text("short_description", p),
            "setMyName": lambda p: self._set_text("name", p),
            "getMyName": lambda p: self._get_text("name", p),
            "sendMessage": self._send_message,
            "sendPhoto": self._send_photo,
            "sendAnimation": self._send_animation,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "deleteMessage": self._delete_message,
            "sendChatAction": self._send_chat_action,
            "answerCallbackQuery": self._answer_callback_query,
            "answerInlineQuery": self._answer_inline_query,
        }
        for name, handler in builtin.items():
            self.register_method(name, handler)
        # Mini Apps: the private chats' menu button, per chat (None: the default of all).
        self.menu_buttons: dict[int | None, JSONDict] = {}
        self.register_method("setChatMenuButton", self._set_chat_menu_button)
        self.register_method("getChatMenuButton", self._get_chat_menu_button)
        self.register_method("getChatMember", self._get_chat_member)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Start listening on an ephemeral port of 127.0.0.1."""
        if self._runner is not None:
            return
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self._runner = runner
        self._port = runner.addresses[0][1]
        self._closing = False

    async def stop(self) -> None:
        """Release pending long polls and shut the server down."""
        if self._runner is None:
            return
        self._closing = True
        self._notify()
        runner, self._runner = self._runner, None
        await runner.cleanup()

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        if self._port is None:
            raise RuntimeError("FakeTelegram is not started")
        return self._port

    @property
    def base_url(self) -> str:
        """URL to give PTB as ``base_url``; PTB appends ``<token>/<method>``."""
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def bot_user(self) -> JSONDict:
        """The bot as a ``User`` object (as it appears in ``message.from``)."""
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def register_method(self, name: str, handler: Handler) -> None:
        """Add or replace a Bot API method: ``handler(params)`` returns the result.

        The handler may be async and may raise :class:`FakeApiError`.
        """
        self._methods[name.lower()] = (name, handler)

    # ------------------------------------------------------------------ HTTP plumbing

    async def _read_params(self, request: web.Request) -> JSONDict:
        raw: dict[str, Any] = dict(request.query)
        if request.body_exists:
            if request.content_type == "application/json":
                body = await request.json()
                if not isinstance(body, dict):
                    raise _bad("parameters must be a JSON object")
                raw.update(body)
            else:
                form = await request.post()
                for key, value in form.items():
                    if isinstance(value, web.FileField):
                        data = value.file.read()
                        raw[key] = {
                            "filename": value.filename,
                            "content_type": value.content_type,
                            "size": len(data),
                            "data": data,
                        }
                    else:
                        raw[key] = value
        return {key: _decode_value(key, value) for key, value in raw.items()}

    async def _handle(self, request: web.Request) -> web.Response:
        started = time.monotonic()
        match = _TOKEN_PATH_RE.fullmatch(request.path)
        token, method = match.groups() if match else ("", request.path)
        canonical, handler = self._methods.get(method.lower(), (method, None))
        polling = canonical == "getUpdates"
        held = self._holds.get(canonical.lower()) and await self._held_here(request, canonical)
        if held and not await self._hold(request):
            return await self._drop(request, canonical, started, counted=False)
        late = self._late.get(canonical.lower())
        if late:
            # Telegram has the call, and carries it out this much later, whatever the client
            # does meanwhile (it times out, sends it again, sends newer calls).
            await request.read()  # kept by aiohttp, for when the client has gone
            await asyncio.sleep(late.popleft())
        if self._drops.get(canonical.lower()):
            return await self._drop(request, canonical, started)
        if not polling:
            self._inflight += 1
            self._touch()
        result: Any = None
        error: FakeApiError | None = None
        params: JSONDict = {}
        try:
            params = await self._read_params(request)
            if match is None or not method:
                raise FakeApiError(404, "Not Found")
            if token != self.token:
                raise FakeApiError(401, "Unauthorized")
            failures = self._failures.get(canonical.lower())
            if failures:
                raise failures.popleft()
            if self._flood is not None:
                self._flood.check(canonical, params, self.chats)
            if handler is None:
                raise FakeApiError(404, "Not Found")
            result = handler(params)
            if inspect.isawaitable(result):
                result = await result
        except FakeApiError as exc:
            error = exc
        except Refused as exc:
            error = FakeApiError(exc.error_code, exc.description)
        except (ValueError, UnicodeDecodeError) as exc:
            error = _bad(f"can't parse request: {exc}")
        except Exception as exc:  # a bug in the fake or in a registered handler
            error = FakeApiError(500, f"Internal Server Error: fake crashed: {exc!r}")
        finally:
            if not polling:
                self._inflight -= 1
        self._record(canonical, params, result, error, started)
        if error is None and self._loses_here(canonical, params):
            return await self._lose_answer(request, canonical, result)
        if error is not None:
            return web.json_response(error.envelope(), status=error.error_code)
        return web.json_response({"ok": True, "result": result})

    def _record(
        self,
        method: str,
        params: JSONDict,
        result: Any,
        error: FakeApiError | None,
        started: float,
    ) -> None:
        call = Call(
            index=len(self.calls),
            method=method,
            params=params,
            ok=error is None,
            result=result,
            error_code=None if error is None else error.error_code,
            description=None if error is None else error.description,
            started=started,
            finished=time.monotonic(),
        )
        self.calls.append(call)
        if error is not None and method != "getUpdates":
            # A failing test says which rule broke.
            rules.log.warning("refused %s: %s %s", method, error.error_code, error.description)
        if method != "getUpdates":
            self._touch()
        self._notify()

    def _touch(self) -> None:
        self._last_activity = time.monotonic()

    def _notify(self) -> None:
        """Wake everything waiting for a state change (polls, wait_for, wait_idle)."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def _wait_change(self, deadline: float) -> bool:
        """Wait for the next state change or the deadline (monotonic); False on timeout."""
        event = self._changed
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        try:
            async with asyncio.timeout(remaining):
                await event.wait()
        except TimeoutError:
            return False
        return True

    # ------------------------------------------------------------------ lookups

    def _chat_for(self, params: Mapping[str, Any]) -> JSONDict:
        chat_id = params.get("chat_id")
        if chat_id is None or chat_id == "":
            raise _bad("chat_id is empty")
        if isinstance(chat_id, str):
            if chat_id.lstrip("-").isdigit():
                chat_id = int(chat_id)
            else:
                name = chat_id.removeprefix("@").lower()
                for chat in self.chats.values():
                    if str(chat.get("username", "")).lower() == name:
                        return chat
                raise FakeApiError(400, CHAT_NOT_FOUND)
        if isinstance(chat_id, int) and chat_id in self._forbidden:
            raise FakeApiError(403, self._forbidden[chat_id])
        if isinstance(chat_id, int) and chat_id not in self.chats and chat_id in self._users_seen:
            # A person the bot knows from a group or inline mode, who never opened a chat with
            # it: "Bots can't initiate conversations with users" (Bots FAQ).
            raise FakeApiError(403, CANT_INITIATE)
        if not isinstance(chat_id, int) or chat_id not in self.chats:
            raise FakeApiError(400, CHAT_NOT_FOUND)
        return self.chats[chat_id]

    def _message_key(self, params: Mapping[str, Any]) -> tuple[int, int]:
        chat = self._chat_for(params)
        message_id = params.get("message_id")
        if message_id is None or message_id == "":
            raise _bad("message identifier is not specified")
        return (chat["id"], _int_param(params, "message_id", 0))

    def _edit_target(self, params: Mapping[str, Any]) -> StoredMessage:
        inline_id = params.get("inline_message_id")
        if inline_id:
            msg = self.inline_messages.get(str(inline_id))
        else:
            key = self._message_key(params)
            if key in self._user_messages and key not in self._deleted_user_messages:
                raise _bad("message can't be edited")
            msg = self.messages.get(key)
        if msg is None or msg.deleted:
            raise FakeApiError(400, EDIT_NOT_FOUND)
        return msg

    def _check_text(self, text: Any, parse_mode: Any) -> str:
        """Validate message text; return the plain text Telegram would show."""
        if text is None:
            raise FakeApiError(400, TEXT_EMPTY)
        text = str(text)
        mode = str(parse_mode).lower() if parse_mode else None
        if mode not in (None, "html", "markdown", "markdownv2"):
            raise _bad("unsupported parse_mode")
        plain = _html_to_plain(text) if mode == "html" else text
        if not plain.strip():
            raise FakeApiError(400, TEXT_EMPTY)
        if _utf16_len(plain) > 4096:
            raise _bad("message is too long")
        return plain

    def _reply_target(self, chat_id: int, params: Mapping[str, Any]) -> JSONDict | None:
        reply = params.get("reply_parameters")
        allow_missing = bool(params.get("allow_sending_without_reply"))
        if isinstance(reply, dict):
            message_id = reply.get("message_id")
            allow_missing = bool(reply.get("allow_sending_without_reply", allow_missing))
        else:
            message_id = params.get("reply_to_message_id")
        if message_id is None:
            return None
        found = self._lookup_any(chat_id, int(message_id))
        if found is None and not allow_missing:
            raise FakeApiError(400, REPLY_NOT_FOUND)
        return found

    def _lookup_any(self, chat_id: int, message_id: int) -> JSONDict | None:
        key = (chat_id, message_id)
        bot_msg = self.messages.get(key)
        if bot_msg is not None and not bot_msg.deleted:
            found = bot_msg.to_dict()
        elif key in self._user_messages and key not in self._deleted_user_messages:
            found = copy.deepcopy(self._user_messages[key])
        else:
            return None
        found.pop("reply_to_message", None)
        return found

    def _next_message_id(self, chat_id: int) -> int:
        self._message_counters[chat_id] = self._message_counters.get(chat_id, 0) + 1
        return self._message_counters[chat_id]

    # ------------------------------------------------------------------ Bot API methods

    def _get_me(self, _params: JSONDict) -> JSONDict:
        return {
            **self.bot_user,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": True,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def _set_webhook(self, params: JSONDict) -> bool:
        self.webhook_url = str(params.get("url") or "")
        if params.get("drop_pending_updates"):
            self._drop_pending()
        return True

    def _delete_webhook(self, params: JSONDict) -> bool:
        self.webhook_url = ""
        if params.get("drop_pending_updates"):
            self._drop_pending()
        return True

    def _drop_pending(self) -> None:
        self._pending.clear()
        self._delivered_update_id = self._last_update_id

    def _get_webhook_info(self, _params: JSONDict) -> JSONDict:
        return {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }

    async def _get_updates(self, params: JSONDict) -> list[JSONDict]:
        if self.webhook_url:
            raise FakeApiError(409, WEBHOOK_CONFLICT)
        offset = _int_param(params, "offset", 0)
        limit = min(max(_int_param(params, "limit", 100), 1), 100)
        try:
            timeout = float(params.get("timeout") or 0)
        except (TypeError, ValueError):
            raise _bad("wrong parameter timeout in request") from None
        timeout = min(max(timeout, 0.0), self.max_poll_timeout)
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = [str(kind) for kind in allowed] or None

        if offset > 0:
            while self._pending and self._pending[0]["update_id"] < offset:
                self._pending.popleft()
        elif offset < 0:
            while len(self._pending) > -offset:
                self._pending.popleft()

        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # an older poll still waiting now gets a 409, like Telegram
        deadline = time.monotonic() + timeout
        self._polls_waiting += 1
        try:
            while True:
                if generation != self._poll_generation:
                    raise FakeApiError(409, POLL_CONFLICT)
                batch = self._select_updates(limit)
                if batch or self._closing or not await self._wait_change(deadline):
                    break
        finally:
            self._polls_waiting -= 1
            self._notify()
        if batch:
            self._touch()
        return batch

    def _select_updates(self, limit: int) -> list[JSONDict]:
        batch: list[JSONDict] = []
        for update in self._pending:
            kind = next(key for key in update if key != "update_id")
            allowed = (
                kind in self._allowed_updates
                if self._allowed_updates is not None
                else kind not in _OPT_IN_UPDATES
            )
            self._delivered_update_id = max(self._delivered_update_id, update["update_id"])
            if allowed:
                batch.append(copy.deepcopy(update))
                if len(batch) >= limit:
                    break
        return batch

    @staticmethod
    def _scope_key(params: Mapping[str, Any]) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        return (json.dumps(scope, sort_keys=True), str(params.get("language_code") or ""))

    def _set_my_commands(self, params: JSONDict) -> bool:
        commands = params.get("commands")
        rules.check_commands(commands)
        for command in commands:
            if not isinstance(command, dict) or not _BOT_COMMAND_NAME_RE.fullmatch(
                str(command.get("command", ""))
            ):
                raise _bad("BOT_COMMAND_INVALID")
            if not str(command.get("description", "")).strip():
                raise _bad("command description is empty")
        # Freshly decoded from the request, and flat: a copy of each is all it takes.
        self.commands[self._scope_key(params)] = [dict(command) for command in commands]
        return True

    def _get_my_commands(self, params: JSONDict) -> list[JSONDict]:
        return copy.deepcopy(self.commands.get(self._scope_key(params), []))

    def _delete_my_commands(self, params: JSONDict) -> bool:
        self.commands.pop(self._scope_key(params), None)
        return True

    def _set_text(self, kind: str, params: JSONDict) -> bool:
        value = str(params.get(kind) or "")
        rules.check_profile_text(kind, value)
        self.descriptions[(kind, str(params.get("language_code") or ""))] = value
        return True

    def _get_text(self, kind: str, params: JSONDict) -> JSONDict:
        return {kind: self.descriptions.get((kind, str(params.get("language_code") or "")), "")}

    def _send_message(self, params: JSONDict) -> JSONDict:
        chat = self._chat_for(params)
        text = params.get("text")
        parse_mode = params.get("parse_mode") or None
        plain = self._check_text(text, parse_mode)
        markup = rules.check_send_markup(
            params.get("reply_markup"),
            private=_is_private(chat),
            test_environment=self.test_environment,
        )
        reply_to = self._reply_target(chat["id"], params)
        message_id = self._next_message_id(chat["id"])
        msg = StoredMessage(
            chat=dict(chat),
            message_id=message_id,
            text=str(text),
            parse_mode=parse_mode,
            reply_markup=copy.deepcopy(markup),
            sender=self.bot_user,
            date=int(time.time()),
            plain_text=plain,
            reply_to_message=reply_to,
            entities=_entities_of(str(text), parse_mode),
        )
        msg.history.append((msg.text, copy.deepcopy(markup)))
        self.messages[(chat["id"], message_id)] = msg
        return msg.to_dict()

    def _send_photo(self, params: JSONDict) -> JSONDict:
        """A picture uploaded with the request (never a file id or URL: the bot has none)."""
        upload = params.get("photo")
        if not isinstance(upload, dict) or not upload.get("data"):
            raise _bad("photo must be a file uploaded with the request")
        rules.check_image(upload["data"])
        return self._send_media(params, photo=upload["data"])

    def _send_animation(self, params: JSONDict) -> JSONDict:
        """A GIF (or silent MP4) uploaded with the request, as sendAnimation takes it."""
        upload = params.get("animation")
        if not isinstance(upload, dict) or not upload.get("data"):
            raise _bad("animation must be a file uploaded with the request")
        rules.check_animation(upload["data"])
        return self._send_media(params, animation=upload["data"])

    def _send_media(
        self, params: JSONDict, *, photo: bytes | None = None, animation: bytes | None = None
    ) -> JSONDict:
        chat = self._chat_for(params)
        caption = str(params.get("caption") or "")
        parse_mode = params.get("parse_mode") or None
        plain = _parse_html(caption)[0] if caption and parse_mode else caption
        rules.check_caption(plain)
        markup = rules.check_send_markup(
            params.get("reply_markup"),
            private=_is_private(chat),
            test_environment=self.test_environment,
        )
        msg = StoredMessage(
            chat=dict(chat),
            message_id=self._next_message_id(chat["id"]),
            text=caption,
            parse_mode=parse_mode,
            reply_markup=copy.deepcopy(markup),
            sender=self.bot_user,
            date=int(time.time()),
            plain_text=plain,
            reply_to_message=self._reply_target(chat["id"], params),
            photo=photo,
            animation=animation,
            entities=_entities_of(caption, parse_mode),
        )
        self.messages[(chat["id"], msg.message_id)] = msg  # type: ignore[index]
        return msg.to_dict()

    def _edit_markup(self, params: JSONDict, msg: StoredMessage) -> JSONDict | None:
        """The keyboard an edit leaves: none without reply_markup ("an edit without one
        removes the keyboard"), else an inline keyboard Telegram can take."""
        value = params.get("reply_markup")
        if value is None or value == "":
            return None
        private = msg.chat is not None and _is_private(msg.chat)
        checked = rules.check_inline_keyboard(
            value, edit=True, private=private, test_environment=self.test_environment
        )
        return copy.deepcopy(checked)

    def _apply_edit(
        self,
        msg: StoredMessage,
        text: str,
        parse_mode: str | None,
        plain: str,
        markup: Any,
    ) -> JSONDict | bool:
        # What the user sees decides "not modified": the text, its formatting, the buttons.
        entities = _entities_of(text, parse_mode)
        if (msg.plain_text, msg.entities, msg.reply_markup) == (plain, entities, markup):
            raise FakeApiError(400, NOT_MODIFIED)
        msg.text, msg.parse_mode, msg.plain_text = text, parse_mode, plain
        msg.entities = entities
        msg.reply_markup = markup
        msg.edit_count += 1
        msg.edit_date = int(time.time())
        msg.history.append((text, copy.deepcopy(markup)))
        return True if msg.inline_message_id else msg.to_dict()

    def _edit_message_text(self, params: JSONDict) -> JSONDict | bool:
        text = params.get("text")
        parse_mode = params.get("parse_mode") or None
        plain = self._check_text(text, parse_mode)
        msg = self._edit_target(params)
        if msg.is_media:
            raise _bad("there is no text in the message to edit")
        markup = self._edit_markup(params, msg)
        return self._apply_edit(msg, str(text), parse_mode, plain, markup)

    def _edit_message_reply_markup(self, params: JSONDict) -> JSONDict | bool:
        msg = self._edit_target(params)
        markup = self._edit_markup(params, msg)
        return self._apply_edit(msg, msg.text, msg.parse_mode, msg.plain_text, markup)

    def _delete_message(self, params: JSONDict) -> bool:
        key = self._message_key(params)
        msg = self.messages.get(key)
        if msg is not None and not msg.deleted:
            msg.deleted = True
            return True
        if key in self._user_messages and key not in self._deleted_user_messages:
            self._deleted_user_messages.add(key)
            return True
        raise FakeApiError(400, DELETE_NOT_FOUND)

    def _send_chat_action(self, params: JSONDict) -> bool:
        self._chat_for(params)
        if params.get("action") not in _CHAT_ACTIONS:
            raise _bad("wrong parameter action in request")
        return True

    def _answer_callback_query(self, params: JSONDict) -> bool:
        query_id = str(params.get("callback_query_id") or "")
        if query_id not in self.callback_queries or query_id in self.callback_answers:
            raise FakeApiError(400, QUERY_INVALID)
        age = self.clock() - self._tapped_at.get(query_id, self.clock())
        if age > self.callback_answer_deadline:
            raise FakeApiError(400, QUERY_INVALID)
        rules.check_popup(params)
        self.callback_answers[query_id] = dict(params)
        return True

    def _answer_inline_query(self, params: JSONDict) -> bool:
        query_id = str(params.get("inline_query_id") or "")
        if query_id not in self.inline_queries or query_id in self.inline_answers:
            raise FakeApiError(400, QUERY_INVALID)
        rules.check_inline_results(params)
        self.inline_answers[query_id] = dict(params)
        return True

    # ------------------------------------------------------------------ test side: users

    @staticmethod
    def user(
        id: int,
        first_name: str,
        language_code: str | None = "en",
        username: str | None = None,
        last_name: str | None = None,
    ) -> JSONDict:
        """A Telegram ``User`` object for a human."""
        user: JSONDict = {"id": id, "is_bot": False, "first_name": first_name}
        if last_name:
            user["last_name"] = last_name
        if username:
            user["username"] = username
        if language_code:
            user["language_code"] = language_code
        return user

    @staticmethod
    def private_chat(user: Mapping[str, Any]) -> JSONDict:
        """The private ``Chat`` between the bot and ``user`` (chat id == user id)."""
        chat: JSONDict = {"id": user["id"], "type": "private", "first_name": user["first_name"]}
        for key in ("last_name", "username"):
            if user.get(key):
                chat[key] = user[key]
        return chat

    @staticmethod
    def group_chat(id: int, title: str, *, supergroup: bool = False) -> JSONDict:
        """A group (or supergroup) ``Chat``; Telegram group ids are negative."""
        return {"id": id, "type": "supergroup" if supergroup else "group", "title": title}

    def add_chat(self, chat: Mapping[str, Any]) -> JSONDict:
        """Make a chat known to the fake (sendMessage to unknown chats -> chat not found)."""
        stored = dict(chat)
        self.chats[stored["id"]] = stored
        return stored

    def queue_update(self, payload: Mapping[str, Any]) -> JSONDict:
        """Queue a raw update (one key such as ``"my_chat_member"``); assigns ``update_id``."""
        update_id = next(self._update_ids)
        self._last_update_id = update_id
        update = {"update_id": update_id, **copy.deepcopy(dict(payload))}
        self.updates.append(update)
        self._pending.append(update)
        self._touch()
        self._notify()
        return copy.deepcopy(update)

    def membership_changed(
        self, chat: Mapping[str, Any], by: Mapping[str, Any], old: str, new: str
    ) -> JSONDict:
        """Queue the ``my_chat_member`` update of ``by`` changing the bot's status in ``chat``
        from ``old`` to ``new`` (``member``, ``left`` or ``kicked``)."""
        chat_dict = self.add_chat(chat)
        self._seen(by)
        if new in ("left", "kicked"):
            private = chat_dict.get("type") == "private"
            self._forbidden[chat_dict["id"]] = (
                BLOCKED if private else KICKED if new == "kicked" else NOT_MEMBER
            )
        else:
            self._forbidden.pop(chat_dict["id"], None)

        def member(status: str) -> JSONDict:
            fields: JSONDict = {"status": status, "user": self.bot_user}
            if status == "kicked":
                fields["until_date"] = 0
            return fields

        change = {
            "chat": dict(chat_dict),
            "from": dict(by),
            "date": int(time.time()),
            "old_chat_member": member(old),
            "new_chat_member": member(new),
        }
        return self.queue_update({"my_chat_member": change})

    def send_text(
        self,
        user: Mapping[str, Any],
        text: str,
        chat: Mapping[str, Any] | None = None,
        reply_to: MessageRef | int | None = None,
    ) -> JSONDict:
        """Queue a text message from ``user`` (default: in their private chat); return it."""
        chat_dict = self.add_chat(chat if chat is not None else self.private_chat(user))
        self._seen(user, chat_dict)
        message_id = self._next_message_id(chat_dict["id"])
        message: JSONDict = {
            "message_id": message_id,
            "from": dict(user),
            "chat": dict(chat_dict),
            "date": int(time.time()),
            "text": text,
        }
        command = _COMMAND_RE.match(text)
        if command:
            message["entities"] = [
                {"offset": 0, "length": _utf16_len(command.group(0)), "type": "bot_command"}
            ]
        if reply_to is not None:
            reply_id = reply_to if isinstance(reply_to, int) else self._resolve_key(reply_to)[1]
            replied = self._lookup_any(chat_dict["id"], reply_id)
            if replied is None:
                raise AssertionError(f"no message {reply_id} in chat {chat_dict['id']}")
            message["reply_to_message"] = replied
        self._user_messages[(chat_dict["id"], message_id)] = message
        self.queue_update({"message": message})
        return copy.deepcopy(message)

    def _resolve_key(self, ref: MessageRef) -> tuple[int, int]:
        if isinstance(ref, StoredMessage):
            if ref.key is None:
                raise AssertionError("inline messages have no (chat_id, message_id)")
            return ref.key
        if isinstance(ref, tuple):
            return (int(ref[0]), int(ref[1]))
        if isinstance(ref, Mapping):
            return (int(ref["chat"]["id"]), int(ref["message_id"]))
        return (int(ref.chat_id), int(ref.message_id))  # e.g. a telegram.Message

    def _resolve(self, ref: MessageRef) -> StoredMessage:
        """Find the current stored bot message for a reference."""
        if isinstance(ref, StoredMessage) and ref.inline_message_id:
            return ref
        if isinstance(ref, Mapping) and ref.get("inline_message_id"):
            return self.inline_messages[str(ref["inline_message_id"])]
        key = self._resolve_key(ref)
        msg = self.messages.get(key)
        if msg is None:
            raise AssertionError(f"the bot sent no message {key} (chat_id, message_id)")
        return msg

    def tap(
        self, user: Mapping[str, Any], message: MessageRef, data: str, *, inaccessible: bool = False
    ) -> str:
        """Queue a callback query from ``user`` on a bot message; return the query id.

        ``data`` is sent as is (it need not be on the keyboard: stale or forged clients).
        ``inaccessible``: the query carries an InaccessibleMessage (Bot API: "a message that
        was deleted or is otherwise inaccessible to the bot": its chat, its id, date 0),
        as Telegram sends for a message it no longer shows the bot.
        """
        msg = self._resolve(message)
        if msg.deleted:
            raise AssertionError(f"cannot tap message {msg.key}: it was deleted")
        query_id = str(next(self._query_ids))
        query: JSONDict = {"id": query_id, "from": dict(user)}
        if msg.inline_message_id:
            query["inline_message_id"] = msg.inline_message_id
            query["chat_instance"] = str(-7_000_000_000_000 - int(user["id"]))
        else:
            shown = msg.to_dict()
            if inaccessible:
                shown = {"chat": shown["chat"], "message_id": msg.message_id, "date": 0}
            query["message"] = shown
            query["chat_instance"] = str(-8_000_000_000_000 - int(msg.chat_id or 0))
        query["data"] = data
        self.callback_queries[query_id] = query
        self._tapped_at[query_id] = self.clock()
        self._seen(user, msg.chat)
        self.queue_update({"callback_query": query})
        return query_id

    def tap_button(
        self, user: Mapping[str, Any], message: MessageRef, text: str, *, inaccessible: bool = False
    ) -> str:
        """Tap the inline button labelled ``text`` on the message's current keyboard (see
        :meth:`tap` for ``inaccessible``)."""
        rows = self.keyboard(message)
        for row in rows:
            for label, data in row:
                if label == text:
                    if data is None:
                        raise AssertionError(f"button {text!r} has no callback_data")
                    return self.tap(user, message, data, inaccessible=inaccessible)
        raise AssertionError(f"no button {text!r} on the keyboard {rows!r}")

    def inline_query(self, user: Mapping[str, Any], query: str, offset: str = "") -> str:
        """Queue an inline query from ``user``; return its id."""
        query_id = str(next(self._query_ids))
        payload = {"id": query_id, "from": dict(user), "query": query, "offset": offset}
        payload["chat_type"] = "sender"
        self.inline_queries[query_id] = payload
        self._seen(user)
        self.queue_update({"inline_query": payload})
        return query_id

    def add_inline_message(
        self, text: str, reply_markup: Mapping[str, Any] | None = None
    ) -> StoredMessage:
        """Create an inline message (as if a user sent a result of the bot's inline mode)."""
        inline_id = f"AgAAAInline{next(self._inline_ids):06d}"
        markup = copy.deepcopy(dict(reply_markup)) if reply_markup else None
        msg = StoredMessage(
            chat=None,
            message_id=None,
            text=text,
            parse_mode=None,
            reply_markup=markup,
            sender=self.bot_user,
            date=int(time.time()),
            plain_text=text,
            inline_message_id=inline_id,
        )
        msg.history.append((text, copy.deepcopy(markup)))
        self.inline_messages[inline_id] = msg
        return msg

    def _seen(self, user: Mapping[str, Any], chat: Mapping[str, Any] | None = None) -> None:
        """The bot met `user` (in an update), in `chat`: in a group, they are a member of it
        (unless a test said otherwise)."""
        self._users_seen.add(int(user["id"]))
        self._user_objects[int(user["id"])] = dict(user)
        if chat is not None and not _is_private(chat):
            self.members.setdefault(int(chat["id"]), {}).setdefault(
                int(user["id"]), {"status": "member"}
            )

    def set_member(
        self,
        chat: Mapping[str, Any],
        user: Mapping[str, Any],
        status: str = "member",
        *,
        is_member: bool = True,
    ) -> None:
        """`user`'s status in the group `chat` from now on: "creator", "administrator",
        "member", "restricted" (with `is_member`), "left" or "kicked". The bot knows them
        from then on (as from a service message about them)."""
        self.add_chat(chat)
        self._users_seen.add(int(user["id"]))
        self._user_objects[int(user["id"])] = dict(user)
        fields: JSONDict = {"status": status}
        if status == "restricted":
            fields["is_member"] = is_member
        self.members.setdefault(int(chat["id"]), {})[int(user["id"])] = fields

    def _get_chat_member(self, params: JSONDict) -> JSONDict:
        """getChatMember: "Use this method to get information about a member of a chat ...
        Returns a ChatMember object on success." A chat the bot is not in: "chat not found"
        (or why it may not, as any method); a user the bot never met: "user not found"; one
        it met who never was in the chat: "left" (ChatMemberLeft, "a chat member that isn't
        currently a member of the chat")."""
        chat = self._chat_for(params)
        user_id = _int_param(params, "user_id", 0)
        user = self.bot_user if user_id == self.bot_id else self._user_objects.get(user_id)
        if user is None:
            raise FakeApiError(400, USER_NOT_FOUND)
        if _is_private(chat):
            stored: JSONDict = {
                "status": "member" if user_id in (chat["id"], self.bot_id) else "left"
            }
        elif user_id == self.bot_id:
            stored = {"status": "member"}
        else:
            stored = self.members.get(chat["id"], {}).get(user_id, {"status": "left"})
        return _chat_member(stored, user)

    # ------------------------------------------------------------------ test side: state

    def bot_messages(self, chat_id: int, *, include_deleted: bool = False) -> list[StoredMessage]:
        """The bot's messages in a chat, oldest first."""
        found = [
            msg
            for (chat, _), msg in self.messages.items()
            if chat == chat_id and (include_deleted or not msg.deleted)
        ]
        return sorted(found, key=lambda msg: msg.message_id or 0)

    def last_bot_message(self, chat_id: int) -> StoredMessage:
        """The newest not-deleted message the bot sent in ``chat_id``."""
        found = self.bot_messages(chat_id)
        if not found:
            raise AssertionError(f"the bot has no (undeleted) message in chat {chat_id}")
        return found[-1]

    def keyboard(self, message: MessageRef) -> list[list[tuple[str, str | None]]]:
        """The current inline keyboard as rows of ``(text, callback_data)``."""
        markup = self._resolve(message).reply_markup or {}
        return [
            [(button["text"], button.get("callback_data")) for button in row]
            for row in markup.get("inline_keyboard", [])
        ]

    def calls_of(self, method: str) -> list[Call]:
        """Recorded calls of one method (case-insensitive)."""
        return [call for call in self.calls if call.method.lower() == method.lower()]

    def mark(self) -> int:
        """Current number of recorded calls, to pass as ``since`` to :meth:`wait_for`."""
        return len(self.calls)

    @property
    def pending_updates(self) -> list[JSONDict]:
        """Updates not yet confirmed by a getUpdates offset."""
        return copy.deepcopy(list(self._pending))

    @property
    def polls_waiting(self) -> int:
        """Number of getUpdates requests currently long polling."""
        return self._polls_waiting

    # ------------------------------------------------------------------ test side: faults

    def fail_next(
        self,
        method: str,
        error_code: int,
        description: str | None = None,
        retry_after: int | None = None,
        count: int = 1,
    ) -> None:
        """Make the next ``count`` calls of ``method`` fail with this Telegram error."""
        parameters: JSONDict | None = None
        if error_code == 429:
            retry_after = 1 if retry_after is None else retry_after
        if retry_after is not None:
            parameters = {"retry_after": retry_after}
        if description is None:
            description = {
                400: "Bad Request: injected failure",
                401: "Unauthorized",
                403: "Forbidden: bot was blocked by the user",
                404: "Not Found",
                409: POLL_CONFLICT,
                429: f"Too Many Requests: retry after {retry_after}",
                502: "Bad Gateway",
            }.get(error_code, "Internal Server Error")
        queue = self._failures.setdefault(method.lower(), deque())
        for _ in range(count):
            queue.append(FakeApiError(error_code, description, parameters))

    def clear_failures(self) -> None:
        """Drop all pending injected failures."""
        self._failures.clear()
        self._drops.clear()
        self._answers_to_lose.clear()
        self._lose_chats.clear()

    def drop_next(self, method: str, count: int = 1) -> None:
        """Make the next ``count`` calls of ``method`` fail at the network level: the request is
        read, then the connection is closed without any HTTP answer (the client sees "server
        disconnected"). Such calls are recorded with ``ok=False`` and ``error_code=0``."""
        key = method.lower()
        self._drops[key] = self._drops.get(key, 0) + count

    def hold_next(self, method: str, count: int = 1, *, chat_id: int | None = None) -> None:
        """Hold the next ``count`` calls of ``method`` (to ``chat_id`` only, if given) before
        Telegram has them, until :meth:`release_held`: a request on its way, e.g. an edit
        waiting for its chat's pace. A held call whose client has gone meanwhile (a bot
        killed) never reaches Telegram: it is recorded as dropped and not carried out."""
        key = method.lower()
        self._holds[key] = self._holds.get(key, 0) + count
        if chat_id is not None:
            self._hold_chats[key] = chat_id
        self._released.clear()

    async def _held_here(self, request: web.Request, method: str) -> bool:
        """Whether a call of a method with holds left is one of those held (its chat's)."""
        chat_id = self._hold_chats.get(method.lower())
        if chat_id is None:
            return True
        try:
            params = await self._read_params(request)
        except (FakeApiError, ValueError, UnicodeDecodeError):
            return False
        return str(params.get("chat_id")) == str(chat_id)

    def land_late_next(self, method: str, after: float, count: int = 1) -> None:
        """Carry out the next ``count`` calls of ``method`` ``after`` seconds after they
        arrive, and only then answer: past a client's read timeout, the client may have sent
        it again, and newer calls, which Telegram carried out first. (A request can time out
        after it arrived.)"""
        self._late.setdefault(method.lower(), deque()).extend([after] * count)

    def release_held(self) -> None:
        """Let the held calls through (those whose client is still there)."""
        self._holds.clear()
        self._hold_chats.clear()
        self._released.set()

    async def _hold(self, request: web.Request) -> bool:
        """Hold a call until released; whether its client is still there then."""
        key = request.path.rsplit("/", 1)[-1].lower()
        self._holds[key] = self._holds.get(key, 0) - 1
        await request.read()  # kept by aiohttp: the held call is recorded with its parameters
        self.held += 1
        self._notify()
        try:
            await self._released.wait()
        finally:
            self.held -= 1
        transport = request.transport
        return transport is not None and not transport.is_closing()

    async def _drop(
        self, request: web.Request, method: str, started: float, *, counted: bool = True
    ) -> web.StreamResponse:
        if counted:
            self._drops[method.lower()] -= 1
        try:
            params = await self._read_params(request)
        except (FakeApiError, ValueError, UnicodeDecodeError):
            params = {}
        self._record(method, params, None, FakeApiError(0, "connection dropped"), started)
        if request.transport is not None:
            request.transport.close()
        # Nothing reaches the client: its connection is already closed.
        return web.Response(status=204)

    # ------------------------------------------------------------------ test side: flood limits

    def enforce_flood_limits(
        self,
        group: FloodLimit | None = (20, 60.0),
        overall: FloodLimit | None = None,
        private: FloodLimit | None = None,
    ) -> None:
        """Answer 429 past Telegram's flood limits from now on (Telegram's numbers by default):
        a token bucket per group, per private chat and, when asked, for the whole bot.

        Telegram's limits are per chat: "your bot will not be able to send more than 20
        messages per minute to the same group" and "avoid sending more than one message per
        second" in one chat (Bots FAQ). The FAQ's 30 a second is about broadcasting, and
        Telegram's maintainers say that "there is no global limit on the number of sent
        messages for bots" (tdlib/td#3034) and that "you can call answerCallbackQuery without
        any limits; editing of the message in question is still subject to per chat limits"
        (tdlib/telegram-bot-api#648): so no whole-bot limit by default, which would refuse what
        Telegram takes. ``(count, seconds)``
        lets ``count`` messages through at once, then ``count`` more every ``seconds``, evenly;
        ``(count, seconds, burst)`` lets ``burst`` through at once; None sets no such limit.
        What counts is what Telegram counts: messages sent and edited, not answers to queries,
        chat actions or other calls. A refused call is not carried out; it is answered 429
        with ``parameters.retry_after``, the whole seconds until a token is back (see
        :attr:`too_many_requests`). The windows are Telegram's seconds, shortened by
        :attr:`time_scale` (`tests.support.time_scale`); counts and bursts never are."""
        self._flood = _FloodBuckets(group, overall, private, self.clock, self.time_scale)

    def flood_limits_off(self) -> None:
        """Enforce no flood limits (they are on from the start, with Telegram's numbers)."""
        self._flood = None

    @property
    def flood_limits_on(self) -> bool:
        """Whether flood limits are enforced (a bot under test paces itself then)."""
        return self._flood is not None

    @property
    def too_many_requests(self) -> list[Call]:
        """The calls answered 429, by the flood limits or by :meth:`fail_next`."""
        return [call for call in self.calls if call.error_code == 429]

    # ------------------------------------------------------------------ test side: lost answers

    def lose_answer_next(
        self,
        method: str,
        count: int = 1,
        *,
        hold: float | None = None,
        chat_id: int | None = None,
    ) -> None:
        """Carry out the next ``count`` calls of ``method`` (to ``chat_id`` only, if given),
        then lose their answers: close the connection without one (the client sees "server
        disconnected"), or, with ``hold``, hold the answer back that many seconds, past a
        client's read timeout (then it is sent if the client is still there). Unlike
        :meth:`drop_next`, the call did happen: it is recorded with ``ok=True`` (a message is
        stored) and listed in :attr:`lost_answers`."""
        self._answers_to_lose.setdefault(method.lower(), deque()).extend([hold] * count)
        if chat_id is not None:
            self._lose_chats[method.lower()] = chat_id

    def _loses_here(self, method: str, params: JSONDict) -> bool:
        """Whether this call's answer is one to lose (its chat's, if only one chat's are)."""
        key = method.lower()
        if not self._answers_to_lose.get(key):
            return False
        chat_id = self._lose_chats.get(key)
        return chat_id is None or str(params.get("chat_id")) == str(chat_id)

    async def _lose_answer(
        self, request: web.Request, method: str, result: Any
    ) -> web.StreamResponse:
        hold = self._answers_to_lose[method.lower()].popleft()
        if not self._answers_to_lose[method.lower()]:
            self._lose_chats.pop(method.lower(), None)
        self.lost_answers.append(self.calls[-1])
        transport = request.transport
        if hold is not None and transport is not None:
            # Still "in flight" for wait_idle while held, so a test waits for the client's
            # timeout and what it does next.
            self._inflight += 1
            try:
                await asyncio.sleep(hold)
            finally:
                self._inflight -= 1
                self._touch()
                self._notify()
            if not transport.is_closing():
                return web.json_response({"ok": True, "result": result})
        elif transport is not None:
            transport.close()
        # Nothing reaches the client: its connection is closed.
        return web.Response(status=204)

    # ------------------------------------------------------------------ test side: waiting

    @staticmethod
    def _as_predicate(predicate: Predicate) -> Callable[[Call], bool]:
        if isinstance(predicate, str):
            method = predicate.lower()
            return lambda call: call.method.lower() == method
        return predicate

    def _recent_calls(self, count: int = 8) -> str:
        recent = [call for call in self.calls if call.method != "getUpdates"][-count:]
        polls = len(self.calls_of("getUpdates"))
        lines = [f"  {call!r}" for call in recent] or ["  (none)"]
        return "\n".join([*lines, f"  (+ {polls} getUpdates calls)"])

    async def wait_for(
        self,
        predicate: Predicate,
        timeout: float = 5.0,  # noqa: ASYNC109
        *,
        since: int = 0,
    ) -> Call:
        """Return the first call (index >= ``since``) matching ``predicate``, waiting if needed.

        ``predicate`` is ``f(call) -> bool`` or a method name. Raises AssertionError on timeout.
        """
        match = self._as_predicate(predicate)
        deadline = time.monotonic() + timeout
        index = since
        while True:
            while index < len(self.calls):
                call = self.calls[index]
                index += 1
                if match(call):
                    return call
            if not await self._wait_change(deadline):
                break
        raise AssertionError(
            f"timed out after {timeout}s waiting for a call matching {predicate!r}; "
            f"last calls:\n{self._recent_calls()}"
        )

    async def wait_until(
        self,
        condition: Callable[[], bool],
        timeout: float = 5.0,  # noqa: ASYNC109
        what: str = "condition",
    ) -> None:
        """Wait until ``condition()`` is true (re-checked on every state change)."""
        deadline = time.monotonic() + timeout
        while not condition():
            if not await self._wait_change(deadline):
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {what}; "
                    f"last calls:\n{self._recent_calls()}"
                )

    async def wait_for_poll(self, timeout: float = 5.0) -> None:  # noqa: ASYNC109
        """Wait until a getUpdates request is long polling."""
        await self.wait_until(lambda: self._polls_waiting > 0, timeout, "a waiting getUpdates")

    async def answer_to(self, query_id: str, timeout: float = 5.0) -> JSONDict:  # noqa: ASYNC109
        """Wait for the bot's answerCallbackQuery for ``query_id``; return its params."""
        call = await self.wait_for(
            lambda call: (
                call.method == "answerCallbackQuery"
                and str(call.params.get("callback_query_id")) == query_id
            ),
            timeout,
        )
        return call.params

    async def wait_idle(self, quiet: float = 0.3, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Wait until every update was fetched and no call (but getUpdates) came for ``quiet`` s."""
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            busy = self._inflight > 0 or self._delivered_update_id < self._last_update_id
            left = quiet - (now - self._last_activity)
            if not busy and left <= 0:
                return
            if now >= deadline:
                raise AssertionError(
                    f"not idle after {timeout}s (in flight: {self._inflight}, undelivered "
                    f"updates: {self._last_update_id - self._delivered_update_id}); "
                    f"last calls:\n{self._recent_calls()}"
                )
            # Busy: until something changes (a call ends, an update is fetched). Idle: until
            # the quiet window is over, or something happens in it.
            await self._wait_change(deadline if busy else min(now + left, deadline))

    # ------------------------------------------------------------------ Mini Apps

    def _set_chat_menu_button(self, params: JSONDict) -> bool:
        button = params.get("menu_button") or {"type": "default"}
        kind = button.get("type") if isinstance(button, dict) else None
        if kind not in ("default", "commands", "web_app"):
            raise _bad("can't parse menu button")
        if kind == "web_app":
            web_app = button.get("web_app")
            if not isinstance(button.get("text"), str) or not button["text"]:
                raise _bad("menu button text is empty")
            if not isinstance(web_app, dict) or not isinstance(web_app.get("url"), str):
                raise _bad("can't parse menu button web app")
            rules.check_web_app_url(web_app["url"], self.test_environment)
        self.menu_buttons[params.get("chat_id")] = copy.deepcopy(button)
        return True

    def _get_chat_menu_button(self, params: JSONDict) -> JSONDict:
        default = self.menu_buttons.get(None, {"type": "default"})
        return self.menu_buttons.get(params.get("chat_id"), default)

    # ------------------------------------------------------------------ misc

    def __repr__(self) -> str:
        where = f"port {self._port}" if self._port else "not started"
        return f"<FakeTelegram @{self.bot_username} {where}, {len(self.calls)} calls>"


# ---------------------------------------------------------------------- flood limits

#: ``(count, seconds)`` or ``(count, seconds, burst)``: see ``enforce_flood_limits``.
FloodLimit = tuple[int, float] | tuple[int, float, int]


def _scaled(limit: FloodLimit | None, scale: float) -> FloodLimit | None:
    """The same count (and burst) over a window ``scale`` times as long."""
    if limit is None:
        return None
    count, seconds, *burst = limit
    return (count, seconds * scale, *burst)  # type: ignore[return-value]


def _counts_as_message(method: str) -> bool:
    """Whether Telegram's flood limits count this method: it sends or edits a message."""
    if method == "sendChatAction":
        return False
    return method.startswith(("send", "edit", "copyMessage", "forwardMessage", "stopPoll"))


class _TokenBucket:
    """``burst`` tokens at once (default: ``count``), refilled at ``count`` per ``seconds``."""

    def __init__(
        self, clock: Callable[[], float], count: int, seconds: float, burst: int | None = None
    ) -> None:
        self.capacity = float(count if burst is None else burst)
        self.rate = count / seconds
        self.level = self.capacity
        self.stamp = clock()

    def wait(self, now: float) -> float:
        """Seconds until a token is here (0: one is)."""
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        return 0.0 if self.level >= 1 else (1 - self.level) / self.rate


class _FloodBuckets:
    """Telegram's flood limits as token buckets: the whole bot's, and one per chat."""

    def __init__(
        self,
        group: FloodLimit | None,
        overall: FloodLimit | None,
        private: FloodLimit | None,
        clock: Callable[[], float],
        scale: float = 1.0,
    ) -> None:
        self.limits = {"group": _scaled(group, scale), "private": _scaled(private, scale)}
        self.clock = clock
        overall = _scaled(overall, scale)
        self.overall = _TokenBucket(clock, *overall) if overall else None
        self.chats: dict[Any, _TokenBucket] = {}

    def check(self, method: str, params: Mapping[str, Any], chats: Mapping[int, JSONDict]) -> None:
        """Take a token from every bucket the call counts in, or raise 429 (taking none)."""
        if not _counts_as_message(method):
            return
        buckets = [self._chat_bucket(params.get("chat_id"), chats), self.overall]
        now = self.clock()
        wait = max((bucket.wait(now) for bucket in buckets if bucket is not None), default=0.0)
        if wait > 0:
            retry_after = max(1, math.ceil(wait))
            raise FakeApiError(
                429,
                f"Too Many Requests: retry after {retry_after}",
                {"retry_after": retry_after},
            )
        for bucket in buckets:
            if bucket is not None:
                bucket.level -= 1

    def _chat_bucket(self, chat_id: Any, chats: Mapping[int, JSONDict]) -> _TokenBucket | None:
        if chat_id is None or chat_id == "":
            return None  # an inline message: only the whole bot's limit
        with contextlib.suppress(TypeError, ValueError):
            chat_id = int(chat_id)
        chat = chats.get(chat_id) if isinstance(chat_id, int) else None
        if chat is not None:
            kind = "private" if chat.get("type") == "private" else "group"
        else:
            kind = "private" if isinstance(chat_id, int) and chat_id > 0 else "group"
        limit = self.limits[kind]
        if limit is None:
            return None
        if chat_id not in self.chats:
            self.chats[chat_id] = _TokenBucket(self.clock, *limit)
        return self.chats[chat_id]


__all__ = [
    "Call",
    "FakeApiError",
    "FakeTelegram",
    "StoredMessage",
]

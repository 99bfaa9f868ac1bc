"""Who is a member of a group, as Telegram says it (the Bot API's getChatMember), remembered
for a little while: a page's live stream reads its game every second, and must not ask
Telegram each time.

Telegram's `ChatMember.status` (core.telegram.org/bots/api#chatmember): "creator",
"administrator" and "member" are members; "restricted" is one if `is_member` ("True, if the
user is a member of the chat at the moment of the request"); "left" and "kicked" are not.

Any refusal is "not a member": a chat the bot is no longer in ("chat not found", "bot was
kicked"), a user Telegram does not know to the bot ("user not found"), a supergroup hiding
its members from a bot that is no administrator ("PARTICIPANT_ID_INVALID"). Answers are kept
`MEMBER_SECONDS`; a failure to reach Telegram at all only `RETRY_SECONDS`, so it is asked
again soon, but not on every poll.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from telegram import Bot, ChatMember, ChatMemberRestricted
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, Forbidden, TelegramError

log = logging.getLogger(__name__)

#: How long an answer is kept: one who left the group still sees its games this long.
MEMBER_SECONDS = 60.0
#: How long "not a member" is kept after Telegram could not be asked (the network; the bot's
#: transport waits out a flood limit itself, bot.telegram.request).
RETRY_SECONDS = 10.0
#: Answers kept at most (the oldest go first).
MAX_KEPT = 10_000

MEMBERS = frozenset(
    {ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER}
)


def is_member(member: ChatMember) -> bool:
    """Whether a ChatMember is in the chat now."""
    if member.status in MEMBERS:
        return True
    return isinstance(member, ChatMemberRestricted) and member.is_member


class GroupMembers:
    """Asks Telegram whether a user is in a group, and keeps the answer a while."""

    def __init__(
        self,
        bot: Bot,
        *,
        keep: float = MEMBER_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bot, self.keep, self.clock = bot, keep, clock
        self._kept: dict[tuple[int, int], tuple[float, bool]] = {}

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        """Whether `user_id` is a member of the group `chat_id` (kept answers first)."""
        key = (chat_id, user_id)
        kept = self._kept.get(key)
        if kept is not None and kept[0] > self.clock():
            return kept[1]
        answer, keep = await self._ask(chat_id, user_id)
        self._kept.pop(key, None)
        self._kept[key] = (self.clock() + keep, answer)
        while len(self._kept) > MAX_KEPT:
            del self._kept[next(iter(self._kept))]
        return answer

    async def _ask(self, chat_id: int, user_id: int) -> tuple[bool, float]:
        """Telegram's answer, and how long to keep it."""
        try:
            return is_member(await self.bot.get_chat_member(chat_id, user_id)), self.keep
        except (BadRequest, Forbidden):
            return False, self.keep  # Telegram's "no" in other words (the docstring)
        except TelegramError as error:
            log.warning("could not ask Telegram about a group's member: %s", type(error).__name__)
            return False, RETRY_SECONDS

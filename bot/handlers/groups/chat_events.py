"""Chat events: a group that became a supergroup keeps its games; the bot joins or leaves a
chat."""

from __future__ import annotations

import logging

from telegram import Chat, ChatMember, Update
from telegram.error import TelegramError

from bot.chat.queue import tell_left_while_away
from bot.context import BotContext
from bot.handlers.common import texts_of
from bot.telegram.flood_gate import Pace

log = logging.getLogger(__name__)


async def chat_migrated(update: Update, context: BotContext) -> None:
    """Move the games of a migrated group to its new (supergroup) chat id."""
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id is not None:
        await context.games.chats.migrate(message.chat.id, message.migrate_to_chat_id)
    elif message.migrate_from_chat_id is not None:
        await context.games.chats.migrate(message.migrate_from_chat_id, message.chat.id)


async def bot_membership(update: Update, context: BotContext) -> None:
    """The bot was added to a group (it says how to start a game there, once), or it left a
    chat: removed from a group, or blocked in private (that chat's live games are closed, and
    its person leaves the queue)."""
    change = update.my_chat_member
    if change is None:
        return
    was_in = _is_in(change.old_chat_member)
    is_in = _is_in(change.new_chat_member)
    chat = change.chat
    if is_in and not was_in and chat.type in (Chat.GROUP, Chat.SUPERGROUP):
        tr = texts_of(change.from_user, context)
        await context.bot.send_message(chat.id, tr.GROUP_HELLO)
    elif is_in and not was_in and chat.type == Chat.PRIVATE:
        # Back after blocking the bot: the boards of the games the block closed, and the
        # waiting message of the search it ended, say so now (they could not be edited
        # then, and would still say whose turn it is, or offer Cancel).
        away = await context.games.chats.closed_while_away(chat.id)
        for game in away.games:
            try:
                await context.presenter.show(
                    game, pace=Pace.BACKGROUND, ai=False, again=True, only_chat=chat.id
                )
            except TelegramError as error:
                log.info("game %s: board not shown on return: %s", game.id, error)
        if away.search_message_id is not None:
            tr = texts_of(change.from_user, context)
            await tell_left_while_away(context.bot, chat.id, away.search_message_id, tr)
    elif was_in and not is_in:
        if chat.type == Chat.PRIVATE:
            # Blocked: they are no longer looking for a stranger (one paired with them would
            # get a game with nobody on the other side).
            await context.games.matchmaking.cancel(chat.id, away=True)
        # The other player (a stranger, in their own chat) sees at once how it ended; the
        # board in the chat the bot just left cannot be edited any more.
        await context.games.chats.close_all(chat.id)  # their boards: `bot.listeners`


def _is_in(member: ChatMember) -> bool:
    """Whether the bot can read and write in the chat as this member."""
    if member.status == ChatMember.RESTRICTED:
        return bool(getattr(member, "is_member", False))
    return member.status in (ChatMember.MEMBER, ChatMember.ADMINISTRATOR, ChatMember.OWNER)

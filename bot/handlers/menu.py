"""The menu and starting games: /start (with or without arguments, deep links too), /help,
and the menu's buttons: a new game, a board size, help."""

from __future__ import annotations

from telegram import Chat, Update, User

from bot.context import BotContext
from bot.games.model import USER, GameView
from bot.games.strangers.matchmaking import LeftQueue
from bot.handlers.common import (
    answer,
    edit_tapped,
    is_group,
    player_from,
    texts_of,
)
from bot.handlers.delivery import claim_now, claimed_by
from bot.handlers.strangers.searching import play, stop_searching
from bot.handlers.taps import Tapped
from bot.locales.texts import Texts
from bot.telegram.tapped_keyboard import tapped_markup
from bot.views.keyboards import help_keyboard, menu_keyboard, replace_keyboard
from bot.views.render import (
    opponent_name,
    render_bad_parameters,
    render_games_going_on,
    render_help,
    render_welcome,
)
from bot.wire.callback_data import NEW_GAME
from bot.wire.game_spec import (
    MENU_DEEP_LINK,
    PLAY_DEEP_LINK,
    GameSpec,
    parse_start_args,
    start_problem,
)
from bot.wire.taps import HelpTap, KeepPlayingTap, MenuTap, NewGameTap


async def start(update: Update, context: BotContext) -> None:
    """Show the menu, or start the game named in the arguments (deep links too)."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    args = context.args or []
    words = "_".join(args).split("_")
    if words[0].lower() == PLAY_DEEP_LINK:  # `/start play`, the deep link of /play
        if await claim_now(context):
            await play(context, message, chat, user, words[1:])
        return
    menu = not args or args == [MENU_DEEP_LINK]
    spec = None if menu else parse_start_args(args)
    if spec is not None:
        await start_game(context, chat, user, spec)
        return
    if not await claim_now(context):  # a /start with arguments comes unclaimed
        return
    tr = texts_of(user, context)
    if menu:
        welcome = render_welcome(tr, group=is_group(chat))
        going_on = await _games_going_on(context, chat, user)
        if going_on:  # before anything new starts, say what happens to them: nothing
            welcome += "\n\n" + render_games_going_on(going_on, user.id, tr)
        menu_markup = menu_keyboard(tr, user.id, group=is_group(chat))
        await message.reply_text(welcome, reply_markup=menu_markup)
    else:
        await message.reply_text(render_bad_parameters(start_problem(args), tr))


async def help_command(update: Update, context: BotContext) -> None:
    """How to play, in a few lines."""
    message = update.effective_message
    if message is not None:
        await send_help(context, message.chat, texts_of(update.effective_user, context))


async def tap_new_game(tapped: Tapped[NewGameTap], context: BotContext) -> None:
    """A menu (or play-again) button: start that game in this chat."""
    query, tap, message = tapped.query, tapped.tap, tapped.message
    await answer(query)
    spec = GameSpec(tap.x_kind, tap.o_kind, tap.board, tap.seats)
    if tap.resign_underway:
        # The answer to "your game is still on": the question becomes what was done.
        started = await start_game(
            context, message.chat, query.from_user, spec, resign_underway=True
        )
        replaced = next((g for g in started if g.is_finished), None) if started else None
        tr = texts_of(query.from_user, context)
        if replaced is not None:
            name = opponent_name(replaced, query.from_user.id, tr)
            await edit_tapped(query.edit_message_text(tr.REPLACED_NOTICE.format(name=name)))
        else:  # the game ended meanwhile: nothing left to ask
            await edit_tapped(query.edit_message_reply_markup(None))
        return
    await start_game(context, message.chat, query.from_user, spec)


async def tap_keep_playing(tapped: Tapped[KeepPlayingTap], context: BotContext) -> None:
    """ "Keep playing" under "your game is still on": the question is put away."""
    query = tapped.query
    await answer(query)
    tr = texts_of(query.from_user, context)
    await edit_tapped(query.edit_message_text(tr.KEEP_PLAYING))


async def tap_menu(tapped: Tapped[MenuTap], context: BotContext) -> None:
    """The menu for a board size: redrawn in place on a menu, posted anew under a board."""
    query, tap, message = tapped.query, tapped.tap, tapped.message
    await answer(query)
    tr, chat = texts_of(query.from_user, context), message.chat
    menu = menu_keyboard(tr, query.from_user.id, group=is_group(chat), board=tap.board)
    markup = tapped_markup(message)  # none on a message Telegram no longer shows: posted anew
    rows = markup.inline_keyboard if markup is not None else ()
    first = rows[0][0] if rows and rows[0] else None
    if first is not None and str(first.callback_data or "").startswith(f"{NEW_GAME}:"):
        # A size button on a menu (its first button starts a game): redraw, don't repost.
        if markup != menu:
            await edit_tapped(query.edit_message_reply_markup(menu))
        return
    welcome = render_welcome(tr, group=is_group(chat))
    await context.bot.send_message(chat.id, welcome, reply_markup=menu)


async def tap_help(tapped: Tapped[HelpTap], context: BotContext) -> None:
    """The menu's help button."""
    query, message = tapped.query, tapped.message
    await answer(query)
    await send_help(context, message.chat, texts_of(query.from_user, context))


async def send_help(context: BotContext, chat: Chat, tr: Texts) -> None:
    """How to play, with buttons to play with people."""
    bot = context.bot.username
    keyboard = help_keyboard(tr, bot, group=is_group(chat))
    text = render_help(tr, bot, group=is_group(chat))
    await context.bot.send_message(chat.id, text, reply_markup=keyboard)


async def _games_going_on(context: BotContext, chat: Chat, user: User) -> list[GameView]:
    """The user's running games against people in this chat (in a private chat, against a
    stranger)."""
    return await context.games.play.unfinished_with_people(chat.id, user.id)


async def _say_games_go_on(context: BotContext, chat: Chat, user: User, new: GameView) -> None:
    """Under a new game: the user's other running games against people here go on."""
    going_on = [g for g in await _games_going_on(context, chat, user) if g.id != new.id]
    if going_on:
        text = render_games_going_on(going_on, user.id, texts_of(user, context))
        await context.bot.send_message(chat.id, text)


async def _challenges_are_for_groups(
    context: BotContext, chat: Chat, user: User
) -> tuple[GameView, ...]:
    if await claim_now(context):
        tr = texts_of(user, context)
        await context.bot.send_message(chat.id, tr.GROUP_ONLY.format(bot=context.bot.username))
    return ()


async def start_game(
    context: BotContext, chat: Chat, user: User, spec: GameSpec, *, resign_underway: bool = False
) -> tuple[GameView, ...]:
    """Start a game in the chat and post its board. In a group, `user user` is a challenge
    anyone can join; in a private chat a new game replaces the current one, but one the user
    moved in only with `resign_underway` (else they are asked first). An update that comes
    unclaimed (`/start <game>`) is claimed with the game, or first if none starts. Returns
    the games the new one closed."""
    board = spec.board.empty_board()
    if spec.best_of > 1 and not is_group(chat):  # a match is a challenge: for groups
        return await _challenges_are_for_groups(context, chat, user)
    if spec.seats > 2 and not is_group(chat):
        if await claim_now(context):
            await context.bot.send_message(chat.id, texts_of(user, context).MANY_GROUPS_ONLY)
        return ()
    if is_group(chat) and spec.x_kind == USER and spec.o_kind == USER:
        if not await claim_now(context):
            return ()
        challenge = await context.games.challenges.create(
            chat.id, player_from(user), board=board, seats=spec.seats, best_of=spec.best_of
        )
        await context.presenter.post(chat.id, challenge)
        await _say_games_go_on(context, chat, user, challenge)
        return ()
    started = await context.games.play.start_game(
        chat.id,
        player_from(user),
        spec.x_kind,
        spec.o_kind,
        replace_current=chat.type == Chat.PRIVATE,
        board=board,
        claim=context.deferred_claim,
        resign_underway=resign_underway,
    )
    if not await claimed_by(context, started.claim):
        return ()
    if started.underway is not None:
        # Asked first about the game underway; a search stops all the same: /start says
        # the player means to play something else now.
        await stop_searching(context, user.id, LeftQueue.CANCELLED)
        tr = texts_of(user, context)
        name = opponent_name(started.underway, user.id, tr)
        await context.bot.send_message(
            chat.id,
            tr.REPLACE_QUESTION.format(name=name),
            reply_markup=replace_keyboard(tr, spec, user.id),
        )
        return ()
    if started.game is None:
        return ()
    await context.presenter.post(chat.id, started.game)
    if started.going_on:  # the chat's last game had ended: nothing goes on, nothing to read
        text = render_games_going_on(list(started.going_on), user.id, texts_of(user, context))
        await context.bot.send_message(chat.id, text)
    return started.closed

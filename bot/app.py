"""The composition root: builds the Application, opens resources, registers handlers."""

from __future__ import annotations

import asyncio
import gc
import logging
import random
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from datetime import timedelta
from typing import Any

from telegram import Update
from telegram.ext import (
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.ai_pool import AiPool
from bot.chat.boards import BoardHooks
from bot.chat.presenter import Presenter
from bot.chores.ai_runner import AiMatchRunner
from bot.chores.board_catch_up import BoardCatchUp
from bot.chores.heartbeat import beating
from bot.chores.housekeeping import Housekeeping
from bot.chores.matchmaker import Matchmaker
from bot.chores.tournament_rounds import TournamentRounds
from bot.chores.turn_clock import TurnClock
from bot.config import Settings
from bot.context import BotApplication, BotContext
from bot.flood_budget import SharedBudget
from bot.games.db.engine import DatabaseEngine, create_engine, create_session_factory, open_pool
from bot.games.db.migrate import is_current, upgrade_database
from bot.games.db.sqlite_file import must_stay_open
from bot.games.play.clock_rules import Clock
from bot.games.use_cases import Games, open_games
from bot.handlers import (
    assists,
    cards,
    common,
    delivery,
    errors,
    inline,
    language,
    menu,
    play,
    privacy,
    ratings,
    records,
    replays,
    taps,
)
from bot.handlers.groups import challenges, chat_events, tournaments
from bot.handlers.strangers import matchmaking
from bot.intake.webhook_inbox import WebhookInbox
from bot.listeners import listen
from bot.resources import Resources, Running
from bot.telegram.flood_gate import FloodGate
from bot.telegram.request import RetryingRequest
from bot.telegram.update_lanes import UpdateLanes
from bot.telemetry.metrics import Metrics
from bot.views.profile import publish_profile
from bot.wire import callback_data as data
from core.solver import solved_table

log = logging.getLogger(__name__)
CLOSE_GRACE_SECONDS = 0.05  # see close_resources: the database's threads' last answers
#: The collector's thresholds once running (Python's 700 cost a crowd 3 to 5% of the CPU).
GC_THRESHOLDS = (20_000, 10, 10)

HandlerCallback = Callable[[Update, BotContext], Coroutine[Any, Any, None]]
#: Updates handled at the same time; each waits for the database and Telegram, not the CPU.
CONCURRENT_UPDATES = 64
#: What the bot asks Telegram for: the kinds of update it handles, and no others (an edited
#: message, in particular, is never a new command or move).
ALLOWED_UPDATES = [
    Update.MESSAGE,
    Update.CALLBACK_QUERY,
    Update.INLINE_QUERY,
    Update.MY_CHAT_MEMBER,
]


class LoggedApplication(BotApplication):
    """PTB's Application that logs one line per update: id, kind, chat and handling time."""

    async def process_update(self, update: object) -> None:
        started = time.perf_counter()
        try:
            await super().process_update(update)
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            # Worked out only when it is logged: this runs for every update.
            if isinstance(update, Update) and log.isEnabledFor(logging.INFO):
                kinds = (k for k in Update.ALL_TYPES if getattr(update, k, None) is not None)
                kind = next(kinds, "other")
                chat = update.effective_chat.id if update.effective_chat else None
                line = "update %s %s chat %s handled in %.1f ms"
                log.info(line, update.update_id, kind, chat, elapsed_ms)


def build_application(settings: Settings) -> BotApplication:
    """The bot, ready for `run_polling` or `run_webhook` (both call `post_init` and
    `post_shutdown`)."""
    backoff = settings.retry_backoff_seconds
    # One long poll at a time (never rate limited); a failed poll is tried again by the
    # polling loop (`bot.intake.polling`), which logs an outage once a minute, not each try.
    polls = RetryingRequest(connection_pool_size=1, max_attempts=1, backoff_base=backoff)
    calls = RetryingRequest(
        connection_pool_size=256, backoff_base=backoff, retry_flood_limits=False
    )
    metrics = Metrics() if settings.metrics_port is not None else None  # METRICS_PORT: on
    polls.metrics = calls.metrics = metrics
    builder = (
        ApplicationBuilder()
        .application_class(LoggedApplication)
        .token(settings.token.get_secret_value())
        .context_types(ContextTypes(context=BotContext, bot_data=Resources))
        .concurrent_updates(UpdateLanes(CONCURRENT_UPDATES))
        # Messages are paced under Telegram's flood limits, people first; the gate, not the
        # request, waits out a 429, so that it can hold the chat's other messages meanwhile.
        .rate_limiter(FloodGate(settings.flood_limits, metrics=metrics))
        .request(calls)
        .get_updates_request(polls)
        .post_init(open_resources)
        .post_shutdown(close_resources)
    )
    if settings.api_base_url:
        builder = builder.base_url(settings.api_base_url)
    application = builder.build()
    resources: Resources = application.bot_data
    resources.settings = settings
    resources.transports = (polls, calls)
    resources.metrics = metrics
    register_handlers(application)
    return application


#: Each kind of button (by its prefix in `bot.wire.callback_data.TABLE`) and its handler, which
#: gets the tap typed (`bot.handlers.taps`).
BUTTONS: dict[tuple[str, ...], taps.TapHandler] = {
    (data.CELL,): play.tap_cell,
    (data.RESIGN,): play.tap_resign,
    (data.RESIGN_YES, data.RESIGN_NO): play.tap_resign_answer,
    (data.DRAW,): play.tap_draw,
    (data.DRAW_YES, data.DRAW_NO): play.tap_draw_answer,
    (data.HINT, data.UNDO): assists.tap_assist,
    (data.BLOCK,): play.tap_block,
    (data.JOIN, data.DECLINE, data.CANCEL): challenges.tap_challenge,
    (data.REMATCH,): challenges.tap_rematch,
    (data.REVIEW,): records.tap_review,
    (data.PICTURE,): cards.tap_picture,
    (data.REPLAY,): replays.tap_replay,
    (data.REPLAY_STEP,): replays.tap_step,
    (data.ANIMATION,): replays.tap_animation,
    (data.NEW_GAME, data.NEW_GAME_RESIGNING): menu.tap_new_game,
    (data.KEEP_PLAYING,): menu.tap_keep_playing,
    (data.MENU_DATA,): menu.tap_menu,
    (data.HELP_DATA,): menu.tap_help,
    (data.INLINE_JOIN,): inline.tap_join,
    (data.INLINE_AI,): inline.tap_ai_cell,
    (data.FORGET_YES, data.FORGET_NO): privacy.tap_forget,
    (data.LANGUAGE,): language.tap_language,
    data.QUEUE_ACTIONS: matchmaking.tap_queue,
    (data.BLOCK_PLAYER, data.BLOCK_YES, data.BLOCK_NO): matchmaking.tap_block,
    (data.LADDER,): ratings.tap_ladder,
    data.TOURNAMENT_ACTIONS: tournaments.tap_tournament,
}

#: Each command and its handler.
COMMANDS: dict[str | tuple[str, ...], HandlerCallback] = {
    "start": menu.start,
    "help": menu.help_command,
    ("stop", "exit"): play.stop,
    "hint": assists.hint,
    "undo": assists.undo,
    "card": cards.card,
    "replay": replays.replay_command,
    "challenge": challenges.challenge,
    "stats": records.stats,
    "top": ratings.top,
    "play": matchmaking.play_command,
    "rating": ratings.rating,
    "language": language.language,
    "forget": privacy.forget,
    "tournament": tournaments.tournament,
}


def register_handlers(application: BotApplication) -> None:
    """Every handler, in one place: commands, one handler per kind of button (by its
    callback-data prefix; anything else is an unknown button), inline mode, typed moves.
    First of all (group -1), an update delivered again is skipped; edited messages are never
    commands or moves."""
    application.add_handler(TypeHandler(Update, delivery.claim_update), group=-1)
    new_message = filters.UpdateType.MESSAGE
    # Taps first: the busiest updates find their handler without passing every command's.
    for kinds, tap in BUTTONS.items():
        application.add_handler(taps.button_handler(tap, *kinds))
    for names, command in COMMANDS.items():
        application.add_handler(CommandHandler(names, command, filters=new_message))
    application.add_handler(CallbackQueryHandler(common.unknown_button))
    application.add_handler(InlineQueryHandler(inline.inline_query))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, chat_events.chat_migrated))
    application.add_handler(
        ChatMemberHandler(chat_events.bot_membership, ChatMemberHandler.MY_CHAT_MEMBER)
    )
    application.add_handler(
        MessageHandler(
            new_message
            & filters.TEXT
            & ~filters.COMMAND
            & (filters.ChatType.PRIVATE | filters.REPLY),
            play.typed_move,
        )
    )
    application.add_error_handler(errors.on_error)


async def open_resources(application: BotApplication) -> None:
    """Migrate the database, open it, resume AI matches, publish the profile."""
    resources: Resources = application.bot_data
    settings = resources.config
    engine = resources.engine = create_engine(settings.database_url.get_secret_value())
    # The solved 3×3 table is built on a thread of its own while the bot starts and waits for
    # its first updates, rather than on the first hard move (a twentieth of a second).
    resources.tasks["solved_table"] = asyncio.create_task(build_lasting_state())
    # Alembic runs its own event loop, so it gets a thread too, and only when the schema is
    # behind: importing it costs more than asking the database.
    if not await is_current(engine):
        await asyncio.to_thread(upgrade_database, settings.database_url.get_secret_value())
    await open_pool(engine)
    share_flood_budget(application, engine)
    metrics = resources.metrics
    ai_pool = AiPool(settings.ai_time_budget_seconds, metrics=metrics)
    clock = Clock(settings.stranger_clock_seconds, settings.stranger_clock_delay_seconds)
    sessions = create_session_factory(engine)
    games = open_games(sessions, random.Random(), ai_pool.think, clock, metrics)
    running = resources.opened = replace(
        open_running(application, settings, games, ai_pool),
        heartbeat=beating(settings.heartbeat_file, engine),  # HEARTBEAT_FILE
    )
    hooks = BoardHooks(delivered=running.board_catch_up.delivered, turn_seen=games.turn_starts.seen)
    # The profile is not needed to play: set once the bot takes updates, not before.
    resources.tasks["profile"] = asyncio.create_task(
        once_running(application, publish_profile(application.bot))
    )
    # Both modes: a webhook's updates and long polling's batches are stored before Telegram
    # is told they arrived (`bot.intake.polling`).
    every = settings.board_catch_up_seconds
    resources.inbox = WebhookInbox(
        games.inbox, application, every=every, unstored=resources.unstored, metrics=metrics
    )
    if settings.webapp_url is not None:
        from bot.webapp.opening import open_mini_app  # a bot without WEBAPP_URL goes without

        hooks = open_mini_app(application, settings, hooks)
    running.presenter.hooks = hooks
    for game in await games.ai_turns.waiting():
        running.matches.start(game.id)
    for chore in running.chores:
        chore.start()
    log.info("bot @%s is ready", application.bot.username)


def share_flood_budget(application: BotApplication, engine: DatabaseEngine | None) -> None:
    """Count the flood limits in the database for every instance (FLOOD_BUDGET) while it is
    open; with None, in this process alone again."""
    gate = application.bot.rate_limiter
    if not isinstance(gate, FloodGate):
        return
    sharing = application.bot_data.config.flood_budget
    if engine is None or not sharing.shares_on(engine.dialect.name):
        gate.budget = None
        return
    gate.budget = SharedBudget(engine, gate.limits, application.bot_data.metrics)
    log.info("the flood limits are counted in the database, for every instance together")


def open_running(
    application: BotApplication, settings: Settings, games: Games, ai_pool: AiPool
) -> Running:
    """The presenter, the AI-turns runner and the background chores, on the use-cases (not
    started)."""
    bot = application.bot
    metrics = application.bot_data.metrics
    presenter = Presenter(
        bot,
        games.chats,
        games.outbox,
        doubt_seconds=settings.board_doubt_seconds,
        # A claim lasts as long as a tap waits for another instance's edit: a process that
        # died holds a board no longer than that.
        claim_seconds=settings.board_tap_redraw_seconds,
    )
    matches = AiMatchRunner(games.store, games.ai_turns, presenter, bot, settings.ai_pause_seconds)
    presenter.ai = matches
    listen(
        games.store.events,
        bot=bot,
        presenter=presenter,
        ai_matches=matches,
        matchmaking=games.matchmaking,
        metrics=metrics,
    )
    return Running(
        games=games,
        ai_pool=ai_pool,
        presenter=presenter,
        matches=matches,
        turn_clock=TurnClock(
            games.timeouts,
            games.turn_starts,
            presenter,
            bot,
            settings.turn_timeout_seconds,
            redraw_seconds=settings.clock_redraw_seconds,
            grace_seconds=settings.clock_grace_seconds,
        ),
        housekeeping=Housekeeping(games.updates),
        board_catch_up=BoardCatchUp(
            games.outbox,
            presenter,
            every=settings.board_catch_up_seconds,
            tap_redraw_after=settings.board_tap_redraw_seconds,
            metrics=metrics,
        ),
        matchmaker=Matchmaker(
            games.matchmaking,
            presenter,
            bot,
            wait_limit=timedelta(seconds=settings.queue_wait_seconds),
            metrics=metrics,
        ),
        tournament_rounds=TournamentRounds(games.tournaments, games.store, presenter, bot),
    )


async def build_lasting_state() -> None:
    """Build the solved 3×3 table, then freeze what start-up built (the table, SQLAlchemy's and
    PTB's classes, …) out of the garbage collector: it lives as long as the bot, and is not
    walked again and again while updates come in. The collector runs from then on (the
    command line turns it off for start-up), at `GC_THRESHOLDS`."""
    await asyncio.to_thread(solved_table)
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    gc.enable()


async def once_running(application: BotApplication, work: Coroutine[Any, Any, None]) -> None:
    """Run `work` once the application handles updates: what start-up does not need waits
    until the first getUpdates is out."""
    try:
        # PTB has no hook after `Application.start`, so there is no event to wait on.
        while not application.running:  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    except BaseException:
        work.close()
        raise
    await work


async def close_resources(application: BotApplication) -> None:
    """Stop background tasks and close the database."""
    resources: Resources = application.bot_data
    if resources.inbox is not None:
        await resources.inbox.stop()
    for name in ("menu_button", "profile"):
        task = resources.tasks.get(name)
        if task is not None and not task.done():
            task.cancel()
    running, resources.opened = resources.opened, None
    if running is not None:
        # The presenter's redraws first: the board catch-up's last marks then let go of
        # every claim, so a restarted bot draws those boards at once. The games' events go
        # to their listeners before that (or are cut short, see `EventStream.close`).
        await running.games.store.events.close()
        await running.presenter.stop()
        for chore in running.chores:
            await chore.stop()
        await running.matches.stop_all()
        running.ai_pool.close()
    # A read-only SQLite file's connections stay open: closing them would end the process.
    if resources.engine is not None and not must_stay_open(resources.engine):
        share_flood_budget(application, None)
        await resources.engine.dispose()
        # A read that a stopped chore was cancelled in has its SQLite connection ended by
        # SQLAlchemy with aiosqlite's `stop()`, which answers on this loop from the
        # connection's thread without being awaited: a short pause lets that answer land
        # before the loop closes (else the thread prints "Event loop is closed" at exit).
        await asyncio.sleep(CLOSE_GRACE_SECONDS)

"""What the running bot holds, typed: PTB's `bot_data` is a `Resources` (`ContextTypes(bot_data=
Resources)`), so handlers, the Mini App and the chores reach the use-cases, the presenter and the
chores by attribute, checked by mypy, instead of by `bot_data["…"]` strings.

`build_application` sets what it builds (the settings, the transports); `open_resources` (PTB's
post_init) opens the rest at once (`Running`); a handler never runs before that."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from bot.telegram.unstored import Unstored

if TYPE_CHECKING:
    from telegram.request import BaseRequest

    from bot.ai_pool import AiPool
    from bot.chat.presenter import Presenter
    from bot.chores.ai_runner import AiMatchRunner
    from bot.chores.board_catch_up import BoardCatchUp
    from bot.chores.heartbeat import Heartbeat
    from bot.chores.housekeeping import Housekeeping
    from bot.chores.match_games import MatchGames
    from bot.chores.matchmaker import Matchmaker
    from bot.chores.tournament_rounds import TournamentRounds
    from bot.chores.turn_clock import TurnClock
    from bot.config import Settings
    from bot.games.db.engine import DatabaseEngine
    from bot.games.use_cases import Games
    from bot.intake.webhook_inbox import WebhookInbox
    from bot.telemetry.metrics import Metrics
    from bot.webapp.links import WebAppLinks
    from bot.webapp.live import GameNotifier
    from bot.webapp.members import GroupMembers
    from bot.webapp.pace import NewGamePace

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Running:
    """What `open_resources` opens: the use-cases on the database, the one presenter, the
    AI-turns runner and the background chores."""

    games: Games
    ai_pool: AiPool
    presenter: Presenter
    matches: AiMatchRunner
    turn_clock: TurnClock
    housekeeping: Housekeeping
    board_catch_up: BoardCatchUp
    matchmaker: Matchmaker
    tournament_rounds: TournamentRounds
    #: With HEARTBEAT_FILE: the file a health check reads in polling mode too.
    heartbeat: Heartbeat | None = None

    @cached_property
    def match_games(self) -> MatchGames:
        """Posts each match's next game once the game before has ended."""
        from bot.chores.match_games import MatchGames

        return MatchGames(self.games.store, self.presenter)

    @property
    def chores(
        self,
    ) -> tuple[
        TurnClock
        | Housekeeping
        | BoardCatchUp
        | Matchmaker
        | TournamentRounds
        | MatchGames
        | Heartbeat,
        ...,
    ]:
        """What every instance runs in the background, started last and stopped first."""
        beating = (self.heartbeat,) if self.heartbeat is not None else ()
        return (
            self.turn_clock,
            self.housekeeping,
            self.board_catch_up,
            self.matchmaker,
            self.tournament_rounds,
            self.match_games,
            *beating,
        )


@dataclass(frozen=True)
class MiniApp:
    """The Mini App's own (WEBAPP_URL): its links, the pages' live streams, who is in
    which group (who may see a group's games), and the pace of new games from the page."""

    links: WebAppLinks
    notifier: GameNotifier
    members: GroupMembers
    new_games: NewGamePace


class NotOpen(RuntimeError):
    """A resource asked for before `open_resources` opened it (or after it was closed)."""


@dataclass
class Resources:
    settings: Settings | None = None
    #: The Bot API transports (getUpdates, everything else): closed by the start-up should
    #: initialize fail (PTB does not close those of a bot that never finished initializing).
    transports: tuple[BaseRequest, ...] = ()
    engine: DatabaseEngine | None = None
    opened: Running | None = None
    inbox: WebhookInbox | None = None  # webhook mode
    mini_app: MiniApp | None = None  # with WEBAPP_URL
    #: Start-up's background work (the solved table, the profile, the menu button).
    tasks: dict[str, asyncio.Task[Any]] = field(default_factory=dict)
    #: Updates the database would not store: Telegram must deliver them again.
    unstored: Unstored = field(default_factory=Unstored)
    #: The metrics (METRICS_PORT; None: off), made with the application.
    metrics: Metrics | None = None

    @property
    def running(self) -> Running:
        if self.opened is None:
            raise NotOpen("the bot's resources are not open")
        return self.opened

    @property
    def config(self) -> Settings:
        if self.settings is None:
            raise NotOpen("the bot has no settings")
        return self.settings

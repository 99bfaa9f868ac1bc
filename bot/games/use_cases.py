"""Every family of use-cases, opened on one database: what the bot (and a test) holds."""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.games.challenges.use_cases import Challenges
from bot.games.chats import Chats
from bot.games.db.outbox import BoardOutbox
from bot.games.db.rows.handled_updates import HandledUpdates
from bot.games.db.rows.inbox import Inbox
from bot.games.db.store import Sessions, Store
from bot.games.play.ai_turns import AiTurns, Thinker
from bot.games.play.assists import Assists
from bot.games.play.clock_rules import DEFAULT_CLOCK, Clock
from bot.games.play.replays import Replays
from bot.games.play.resigning import Resigning
from bot.games.play.review import Reviews
from bot.games.play.timeouts import TurnTimeouts
from bot.games.play.turn_starts import TurnStarts
from bot.games.play.use_cases import Play
from bot.games.players import Players
from bot.games.privacy import Privacy
from bot.games.ratings.use_cases import Ratings
from bot.games.records import Records
from bot.games.strangers.chats import StrangerChats
from bot.games.strangers.matchmaking import Matchmaking
from bot.games.tournaments.use_cases import Tournaments
from bot.telemetry.metrics import Metrics


@dataclass(frozen=True)
class Games:
    """The use-case families, sharing one store. Holds no logic of its own."""

    store: Store
    play: Play
    resigning: Resigning
    assists: Assists
    challenges: Challenges
    ai_turns: AiTurns
    timeouts: TurnTimeouts
    turn_starts: TurnStarts
    records: Records
    reviews: Reviews
    replays: Replays
    stranger_chats: StrangerChats
    privacy: Privacy
    chats: Chats
    updates: HandledUpdates
    players: Players
    outbox: BoardOutbox
    inbox: Inbox
    ratings: Ratings
    matchmaking: Matchmaking
    tournaments: Tournaments


def open_games(
    sessions: Sessions,
    rng: random.Random,
    think: Thinker | None = None,
    clock: Clock = DEFAULT_CLOCK,
    metrics: Metrics | None = None,
) -> Games:
    """The use-cases on a database. `rng` drives the AI's instant moves; `think` computes
    moves that need thought (a worker process in the bot, a thread by default); `clock` is
    the time control of games between strangers (and of tournaments by default); `metrics`
    times the write transactions (None: not)."""
    games = Store(sessions, metrics)
    ratings = Ratings(games)
    resigning = Resigning(games)
    return Games(
        store=games,
        play=Play(games, rng),
        resigning=resigning,
        assists=Assists(games, rng, think),
        challenges=Challenges(games),
        ai_turns=AiTurns(games, rng, think),
        timeouts=TurnTimeouts(games),
        turn_starts=TurnStarts(games),
        records=Records(games),
        reviews=Reviews(games),
        replays=Replays(games),
        stranger_chats=StrangerChats(games),
        privacy=Privacy(games),
        chats=Chats(games),
        updates=HandledUpdates(games),
        players=Players(games),
        outbox=BoardOutbox(games),
        inbox=Inbox(games),
        ratings=ratings,
        matchmaking=Matchmaking(games, ratings, clock),
        tournaments=Tournaments(games, resigning, clock),
    )

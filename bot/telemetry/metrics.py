"""The bot's metrics, in Prometheus's terms, on a registry of this process's own.

`Metrics` is made only when METRICS_PORT is set (`bot.app`), and handed to the places that
know what it counts; each holds it as `metrics` (None: metrics are off, and counting costs
one comparison). Its registry is this object's, not prometheus_client's global one: a test
can run several bots in one process, and each instance of the bot serves its own numbers
(Prometheus adds the `instance` label when it scrapes them).

Two ways in:

* What happens is counted where it happens: updates handled and their latency, Bot API calls
  by outcome, waits in the flood gate, write transactions, the AI's searches, games started
  and ended (heard from the games' events), the catch-up's redraws, the shared flood budget's
  fallbacks. The hot path (a tap: its update, two or three Bot API calls, a flood-gate wait, a
  transaction) observes label children made once and kept (about a microsecond each), never
  `labels(...)` anew.
* What is a state is read when Prometheus asks (`bot.intake.metrics_page`) or set by a round
  the bot runs anyway: games live (one COUNT at each scrape), the board outbox's depth (the
  presenter's queue, read at the scrape), the queue's length (the matchmaker's round), boards
  behind their game (the board catch-up's round). None of it costs a tap anything.

Names follow Prometheus's conventions: a `tictactoe_` prefix, base units (`_seconds`),
counters ending in `_total` (prometheus_client adds it). `docs/settings.md` lists them.
"""

from __future__ import annotations

from typing import TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.process_collector import ProcessCollector

PREFIX = "tictactoe_"

#: From arrival to the end of handling: a tap's answer comes first, its board's edit may wait
#: for the chat's pace (a second in a private chat, three in a busy group).
UPDATE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0)
#: Most messages find their tokens at once; a group's pace is seconds, a 429 up to a minute.
FLOOD_WAIT_BUCKETS = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0)
#: A tap's transaction takes about a millisecond; a locked SQLite file, seconds.
TRANSACTION_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)
#: Hard beyond 3×3 needs up to 0.05 s of CPU (more for forced wins); ultimate its whole budget.
THINK_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

#: The outcomes of a Bot API call (`bot.telegram.request`): an answer, or none.
OK, FLOOD, REFUSED, SERVER_ERROR, TIMEOUT, NO_CONNECTION = (
    "ok",
    "429",
    "refused",
    "server_error",
    "timeout",
    "no_connection",
)

M = TypeVar("M", Counter, Histogram)


def answer_outcome(status: int) -> str:
    """The outcome of a Bot API call Telegram answered with this HTTP status."""
    if 200 <= status <= 299:
        return OK
    if status == 429:
        return FLOOD
    return SERVER_ERROR if status >= 500 else REFUSED


#: Each metric's help text, by its name after the prefix (counters without their `_total`).
HELP = {
    "update_duration_seconds": "Updates handled, by kind, from their arrival (the webhook's "
    "request, or the long poll's answer) to the end of their handling (answer and board sent)",
    "bot_api_calls": "Bot API requests (every try, retries included) by method and outcome: ok, "
    "429, refused (another 4xx), server_error (5xx), timeout (no answer in time), "
    "no_connection (the request never left or the connection dropped)",
    "flood_wait_seconds": "How long a message waited in the flood gate for its chat's and the "
    "bot's tokens (and a 429's retry_after) before it went out, by chat kind and pace",
    "boards_behind": "Games whose board shows an older version than the game, at the board "
    "catch-up's last round (at most 100 are read a round)",
    "board_outbox_depth": "Games whose boards this process is drawing or will draw shortly "
    "(waiting for their turn, their chat's pace, or a redraw after an unanswered edit)",
    "board_catch_up_redraws": "Boards the catch-up drew again: they stayed behind their game",
    "games_started": "Games stored (open challenges too), by kind: ai, people, strangers, ai_match",
    "games_ended": "Games ended, by kind and how they ended (the EndReason)",
    "games_live": "Open challenges and running games in the database (every instance's: take "
    "the max over instances, not the sum)",
    "matchmaking_queue_length": "Players waiting in the matchmaking queue (/play), at the "
    "matchmaker's last round",
    "ai_think_duration_seconds": "AI moves searched off the event loop, by level and board "
    "(every 3x3 move, and easy's and medium's anywhere, take microseconds and are not timed)",
    "db_transaction_duration_seconds": "Write transactions (every write goes through one), "
    "from their first statement to their commit or rollback",
    "flood_budget_fallbacks": "Messages sent under this process's flood gate alone: the shared "
    "flood budget's database did not answer (FLOOD_BUDGET)",
}


class Metrics:
    """Every metric of the bot, on one registry of its own."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        # CPU seconds, resident memory, open files, start time: read from /proc at a scrape.
        ProcessCollector(registry=registry)

        def counter(name: str, *labels: str) -> Counter:
            return Counter(PREFIX + name, HELP[name], labels, registry=registry)

        def gauge(name: str) -> Gauge:
            return Gauge(PREFIX + name, HELP[name], registry=registry)

        def histogram(name: str, buckets: tuple[float, ...], *labels: str) -> Histogram:
            return Histogram(PREFIX + name, HELP[name], labels, buckets=buckets, registry=registry)

        self.updates = histogram("update_duration_seconds", UPDATE_BUCKETS, "kind")
        self.bot_api_calls = counter("bot_api_calls", "method", "outcome")
        self.flood_waits = histogram("flood_wait_seconds", FLOOD_WAIT_BUCKETS, "chat", "pace")
        self.flood_budget_fallbacks = counter("flood_budget_fallbacks")
        self.boards_behind = gauge("boards_behind")
        self.outbox_depth = gauge("board_outbox_depth")
        self.catch_up_redraws = counter("board_catch_up_redraws")
        self.games_started = counter("games_started", "kind")
        self.games_ended = counter("games_ended", "kind", "reason")
        self.games_live = gauge("games_live")
        self.queue_length = gauge("matchmaking_queue_length")
        self.ai_think = histogram("ai_think_duration_seconds", THINK_BUCKETS, "level", "board")
        self.transactions = histogram(
            "db_transaction_duration_seconds", TRANSACTION_BUCKETS, "outcome"
        )
        self._updates: dict[tuple[str, ...], Histogram] = {}
        self._calls: dict[tuple[str, ...], Counter] = {}
        self._waits: dict[tuple[str, ...], Histogram] = {}
        self._committed = self.transactions.labels("commit")
        self._rolled_back = self.transactions.labels("rollback")

    # --- what happens, counted where it happens ------------------------------------------------

    def update_handled(self, kind: str, seconds: float) -> None:
        _child(self._updates, self.updates, kind).observe(seconds)

    def bot_api_call(self, method: str, outcome: str) -> None:
        _child(self._calls, self.bot_api_calls, method, outcome).inc()

    def flood_waited(self, chat: str, pace: str, seconds: float) -> None:
        _child(self._waits, self.flood_waits, chat, pace).observe(seconds)

    def transaction(self, seconds: float, *, committed: bool) -> None:
        (self._committed if committed else self._rolled_back).observe(seconds)


def _child(cache: dict[tuple[str, ...], M], metric: M, *labels: str) -> M:
    """The metric's child for these label values, made once."""
    child = cache.get(labels)
    if child is None:
        child = cache[labels] = metric.labels(*labels)
    return child

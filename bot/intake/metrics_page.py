"""GET /metrics: the bot's metrics (`bot.telemetry.metrics`) for Prometheus, on a server of
their own (METRICS_LISTEN:METRICS_PORT, both modes; `bot.run` starts it).

prometheus_client writes the format: Prometheus's text format, or OpenMetrics when the
scraper asks for it. Before it does, the page reads the states nothing counts as they change:
the games live (one COUNT in the database, at most `READ_SECONDS`: a database that does not
answer leaves the last value, and the scrape goes on) and the board outbox's depth (the
presenter's queue, in memory). A scrape, not a tap, pays for them.
"""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web
from prometheus_client.exposition import choose_encoder

from bot.resources import Running
from bot.telemetry.metrics import Metrics

log = logging.getLogger(__name__)

#: How long a scrape waits for the database's count of live games.
READ_SECONDS = 2.0


def build_metrics_app(metrics: Metrics, running: Running) -> web.Application:
    """The web app that serves /metrics, reading the states of `running`."""
    order = running.presenter.order
    metrics.outbox_depth.set_function(lambda: order.depth)
    records = running.games.records

    async def page(request: web.Request) -> web.Response:
        try:
            async with asyncio.timeout(READ_SECONDS):
                metrics.games_live.set(await records.live_games())
        except Exception:
            log.debug("the games live could not be counted for this scrape", exc_info=True)
        encoder, content_type = choose_encoder(request.headers.get("Accept", ""))
        return web.Response(body=encoder(metrics.registry), headers={"Content-Type": content_type})

    web_app = web.Application()
    web_app.router.add_get("/metrics", page)
    return web_app

"""Run the real bot in-process against the fake Bot API server, the way `run_polling` does."""

from __future__ import annotations

from telegram.ext import Application

from bot.app import build_application
from bot.config import Settings
from tests.fake_telegram import FakeTelegram


class BotRunner:
    """The bot's Application started and stopped in the same order as `run_polling`:
    initialize, post_init, start polling … stop, shutdown, post_shutdown."""

    def __init__(self, telegram: FakeTelegram, database_url: str, ai_pause: float = 0.05) -> None:
        self.settings = Settings(
            token=telegram.token,
            database_url=database_url,
            api_base_url=telegram.base_url,
            ai_pause_seconds=ai_pause,
        )
        self.application: Application | None = None

    async def start(self) -> Application:
        application = build_application(self.settings)
        await application.initialize()
        if application.post_init is not None:
            await application.post_init(application)
        await application.start()
        assert application.updater is not None
        await application.updater.start_polling(poll_interval=0, timeout=1)
        self.application = application
        return application

    async def stop(self) -> None:
        application, self.application = self.application, None
        if application is None:
            return
        assert application.updater is not None
        await application.updater.stop()
        await application.stop()
        await application.shutdown()
        if application.post_shutdown is not None:
            await application.post_shutdown(application)

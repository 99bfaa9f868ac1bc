"""WEBAPP_URL, WEBAPP_SHORT_NAME and WEB_PORT: read and checked like the webhook's settings."""

from __future__ import annotations

import pytest

from bot.config import ConfigError, load_settings

TOKEN = {"TELEGRAM_BOT_TOKEN": "1:abc"}


def settings(**values: str):
    return load_settings({**TOKEN, **values}, env_file=None)


def test_the_mini_app_is_off_by_default() -> None:
    loaded = settings()
    assert (loaded.webapp_url, loaded.webapp_short_name, loaded.web_port) == (None, None, 8080)


def test_https_anywhere_and_http_only_on_this_machine() -> None:
    assert settings(WEBAPP_URL="https://bot.example.org").webapp_url == "https://bot.example.org"
    assert settings(WEBAPP_URL="http://127.0.0.1:8080").webapp_url == "http://127.0.0.1:8080"
    assert settings(WEBAPP_URL="http://localhost:81/").webapp_url == "http://localhost:81/"
    for url in ("http://bot.example.org", "ftp://bot.example.org", "bot.example.org"):
        with pytest.raises(ConfigError, match=r"^WEBAPP_URL must be the public https://"):
            settings(WEBAPP_URL=url)


def test_short_name_and_port_are_checked() -> None:
    loaded = settings(WEBAPP_URL="https://b.example", WEBAPP_SHORT_NAME="board", WEB_PORT="9000")
    assert (loaded.webapp_short_name, loaded.web_port) == ("board", 9000)
    with pytest.raises(ConfigError, match=r"^WEBAPP_SHORT_NAME must be"):
        settings(WEBAPP_SHORT_NAME="no spaces please")
    with pytest.raises(ConfigError, match=r"^WEB_PORT must be a TCP port"):
        settings(WEB_PORT="70000")
    assert "***" in repr(settings(WEBAPP_URL="https://b.example")) and "1:abc" not in repr(
        settings(WEBAPP_URL="https://b.example")
    )

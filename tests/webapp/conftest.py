"""The Mini App's tests: the real browser, for the tests that ask for `browser`."""

from tests.webapp.browser import _shared_browser, browser

__all__ = ["_shared_browser", "browser"]

"""The Mini App's tests: the real browser, for the tests that ask for `browser`."""

from tests.webapp.browser import browser

__all__ = ["browser"]

"""User-facing strings, one module per language (`en.py`, `ru.py`, …).

Adding a language means adding one file here that defines the same names as `en.py`
(start it with `from bot.locales.en import *` so a missing string falls back to English).
"""

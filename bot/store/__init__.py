"""Umpire's storage, one package per backend behind one interface.

``bot.store.sqlite`` is the SQLite file (the embedded default). Callers import what they
need from ``bot.store``; every public name of the SQLite backend is re-exported here.
"""

from bot.store.sqlite import *  # noqa: F403

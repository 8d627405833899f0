"""Loaded first (``-p tests.bytecode`` in pytest's options): bytecode is cached, in the
ignored ``__pycache__`` folders, even where the environment says not to write it
(PYTHONDONTWRITEBYTECODE). Otherwise every run compiles the product and rewrites every
test module's asserts again, in each worker and in every CLI subprocess the tests start
(~8 s of CPU a worker on a two-core machine)."""

from __future__ import annotations

import sys

sys.dont_write_bytecode = False

"""How many examples a property test tries: a quarter of them in the default run (the
``default-run`` profile, loaded by tests/conftest.py), every one in the soak stage, where
the property tests run again (``pytest -m "soak or hypothesis" --hypothesis-profile=soak``
in .ci/run; hypothesis marks its tests ``hypothesis``).

A test that names its count writes ``@settings(max_examples=examples(400))``: 400 in the
soak stage, 100 in the default run. A test that names none takes the profile's."""

from __future__ import annotations

from hypothesis import settings

#: Examples of a test that names no count, in the soak stage (hypothesis' own default).
FULL = 100
settings.register_profile("soak", max_examples=FULL)
settings.register_profile("default-run", max_examples=FULL // 4)


def load_default_run_profile() -> None:
    """Fewer examples, unless another profile is asked for: .ci/run's soak stage passes
    ``--hypothesis-profile=soak``, which hypothesis loads after this (pytest_configure)."""
    settings.load_profile("default-run")


def examples(full: int) -> int:
    """``full`` in the soak stage; in the default run the same share of it as the loaded
    profile's count is of ``FULL``."""
    loaded = settings.default
    assert loaded is not None
    return max(1, full * loaded.max_examples // FULL)

"""The canonical bytes of a state (what its hash is taken of) are exactly the standard
library's sorted, compact JSON, so every hash stored before orjson wrote them stays valid."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.kernel.state import canonical_json
from tests.hypothesis_profiles import examples
from tests.kernel.test_copy_and_views import GAMES, states


def reference(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


# What states hold: no floats. Integers beyond 64 bits take the standard library's path.
values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(), inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=examples(400))
@given(values)
def test_json_data_without_floats_encodes_as_the_standard_library_does(data: Any) -> None:
    assert canonical_json(data) == reference(data)


def test_control_characters_and_unicode_are_escaped_alike() -> None:
    text = "".join(chr(c) for c in range(0x20)) + "\x7f\u2028\u2029 é 漢 🙂 \\ \" /"
    data = {"b": [text, {"z": 1, "a": None}], "a": True, text: -(2**63), "big": 2**64 + 1}
    assert canonical_json(data) == reference(data)


@pytest.mark.parametrize(("name", "scenario", "orders"), GAMES)
def test_every_state_of_a_random_game_encodes_as_before(name: str, scenario: str | None,
                                                        orders: int) -> None:
    for state in states(name, scenario, orders):
        data = state.model_dump(mode="json")
        assert state.to_bytes() == reference(data)

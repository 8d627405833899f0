"""The browser the web page's tests drive (tests/web/browser.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.browser import chromium


@pytest.fixture
def browser() -> Iterator[Any]:
    path = chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        found = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield found
        finally:
            found.close()

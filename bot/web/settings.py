"""How the web server runs (``umpire web``'s options, docs/web.md) and the full link of a
page under the configured base URL."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2

HERE = Path(__file__).resolve().parent
#: The largest request body taken (an order is a few hundred bytes).
MAX_BODY = 16 * 1024


@dataclass
class WebSettings:
    """How the server runs (``umpire web``'s options; docs/web.md)."""

    host: str = "127.0.0.1"
    port: int = 8080
    #: The public base URL of the pages (``--web-url``), e.g. ``https://umpire.example``:
    #: the links given to players start with it; never guessed from a request's headers.
    base_url: str = ""
    #: The key of the CSRF tokens; random per process unless configured (several processes
    #: behind one address share one, docs/web.md).
    secret: bytes = field(default_factory=lambda: os.urandom(32))
    #: Seconds between two polls of a watched game's head sequence.
    poll: float = 0.05
    #: Seconds between two keep-alive comments of an event stream.
    keepalive: float = 15.0
    #: Requests per second (and at once) per link, per address; orders per link.
    per_link: tuple[float, float] = (20.0, 60.0)
    per_address: tuple[float, float] = (50.0, 200.0)
    submits: tuple[float, float] = (2.0, 10.0)
    #: Event streams one link may hold open at once (its pages in several tabs, devices).
    streams_per_link: int = 8
    #: Threads storing orders; the orders wait their turn in the threads' queue, first come
    #: first served. One: an order is all Python (the rules, the store's bytes), so two
    #: stored at once share the interpreter's lock and each takes twice as long, the first
    #: of a burst included; one thread takes the next order as soon as it is done (issue
    #: 26, docs/performance.md round 10).
    orders_at_once: int = 1
    templates: jinja2.Environment = field(default_factory=lambda: _templates())


def link_url(settings: WebSettings | str, path: str) -> str:
    """The full link of a page's ``path`` (``/s/TOKEN``) under the configured base URL
    (only the path without one)."""
    base = settings if isinstance(settings, str) else settings.base_url
    return f"{base.rstrip('/')}{path}" if base else path




def _templates() -> jinja2.Environment:
    """The page's templates (Jinja2, every value escaped), imported when a server is made."""
    import jinja2

    return jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                              autoescape=True)

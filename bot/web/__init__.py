"""The web page per seat (issue 25): an aiohttp server giving each seat's secret link
(``/s/TOKEN``) its page, its JSON API, its map picture, its replay and its event stream, all
read from that seat's View through the game service (docs/web.md).

* :mod:`bot.web.app` — the application factory, its configuration and a runner;
* :mod:`bot.web.routes` — the page, the JSON API, the pictures, the event stream;
* :mod:`bot.web.seat` — what one link's requests read (state JSON, pictures, replay);
* :mod:`bot.web.tokens` — tokens in paths, their redaction, CSRF tokens bound to a link;
* :mod:`bot.web.security` — headers (CSP), rate limits, request bounds, the access log;
* :mod:`bot.web.events` — one watcher per game telling open streams of new actions.
"""

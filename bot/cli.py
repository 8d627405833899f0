"""The ``umpire`` command.

Start-up is part of every command's cost: this module imports only typer at the top, and
each command imports what it uses (the rules, the store, the renderer, Discord) when it
runs, so ``umpire --help`` does not load them.
"""

from __future__ import annotations

import importlib
import os
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

if TYPE_CHECKING:
    from rich.console import Console

    from adjudicator.kernel.game import Game
    from bot.service import GameService
    from bot.store import StoreTarget


class _OneLineErrors(TyperGroup):
    """Any error a command meets (a damaged database, an unreadable file, a defect) ends it
    with one line on stderr and exit status 1, never a traceback ($UMPIRE_DEBUG=1 shows
    it)."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, TyperException):
            raise
        except Exception as error:
            if os.environ.get("UMPIRE_DEBUG"):
                raise
            from bot.store.urls import redact

            text = redact(" ".join(str(error).split())) or type(error).__name__
            print(f"umpire: {text[:300]}", file=sys.stderr)
            raise typer.Exit(1) from None


#: The --db option: SQLite (the default) or PostgreSQL.
DB_HELP = ("the database: a file, sqlite:///ABSOLUTE/PATH, sqlite://RELATIVE/PATH or "
           "postgresql://USER@HOST/DB (default $UMPIRE_DB, else umpire.db in the user data "
           "folder); a password is never printed")


def _plain_metavars() -> None:
    """Arguments show their metavar plainly ("GAME"): typer otherwise appends the Python
    type ("GAME <str>") to every argument in the help."""
    from typer.core import TyperArgument

    shown = TyperArgument.display_type_rich

    def display(self: TyperArgument, ctx: Any) -> str | None:
        return None if self.metavar is not None else shown(self, ctx)

    TyperArgument.display_type_rich = display  # type: ignore[method-assign,assignment]


_plain_metavars()

app = typer.Typer(help="Umpire: a neutral referee for board wargames.", no_args_is_help=True,
                  rich_markup_mode=None, pretty_exceptions_enable=False, cls=_OneLineErrors)
data_app = typer.Typer(help="Data packs: validate a replacement pack, show a pack's contents.",
                       no_args_is_help=True)
app.add_typer(data_app, name="data")
db_app = typer.Typer(help="The database: check it, migrate it, copy it to another.",
                     no_args_is_help=True)
app.add_typer(db_app, name="db")


@cache
def _rich_console() -> Console:
    from rich.console import Console

    return Console()


class _Console:
    """rich's Console, made when something is first printed."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_rich_console(), name)


console: Any = _Console()


def _scenario_names() -> str:
    """Each shipped game's scenarios, read from its pack's scenarios.toml (the first is the
    default), for the help texts: "stalingrad: historical, basic ...; tanks: ..."."""
    import tomllib

    root = Path(__file__).resolve().parents[1] / "data"
    out = []
    for game, table, key in (("stalingrad", "scenarios", "key"), ("tanks", "scenario", "id")):
        try:
            found = tomllib.loads((root / game / "scenarios.toml").read_text(encoding="utf-8"))
            out.append(f"{game}: " + ", ".join(str(s[key]) for s in found[table]))
        except (OSError, KeyError, TypeError, tomllib.TOMLDecodeError):
            continue
    return "; ".join(out)


def _scenario_features() -> str:
    """Each shipped game's scenarios with the features their briefings name (hidden units,
    mines, face-down set-up, bids), for ``--help`` only: it loads both packs."""
    from adjudicator.registry import load_game

    out = []
    for game in ("stalingrad", "tanks"):
        rules = load_game(game)
        out.append(f"{game}: " + ", ".join(
            key + (f" [{'; '.join(found)}]" if (found := rules.briefing(key).feature_names())
                   else "") for key in rules.scenarios()))
    return "; ".join(out)


# Loading the packs costs a second: only `umpire play ... --help` shows the features.
SCENARIOS = (_scenario_features() if sys.argv[1:2] == ["play"]
             and {"--help", "-h"} & set(sys.argv[2:]) else _scenario_names())


@cache
def _game(name: str) -> Game[Any]:
    from adjudicator.registry import load_game

    return load_game(name)


def _options(pairs: list[str]) -> dict[str, Any]:
    """``--option KEY=VALUE`` pairs; values are read as JSON when they can be (true, 3)."""
    import json

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            console.print(f"[red]--option takes KEY=VALUE, not {pair!r}[/red]")
            raise typer.Exit(code=2)
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


@app.command()
def play(
    game: Annotated[str, typer.Argument(metavar="GAME", help="stalingrad or tanks")],
    scenario: Annotated[str | None, typer.Option(
        metavar="NAME", help=f"scenario (default: the first) — {SCENARIOS}")] = None,
    resume: Annotated[str | None, typer.Option(
        metavar="ID", help="continue a stored game by its id (umpire games lists them)")]
    = None,
    pack: Annotated[Path | None, typer.Option(
        metavar="DIR", help="a replacement data pack folder (GM)")] = None,
    db: Annotated[str | None, typer.Option("--db", metavar="DB", help=DB_HELP)] = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", metavar="KEY=VALUE",
        help="an optional rule for a new game (e.g. cards=true)")] = None,
    seat: Annotated[str | None, typer.Option(
        metavar="SIDE", help="play that side only at this terminal, seeing only its view "
        "(another terminal plays the other side of the same game: --resume ID --seat SIDE)")]
    = None,
) -> None:
    """Play a game locally, hot-seat or solitaire, at this console (stored, resumable)."""
    from rich.markup import escape

    from adjudicator.registry import UnknownGame, load_game
    from bot.console import LocalGame, play_at_terminal
    from bot.service import GameService, ServiceError
    from bot.store import Store, data_folder

    if pack is not None:
        pack_game = _checked_pack(pack)
        if pack_game != game:
            console.print(f"[red]{pack} is a {pack_game} pack, not a {game} pack[/red]")
            raise typer.Exit(code=2)
    try:
        rules = load_game(game, pack)
    except UnknownGame as error:
        console.print(f"[red]{error}[/red]")
        raise typer.Exit(code=2) from error
    if scenario is not None and scenario not in rules.scenarios():
        console.print(f"[red]unknown scenario {scenario!r}; choose from "
                      f"{', '.join(rules.scenarios())}[/red]")
        raise typer.Exit(code=2)
    if seat is not None and seat not in rules.sides:
        console.print(f"[red]no side {seat!r}; choose from {', '.join(rules.sides)}[/red]")
        raise typer.Exit(code=2)
    store = Store(_store_target(db).where)
    # the console's history beside a database file, else in the user data folder
    where = getattr(store, "path", None)
    folder = where.parent if isinstance(where, Path) else data_folder()
    service = GameService(store)
    try:
        if resume is not None:
            local = LocalGame(service, resume)
        else:
            local = LocalGame.new(service, game, scenario, pack=pack,
                                  options=_options(option or []))
    except ServiceError as error:
        console.print(f"[red]{escape(str(error))}[/red]")
        raise typer.Exit(code=2) from error
    from bot.runtime import tune_gc

    tune_gc()
    play_at_terminal(service, local, console, folder / "console-history", seat)


@app.command()
def conformance(paths: Annotated[list[Path], typer.Argument(help="case files or folders")]) -> None:
    """Run conformance cases and print pass/fail per case."""
    from adjudicator.kernel.conformance import run_paths

    results = run_paths(paths, _game)
    for result in results:
        mark = "[green]pass[/green]" if result.passed else "[red]FAIL[/red]"
        console.print(f"{mark}  {result.path}  {result.title} ({result.source})", highlight=False)
        for failure in result.failures:
            console.print(f"      - {failure}", markup=False, highlight=False)
    failed = sum(not r.passed for r in results)
    console.print(f"{len(results) - failed} passed, {failed} failed")
    if failed or not results:
        raise typer.Exit(code=1)


def _data_module(game: str) -> Any:
    try:
        return importlib.import_module(f"adjudicator.{game}.data")
    except ModuleNotFoundError as error:
        console.print(f"[red]no data pack support for {game!r}[/red]")
        raise typer.Exit(code=2) from error


def _checked_pack(path: Path, *, strict: bool = False) -> str:
    """Validate a pack folder, printing every error and warning; its game's name, or exit 1
    on an error (on a warning too when ``strict``: a value that departs from the rulebook,
    which a GM's corrected pack may do)."""
    import tomllib

    from adjudicator.kernel.packs import warnings_of

    manifest = path / "pack.toml"
    try:
        game = str(tomllib.loads(manifest.read_text(encoding="utf-8"))["game"])
    except (OSError, tomllib.TOMLDecodeError, KeyError) as error:
        console.print(f"{manifest}: cannot read the pack manifest's 'game' ({error})",
                      markup=False)
        raise typer.Exit(code=1) from error
    found: list[str] = _data_module(game).check_pack(path)
    warnings = warnings_of(found)
    problems = [*found, *(warnings if strict else [])]
    for problem in found:
        console.print(problem, markup=False, highlight=False)
    for warning in warnings:
        console.print(f"warning: {warning}", markup=False, highlight=False)
    if warnings:
        console.print(f"[yellow]{len(warnings)} warning(s): value(s) that depart from the "
                      "rulebook; the pack still loads[/yellow]"
                      + (" (--strict: counted as problems)" if strict else ""))
    if problems:
        console.print(f"[red]{len(problems)} problem(s)[/red]")
        raise typer.Exit(code=1)
    return game


@data_app.command("check")
def data_check(
    path: Annotated[Path, typer.Argument(metavar="DIR", help="a data pack folder")],
    strict: Annotated[bool, typer.Option(
        "--strict", help="a value that departs from the rulebook is an error, not a warning")]
    = False,
) -> None:
    """Validate a (replacement) data pack and print every problem with its file and field.
    A value that departs from the rulebook is a warning (a GM may correct the pack), an
    error only with --strict."""
    with console.status(f"checking {path} ..."):
        game = _checked_pack(path, strict=strict)
    console.print(f"[green]{path}: a valid {game} pack[/green]")


@data_app.command("show")
def data_show(
    game: Annotated[str, typer.Argument(metavar="GAME", help="stalingrad or tanks")],
    path: Annotated[Path | None, typer.Option(
        metavar="DIR", help="a pack folder (default: the shipped one)")] = None,
) -> None:
    """Print a pack's counts (map, units per side, values by provenance) and its
    scenarios."""
    from rich.table import Table

    module = _data_module(game)
    try:
        pack = module.load_pack(path)
    except module.PackError as error:
        console.print(str(error), markup=False)
        raise typer.Exit(code=1) from error
    table = Table(title=f"{game} data pack ({module.pack_hash(pack)[:12]})")
    table.add_column("what")
    table.add_column("count", justify="right")
    for key, value in module.summary(pack).items():
        table.add_row(str(key), str(value))
    console.print(table)
    from adjudicator.registry import load_game

    scenarios = Table(title=f"{game} scenarios (the first is the default)")
    scenarios.add_column("--scenario")
    scenarios.add_column("what")
    scenarios.add_column("features")
    rules = load_game(game, path)
    for key, text in rules.scenarios().items():
        scenarios.add_row(key, text, ", ".join(rules.briefing(key).features) or "-")
    console.print(scenarios)


@app.command()
def bot(
    guild: Annotated[int | None, typer.Option(
        "--guild", help="register the server-only commands (/gm) on this server "
        "(instant); the others are global, for DMs")] = None,
    db: Annotated[str | None, typer.Option("--db", help=DB_HELP)] = None,
    config: Annotated[Path | None, typer.Option(
        help="TOML file with token, guild, gm_role, games")] = None,
    gm_role: Annotated[str | None, typer.Option(help="name of the GM role (default "
                                                "'Umpire GM')")] = None,
    game: Annotated[list[str] | None, typer.Option(
        "--game", help="also offer this game, registered in code by name")] = None,
    check_commands: Annotated[bool, typer.Option(
        "--check-commands", help="print every command payload, check Discord's limits, and "
        "exit (no token, no network)")] = False,
    shards: Annotated[int | None, typer.Option(
        "--shards", min=1, help="the bot's total number of shards (Discord requires "
        "sharding from 2,500 servers); default: one connection")] = None,
    shard_ids: Annotated[str | None, typer.Option(
        "--shard-ids", help="the shards this process runs, e.g. 0,1 or 0-3 (default: all "
        "of --shards); run the others in other processes on the same database")] = None,
    render_processes: Annotated[int | None, typer.Option(
        "--render-processes", min=0, help="worker processes drawing the pictures (default: "
        "half the CPUs, at least 1; 0 draws in the bot's own threads)")] = None,
    listing_processes: Annotated[int, typer.Option(
        "--listing-processes", min=0, help="worker processes making the listings of legal "
        "orders that /order's autocomplete searches, and --web's pages click (0 lists in the "
        "bot's own threads)")] = 1,
    log_format: Annotated[str, typer.Option("--log-format", help=LOG_FORMAT_HELP)] = "text",
    web: Annotated[str | None, typer.Option("--web", metavar="HOST:PORT", help=WEB_HELP)
                   ] = None,
    web_url: Annotated[str | None, typer.Option("--web-url", help=WEB_URL_HELP)] = None,
) -> None:
    """Run the Discord bot. The token comes from $DISCORD_TOKEN or the config file."""
    import os

    from bot.discord.app import run
    from bot.discord.settings import SettingsError, load_settings
    fmt = _log_format(log_format)
    if check_commands:
        from bot.discord.app import check_commands as check

        problems = check(guild, game or (), out=lambda line: console.print(
            line, markup=False, highlight=False, soft_wrap=True))
        raise typer.Exit(code=1 if problems else 0)

    try:
        settings = load_settings(config, guild, gm_role, game or ())
    except SettingsError as error:
        console.print(f"[red]{error}[/red]", highlight=False)
        raise typer.Exit(code=2) from error
    ids: list[int] | None = None
    if shard_ids is not None:
        try:
            ids = sorted({n for part in shard_ids.split(",") if part.strip()
                          for n in _shard_range(part)})
        except ValueError as error:
            console.print(f"[red]--shard-ids {shard_ids}: give shard numbers, e.g. 0,1[/red]",
                          highlight=False)
            raise typer.Exit(code=2) from error
        if shards is None or not ids or ids[-1] >= shards:
            console.print(f"[red]--shard-ids {shard_ids}: each must be below --shards "
                          f"({shards})[/red]", highlight=False)
            raise typer.Exit(code=2)
    workers = (render_processes if render_processes is not None
               else max(1, (os.cpu_count() or 2) // 2))
    target = _store_target(db)
    console.print(f"Umpire bot: database {target.label}"
                  + (f", /gm for server {settings.guild_id}" if settings.guild_id else "")
                  + (f", shards {', '.join(map(str, ids or range(shards)))} of {shards}"
                     if shards else ""), highlight=False, markup=False, soft_wrap=True)
    web_url = web_url or settings.web_url or os.environ.get("UMPIRE_WEB_URL")
    pages = _web_settings(web or "127.0.0.1:0", web_url) if web or web_url else None
    run(settings.token.reveal(), str(target.where), settings.guild_id, settings.gm_role,
        settings.extra_games, shards, ids, workers, log_format=fmt,
        listing_processes=listing_processes, **({"web": pages} if pages is not None else {}))


#: ``--log-format``'s help (the formats are :data:`bot.logs.FORMATS`).
LOG_FORMAT_HELP = "log lines as 'text' (key=value) or 'json' (one object per line)"


def _log_format(value: str) -> Any:
    """``--log-format``'s value, checked (:mod:`bot.logs`)."""
    from bot.logs import FORMATS
    if value not in FORMATS:
        console.print(f"[red]--log-format {value}: use one of {', '.join(FORMATS)}[/red]",
                      highlight=False, markup=True)
        raise typer.Exit(code=2)
    return value


def _shard_range(part: str) -> range:
    """``3`` or ``0-3`` (both ends included)."""
    first, _, last = part.strip().partition("-")
    return range(int(first), int(last or first) + 1)


@app.command()
def mail(
    config: Annotated[Path, typer.Option(help="the gateway's TOML file (docs/email.md)")],
    db: Annotated[str | None, typer.Option("--db", help=DB_HELP)] = None,
    status: Annotated[bool, typer.Option(
        "--status", help="show the gateway's health (last poll, last send, queue, last "
        "error) from its database, and exit")] = False,
    log_format: Annotated[str, typer.Option("--log-format", help=LOG_FORMAT_HELP)] = "text",
    web: Annotated[str | None, typer.Option("--web", metavar="HOST:PORT", help=WEB_HELP)
                   ] = None,
    web_url: Annotated[str | None, typer.Option("--web-url", help=WEB_URL_HELP)] = None,
) -> None:
    """Run the play-by-email gateway: read the mailbox, answer, keep every player told."""
    from bot.logs import configure
    from bot.mail.app import run
    from bot.mail.config import ConfigError, load_config
    from bot.store import DB_ENV
    try:
        settings = load_config(config)
    except ConfigError as error:
        console.print(f"[red]{error}[/red]", highlight=False)
        raise typer.Exit(code=2) from error
    fmt = _log_format(log_format)
    target = _store_target(db or settings.database)
    if status:
        from bot.mail.health import describe, read
        from bot.store import Store

        store = Store(target.where)
        try:
            health = read(store)
        finally:
            store.close()
        for line in describe(health):
            console.print(line, highlight=False, markup=False)
        raise typer.Exit(code=1 if health is not None and health.failing_since else 0)
    configure(fmt)
    console.print(f"Umpire mail gateway for {settings.address}: database {target.label}"
                  + ("" if db or settings.database or os.environ.get(DB_ENV) else
                     f" (the default file: no database in {config}, no --db, no ${DB_ENV})"),
                  markup=False, highlight=False, soft_wrap=True)
    pages = None
    web_url = web_url or settings.web_url or os.environ.get("UMPIRE_WEB_URL")
    if web or web_url:
        pages = _web_settings(web or "127.0.0.1:0", web_url)
        settings = settings.model_copy(update={"web_url": pages.base_url or None})
    try:
        run(settings, str(target.where), *([pages] if pages is not None else []))
    except ConfigError as error:  # found at start-up: an OAuth2 refresh token not set
        console.print(str(error), highlight=False, markup=False)
        raise typer.Exit(code=2) from error


#: ``--web``'s help (``umpire bot`` and ``umpire mail``).
WEB_HELP = ("also serve the players' web pages on HOST:PORT (docs/web.md), e.g. "
            "127.0.0.1:8080")
#: ``--web-url``'s help.
WEB_URL_HELP = ("the pages' public base URL (https://umpire.example), what the links given "
                "to players start with; never guessed from a request")


def _web_settings(address: str, base_url: str | None, secret_file: Path | None = None) -> Any:
    """The web server's settings from ``HOST:PORT``, the base URL and a CSRF key file (a
    wrong value ends the command with one line, exit status 2)."""
    from bot.web.app import parse_address
    from bot.web.settings import WebSettings

    try:
        host, port = parse_address(address)
    except ValueError as error:
        console.print(f"[red]--web: {error}[/red]", highlight=False)
        raise typer.Exit(code=2) from error
    url = (base_url or os.environ.get("UMPIRE_WEB_URL") or "").rstrip("/")
    if url and not url.startswith(("https://", "http://")):
        console.print(f"[red]--web-url {url}: give an http:// or https:// URL[/red]",
                      highlight=False)
        raise typer.Exit(code=2)
    settings = WebSettings(host=host, port=port, base_url=url)
    if secret_file is not None:
        settings.secret = secret_file.read_bytes().strip()
    return settings


@app.command()
def web(
    db: Annotated[str | None, typer.Option("--db", help=DB_HELP)] = None,
    host: Annotated[str, typer.Option(help="the address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="the port")] = 8080,
    web_url: Annotated[str | None, typer.Option("--web-url", help=WEB_URL_HELP)] = None,
    secret_file: Annotated[Path | None, typer.Option(
        "--secret-file", help="a file holding the key of the pages' CSRF tokens (the same "
        "for every process serving the pages; default: random per process)")] = None,
    log_format: Annotated[str, typer.Option("--log-format", help=LOG_FORMAT_HELP)] = "text",
    listing_processes: Annotated[int, typer.Option(
        "--listing-processes", min=0, help="worker processes making the listings of legal "
        "orders a page clicks (0 lists in the server's own threads)")] = 1,
) -> None:
    """Serve each seat's web page (its secret link /s/TOKEN): the map, the log, orders by
    clicks, live updates (docs/web.md). Put it behind a reverse proxy with TLS."""
    from bot.logs import configure
    from bot.offload import ListingPool
    from bot.web.app import run

    fmt = _log_format(log_format)
    settings = _web_settings(f"{host}:{port}", web_url, secret_file)
    target = _store_target(db)
    configure(fmt)
    console.print(f"Umpire web pages on {settings.host}:{settings.port}: database "
                  f"{target.label}" + (f", links under {settings.base_url}"
                                       if settings.base_url else ""),
                  highlight=False, markup=False, soft_wrap=True)
    service = _service(db)
    service.lister = ListingPool(listing_processes) if listing_processes > 0 else None
    if service.lister is not None:
        service.lister.start()  # warmed while the pages start: the first click need not wait
    try:
        run(service, settings)
    finally:
        if service.lister is not None:
            service.lister.close()


def _bench_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "bench"


def _benches() -> list[str]:
    """The benchmarks of a source checkout: bench/NAME.py with a ``run`` function."""
    folder = _bench_dir()
    return sorted(p.stem for p in folder.glob("*.py") if p.stem != "common") \
        if folder.is_dir() else []


@app.command()
def bench(
    target: Annotated[str | None, typer.Argument(
        help="all, or one benchmark (without a name: the list)")] = None,
    actions: Annotated[int | None, typer.Option(
        help="actions in the benchmark games (default: each benchmark's own)")] = None,
    db: Annotated[str | None, typer.Option(
        "--db", help="a postgresql:// database for the benchmarks that compare backends "
        "(store, writers); they work in a schema of their own, dropped after")] = None,
) -> None:
    """Run benchmarks; each prints its figures and ends with one line per figure and its
    target."""
    import importlib.util
    import inspect

    known = _benches()
    if not known:
        console.print("umpire bench: run it from a source checkout (bench/)")
        raise typer.Exit(code=2)
    if target not in (*known, "all"):
        console.print(f"umpire bench: choose one of all, {', '.join(known)}"
                      + (f" (not {target!r})" if target else ""), highlight=False,
                      soft_wrap=True)
        raise typer.Exit(code=2)
    figures: list[str] = []  # every bench's closing lines, repeated at the end of ``all``

    def out(text: str) -> None:  # one figure per line: never wrapped, never markup
        console.print(text, markup=False, highlight=False, soft_wrap=True)
        if text.startswith("FIGURE "):
            figures.append(f"{name}: {text}")

    for name in known if target == "all" else [target]:
        script = _bench_dir() / f"{name}.py"
        spec = importlib.util.spec_from_file_location(f"umpire_bench_{name}", script)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if target == "all":
            console.print(f"== umpire bench {name}", highlight=False)
        options: dict[str, Any] = {"out": out}
        if actions is not None and "actions" in inspect.signature(module.run).parameters:
            options["actions"] = actions
        if db is not None and "db" in inspect.signature(module.run).parameters:
            options["db"] = db
        with console.status(f"umpire bench {name} ..."):
            module.run(**options)
    if target == "all":
        missed = sum(line.endswith(" MISSED") for line in figures)
        out(f"== every figure against its target ({len(figures)} figures, {missed} missed)")
        for line in list(figures):
            console.print(line, markup=False, highlight=False, soft_wrap=True)


DbOption = Annotated[str | None, typer.Option("--db", metavar="DB", help=DB_HELP)]


@app.command("export")
def export_game(
    game_id: Annotated[str, typer.Argument(metavar="ID", help="the game's id")],
    out: Annotated[Path | None, typer.Option(
        metavar="FILE", help="file to write (default ID.jsonl)")] = None,
    seed_out: Annotated[Path | None, typer.Option(
        metavar="FILE", help="also write the game's dice seed (hex) there, to go on playing it "
        "elsewhere with 'umpire import --seed-file'; keep it secret: it tells every roll to "
        "come")] = None,
    db: DbOption = None,
) -> None:
    """Write a game's record as JSON lines (header, then one line per action)."""
    from bot.records import RecordError, write_record
    from bot.service import ServiceError

    operator = _service(db).operator
    try:
        lines = operator.record(game_id)
    except RecordError as error:
        console.print(f"[red]{error}[/red]")
        raise typer.Exit(code=1) from error
    target = out or Path(f"{game_id}.jsonl")
    write_record(lines, target)
    console.print(f"{target}: {len(lines) - 1} actions", highlight=False)
    if seed_out is not None:
        try:
            seed = operator.dice_seed(game_id)
        except ServiceError:
            seed = None
        if not seed:
            console.print(f"[red]game {game_id} holds no dice seed here[/red]")
            raise typer.Exit(code=1)
        seed_out.write_text(seed.hex() + "\n", encoding="utf-8")
        console.print(f"{seed_out}: the dice seed (secret) — go on elsewhere with 'umpire "
                      f"import {target} --seed-file {seed_out}'", highlight=False)


@app.command()
def verify(
    record: Annotated[Path, typer.Argument(
        metavar="FILE", help="a record written by 'umpire export'")],
    seed: Annotated[str | None, typer.Option(
        metavar="HEX", help="the revealed dice seed")] = None,
    pack: Annotated[Path | None, typer.Option(
        metavar="DIR", help="the game's data pack folder")] = None,
) -> None:
    """Replay a record from scratch, check every state hash and, with the seed, every die."""
    from bot.records import RecordError, verify_file

    try:
        with console.status("replaying the record ..."):
            result = verify_file(record, seed, pack)
    except (RecordError, OSError) as error:
        console.print(f"[red]{error}[/red]")
        raise typer.Exit(code=1) from error
    console.print(f"{result.actions} actions replayed; "
                  + (f"{result.rolls_checked} rolls checked against the seed"
                     + (f" ({result.rolls_forced} dice forced by the GM)"
                        if result.rolls_forced else "")
                     if result.seed_checked else "dice not checked (no seed)"), highlight=False)
    for reroll in result.rerolls:  # the GM's logged re-rolls, as everyone was told them
        console.print(f"  re-roll: {reroll}", markup=False, highlight=False, soft_wrap=True)
    for problem in result.problems:
        console.print(f"  - {problem}", markup=False, highlight=False)
    console.print("verified" if result.ok else "[red]NOT verified[/red]")
    if not result.ok:
        raise typer.Exit(code=1)


@app.command("import")
def import_game(
    record: Annotated[Path, typer.Argument(
        metavar="FILE", help="a record written by 'umpire export'")],
    seed: Annotated[str | None, typer.Option(
        metavar="HEX", help="the dice seed, to go on playing")] = None,
    seed_file: Annotated[Path | None, typer.Option(
        metavar="FILE", help="the dice seed in a file ('umpire export --seed-out')")] = None,
    pack: Annotated[Path | None, typer.Option(
        metavar="DIR", help="the game's data pack folder")] = None,
    db: DbOption = None,
) -> None:
    """Recreate a game from a record (verified first); with its seed a game in progress goes
    on here ('umpire play GAME --resume ID')."""
    from bot.records import RecordError, iter_record

    if seed_file is not None:
        seed = seed_file.read_text(encoding="utf-8").strip()
    operator = _service(db).operator
    try:
        with console.status("verifying and importing the record ..."):
            info = operator.import_record(record, seed, pack)
        header = next(iter_record(record))
    except (RecordError, OSError) as error:
        console.print(f"[red]{error}[/red]")
        raise typer.Exit(code=1) from error
    game_id = info.id
    console.print(f"imported as game {game_id} ({info.status})", highlight=False)
    if info.status in ("active", "paused"):
        console.print(f"go on playing it: umpire play {info.game} --resume {game_id}"
                      + (f" --db {_store_target(db).label}" if db else ""), highlight=False)
    elif not seed and header.get("status") in ("active", "paused"):
        console.print("archived (readable, exportable): give the game's dice seed "
                      "(--seed or --seed-file) to go on playing it", highlight=False)


@app.command()
def games(db: DbOption = None) -> None:
    """List the stored games: id, game, scenario, status, who is to act, actions, and the
    seats."""
    from datetime import datetime

    from rich.table import Table

    target = _store_target(db)
    if target.path is not None and not target.path.exists():
        console.print(f"no games yet ({target.label} does not exist): umpire play GAME "
                      "starts one", markup=False, highlight=False, soft_wrap=True)
        return
    rows = _service(db).operator.games()
    console.print(f"{len(rows)} game(s) in {target.label}", markup=False, highlight=False,
                  soft_wrap=True)
    table = Table()
    for column in ("id", "game", "scenario", "status", "to act", "actions", "created",
                   "seats"):
        table.add_column(column, justify="right" if column == "actions" else "left",
                         no_wrap=column in ("id", "game"))
    for info in rows:
        who = ", ".join(sorted({str(s.side) for s in info.seats if s.role == "player"}))
        status = info.status + (f": {info.result}" if info.result else "")
        created = datetime.fromtimestamp(float(info.created or 0)).strftime("%Y-%m-%d %H:%M")
        table.add_row(info.id, info.game, _scenario_label(info.game, info.scenario), status,
                      info.to_act or "-",
                      str(info.head_seq or 0), created, who or "-")
    _print_whole(table)


@app.command()
def status(db: DbOption = None) -> None:
    """Health of the bot and gateway processes using the database, as each last wrote it:
    connected, last interaction, last deadline tick, leases held, last error."""
    from bot.health import describe, records
    from bot.store import Store

    target = _store_target(db)
    if target.path is not None and not target.path.exists():
        console.print(f"no database at {target.label}", markup=False, highlight=False,
                      soft_wrap=True)
        raise typer.Exit(code=1)
    store = Store(target.where)
    try:
        found = records(store)
    finally:
        store.close()
    console.print(f"{len(found)} process(es) recorded in {target.label}", markup=False,
                  highlight=False, soft_wrap=True)
    for item in found:
        for line in describe(item):
            console.print(line, markup=False, highlight=False, soft_wrap=True)


def _print_whole(table: Any) -> None:
    """Print ``table`` at a terminal's width, or at its own full width when the output is
    piped or redirected (rich would cut it at 80 columns there)."""
    from rich.console import Console
    from rich.measure import Measurement

    if console.is_terminal:
        console.print(table)
        return
    width = Measurement.get(console, console.options.update_width(10_000), table).maximum
    Console(file=console.file, width=max(width, console.width), no_color=True).print(table)


def _scenario_label(game: str, scenario: str | None) -> str:
    """A stored game's scenario; a game started without one names its game's default."""
    if scenario:
        return scenario
    try:
        default = next(iter(_game(game).scenarios()), None)
    except Exception:  # a game this install no longer has: nothing more to say
        default = None
    return f"{default} (default)" if default else "-"


@app.command()
def redteam(
    quick: Annotated[bool, typer.Option("--quick", help="the bounded run CI does (minutes)")]
    = False,
    seed: Annotated[int | None, typer.Option(help="repeat a run (default: the time)")] = None,
) -> None:
    """Attack Umpire: leak scans, differential probes, parser fuzz, permissions, dice and
    records, SIGKILLs and damaged databases. One line per figure (tried, failed); exit
    status 1 if anything failed."""
    from bot.redteam import run

    tally = run(quick=quick, seed=seed,
                out=lambda line: console.print(line, markup=False, highlight=False,
                                               soft_wrap=True))
    if sum(tally.failed.values()):
        raise typer.Exit(code=1)


@db_app.command("check")
def db_check(db: DbOption = None) -> None:
    """Check the database: the engine's own check, the schema, and every game — its
    columns, every snapshot, and its whole log replayed from the start (state hashes,
    events, forced dice). One line per problem; exit status 1 if there is any."""
    from bot.dbcheck import check_database

    target = _store_target(db)
    if target.path is not None and not target.path.exists():
        console.print(f"{target.label}: no such database file", markup=False,
                      highlight=False, soft_wrap=True)
        raise typer.Exit(code=1)
    report = check_database(target.where)
    for line in report.problems:
        console.print(f"  - {line}", markup=False, highlight=False, soft_wrap=True)
    console.print(report.summary(), markup=False, highlight=False, soft_wrap=True)
    if report.problems:
        raise typer.Exit(code=1)


@db_app.command("migrate")
def db_migrate(db: DbOption = None) -> None:
    """Bring the database's schema to this Umpire's version (every command does it when it
    opens the database; run it alone before starting many processes, or as the database
    owner when the bot's role may not change the schema)."""
    from bot.store import Store

    store = Store(_store_target(db).where, migrate=False)
    try:
        before = store.schema_version()
        after = store.migrate()
    finally:
        store.close()
    console.print(f"{store.label}: schema version {after}"
                  + (f" (was {before})" if before != after else " (already current)"),
                  markup=False, highlight=False, soft_wrap=True)


@db_app.command("copy")
def db_copy(
    source: Annotated[str, typer.Argument(help="the database to copy from (a file or a URL)")],
    target: Annotated[str, typer.Argument(help="the database to copy into (made or migrated "
                                          "as needed)")],
) -> None:
    """Copy every game from one database into another — SQLite to PostgreSQL or back — each
    in one transaction, then verify it: the same rows on both sides, and the destination
    rebuilds each game to its recorded state hash. Exit status 1 on any problem."""
    from bot.dbcopy import copy_database

    report = copy_database(_store_target(source).where, _store_target(target).where,
                           out=lambda line: console.print(line, markup=False,
                                                          highlight=False))
    for line in report.problems:
        console.print(f"  - {line}", markup=False, highlight=False, soft_wrap=True)
    console.print(report.summary(), markup=False, highlight=False, soft_wrap=True)
    if report.problems:
        raise typer.Exit(code=1)


def _service(db: str | None) -> GameService:
    """The game service over the database ``db`` (default: $UMPIRE_DB, else the user data
    folder's); these commands are its operator's (``service.operator``)."""
    from bot.service import GameService
    from bot.store import Store

    return GameService(Store(_store_target(db).where))


def _store_target(db: str | None) -> StoreTarget:
    """The database ``db`` names (default: $UMPIRE_DB, else the user data folder's file),
    parsed once by :func:`bot.store.urls.parse_target`; a target it does not understand
    ends the command with one line saying what is accepted (exit status 2)."""
    from bot.store import StoreError, default_db, parse_store_target
    from bot.store.urls import redact

    try:
        return parse_store_target(default_db(db))
    except StoreError as error:
        print(f"umpire: --db: {redact(str(error))}", file=sys.stderr)
        raise typer.Exit(code=2) from None


def _stored_game(game_id: str, db: str | None) -> tuple[Game[Any], GameService]:
    """(rules, service) of a stored game."""
    from bot.service import ServiceError

    service = _service(db)
    try:
        rules = service.rules(game_id)
    except ServiceError as error:
        console.print(f"[red]{error}[/red]")
        raise typer.Exit(code=1) from error
    return rules, service


@app.command("render")
def render_map(
    game_id: Annotated[str | None, typer.Argument(
        metavar="[ID]", help="a stored game's id")] = None,
    new: Annotated[str | None, typer.Option(
        metavar="GAME", help="picture a fresh set-up of this game instead (stalingrad, "
        "tanks)")] = None,
    scenario: Annotated[str | None, typer.Option(
        metavar="NAME", help=f"scenario for --new — {SCENARIOS}")] = None,
    viewer: Annotated[str, typer.Option(metavar="VIEWER", help="a side, public or gm")]
    = "public",
    crop: Annotated[bool, typer.Option(help="zoom on the last action")] = False,
    out: Annotated[Path | None, typer.Option(
        metavar="FILE", help="PNG file (default ID-VIEWER.png)")] = None,
    db: DbOption = None,
) -> None:
    """Write the map picture of a stored game (or of a fresh set-up) as a PNG."""
    import render

    if new is not None:
        rules: Game[Any] = _game(new)
        if scenario is not None and scenario not in rules.scenarios():
            console.print(f"[red]unknown scenario {scenario!r} of {new}; choose from "
                          f"{', '.join(rules.scenarios())}[/red]", soft_wrap=True)
            raise typer.Exit(code=2)
        name = new
    elif game_id is not None:
        rules, service = _stored_game(game_id, db)
        name = game_id
    else:
        console.print("[red]give a game id, or --new GAME[/red]")
        raise typer.Exit(code=2)
    try:
        view = (rules.view(rules.setup(scenario), viewer) if game_id is None
                else service.operator.view(game_id, viewer))
        data = render.render(view, render.load_pack(rules.name, rules.pack), crop=crop)
    except (ValueError, render.NoPicture) as error:
        console.print(f"[red]{error}[/red]")
        raise typer.Exit(code=2) from error
    target = out or Path(f"{name}-{viewer}.png")
    target.write_bytes(data)
    console.print(f"{target}: {len(data) // 1024} KB", highlight=False)


@app.command("export-gif")
def export_gif(
    game_id: Annotated[str, typer.Argument(metavar="ID", help="a stored game's id")],
    viewer: Annotated[str, typer.Option(metavar="VIEWER", help="a side, public or gm")]
    = "public",
    apng: Annotated[bool, typer.Option(help="write an animated PNG instead of a GIF")]
    = False,
    out: Annotated[Path | None, typer.Option(metavar="FILE", help="file (default ID.gif)")]
    = None,
    db: DbOption = None,
) -> None:
    """Write an animated replay: one frame per impulse or phase, with the date and caption."""
    import render
    from bot.history import ReplayError
    from render.replay import animate, frames_by_step

    rules, service = _stored_game(game_id, db)
    try:
        # A caption quotes an order only to a viewer who may read it (log rules).
        with console.status(f"replaying game {game_id} ..."):
            items = service.operator.replay_frames(game_id, viewer)
        with console.status(f"drawing {len(items)} frames ..."):
            data = animate(frames_by_step(items), render.load_pack(rules.name, rules.pack),
                           fmt="png" if apng else "gif")
    except (ReplayError, ValueError, render.NoPicture) as error:
        console.print(f"[red]{error}[/red]")
        raise typer.Exit(code=1) from error
    target = out or Path(f"{game_id}.{'png' if apng else 'gif'}")
    target.write_bytes(data)
    console.print(f"{target}: {len(items)} actions, {len(data) // 1024} KB", highlight=False)


if __name__ == "__main__":
    app()

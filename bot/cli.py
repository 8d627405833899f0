"""The ``umpire`` command."""

from __future__ import annotations

import importlib
import tomllib
from functools import cache
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from adjudicator.kernel.conformance import run_paths
from adjudicator.kernel.game import Game
from adjudicator.registry import UnknownGame, load_game
from bot.console import run_console

app = typer.Typer(help="Umpire: a neutral referee for board wargames.", no_args_is_help=True)
data_app = typer.Typer(help="Data packs: validate a replacement pack, show a pack's contents.",
                       no_args_is_help=True)
app.add_typer(data_app, name="data")
console = Console()


def not_yet(what: str) -> None:
    console.print(f"umpire {what}: not available yet")
    raise typer.Exit(code=2)


@cache
def _game(name: str) -> Game[Any]:
    return load_game(name)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="stalingrad, tanks, or a plug-in module:Class")],
    scenario: Annotated[str | None, typer.Option(help="scenario name")] = None,
    seed: Annotated[str | None, typer.Option(help="dice seed as hex, to replay a game")] = None,
) -> None:
    """Play a game locally, hot-seat or solitaire, at this console."""
    try:
        rules = load_game(game)
    except UnknownGame as error:
        console.print(f"[red]{error}[/red]")
        raise typer.Exit(code=2) from error
    if scenario is not None and scenario not in rules.scenarios():
        console.print(f"[red]unknown scenario {scenario!r}; choose from "
                      f"{', '.join(rules.scenarios())}[/red]")
        raise typer.Exit(code=2)
    try:
        seed_bytes = bytes.fromhex(seed) if seed is not None else None
    except ValueError as error:
        console.print("[red]--seed must be hexadecimal[/red]")
        raise typer.Exit(code=2) from error
    run_console(rules, scenario, console.input, console, seed_bytes)


@app.command()
def conformance(paths: Annotated[list[Path], typer.Argument(help="case files or folders")]) -> None:
    """Run conformance cases and print pass/fail per case."""
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


@data_app.command("check")
def data_check(path: Annotated[Path, typer.Argument(help="a data pack folder")]) -> None:
    """Validate a (replacement) data pack and print every problem with its file and field."""
    manifest = path / "pack.toml"
    try:
        game = tomllib.loads(manifest.read_text(encoding="utf-8"))["game"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as error:
        console.print(f"{manifest}: cannot read the pack manifest's 'game' ({error})",
                      markup=False)
        raise typer.Exit(code=1) from error
    problems: list[str] = _data_module(str(game)).check_pack(path)
    for problem in problems:
        console.print(problem, markup=False, highlight=False)
    if problems:
        console.print(f"[red]{len(problems)} problem(s)[/red]")
        raise typer.Exit(code=1)
    console.print(f"[green]{path}: a valid {game} pack[/green]")


@data_app.command("show")
def data_show(
    game: Annotated[str, typer.Argument(help="stalingrad or tanks")],
    path: Annotated[Path | None, typer.Option(help="a pack folder (default: the shipped one)")]
    = None,
) -> None:
    """Print a pack's counts: map, units per side, values by provenance."""
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


@app.command()
def bot() -> None:
    """Run the Discord bot."""
    not_yet("bot")


@app.command()
def mail() -> None:
    """Run the play-by-email gateway."""
    not_yet("mail")


@app.command()
def bench() -> None:
    """Run the benchmarks and print ratios."""
    not_yet("bench")


if __name__ == "__main__":
    app()

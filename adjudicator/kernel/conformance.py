"""Conformance cases: the rulebooks' worked examples and rule checks as TOML files.

See ``docs/conformance.md`` for the format. A case sets up a position, applies steps
(each an order in canonical notation with the dice it consumes), and checks
expectations after a given step (default: after the last). Generic expectation keys are
checked here; every other key goes to the game's ``case_check``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from adjudicator.kernel.dice import FixedDice
from adjudicator.kernel.errors import RuleError
from adjudicator.kernel.events import Event
from adjudicator.kernel.game import Game

#: Expectation keys the kernel understands for every game.
GENERIC_KEYS = frozenset(
    {"after", "error_rule", "pending", "pending_side", "to_act", "result", "no_winner", "event",
     "no_event", "note"}
)


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: str
    order: str
    dice: list[int] = Field(default_factory=list)
    error_rule: str | None = None
    note: str = ""


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: str
    plugin: str | None = None
    source: str
    title: str
    scenario: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    position: dict[str, Any] = Field(default_factory=dict)
    steps: list[Step] = Field(default_factory=list)
    expect: list[dict[str, Any]] = Field(default_factory=list)


class CaseResult(BaseModel):
    path: str
    title: str
    source: str
    failures: list[str]

    @property
    def passed(self) -> bool:
        return not self.failures


GameLoader = Callable[[str], Game[Any]]


def load_case(path: Path) -> Case:
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    return Case.model_validate(data)


def _event_matches(event: Event, wanted: Mapping[str, Any]) -> bool:
    for key, value in wanted.items():
        if key == "kind":
            if event.kind != value:
                return False
        elif key == "text":
            if str(value).lower() not in event.text.lower():
                return False
        elif key == "audience":
            if event.audience != value:
                return False
        elif event.data.get(key) != value:
            return False
    return True


def _as_list(value: Any) -> list[Mapping[str, Any]]:
    return list(value) if isinstance(value, list) else [value]


def check_generic(
    game: Game[Any], state: Any, events: Sequence[Event], error: RuleError | None,
    expect: Mapping[str, Any],
) -> list[str]:
    failures: list[str] = []
    if "error_rule" in expect:
        if error is None:
            failures.append(f"expected a RuleError citing {expect['error_rule']}, got none")
        elif error.rule != expect["error_rule"]:
            failures.append(f"expected rule {expect['error_rule']}, got {error.rule}: {error}")
    elif error is not None:
        failures.append(f"unexpected RuleError: {error}")
    if "pending" in expect:
        kind = state.pending.kind if state.pending else "none"
        if kind != expect["pending"]:
            failures.append(f"pending decision: expected {expect['pending']}, got {kind}")
    if "pending_side" in expect:
        side = state.pending.side if state.pending else None
        if side != expect["pending_side"]:
            failures.append(f"pending side: expected {expect['pending_side']}, got {side}")
    if "to_act" in expect and game.acting_side(state) != expect["to_act"]:
        failures.append(f"to act: expected {expect['to_act']}, got {game.acting_side(state)}")
    if "result" in expect and state.result != expect["result"]:
        failures.append(f"result: expected {expect['result']!r}, got {state.result!r}")
    if "no_winner" in expect and (state.result is None) != bool(expect["no_winner"]):
        failures.append(f"no winner yet: expected {expect['no_winner']}, got "
                        f"{state.result is None} (result {state.result!r})")
    for wanted in _as_list(expect.get("event", [])):
        if not any(_event_matches(event, wanted) for event in events):
            shown = "; ".join(f"{e.kind}: {e.text} {e.data}" for e in events) or "no events"
            failures.append(f"no event matching {dict(wanted)} among: {shown}")
    for unwanted in _as_list(expect.get("no_event", [])):
        if any(_event_matches(event, unwanted) for event in events):
            failures.append(f"an event matched {dict(unwanted)}, which must not happen")
    return failures


def case_state(game: Game[Any], case: Case) -> Any:
    """The case's position; with a ``scenario``, that scenario's rules apply to it.

    The scenario's name goes to the game's ``case_position`` (``position.scenario``). A
    game whose state records its scenario and settings but whose ``case_position`` does not
    read the name gets them from ``game.setup(scenario)``: the state's ``scenario`` is set
    and the scenario's settings are its options, the case's own options over them.
    """
    if case.scenario is None:
        return game.case_position({**case.position, "options": case.options})
    known = game.scenarios()
    if case.scenario not in known:
        raise ValueError(f"unknown scenario {case.scenario!r}; this game's scenarios: "
                         f"{', '.join(known)}")
    wanted = case.position.get("scenario", case.scenario)
    if wanted != case.scenario:
        raise ValueError(f"the case chooses scenario {case.scenario!r} and its position "
                         f"{wanted!r}: name it once")
    state = game.case_position({**case.position, "scenario": case.scenario,
                                "options": case.options})
    fields = type(state).model_fields
    if "scenario" in fields and state.scenario != case.scenario:
        base = game.setup(case.scenario)
        state.scenario = case.scenario
        if "options" in fields:
            state.options = {**base.options, **case.options}
    return state


def crash_text(problem: BaseException) -> str:
    """An exception as a failure line: its type and message (``KeyError: 'opening'``)."""
    return f"{type(problem).__name__}: {problem}"


def run_case(case: Case, load: GameLoader, path: str = "<case>") -> CaseResult:
    """Run one case; every deviation becomes a failure message (never an exception).

    An exception other than a refusal (a defect in the rules or in the case's own check)
    ends the case as failed, naming the step and the exception; the caller runs the rest.
    """
    try:
        return _run_case(case, load, path)
    except Exception as problem:  # a defect is reported, never raised
        return CaseResult(path=path, title=case.title, source=case.source,
                          failures=[f"crashed: {crash_text(problem)}"])


def _run_case(case: Case, load: GameLoader, path: str) -> CaseResult:
    failures: list[str] = []
    try:
        game = load(case.plugin or case.game)
        state = case_state(game, case)
    except Exception as problem:  # a bad position is the case's failure
        refused = isinstance(problem, (RuleError, ValueError, LookupError, ValidationError))
        text = str(problem) if refused else f"crashed: {crash_text(problem)}"
        return CaseResult(path=path, title=case.title, source=case.source,
                          failures=[f"position: {text}"])
    by_step: dict[int, list[dict[str, Any]]] = {}
    for expect in case.expect:
        after = int(expect.get("after", len(case.steps)))
        if not 0 <= after <= len(case.steps):
            failures.append(f"expect after={after}: the case has {len(case.steps)} steps")
            continue
        by_step.setdefault(after, []).append(expect)
    roll_index = 0
    events: list[Event] = []
    for number in range(len(case.steps) + 1):
        error: RuleError | None = None
        if number > 0:
            step = case.steps[number - 1]
            dice = FixedDice(step.dice, start_index=roll_index)
            before = state.state_hash()
            try:
                outcome = game.apply_text(state, step.side, step.order, dice)
                state, events = outcome.state, outcome.events
                roll_index += len(outcome.rolls)
            except RuleError as problem:
                error = problem
                events = []
                if state.state_hash() != before:
                    failures.append(f"step {number}: the refused order changed the state")
            except Exception as problem:  # a defect ends this case only
                failures.append(f"step {number} ({step.side}: {step.order}): crashed: "
                                f"{crash_text(problem)}")
                return CaseResult(path=path, title=case.title, source=case.source,
                                  failures=failures)
            if step.error_rule is not None and (error is None or error.rule != step.error_rule):
                got = f"{error.rule}: {error}" if error else "no error"
                failures.append(f"step {number} ({step.order}): expected rule "
                                f"{step.error_rule}, got {got}")
            elif step.error_rule is None and error is not None:
                failures.append(f"step {number} ({step.order}): refused: {error}")
            if error is None and dice.unused:
                failures.append(f"step {number} ({step.order}): dice left unused: {dice.unused}")
        for expect in by_step.get(number, []):
            prefix = f"after step {number}: " if number else "before any step: "
            try:
                errors = check_generic(game, state, events, error, expect)
                specific = {k: v for k, v in expect.items() if k not in GENERIC_KEYS}
                if specific:
                    errors += game.case_check(state, specific)
            except Exception as problem:  # a defect in a check is a failure
                errors = [f"checking {dict(expect)} crashed: {crash_text(problem)}"]
            failures += [prefix + message for message in errors]
    return CaseResult(path=path, title=case.title, source=case.source, failures=failures)


def case_files(paths: Sequence[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.rglob("*.toml")))
        else:
            found.append(path)
    return found


def run_paths(paths: Sequence[Path], load: GameLoader) -> list[CaseResult]:
    results = []
    for path in case_files(paths):
        try:
            case = load_case(path)
        except (tomllib.TOMLDecodeError, ValidationError, OSError) as problem:
            results.append(CaseResult(path=str(path), title=path.stem, source="",
                                      failures=[f"cannot read case: {problem}"]))
            continue
        results.append(run_case(case, load, str(path)))  # never raises: a crash is a failure
    return results

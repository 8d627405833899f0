"""No two modules import each other in a loop, anywhere in the tree (issue 22).

import-linter's contracts (pyproject.toml) keep chosen packages acyclic and layered; this
test covers every module of ``adjudicator``, ``bot``, ``render`` and ``bench`` at once, and
counts every import: at module level, inside a function, and under ``TYPE_CHECKING``
(a loop only type checkers follow is still a loop a reader has to untangle).
"""

from __future__ import annotations

import grimp
import pytest

PACKAGES = ("adjudicator", "bot", "render", "bench")


def import_loops(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of more than one module (each a set of modules that
    import one another through some chain), sorted; Tarjan's algorithm, iteratively."""
    modules = graph.modules
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []
    #: The depth-first path: each module with the imports it has yet to follow.
    work: list[tuple[str, list[str]]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        targets = sorted(m for m in graph.find_modules_directly_imported_by(module)
                         if m in modules)
        work.append((module, targets))

    for root in sorted(modules):
        if root in index:
            continue
        visit(root)
        while work:
            module, targets = work[-1]
            if targets:
                target = targets.pop()
                if target not in index:
                    visit(target)
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    loops.append(sorted(group))
    return sorted(loops)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    """The tree's import graph, built once (function-level and TYPE_CHECKING imports in)."""
    return grimp.build_graph(*PACKAGES, exclude_type_checking_imports=False)


def test_no_two_modules_import_each_other_in_a_loop(graph: grimp.ImportGraph) -> None:
    loops = import_loops(graph)
    assert not loops, "modules that import each other in a loop:\n" + "\n".join(
        " <-> ".join(group) for group in loops)


def test_the_graph_holds_function_level_and_type_checking_imports(
        graph: grimp.ImportGraph) -> None:
    """The graph the loop test reads is the whole tree with every kind of import: the
    store's backends are imported inside a function, and ``bot.store.backends`` names the
    Store interface only for type checking; the graph holds both."""
    assert {"adjudicator.kernel.game", "bot.mail.desk", "render", "bench.store"} <= graph.modules
    details = graph.get_import_details(importer="bot.store.backends",
                                       imported="bot.store.postgres")
    assert details, "the function-level import of the PostgreSQL backend is in the graph"
    assert graph.find_modules_directly_imported_by("bot.store.backends") >= {
        "bot.store.base"}, "a TYPE_CHECKING import is in the graph"


def test_a_loop_is_found_however_long_and_wherever_it_starts() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "a.one", "a.two", "a.three", "a.four", "b", "b.x", "b.y"):
        graph.add_module(module)
    for importer, imported in (("a.one", "a.two"), ("a.two", "a.three"),
                               ("a.three", "a.one"), ("a.four", "a.one"),
                               ("b.x", "b.y"), ("b.y", "b.x")):
        graph.add_import(importer=importer, imported=imported)
    assert import_loops(graph) == [["a.one", "a.three", "a.two"], ["b.x", "b.y"]]
    graph.remove_import(importer="a.three", imported="a.one")
    graph.remove_import(importer="b.y", imported="b.x")
    assert import_loops(graph) == []

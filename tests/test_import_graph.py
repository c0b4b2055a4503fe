"""No import circles among the project's own packages (issue 40).

The graph is built statically with `ast` from every module of the packages the wheel ships
(`PACKAGES`, as in `pyproject.toml`): an edge A -> B for each `import B` / `from B import x` in A that
names one of our modules (`from P import m` is an edge to the module `P.m` when `m` is one, else to `P`;
relative imports are resolved against A's package). Counted, and why:

- module-level imports: they run when A is imported, the classic circle;
- imports inside functions and methods: a deferred import is how a circle is usually hidden, not removed
  (the batteries imported their assembler back from inside `all_cases`); the arrows of the design are
  what must run one way, whenever the import runs;
- imports under `if TYPE_CHECKING:`: a type-only import is still a dependency a reader follows, and a
  module below both users is the fix for it as for any other.

Not counted: imports of third-party or standard-library modules, and the implicit import of a package's
`__init__` when a submodule is imported (every `__init__.py` of ours is empty or re-exports nothing that
imports back). Every strongly connected component of more than one module (or a module importing
itself) is a circle; the test prints each with one concrete cycle through it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("contracts", "grader", "harness", "models", "orchestrator", "servers", "simulator")
"""The project's own packages: the wheel's `packages` in `pyproject.toml`."""

KNOWN_CIRCLES: tuple[frozenset[str], ...] = ()
"""Circles known and allowed: none since issue 40 removed the last two (grader/ and harness/release/)."""


def module_files(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Dotted module name -> file, for every `.py` file of the packages (a package is its `__init__`)."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported_modules(name: str, path: Path, modules: set[str]) -> set[str]:
    """Our modules that module `name` (at `path`) imports, anywhere in its code."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join([*base_parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                targets.add(submodule if submodule in modules else base)
    return {target for target in targets if target in modules}


def import_graph(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> dict[str, set[str]]:
    files = module_files(root, packages)
    names = set(files)
    return {name: imported_modules(name, path, names) for name, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components that are circles (Tarjan's algorithm, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop(0)
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return sorted(found)


def cycle_through(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One concrete cycle inside a component, from its first module back to it (breadth-first)."""
    members = set(component)
    start = component[0]
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & members):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [*reversed(path), start]
                if nxt not in parents:
                    parents[nxt] = node
                    following.append(nxt)
        frontier = following
    return [start, start]


def describe(graph: dict[str, set[str]], component: list[str]) -> str:
    return f"{len(component)} modules: {', '.join(component)}\n    e.g. {' -> '.join(cycle_through(graph, component))}"


# ---- the checker's own tests: it finds what it must, and only that -----------------------------------


def test_circles_are_found_with_a_cycle_to_show() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}, "f": {"d"}}
    assert circles(graph) == [["a", "b", "c"], ["e"]]
    assert cycle_through(graph, ["a", "b", "c"]) == ["a", "b", "c", "a"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_function_level_relative_and_type_only_imports_are_edges(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("import typing\nif typing.TYPE_CHECKING:\n    from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text("def late():\n    from .. import c\n")
    (package / "c.py").write_text("from pkg.a import thing\nimport json\n")
    graph = import_graph(tmp_path, ["pkg"])
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.sub.b"] == {"pkg.c"} and graph["pkg.c"] == {"pkg.a"}
    assert circles(graph) == [["pkg.a", "pkg.c", "pkg.sub.b"]]


def test_the_graph_sees_every_package_and_real_edges() -> None:
    graph = import_graph()
    assert {name.split(".")[0] for name in graph} == set(PACKAGES)
    assert "servers.calls" in graph["servers.gateway"] and "harness.release.cases" in graph["harness.release.batteries"]


# ---- the project ---------------------------------------------------------------------------------------


def test_no_new_import_circle() -> None:
    graph = import_graph()
    found = circles(graph)
    known = [c for c in found if any(set(c) <= allowed for allowed in KNOWN_CIRCLES)]
    new = [c for c in found if c not in known]
    for component in known:
        print(f"known circle (issue 40, being removed): {describe(graph, component)}")
    assert not new, "import circles:\n" + "\n".join(f"  {describe(graph, c)}" for c in new)

"""The shape STYLE.md and docs/architecture.md promise, checked on the real source with `ast`.

`app → dreaming → capabilities → memory`: a box imports only the boxes after it. Libraries that
own a boundary stay behind the one module that wraps them (ruff's TID251 says the same, but a
`noqa` silences it; this test has no such switch). Imports inside functions count too.
"""

from __future__ import annotations

import ast
import functools
import tomllib
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOXES = ("app", "dreaming", "capabilities", "memory")  # each imports only those after it
# Where each boundary library may be imported (STYLE.md "Layout and direction").
CONFINED = {
    "chainlit": ("app/ui*.py",),
    "apscheduler": ("app/scheduler.py",),
    "pydantic_settings": ("app/settings.py",),
    "sqlean": ("memory/db/engine.py",),
    "sqlite_vec": ("memory/db/engine.py",),
    "psycopg": ("memory/db/postgres.py",),
    "kuzu": ("memory/graph/kuzu_graph.py",),
}
# Known breaches, each xfailed below so it shows in every run until it is fixed.
KNOWN = {("chainlit", "app/cli.py")}


def _imports(path: Path) -> Iterator[tuple[str, int]]:
    """Every module a file imports (relative imports resolved), with its line."""
    package = path.relative_to(ROOT).parent.parts
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            yield ".".join([*base, *([node.module] if node.module else [])]), node.lineno


@functools.cache
def _sources() -> tuple[tuple[str, str, str, int], ...]:
    """(box, file relative to the root, imported module, line) for every import in the four boxes."""
    return tuple(
        (box, path.relative_to(ROOT).as_posix(), module, line)
        for box in BOXES
        for path in sorted((ROOT / box).rglob("*.py"))
        for module, line in _imports(path)
    )


def _breaches(library: str) -> list[tuple[str, int]]:
    return [
        (file, line)
        for _, file, module, line in _sources()
        if module.split(".")[0] == library and not any(fnmatch(file, glob) for glob in CONFINED[library])
    ]


def test_architecture_boxes_import_only_downward() -> None:
    upward = [
        f"{file}:{line} imports {module}"
        for box, file, module, line in _sources()
        if module.split(".")[0] in BOXES[: BOXES.index(box)]
    ]
    assert upward == []


def test_architecture_memory_knows_no_model_library() -> None:
    assert [f"{file}:{line}" for box, file, module, line in _sources() if box == "memory" and module.startswith(
        "pydantic_ai")] == []  # fmt: skip


@pytest.mark.parametrize("library", sorted(CONFINED))
def test_architecture_library_stays_behind_its_module(library: str) -> None:
    breaches = [f"{file}:{line}" for file, line in _breaches(library) if (library, file) not in KNOWN]
    assert breaches == [], f"{library} belongs in {', '.join(CONFINED[library])} only"


@pytest.mark.xfail(
    strict=True,
    reason="app/cli.py imports chainlit.cli.run_chainlit to start the server (`noqa: TID251` there); "
    "moving the call into a UI module would end this exception",
)
def test_architecture_cli_starts_chainlit_without_importing_it() -> None:
    assert [file for file, _ in _breaches("chainlit") if file == "app/cli.py"] == []


def test_architecture_lint_bans_the_same_libraries() -> None:
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert set(lint["flake8-tidy-imports"]["banned-api"]) == set(CONFINED)
    exempt = {glob for glob, rules in lint["per-file-ignores"].items() if "TID251" in rules}
    assert {glob for globs in CONFINED.values() for glob in globs} <= exempt


# memory/'s database layer (the engine, migrations) and the insides of its stores are its own: the
# other boxes open memory through its front door, `memory.store`, and use the stores it builds.
MEMORY_INTERNALS = (
    "memory.db",  # the engine and the migrations
    "memory.graph.records",  # EntityStore's SQL
    "memory.graph.schema",  # its tables
    "memory.graph.projection",  # its Kuzu projection
    "memory.recall.sketches",  # MemoryIndex's prefilter
    "memory.recall.reindex",  # its index meta; re-embedding is `memory.store.reembed`
)


def test_architecture_only_memory_opens_the_database_or_a_stores_insides() -> None:
    reach = [
        f"{file}:{line} imports {module}"
        for box, file, module, line in _sources()
        if box != "memory" and any(module == m or module.startswith(f"{m}.") for m in MEMORY_INTERNALS)
    ]
    assert reach == []


def test_architecture_no_box_above_memory_reads_an_engine() -> None:
    reads = [
        f"{path.relative_to(ROOT).as_posix()}:{node.lineno}"
        for box in BOXES
        if box != "memory"
        for path in sorted((ROOT / box).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Attribute) and node.attr == "engine" and isinstance(node.ctx, ast.Load)
    ]
    assert reads == []

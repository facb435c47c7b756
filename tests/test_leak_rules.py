"""Every rule of the guard's rule layer against the examples it exists for: each leak example
fires its rule, each clean example does not, and each exemption applies to its own examples.

A rule's examples live in its entry (judgeagent/stages/leak_rules/), with where each came from;
a change to a pattern or a word list that breaks one fails here under the rule's code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judgeagent.stages.leak_rules.disclosure import QUANTIFIED, QUANTIFIED_PATTERNS, QUANTIFIER_EXAMPLES
from judgeagent.stages.leak_rules.examples import BATCHES
from judgeagent.stages.leak_rules.exemptions import EXEMPTIONS
from judgeagent.stages.leak_rules.registry import RULES, STEPS, TEXT_RULES, rule
from judgeagent.stages.leak_rules.rule import Reading, Rule
from judgeagent.stages.leak_rules.text import sentences
from judgeagent.stages.leak_rules.vocabulary import LISTS, entries
from judgeagent.stages.leakage import find_leaks


def _fires(r: Rule, text: str, batch: str) -> list:
    if r in TEXT_RULES:  # the answer stated outright is read in the whole text
        return r.findings(Reading(text, BATCHES[batch]))
    return [f for s in sentences(text) for f in r.findings(Reading(s, BATCHES[batch]))]


ENTRIES = TEXT_RULES + RULES
LEAKS = [pytest.param(r, e, id=f"{r.code}: {e.text}") for r in ENTRIES for e in r.leaks]
CLEAN = [pytest.param(r, e, id=f"{r.code}: {e.text}") for r in ENTRIES for e in r.clean]


@pytest.mark.parametrize(("r", "example"), LEAKS)
def test_each_leak_example_fires_its_rule(r, example):
    found = _fires(r, example.text, example.batch)
    assert found, f"{r.code} does not catch {example.text!r} ({example.source})"
    assert {f.kind for f in found} <= set(r.kinds)
    # and the guard's rules as a whole flag it
    assert find_leaks(example.text, BATCHES[example.batch])


@pytest.mark.parametrize(("r", "example"), CLEAN)
def test_each_clean_example_passes_its_rule(r, example):
    assert _fires(r, example.text, example.batch) == [], f"{r.code} flags {example.text!r} ({example.source})"


@pytest.mark.parametrize(("exemption", "example"), [pytest.param(x, e, id=f"{x.name}: {e.text}") for x in EXEMPTIONS for e in x.examples])
def test_each_exemption_applies_to_its_examples(exemption, example):
    assert all(exemption.applies(s) for s in sentences(example.text))


def test_every_rule_has_a_code_of_its_kind_module_leak_and_clean_examples_and_a_source_for_each():
    codes = [r.code for r in ENTRIES]
    assert len(codes) == len(set(codes))
    assert len(QUANTIFIER_EXAMPLES) == len(QUANTIFIED_PATTERNS)
    for r in ENTRIES:
        assert r.code.split(".")[0] in ("answer", "options", "pointer", "elimination", "disclosure"), r.code
        assert r.catches and r.leaks and r.clean, r.code
        assert all(e.source and e.batch in BATCHES for e in r.leaks + r.clean), r.code
    assert rule("disclosure.quantified").code == "disclosure.quantified"
    assert {r.code for r in RULES} == {r.code for step in STEPS for r in step.rules}


def test_word_lists_are_data_files_read_in_order_with_comments_left_out():
    assert entries("negative")[:3] == ("not", "no", "never")
    for path in LISTS.glob("*.txt"):
        lines = entries(path.stem)
        assert lines and all(line == line.strip() and not line.startswith("#") for line in lines), path.name


def test_the_rules_page_lists_every_rule_and_exemption():
    page = (Path(__file__).resolve().parents[1] / "docs" / "concepts" / "leak-rules.md").read_text(encoding="utf-8")
    assert [r.code for r in ENTRIES if f"`{r.code}`" not in page] == []
    assert [x.name for x in EXEMPTIONS if f"| {x.name} |" not in page] == []
    # each rule's row ends with how many leak and clean examples it has
    rows = {m.group(1): m.group(2) for m in re.finditer(r"(?m)^\| `([\w.]+)` \|.*\| (\d+ / \d+) \|$", page)}
    assert {r.code: rows.get(r.code) for r in ENTRIES if rows.get(r.code) != f"{len(r.leaks)} / {len(r.clean)}"} == {}


def test_every_word_list_is_read_by_the_guard():
    stages = Path(__file__).resolve().parents[1] / "judgeagent" / "stages"
    code = "".join(p.read_text(encoding="utf-8") for p in [*stages.glob("leak_rules/*.py"), stages / "leak_lists.py"])
    assert [p.stem for p in LISTS.glob("*.txt") if f'"{p.stem}"' not in code] == []


@pytest.mark.parametrize("i", range(len(QUANTIFIED_PATTERNS)))
def test_each_quantifier_pattern_matches_its_example_and_discloses(i):
    example = QUANTIFIER_EXAMPLES[i]
    assert QUANTIFIED_PATTERNS[i].search(example), example
    assert QUANTIFIED.findings(Reading(example, BATCHES["mc"])), example

"""From a JudgeAgent run's records to metrics.json (pure: typed records in, the figures out)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from judgeagent.metrics.scores import accuracy_by_level, difference, metrics_by_label, paper_metrics
from judgeagent.metrics.stats import (
    NAIVE,
    BatchFlags,
    batch_differences,
    clustered_bootstrap_ci,
    design_effect,
    mcnemar_exact,
    paired_bootstrap_ci,
    sign_flip_test,
)
from judgeagent.records import AnswerRecord, IncompleteEntry, IncompleteSummary, InterviewRecord, flags

# Sign assignments drawn when a run has too many changed batches to enumerate them all.
PERMUTATIONS = 10000


def compute_metrics(records: Sequence[InterviewRecord], *, eval_every_round: bool = False, bootstrap: int = 2000, seed: int = 0) -> dict[str, Any]:
    records = sorted(records, key=lambda r: r.batch_index)
    before, after, labels = [], [], []
    for r in records:
        before += flags(r.seed_answers)
        after += flags(r.last.reanswers)
        labels += [q.difficulty for q in r.seed]
    asked = [rd for r in records for rd in r.asked]
    n_rounds = sum(len(r.rounds) for r in records)
    out: dict[str, Any] = paper_metrics(before, after).to_dict() | {
        "n_batches": len(records),
        "by_difficulty": metrics_by_label(labels, before, after) if any(labels) else {},
    }
    if eval_every_round and records:
        points = min(len(r.validations) for r in records)
        out |= {"by_round": [
            {"after_round": k, **paper_metrics(before, [f for r in records for f in flags(r.validations[k].reanswers)]).to_dict()}
            for k in range(points)
        ]}  # fmt: skip
    return out | {
        # A Hard question the judge could answer from one chunk is not counted as Hard.
        "extension_accuracy": accuracy_by_level((rd.reported_level, rd.answer.correct) for rd in asked if rd.answer is not None),
        "extension": {"rounds": n_rounds, "asked": len(asked), "skipped": n_rounds - len(asked),
                      "skip_reasons": sorted({rd.skipped for r in records for rd in r.rounds if rd.skipped})},
        "trajectories": {r.batch_id: r.trajectory for r in records},
        "evaluation_failures": sum(1 for r in records if r.last.evaluation is None),
        "answer_errors": sum(1 for r in records for a in r.seed_answers if a.error),
        "phrase_grading": _phrase_grading(records),
        **trust_metrics(records, bootstrap=bootstrap, seed=seed),
    }


def trust_metrics(records: Sequence[InterviewRecord], *, bootstrap: int, seed: int) -> dict[str, Any]:
    """What makes ΔACC mean something: intervals, tests, controls, leakage, question quality."""
    from judgeagent.stages.gate import gate_summary

    after = [flags(r.last.reanswers) for r in records]
    before = [f for r in records for f in flags(r.seed_answers)]
    return _significance(records, after, bootstrap=bootstrap, seed=seed) | {
        "controls": _controls(records, before, [f for batch in after for f in batch]),
        "leakage": _leakage(records),
        "gate": gate_summary(rd for r in records for rd in r.rounds),
        "decontamination": _decontamination(records),
    }


def _significance(records: Sequence[InterviewRecord], after: list[list[bool]], *, bootstrap: int, seed: int) -> dict[str, Any]:
    """Intervals and tests of ΔACC, batch by batch, with the question-level ones beside them.

    ``ci`` resamples whole batches (its ``ci_method`` says so) and ``permutation`` flips whole
    batches' ΔACC, because the seeds of a batch share one set of suggestions. ``ci_naive``
    and ``mcnemar`` treat the questions as independent and are labelled so;
    ``design_effect`` says how far apart the two views are.
    """
    flat_after = [f for batch in after for f in batch]
    seeds = [flags(r.seed_answers) for r in records]
    comparisons = {"none": seeds}
    if any(r.last.controls for r in records):
        comparisons |= {name: [flags(_control_answers(r, name)) for r in records] for name in CONTROLS}
    out: dict[str, Any] = {}
    seeds_batches: list[BatchFlags] = list(zip(seeds, after))
    if flat_after:
        before = [f for batch in seeds for f in batch]
        out = {"ci": clustered_bootstrap_ci(seeds_batches, n_resamples=bootstrap, seed=seed),
               "ci_naive": paired_bootstrap_ci(before, flat_after, n_resamples=bootstrap, seed=seed) | {"ci_method": NAIVE},
               "design_effect": design_effect(seeds_batches)}
    permutation: dict[str, object] = {}
    mcnemar: dict[str, object] = {}
    for name, other in comparisons.items():
        batches = list(zip(other, after))
        test = sign_flip_test(batch_differences(batches), n_permutations=PERMUTATIONS, seed=seed)
        permutation[f"suggestions_vs_{name}"] = test | {"unit": "batch"}
        flat_other = [f for batch in other for f in batch]
        mcnemar[f"suggestions_vs_{name}"] = mcnemar_exact(flat_other, flat_after) | {"assumes": "independent questions"}
    return out | {"permutation": permutation, "mcnemar": mcnemar}


def _phrase_grading(records: Sequence[InterviewRecord]) -> dict[str, Any] | None:
    """Phrase (KQA) seed answers as the field scores them: SQuAD EM and mean token F1, in percent
    like the paper's figures, and what decided each answer (None for multiple choice).

    A missing reply has no F1 of its own and counts as 0 on both.
    """
    answers = [a for r in records for a in r.seed_answers]
    if not any(a.f1 is not None for a in answers):
        return None
    n = len(answers)
    f1_total = sum(float(a.f1 or 0.0) for a in answers)
    decided = Counter(a.graded_by for a in answers)
    return {
        "n": n,
        "em": round(100.0 * sum(1 for a in answers if a.em) / n, 4),
        "f1": round(100.0 * f1_total / n, 4),
        "graded_by": dict(sorted(decided.items())),
        # The middle band: answers that EM and F1 could not decide, and the judge did.
        "judge_asked": sum(1 for a in answers if a.judge_verdict),
    }


CONTROLS = ("plain", "placebo")


def _control_answers(record: InterviewRecord, name: str) -> list[AnswerRecord]:
    """The control re-answers; a batch that was not re-asked keeps its seed answers, as ACC2 does."""
    controls = record.last.controls
    return controls.answers(name) if controls else record.seed_answers


def _controls(records: Sequence[InterviewRecord], before: list[bool], after: list[bool]) -> dict[str, object]:
    if not any(r.last.controls for r in records):
        return {}
    out: dict[str, object] = {}
    acc2 = paper_metrics(before, after).acc2
    for name in CONTROLS:
        m = paper_metrics(before, [f for r in records for f in flags(_control_answers(r, name))])
        out[name] = {"acc": m.acc2, "delta_acc": m.delta_acc, "cr": m.cr, "cte": m.cte}
        # The suggestions' own effect: ACC2 above what the control reached.
        out[f"suggestions_minus_{name}"] = difference(acc2, m.acc2)
    return out


def _leakage(records: Sequence[InterviewRecord]) -> dict[str, Any]:
    from judgeagent.stages.leak_judge import leak_check_summary

    guarded = [r.last.leak for r in records if r.last.leak]
    checked = [c for c in guarded if c.mode != "off"]  # --leak-check off: nothing was checked
    kinds = Counter(leak.kind for c in checked for leak in c.leaks_before)
    # Left out of the leak-free figures: still leaking, or a leak check that could not be
    # read (check_failed, which also sets flagged): never counted clean.
    clean = [r for r in records if not (r.last.leak and (r.last.leak.flagged or r.last.leak.check_failed))]
    before = [f for r in clean for f in flags(r.seed_answers)]
    after = [f for r in clean for f in flags(r.last.reanswers)]
    leak_free = paper_metrics(before, after)
    out: dict[str, Any] = {
        "batches_checked": len(checked),
        "batches_leaking": sum(1 for c in checked if c.leaks_before),
        "batches_rewritten": sum(1 for c in checked if c.rewritten),
        "batches_flagged": sum(1 for c in checked if c.flagged),
        "leak_kinds": dict(kinds),
        # Which layers ran, and the judge's verdicts and their cost.
        "check": leak_check_summary([c.to_json() for c in guarded]),
        # ACC2 again over the batches whose suggestions did not leak (after the rewrite).
        "leak_free": {"n_batches": len(clean), "n_questions": leak_free.n_questions, "acc1": leak_free.acc1,
                      "acc2": leak_free.acc2, "delta_acc": leak_free.delta_acc},
    }
    # Only checks made by the guard that fails closed carry the field; older runs' figures
    # stay as they were written.
    if any("check_failed" in c.model_fields_set for c in checked):
        out |= {"batches_check_failed": sum(1 for c in checked if c.check_failed)}
    return out


def _decontamination(records: Sequence[InterviewRecord]) -> dict[str, object] | None:
    rewrites = [w for r in records for w in r.decontamination or []]
    if not rewrites:
        return None
    return {"mode": rewrites[0].mode, "rewritten": sum(1 for w in rewrites if w.ok), "kept_original": sum(1 for w in rewrites if not w.ok)}


def incomplete_summary(missing: list[str], failed: Mapping[str, IncompleteEntry], stopped: str | None) -> IncompleteSummary:
    """The batches metrics.json leaves out, and why: how many, their ids, and a count per reason.

    ``missing``: the batch ids with no finished record; ``failed``: batch id → the call that
    brought no answer (``kind``: a FailureKind value), from incomplete.json; a missing batch
    that no call failed was not reached because the run stopped (``stopped`` says why) or
    was interrupted.
    """
    reasons: dict[str, int] = {}
    for batch_id in missing:
        entry = failed.get(batch_id)
        reason = entry.reason if entry else ("not run: the run stopped" if stopped else "not run")
        reasons[reason] = reasons.get(reason, 0) + 1
    return {"n_batches": len(missing), "batch_ids": list(missing), "reasons": dict(sorted(reasons.items()))}

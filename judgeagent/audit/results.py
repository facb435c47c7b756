"""The audit's figures, from its design and the labels given so far.

- **The invalid-item rate** of the items that enter the figures, with its 95% interval
  (:func:`judgeagent.metrics.audit.stratified_proportion`), per defect and per level. It
  rests on the random sample alone: suspects are labelled for what they are, and counted
  apart. An item sampled but not labelled yet is left out, which keeps the estimate unbiased
  because the page shows the sample in a random order.
- **Several people**: an item has a defect when at least half of those who labelled it gave
  it, and is invalid when at least half found some defect (a tie counts against the item:
  the figure is meant to bound the damage). Each pair's agreement is Cohen's κ on valid vs
  invalid and on the exact label set, with the confusion table and the items they disagree on.
- **The model auditor** is compared with the people where both labelled an item. Its own
  rate is given only when no person has labelled yet, and said to be the model's.
- **The gate**, when rejected items were sampled: how often an item it passed is invalid
  and one it rejected is valid, and what share of the invalid (valid) items it rejected (kept).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import combinations

from judgeagent.audit.design import Design, StratumPlan
from judgeagent.audit.items import DEFECTS, LABELS, VALID
from judgeagent.metrics.audit import Estimate, Stratum, clopper_pearson, cohen_kappa, confusion, share_of_hits, stratified_proportion, wilson

Labels = Mapping[str, list[str]]  # item id → labels


def invalid(labels: list[str]) -> bool:
    return any(x != VALID for x in labels)


def consensus(people: Mapping[str, Labels]) -> dict[str, list[str]]:
    """Each item's labels over the people who labelled it: every defect at least half of them
    gave; ["valid"] when fewer than half found any defect."""
    by_item: dict[str, list[list[str]]] = {}
    for labels in people.values():
        for iid, ls in labels.items():
            by_item.setdefault(iid, []).append(ls)
    out = {}
    for iid, votes in by_item.items():
        half = len(votes) / 2
        defects = [d for d in DEFECTS if sum(d in v for v in votes) >= half]
        if sum(invalid(v) for v in votes) >= half:
            out[iid] = defects or ["defective (no defect named by half of the auditors)"]
        else:
            out[iid] = [VALID]
    return out


def label_set(labels: list[str]) -> str:
    """One category for κ on the exact labels: the labels in their page order, joined."""
    return " + ".join(sorted(labels, key=lambda x: LABELS.index(x) if x in LABELS else len(LABELS)))


def _strata(plans: list[StratumPlan], sampled_labels: Labels, hit: Callable[[list[str]], bool]) -> list[Stratum]:
    out = []
    for s in plans:
        labelled = [sampled_labels[i] for i in s.sampled if i in sampled_labels]
        out.append(Stratum(s.size, len(labelled), sum(hit(ls) for ls in labelled)))
    return out


def rates(design: Design, labels: Labels) -> dict:
    """The invalid rate of the items that enter the figures, per defect and per level."""
    plans = [s for s in design.strata if not s.rejected]
    if not plans:
        return {"invalid": None, "by_defect": {}, "by_level": {}}
    levels = list(dict.fromkeys(s.primary for s in plans))

    def having(defect: str) -> Callable[[list[str]], bool]:
        return lambda ls: defect in ls

    overall = stratified_proportion(_strata(plans, labels, invalid))
    return {
        "invalid": overall.to_dict() | {"as_simple_random_sample": as_simple_random_sample(overall.hits, overall.n)},
        "by_defect": {d: stratified_proportion(_strata(plans, labels, having(d))).to_dict() for d in DEFECTS},
        "by_level": {lv: stratified_proportion(_strata([s for s in plans if s.primary == lv], labels, invalid)).to_dict() for lv in levels},
    }


def as_simple_random_sample(k: int, n: int) -> dict:
    """The raw count's Wilson and Clopper–Pearson intervals, as if the labelled items were a
    simple random sample (close to it: proportional allocation samples every stratum at
    about the same rate); the design-based interval is the headline."""
    return {"k": k, "n": n, "wilson": [round(x, 6) for x in wilson(k, n)], "clopper_pearson": [round(x, 6) for x in clopper_pearson(k, n)]}


def gate_figures(design: Design, labels: Labels) -> dict | None:
    """How the quality gate's decisions compare with the labels (None: no rejected item sampled)."""
    rejected = [s for s in design.strata if s.rejected]
    passed = [s for s in design.strata if not s.rejected]
    if not rejected or not passed:
        return None
    every = passed + rejected
    inside = [s.rejected for s in every]

    def valid(ls: list[str]) -> bool:
        return not invalid(ls)

    figures: dict[str, Estimate] = {
        "passed_but_invalid": stratified_proportion(_strata(passed, labels, invalid)),
        "rejected_but_valid": stratified_proportion(_strata(rejected, labels, valid)),
        "invalid_rejected": share_of_hits(_strata(every, labels, invalid), inside),
        "valid_passed": share_of_hits(_strata(every, labels, valid), [not x for x in inside]),
    }
    return {k: v.to_dict() for k, v in figures.items()}


def agreement(a: Labels, b: Labels, refs: Mapping[str, str] | None = None) -> dict:
    """Two raters on the items both labelled: κ on valid vs invalid and on the exact label
    set, the valid/invalid confusion table (rows: the first rater) and the disagreements."""
    common = sorted(set(a) & set(b))
    binary = cohen_kappa(["invalid" if invalid(a[i]) else "valid" for i in common], ["invalid" if invalid(b[i]) else "valid" for i in common],
                         categories=["valid", "invalid"])  # fmt: skip
    exact = cohen_kappa([label_set(a[i]) for i in common], [label_set(b[i]) for i in common])
    cats, table = confusion([label_set(a[i]) for i in common], [label_set(b[i]) for i in common])
    differ = [{"item_id": i, "ref": (refs or {}).get(i), "first": a[i], "second": b[i]} for i in common if label_set(a[i]) != label_set(b[i])]
    return {"n": len(common), "valid_vs_invalid": binary.to_dict(), "labels": exact.to_dict(),
            "label_confusion": {"categories": cats, "table": table}, "disagreements": differ}  # fmt: skip


def basis_labels(people: Mapping[str, Labels], model: Labels | None) -> tuple[str, dict[str, list[str]]]:
    """Whose labels the figures rest on, and each labelled item's labels: the people's
    consensus; the model auditor's only while no person has labelled; else none."""
    agreed = consensus(people)
    return ("people", agreed) if agreed else (("model auditor", dict(model)) if model else ("none", {}))


def compute(design: Design, people: Mapping[str, Labels], model: Labels | None = None, *, model_name: str | None = None,
            refs: Mapping[str, str] | None = None, suspects: Mapping[str, list[str]] | None = None) -> dict:
    """Every figure of the audit, as results.json keeps it."""
    sampled = set(design.order)
    agreed = consensus(people)
    basis, chosen = basis_labels(people, model)
    in_sample = {i: ls for i, ls in chosen.items() if i in sampled}
    out: dict = {
        "basis": basis,
        "auditors": sorted(people),
        "model_auditor": model_name,
        "n_sample": len(design.order),
        "n_labelled": len(in_sample),
        "n_labelled_by": {name: sum(1 for i in labels if i in sampled) for name, labels in people.items()},
        **rates(design, in_sample),
        "gate": gate_figures(design, in_sample),
        "suspects": _suspects(chosen, sampled, suspects or {}),
        "by_auditor": {name: rates(design, {i: ls for i, ls in labels.items() if i in sampled})["invalid"] for name, labels in people.items()}
        if len(people) > 1 else {},
        "agreement": [{"first": x, "second": y, **agreement(people[x], people[y], refs)} for x, y in combinations(sorted(people), 2)],
        "model_vs_people": agreement(agreed, model, refs) if model and agreed else None,
    }
    return out


def _suspects(chosen: Labels, sampled: set[str], suspects: Mapping[str, list[str]]) -> dict:
    """What the labels say of the suspects shown after the sample: a count, not an estimate."""
    shown = [i for i in suspects if i not in sampled]
    labelled = [i for i in shown if i in chosen]
    return {"n": len(shown), "n_labelled": len(labelled), "n_invalid": sum(invalid(chosen[i]) for i in labelled)}

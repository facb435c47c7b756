"""Does an audit give back the true ranking and the true share of broken items? (issue 32)

Five scripted targets of known ability (tests/ability_server.py: right with probability
σ(θ − b)) go through the real sweep on data/medqa-demo with a scripted judge (bench/sweep.py's,
one distinct question per path) that writes a **deliberately wrong key** for a known subset
of its questions: a seeded hash of the question's text puts it in the subset with probability
``--defect-share``. There the option it marks correct is a wrong one and the passages' answer
is a distractor, and the quality gate's reader agrees with the wrong key, so the question
passes the gate as a real judge's subtle error would. A target that knows the answer is
graded wrong on it: wrong keys pull strong targets down and weak ones up.

Each replication (new difficulties, draws, defects and sweep seed) then audits the sweep
twice, with labels a perfect auditor would give (the known wrong keys marked ``wrong key``,
the rest ``valid``), imported with ``judgeagent.audit.import_labels`` as a person's file:

* a partial audit, a stratified sample of ``--sample-share`` of the shared items: does the
  invalid rate's 95% interval cover the true share of wrong keys among the shared items?
  (the population is finite and known, so the true share is exact);
* a full audit (every shared item): does the leaderboard on the items audited valid recover
  the true order, where the leaderboard on all items may not?

Printed over the replications: Spearman's ρ between each leaderboard's order and the true
order (all items; the partial audit's valid items; every valid item), how often the order is
exactly the true one, how often the rank intervals cover the true ranks, the rate's coverage
and width, and the load average. Ratios and coverages only: no timing is a result here.

Run: flock /tmp/bench.lock .venv/bin/python bench/audit_recovery.py [--replications N] [--defect-share P]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the scripted server, the judge double and the ability target
sys.path.insert(0, str(ROOT / "bench"))

from sweep import DATA, bench_judge, built_graph, true_ranks  # noqa: E402  (bench/sweep.py)

from judgeagent.metrics.ranking import spearman  # noqa: E402

ABILITIES = (-1.0, -0.5, 0.0, 0.5, 1.0)
WRONG_KEY = "the deliberately wrong key"


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def defect_judge(seed: int, share: float):
    """bench/sweep.py's judge, writing a wrong key for a seeded ``share`` of its questions."""
    from ability_server import _unit
    from interview_double import RIGHT, WRONGS, _options

    base = type(bench_judge())

    class DefectJudge(base):
        defective: set[str]

        def generate(self, msgs, *, multiple_choice):
            reply = json.loads(super().generate(msgs, multiple_choice=multiple_choice))
            topic = reply["question"]
            if _unit("defect", seed, topic) < share:
                self.defective.add(topic)
                if multiple_choice:  # RIGHT stays among the options, as a distractor
                    reply |= {"correct_option": WRONG_KEY, "distractors": [RIGHT, *WRONGS[:2]]}
                else:
                    reply |= {"answer": WRONG_KEY}
            return json.dumps(reply)

        def read_passages(self, user, *, multiple_choice):
            """The gate's reader agrees with a wrong key: the defect passes the gate."""
            question = re.search(r"^Question: (.*)$", user, re.M)
            if question and question.group(1).strip() in self.defective and re.search(r"^\[2\] ", user, re.M):
                self.gate_requests += 1
                if not multiple_choice:
                    return json.dumps({"answer": WRONG_KEY})
                return json.dumps({"answer": next((k for k, v in _options(user).items() if v == WRONG_KEY), "A")})
            return super().read_passages(user, multiple_choice=multiple_choice)

    judge = DefectJudge()
    judge.defective = set()
    return judge


def labels(path: Path, audit_dir: Path, wrong: dict[str, bool]) -> Path:
    """The labels file a perfect auditor exports: ``wrong`` is item id → has a wrong key."""
    audit_id = json.loads((audit_dir / "design.json").read_text())["audit_id"]
    at = "2030-01-01T00:00:00.000Z"
    path.write_text(json.dumps({
        "format": "judgeagent-audit-labels", "version": 1, "audit_id": audit_id, "audit_dir": str(audit_dir.resolve()), "auditor": "oracle",
        "kind": "person", "exported": at,
        "labels": [{"item_id": i, "labels": ["wrong key" if bad else "valid"], "comment": "", "at": at} for i, bad in sorted(wrong.items())],
    }))  # fmt: skip
    return path


def replication(rep: int, abilities, limit: int, bootstrap: int, share: float, sample_share: float, work: Path) -> dict:
    from ability_server import AbilityTarget, ability_servers
    from scripted_server import ScriptedServer

    import judgeagent
    from judgeagent.audit import import_labels
    from judgeagent.data import load_benchmark
    from judgeagent.sweeps import SweepConfig, sweep

    seeds = load_benchmark(DATA).questions
    key = {q.question.strip(): q.answer for q in seeds}
    doubles = [AbilityTarget(a, name=f"t{k}", seed=rep, answers=key) for k, a in enumerate(abilities)]
    names = [f"t{k}" for k in range(len(abilities))]
    here = work / f"rep{rep}"
    graph = here / "graphs" / "medqa-demo"
    shutil.copytree(built_graph(), graph)
    judge = defect_judge(rep, share)
    with ability_servers(doubles, fast=True) as servers, ScriptedServer(judge, fast=True) as judge_srv:
        models = here / "judgeagent.toml"
        models.write_text("".join(f'[models.{n}]\nbase_url = "{u}"\nmodel = "{n}"\nconcurrency = 8\n\n'
                                  for n, u in [("judge", judge_srv.base_url), *((n, s.base_url) for n, s in zip(names, servers))]))  # fmt: skip
        cfg = SweepConfig.model_validate({
            "targets": names, "judge": "judge", "data": DATA, "graph": graph, "limit": limit, "seed": rep, "bootstrap": bootstrap,
            "options": {"summary": False, "controls": False, "leak_check": "rules"}, "out": here / "sweep", "report": False,
            # A loaded 2-core machine can make a scripted reply time out: retried, as a real run would.
            "llm": {"models_file": models, "max_attempts": 3},
        })  # fmt: skip
        result = sweep(cfg)
    if result.failed:
        why = "; ".join(f"{t.name}: {t.error or t.shared_error}" for t in result.failed)
        raise Failed(f"replication {rep}: target(s) failed: {why}")
    sweep_dir = result.sweep_dir
    items = json.loads((sweep_dir / "shared_items.json").read_text())["items"]
    wrong = {it["item_id"]: it["question"] in judge.defective for it in items}
    true_share = sum(wrong.values()) / len(items)
    board = result.leaderboard

    def audited(sample: int, out: str) -> dict:
        a = judgeagent.audit(sweep_dir, sample=sample, seed=rep, out=sweep_dir / out)
        drawn = json.loads((a.audit_dir / "design.json").read_text())["design"]["order"]
        done = import_labels(labels(here / f"{out}.json", a.audit_dir, {i: wrong[i] for i in drawn}))
        block = json.loads((sweep_dir / "leaderboard.json").read_text())["audit"]
        return {"results": done.results, "block": block}

    half = audited(max(1, round(sample_share * len(items))), "audit-sample")
    full = audited(len(items), "audit-full")

    def scores_of(rows, score_key: str) -> list[float | None]:
        by = {r["name"]: r for r in rows}
        return [by[n].get(score_key) if n in by else None for n in names]

    def intervals_of(rows) -> list[tuple[int, int] | None]:
        by = {r["name"]: r for r in rows}
        out: list[tuple[int, int] | None] = []
        for n in names:
            r = by.get(n) or {}
            lo_hi = r.get("rank_interval") or ([r["rank_lo"], r["rank_hi"]] if r.get("rank_lo") is not None else None)
            out.append(tuple(lo_hi) if lo_hi else None)
        return out

    inv = half["results"]["invalid"]
    return {
        "n_items": len(items), "n_wrong": sum(wrong.values()), "true_share": true_share, "n_sampled": half["block"]["n_sample"],
        "rate": inv["estimate"], "rate_ci": inv["ci"],
        "all": {"scores": scores_of(board["targets"], "shared_accuracy"), "intervals": intervals_of(board["targets"])},
        "valid_sample": {"scores": scores_of(half["block"]["leaderboard"]["targets"], "accuracy"), "intervals": intervals_of(half["block"]["leaderboard"]["targets"])},
        "valid_all": {"scores": scores_of(full["block"]["leaderboard"]["targets"], "accuracy"), "intervals": intervals_of(full["block"]["leaderboard"]["targets"])},
    }  # fmt: skip


class Failed(RuntimeError):
    """A target of the replication's sweep failed (its figures would be missing)."""


def exact(scores: list[float | None], abilities) -> bool:
    """The point order is the true order, with no tie."""
    if any(s is None for s in scores):
        return False
    order = np.argsort(-np.asarray(abilities, dtype=float), kind="stable")
    ordered = [scores[i] for i in order]
    return all(a > b for a, b in zip(ordered, ordered[1:]))


def summarize(runs: list[dict], abilities) -> None:
    truth = true_ranks(abilities)
    print(f"\n{len(runs)} replications; shared items {min(r['n_items'] for r in runs)}–{max(r['n_items'] for r in runs)}, "
          f"wrong keys among them {min(r['n_wrong'] for r in runs)}–{max(r['n_wrong'] for r in runs)} "
          f"(true share mean {np.mean([r['true_share'] for r in runs]):.1%}); partial audit {min(r['n_sampled'] for r in runs)}–"
          f"{max(r['n_sampled'] for r in runs)} items")  # fmt: skip
    for key, what in (("all", "on all shared items"), ("valid_sample", "on the partial audit's valid items"), ("valid_all", "on every item audited valid")):
        rhos = [spearman([np.nan if s is None else s for s in r[key]["scores"]], abilities) for r in runs]
        rhos = [np.nan if x is None else x for x in rhos]
        cover = [iv is not None and iv[0] <= t <= iv[1] for r in runs for iv, t in zip(r[key]["intervals"], truth)]
        widths = [iv[1] - iv[0] + 1 for r in runs for iv in r[key]["intervals"] if iv is not None]
        print(f"  leaderboard {what}: Spearman ρ vs true order mean {np.nanmean(rhos):.3f} [{np.nanmin(rhos):.3f}, {np.nanmax(rhos):.3f}], "
              f"ρ ≥ 0.9 in {np.mean([x >= 0.9 for x in rhos]):.0%}; exact true order in {np.mean([exact(r[key]['scores'], abilities) for r in runs]):.0%}; "
              f"rank intervals cover the true rank {np.mean(cover):.1%} (mean width {np.mean(widths):.2f})")  # fmt: skip
    covered = [r["rate_ci"] is not None and r["rate_ci"][0] - 1e-9 <= r["true_share"] <= r["rate_ci"][1] + 1e-9 for r in runs]
    print(f"  invalid rate of the partial audit: its 95% interval covers the true share in {np.mean(covered):.0%} of replications "
          f"({sum(covered)} of {len(runs)}); mean estimate {np.mean([r['rate'] for r in runs]):.1%} vs true {np.mean([r['true_share'] for r in runs]):.1%}; "
          f"mean interval width {np.mean([r['rate_ci'][1] - r['rate_ci'][0] for r in runs]):.1%}")  # fmt: skip
    print(f"  {load()} at the end")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replications", type=int, default=20)
    ap.add_argument("--limit", type=int, default=36, help="seed questions per interview (batches of 3; medqa-demo has 36)")
    ap.add_argument("--defect-share", type=float, default=0.3, help="share of the judge's questions written with a wrong key")
    ap.add_argument("--sample-share", type=float, default=0.5, help="the partial audit's sample, as a share of the shared items")
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--abilities", default=",".join(f"{a:g}" for a in ABILITIES), help="comma-separated true abilities")
    ap.add_argument("--json", type=Path, help="also write each replication's figures here, one JSON line each")
    args = ap.parse_args()
    abilities = [float(x) for x in args.abilities.split(",")]
    print(f"bench/audit_recovery.py: {len(abilities)} targets of abilities {', '.join(f'{a:g}' for a in abilities)}, wrong keys in "
          f"{args.defect_share:.0%} of the judge's questions, partial audit of {args.sample_share:.0%}; {load()} at the start")  # fmt: skip
    built_graph()
    runs = []
    if args.json:  # one line per replication, written as each ends: a stopped bench keeps what it measured
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text("")
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as tmp:
        for rep in range(args.replications):
            try:
                r = replication(rep, abilities, args.limit, args.bootstrap, args.defect_share, args.sample_share, Path(tmp))
            except Failed as e:  # once more, from scratch; a second failure ends the bench
                print(f"  {e}; running it again", flush=True)
                shutil.rmtree(Path(tmp) / f"rep{rep}", ignore_errors=True)
                r = replication(rep, abilities, args.limit, args.bootstrap, args.defect_share, args.sample_share, Path(tmp))
            runs.append(r)
            if args.json:
                with args.json.open("a") as f:
                    f.write(json.dumps(r) + "\n")
            ci = r["rate_ci"]
            print(f"  replication {rep}: {r['n_items']} shared items, {r['n_wrong']} with a wrong key ({r['true_share']:.1%}); rate "
                  f"{r['rate']:.1%} [{ci[0]:.1%}, {ci[1]:.1%}] from {r['n_sampled']}; accuracy all "
                  f"{', '.join('–' if s is None else f'{s:.0f}' for s in r['all']['scores'])} | valid "
                  f"{', '.join('–' if s is None else f'{s:.0f}' for s in r['valid_all']['scores'])} ({load()})", flush=True)  # fmt: skip
            shutil.rmtree(Path(tmp) / f"rep{rep}", ignore_errors=True)
    summarize(runs, abilities)


if __name__ == "__main__":
    main()

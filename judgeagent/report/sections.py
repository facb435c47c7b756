"""What each report section says, computed from a loaded run (pure: data in, data out).
The knowledge boundary, the largest section, is in ``boundary``.

The Markdown and HTML renderers only lay these out, so both formats say the same thing and
the tests can check each section against metrics.json and records.jsonl directly.
Percentages are the paper's: of the N seed questions, two decimals.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from judgeagent.blocks import DASH, Table, answer_text, correct_text, num, pct, signed  # noqa: F401  (re-exported)
from judgeagent.report.load import Run

OUTCOMES = (
    ("right→right", (True, True), "Right before the feedback and after it"),
    ("wrong→right", (False, True), "Corrected by the feedback"),
    ("right→wrong", (True, False), "Broken by the feedback"),
    ("wrong→wrong", (False, False), "Wrong before and after the feedback"),
)
LEVELS = ("easy", "medium", "hard")


def level_order(label: str) -> tuple[int, str]:
    return (LEVELS.index(label) if label in LEVELS else 9, label)


# ----------------------------------------------------------------------------- overview
def overview(run: Run) -> list[tuple[str, str]]:
    """Who was interviewed, by whom, on what, how, and when."""
    s = run.settings
    cfg = run.config
    bench = cfg.get("benchmark") or {}
    graph = cfg.get("graph") or {}
    models = cfg.get("models") or {}

    def model(role: str) -> str:
        m = models.get(role) or {}
        name = m.get("name") or s.get(role) or "?"
        return name if not m.get("model") or m["model"] in name else f"{name} (model {m['model']})"

    d = s.get("difficulty") or {}
    modules = []
    switches = run.modules
    if switches.get("no_graph"):
        modules.append("no graph (random path chunks)")
    if switches.get("fixed_difficulty"):
        modules.append(f"fixed difficulty: {switches['fixed_difficulty']}")
    if switches.get("no_extension"):
        modules.append("no extension")
    data = bench.get("name") or run.data_name
    if bench.get("format"):
        data += f" ({bench['format']}, {str(bench.get('question_type', '')).upper()}, {bench.get('n_questions', '?')} seed questions)"
    graph_text = str(graph.get("dir") or DASH)
    if graph.get("manifest_hash"):
        graph_text += f", input hash {str(graph['manifest_hash'])[:12]}"
    rows = [
        ("Target", model("target")),
        ("Judge", model("judge")),
        ("Data", data),
        ("Graph", graph_text),
        (
            "Settings",
            f"batch size {s.get('batch_size', '?')}, {s.get('rounds', '?')} rounds, {s.get('hops', '?')} hops, "
            f"limit {s.get('limit') if s.get('limit') is not None else 'none'}, seed {cfg.get('seed', s.get('seed', '?'))}"
            + (", feedback after every round" if s.get("eval_every_round") else "")
            + (", fully right batches re-asked" if s.get("reask_correct") else ""),
        ),
        (
            "Difficulty controller",
            f"gains E/M/H {d.get('gain_easy', 1.0):g}/{d.get('gain_medium', 1.5):g}/{d.get('gain_hard', 2.0):g}, "
            f"T1 = {d.get('t1', 0.5):g}, T2 = {d.get('t2', 1.0):g}",
        ),
        ("Modules switched off", ", ".join(modules) or "none (full method)"),
        ("Date", run.date or DASH),
    ]
    if run.ablation:
        rows.append(("Ablation setting shown", run.setting))
    return rows


def warnings(run: Run) -> list[str]:
    """What a reader must know before trusting the figures."""
    m = run.metrics
    out = []
    if m.get("complete") is False:
        out.append("The run is incomplete (stopped early, e.g. by a budget): the figures cover the finished batches only.")
    if (n := (m.get("incomplete") or {}).get("n_batches")):
        why = "; ".join(f"{reason}: {k}" for reason, k in m["incomplete"]["reasons"].items())
        out.append(f"{n} batch(es) got no answer from a model and are left out of the figures ({why}); rerun the command to retry them.")
    if (note := model_note(run.config.get("models") or {})) is not None:
        out.append(note)
    if m.get("evaluation_failures"):
        out.append(f"{m['evaluation_failures']} batch(es) got no usable evaluation from the judge; they keep their first answers.")
    if m.get("answer_errors"):
        out.append(f"{m['answer_errors']} seed answer(s) were missing or unreadable and count as wrong.")
    ext = m.get("extension") or {}
    if ext.get("skipped"):
        reasons = "; ".join(ext.get("skip_reasons") or [])
        out.append(f"{ext['skipped']} of {ext.get('rounds', '?')} follow-up rounds were skipped" + (f" ({reasons})." if reasons else "."))
    return out


def model_note(models: dict) -> str | None:
    """One line on how the models answered: samples (temperature above 0, asked for or forced
    to 1 by the server: a rerun may differ) and thinking before answering (config.json)."""
    parts = []
    for role in ("target", "judge"):
        m = models.get(role) or {}
        how = [w for w, on in (("samples its answers (temperature above 0: a rerun may differ)", m.get("sampled")),
                               ("reasons before answering", m.get("reasoning"))) if on]  # fmt: skip
        if how:
            parts.append(f"the {role} " + " and ".join(how))
    return ("Models: " + "; ".join(parts) + ".") if parts else None


# ----------------------------------------------------------------------------- figures
HEADLINE = (
    ("ACC1", "acc1"),
    ("ACC2", "acc2"),
    ("CR", "cr"),
    ("CtE", "cte"),
    ("ΔACC", "delta_acc"),
    ("CR | wrong", "cr_given_wrong"),
    ("CtE | right", "cte_given_right"),
)


def headline(metrics: dict) -> Table:
    """ACC1 → ACC2, CR, CtE, ΔACC and the conditional rates, as percentages."""
    cells = [str(metrics.get("n_questions", DASH))]
    for _, key in HEADLINE:
        v = metrics.get(key)
        cells.append(signed(v) if key == "delta_acc" else pct(v))
    return Table(["N", *(label for label, _ in HEADLINE)], [cells], numeric=set(range(len(cells))))


def headline_sentence(metrics: dict) -> str:
    return (
        f"ACC1 {pct(metrics.get('acc1'))}% → ACC2 {pct(metrics.get('acc2'))}% "
        f"(ΔACC {signed(metrics.get('delta_acc'))} points) on {metrics.get('n_questions', '?')} seed questions: "
        f"the feedback corrected {pct(metrics.get('cr'))}% (CR) and broke {pct(metrics.get('cte'))}% (CtE)."
    )


def _paper_row(label: str, m: dict) -> list[str]:
    return [label, str(m.get("n_questions", DASH)), pct(m.get("acc1")), pct(m.get("acc2")), pct(m.get("cr")), pct(m.get("cte")), signed(m.get("delta_acc"))]


PAPER_COLUMNS = ["N", "ACC1", "ACC2", "CR", "CtE", "ΔACC"]


def by_difficulty(metrics: dict) -> Table | None:
    """The paper's figures per seed difficulty label (QuALITY's easy/medium/hard)."""
    groups = metrics.get("by_difficulty") or {}
    if not groups:
        return None
    rows = [_paper_row(label, groups[label]) for label in sorted(groups, key=level_order)]
    return Table(["label", *PAPER_COLUMNS], rows, numeric=set(range(1, 7)))


def by_round(metrics: dict) -> Table | None:
    """With --eval-every-round: the figures when the feedback came after round 0, 1, …"""
    points = metrics.get("by_round") or []
    if not points:
        return None
    rows = [_paper_row(str(p.get("after_round")), p) for p in points]
    return Table(["after round", *PAPER_COLUMNS], rows, numeric=set(range(1, 7)))


def extension_accuracy(metrics: dict) -> Table | None:
    """How the target did on the generated follow-up questions, per generated difficulty."""
    acc = metrics.get("extension_accuracy") or {}
    if not acc:
        return None
    rows = [[lvl, str(acc[lvl]["n"]), str(acc[lvl]["correct"]), pct(acc[lvl]["accuracy"])] for lvl in sorted(acc, key=level_order)]
    return Table(["difficulty", "asked", "right", "accuracy %"], rows, numeric={1, 2, 3})


# ----------------------------------------------------------------------------- trust
def _interval(metrics: dict, key: str) -> str:
    ci = (metrics.get("ci") or {}).get(key)
    return DASH if not ci else f"[{ci[0]:.1f}, {ci[1]:.1f}]"


def _p(test: dict | None) -> str:
    return DASH if not test else f"{test['p_value']:.3g} (b={test['b']}, c={test['c']})"


def _perm_p(test: dict | None) -> str:
    if not test:
        return DASH
    how = "exact" if test["method"] == "exact" else f"{test['n_permutations']} draws"
    return f"{test['p_value']:.3g} ({test['n_nonzero']} of {test['n_batches']} batches changed; {how})"


def _batched(metrics: dict) -> bool:
    """Whether the run's intervals resample batches (runs before the batch statistics resampled questions)."""
    return (metrics.get("ci") or {}).get("ci_method") == "batch_bootstrap"


def significance(metrics: dict) -> Table | None:
    """ACC1, ACC2 and ΔACC with 95% bootstrap intervals, against the controls, with the batch
    permutation test's p and McNemar's (which treats the questions as independent)."""
    tests = metrics.get("mcnemar")
    if not tests:
        return None
    perm = metrics.get("permutation") or {}

    def tail(name: str) -> list[str]:
        p = [_perm_p(perm.get(f"suggestions_vs_{name}"))] if perm else []
        return [*p, _p(tests.get(f"suggestions_vs_{name}"))]

    rows = [
        ["first answers (ACC1)", pct(metrics.get("acc1")), _interval(metrics, "acc1"), DASH, DASH, *([DASH] * len(tail("none")))],
        ["with suggestions (ACC2)", pct(metrics.get("acc2")), _interval(metrics, "acc2"), signed(metrics.get("delta_acc")), _interval(metrics, "delta_acc"), *tail("none")],
    ]
    controls = metrics.get("controls") or {}
    for name, label in (("plain", "plain re-ask (control)"), ("placebo", "placebo suggestion (control)")):
        if name in controls:
            rows.append([label, pct(controls[name]["acc"]), DASH, signed(controls[f"suggestions_minus_{name}"]), DASH, *tail(name)])
    ci = "95% CI (batches)" if _batched(metrics) else "95% CI"
    tests_cols = (["batch permutation p"] if perm else []) + ["McNemar exact p (independent questions)"]
    return Table(["answers", "accuracy %", ci, "ACC2 − this", ci, *tests_cols], rows, numeric={1, 3})


def significance_note(metrics: dict) -> str:
    """How the intervals and tests of :func:`significance` were made, and the design effect."""
    if _batched(metrics):
        how = ("Intervals: bootstrap over whole batches, since a batch's seeds share one set of suggestions. "
               "Batch permutation: the sign of each batch's ΔACC flipped, all ways when few batches changed. "
               "McNemar: exact test on the right/wrong flips (b right→wrong, c wrong→right), treating the questions as independent, which they are not.")
    else:
        how = ("Intervals: paired bootstrap over the seed questions. "
               "McNemar: exact test on the right/wrong flips (b right→wrong, c wrong→right) between ACC2's answers and the row's.")
    deff = (metrics.get("design_effect") or {}).get("delta_acc")
    if deff is not None:
        how += f" Design effect on ΔACC: {deff:.2f} (its variance over batches, divided by its variance were the questions independent)"
        if deff > 0:
            ratio = deff**0.5
            how += f": an interval over questions is about {ratio:.2f}× too narrow" if ratio >= 1 else f": an interval over questions is about {1 / ratio:.2f}× too wide"
        how += "."
    return how + " The controls re-ask the same questions with no suggestions, and with a content-free placebo of the same length."


def leakage(metrics: dict) -> Table | None:
    """How often the suggestions gave answers away, and ACC2 without those batches."""
    leak = metrics.get("leakage") or {}
    if not leak.get("batches_checked"):
        return None
    lf = leak["leak_free"]
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(leak.get("leak_kinds", {}).items())) or "none"
    rows = [[str(leak["batches_checked"]), str(leak["batches_leaking"]), str(leak["batches_rewritten"]), str(leak["batches_flagged"]), kinds,
             str(lf["n_batches"]), pct(lf["acc2"]), signed(lf["delta_acc"])]]
    cols = ["batches checked", "leaking", "rewritten", "still leaking", "leak kinds", "leak-free batches", "leak-free ACC2", "leak-free ΔACC"]
    return Table(cols, rows, numeric={0, 1, 2, 3, 5, 6, 7})


def gate(metrics: dict) -> Table | None:
    """Pass rate of each quality-gate check over every generated question tried."""
    g = metrics.get("gate") or {}
    checks = g.get("checks") or {}
    if not any(v["run"] for v in checks.values()):
        return None
    rows = [[name, str(v["run"]), str(v["passed"]), pct(None if v.get("pass_rate") is None else 100.0 * v["pass_rate"])] for name, v in checks.items()]
    return Table(["check", "run", "passed", "pass rate %"], rows, numeric={1, 2, 3})


# ----------------------------------------------------------------------------- usage
def usage(metrics: dict) -> Table | None:
    """Requests, tokens, cost and latency per stage, then the total. "prompt cached %" is the
    share of prompt tokens the provider read from its prompt cache (a repeated prefix)."""
    u = metrics.get("llm_usage") or {}
    stages = u.get("stages") or {}
    if not stages and not u.get("total"):
        return None

    def row(name: str, b: dict) -> list[str]:
        return [
            name,
            num(b.get("requests", 0)),
            num(b.get("cached", 0)),
            num(b.get("http_requests", 0)),
            num(b.get("prompt_tokens", 0)),
            pct(None if b.get("cached_share") is None else 100.0 * b["cached_share"]),
            num(b.get("completion_tokens", 0)),
            f"{b.get('cost_usd', 0.0):.4f}",
            DASH if b.get("latency_p50_s") is None else f"{b['latency_p50_s']:.2f}",
            DASH if b.get("latency_p95_s") is None else f"{b['latency_p95_s']:.2f}",
        ]

    rows = [row(name, stages[name]) for name in stages]
    if u.get("total"):
        rows.append(row("total", u["total"]))
    cols = ["stage", "requests", "cached", "HTTP requests", "prompt tokens", "prompt cached %", "completion tokens", "cost $",
            "p50 s", "p95 s"]  # fmt: skip
    return Table(cols, rows, numeric=set(range(1, 10)))


TIMING_NAMES = {"preflight_s": "endpoint checks", "plan_s": "graph and path planning", "interview_s": "interview (all model calls)"}


def timings(metrics: dict) -> list[tuple[str, str]]:
    """Wall time of each phase of the run, in seconds."""
    t = metrics.get("timings") or {}
    rows = [(TIMING_NAMES.get(k, k.removesuffix("_s")), f"{v:.1f} s") for k, v in t.items() if isinstance(v, (int, float))]
    if rows:
        rows.append(("total", f"{sum(v for v in t.values() if isinstance(v, (int, float))):.1f} s"))
    return rows


# ----------------------------------------------------------------------------- interview summary
SUMMARY_PARTS = (
    ("strengths", "Strengths"),
    ("weaknesses", "Weaknesses"),
    ("knowledge_gaps", "Knowledge gaps"),
    ("reasoning_gaps", "Reasoning gaps"),
)


@dataclass
class InterviewSummary:
    lists: list[tuple[str, list[str]]]  # (heading, statements)
    response_to_feedback: str
    error: str | None = None


def interview_summary(summary: dict | None) -> InterviewSummary | None:
    """summary.json in display order; None when the run has none."""
    if summary is None:
        return None
    if summary.get("error"):
        return InterviewSummary([], "", error=str(summary["error"]))
    lists = []
    for key, title in SUMMARY_PARTS:
        value = summary.get(key) or []
        lists.append((title, [value] if isinstance(value, str) else [str(v) for v in value]))
    return InterviewSummary(lists, str(summary.get("response_to_feedback") or ""))


# ----------------------------------------------------------------------------- examples
@dataclass
class SeedOutcome:
    question: dict
    first: dict  # the stage-1 answer
    after: dict  # the answer after the feedback


@dataclass
class Example:
    batch_id: str
    seeds: list[SeedOutcome]  # the batch's seed questions with this outcome
    followups: list[dict]  # the batch's asked rounds
    suggestions: str | None
    evaluation_error: str | None


def seed_outcomes(record: dict) -> list[tuple[tuple[bool, bool], SeedOutcome]]:
    final = (record.get("validations") or [{}])[-1]
    after = final.get("reanswers") or record.get("seed_answers") or []
    return [
        ((bool(a.get("correct")), bool(b.get("correct"))), SeedOutcome(q, a, b))
        for q, a, b in zip(record.get("seed") or [], record.get("seed_answers") or [], after)
    ]


def examples(records: list[dict], per_outcome: int = 2) -> list[tuple[str, str, list[Example]]]:
    """For each outcome (right→right, …), up to ``per_outcome`` batches that have it;
    batches not shown under an earlier outcome come first, so the examples vary."""
    out = []
    shown: set[str] = set()
    for key, flags, title in OUTCOMES:
        candidates = [r for r in records if any(f == flags for f, _ in seed_outcomes(r))]
        candidates.sort(key=lambda r: str(r.get("batch_id")) in shown)  # stable: batch order otherwise
        chosen: list[Example] = []
        for r in candidates[:per_outcome]:
            final = (r.get("validations") or [{}])[-1]
            ev = final.get("evaluation") or {}
            chosen.append(
                Example(
                    str(r.get("batch_id")),
                    [s for f, s in seed_outcomes(r) if f == flags],
                    [rd for rd in r.get("rounds") or [] if rd.get("question")],
                    ev.get("suggestions"),
                    final.get("evaluation_error"),
                )
            )
            shown.add(str(r.get("batch_id")))
        out.append((key, title, chosen))
    return out


def outcome_counts(records: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for r in records:
        for flags, _ in seed_outcomes(r):
            counts[next(k for k, f, _ in OUTCOMES if f == flags)] += 1
    return {k: counts.get(k, 0) for k, _, _ in OUTCOMES}


# ----------------------------------------------------------------------------- plot data
@dataclass
class Trajectory:
    batch_id: str
    scores: list[float]
    n_seed: int  # the first n_seed scores follow seed answers, the rest follow-ups


def trajectories(records: list[dict]) -> list[Trajectory]:
    return [Trajectory(str(r.get("batch_id")), [float(x) for x in r.get("trajectory") or []], len(r.get("seed") or [])) for r in records if r.get("trajectory")]

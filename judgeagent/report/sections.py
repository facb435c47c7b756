"""What each report section says, computed from a loaded run (pure: data in, data out).
The knowledge boundary, the largest section, is in ``boundary``.

The Markdown and HTML renderers only lay these out, so both formats say the same thing and
the tests can check each section against metrics.json and records.jsonl directly.
Percentages are the paper's: of the N seed questions, two decimals.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import Field

from judgeagent.blocks import DASH, Table, answer_text, correct_text, num, pct, signed  # noqa: F401  (re-exported)
from judgeagent.metrics.figures import InterviewFigures, McNemar, PaperFigures, Permutation, RunFigures, UsageFigures
from judgeagent.records import AnswerRecord, InterviewRecord, Json, JsonModel, QuestionRecord, RoundRecord
from judgeagent.report.load import BenchmarkInfo, GraphInfo, Run, SavedModel

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
    cfg = run.saved
    s = run.settings.interview
    bench = cfg.benchmark or BenchmarkInfo()
    graph = cfg.graph or GraphInfo()

    def model(role: str) -> str:
        m = cfg.models.get(role)
        name = (m.name if m else None) or (run.settings.target if role == "target" else run.settings.judge) or "?"
        return name if not m or not m.model or m.model in name else f"{name} (model {m.model})"

    d = s.difficulty
    modules = []
    switches = run.modules
    if switches.no_graph:
        modules.append("no graph (random path chunks)")
    if switches.fixed_difficulty:
        modules.append(f"fixed difficulty: {switches.fixed_difficulty}")
    if switches.no_extension:
        modules.append("no extension")
    data = bench.name or run.data_name
    if bench.format:
        data += f" ({bench.format}, {str(bench.question_type or '').upper()}, {bench.n_questions if bench.n_questions is not None else '?'} seed questions)"
    graph_text = str(graph.dir or DASH)
    if graph.manifest_hash:
        graph_text += f", input hash {graph.manifest_hash[:12]}"
    seed = cfg.seed if cfg.seed is not None else run.settings.seed
    rows = [
        ("Target", model("target")),
        ("Judge", model("judge")),
        ("Data", data),
        ("Graph", graph_text),
        (
            "Settings",
            f"batch size {_or(s.batch_size)}, {_or(s.rounds)} rounds, {_or(s.hops)} hops, "
            f"limit {s.limit if s.limit is not None else 'none'}, seed {_or(seed)}"
            + (", feedback after every round" if s.eval_every_round else "")
            + (", fully right batches re-asked" if s.reask_correct else ""),
        ),
        (
            "Difficulty controller",
            f"gains E/M/H {d.gain_easy:g}/{d.gain_medium:g}/{d.gain_hard:g}, T1 = {d.t1:g}, T2 = {d.t2:g}",
        ),
        ("Modules switched off", ", ".join(modules) or "none (full method)"),
        ("Date", run.date or DASH),
    ]
    if run.ablation:
        rows.append(("Ablation setting shown", run.setting))
    return rows


def _or(v: object) -> str:
    return "?" if v is None else str(v)


def warnings(run: Run) -> list[str]:
    """What a reader must know before trusting the figures."""
    m = run.figures
    out = []
    if m.complete is False:
        out.append("The run is incomplete (stopped early, e.g. by a budget): the figures cover the finished batches only.")
    if n := m.incomplete.n_batches:
        why = "; ".join(f"{reason}: {k}" for reason, k in m.incomplete.reasons.items())
        out.append(f"{n} batch(es) got no answer from a model and are left out of the figures ({why}); rerun the command to retry them.")
    if (note := model_note(run.saved.models)) is not None:
        out.append(note)
    if m.evaluation_failures:
        out.append(f"{m.evaluation_failures} batch(es) got no usable evaluation from the judge; they keep their first answers.")
    if m.answer_errors:
        out.append(f"{m.answer_errors} seed answer(s) were missing or unreadable and count as wrong.")
    ext = m.extension
    if ext.skipped:
        reasons = "; ".join(ext.skip_reasons)
        out.append(f"{ext.skipped} of {ext.rounds} follow-up rounds were skipped" + (f" ({reasons})." if reasons else "."))
    return out


def model_note(models: dict[str, SavedModel]) -> str | None:
    """One line on how the models answered: samples (temperature above 0, asked for or forced
    to 1 by the server: a rerun may differ) and thinking before answering (config.json)."""
    parts = []
    for role in ("target", "judge"):
        m = models.get(role) or SavedModel()
        how = [w for w, on in (("samples its answers (temperature above 0: a rerun may differ)", m.sampled),
                               ("reasons before answering", m.reasoning)) if on]  # fmt: skip
        if how:
            parts.append(f"the {role} " + " and ".join(how))
    return ("Models: " + "; ".join(parts) + ".") if parts else None


# ----------------------------------------------------------------------------- figures
HEADLINE: tuple[tuple[str, Callable[[PaperFigures], float | None]], ...] = (
    ("ACC1", lambda m: m.acc1),
    ("ACC2", lambda m: m.acc2),
    ("CR", lambda m: m.cr),
    ("CtE", lambda m: m.cte),
    ("ΔACC", lambda m: m.delta_acc),
    ("CR | wrong", lambda m: m.cr_given_wrong),
    ("CtE | right", lambda m: m.cte_given_right),
)


def headline(metrics: PaperFigures) -> Table:
    """ACC1 → ACC2, CR, CtE, ΔACC and the conditional rates, as percentages."""
    cells = [str(metrics.n_questions)]
    for label, value in HEADLINE:
        cells.append(signed(value(metrics)) if label == "ΔACC" else pct(value(metrics)))
    return Table(["N", *(label for label, _ in HEADLINE)], [cells], numeric=set(range(len(cells))))


def headline_sentence(metrics: PaperFigures) -> str:
    return (
        f"ACC1 {pct(metrics.acc1)}% → ACC2 {pct(metrics.acc2)}% "
        f"(ΔACC {signed(metrics.delta_acc)} points) on {metrics.n_questions} seed questions: "
        f"the feedback corrected {pct(metrics.cr)}% (CR) and broke {pct(metrics.cte)}% (CtE)."
    )


def _paper_row(label: str, m: PaperFigures) -> list[str]:
    return [label, str(m.n_questions), pct(m.acc1), pct(m.acc2), pct(m.cr), pct(m.cte), signed(m.delta_acc)]


PAPER_COLUMNS = ["N", "ACC1", "ACC2", "CR", "CtE", "ΔACC"]


def by_difficulty(metrics: InterviewFigures) -> Table | None:
    """The paper's figures per seed difficulty label (QuALITY's easy/medium/hard)."""
    groups = metrics.by_difficulty
    if not groups:
        return None
    rows = [_paper_row(label, groups[label]) for label in sorted(groups, key=level_order)]
    return Table(["label", *PAPER_COLUMNS], rows, numeric=set(range(1, 7)))


def by_round(metrics: InterviewFigures) -> Table | None:
    """With --eval-every-round: the figures when the feedback came after round 0, 1, …"""
    if not metrics.by_round:
        return None
    rows = [_paper_row(str(p.after_round), p) for p in metrics.by_round]
    return Table(["after round", *PAPER_COLUMNS], rows, numeric=set(range(1, 7)))


def extension_accuracy(metrics: InterviewFigures) -> Table | None:
    """How the target did on the generated follow-up questions, per generated difficulty."""
    acc = metrics.extension_accuracy
    if not acc:
        return None
    rows = [[lvl, str(acc[lvl].n), str(acc[lvl].correct), pct(acc[lvl].accuracy)] for lvl in sorted(acc, key=level_order)]
    return Table(["difficulty", "asked", "right", "accuracy %"], rows, numeric={1, 2, 3})


# ----------------------------------------------------------------------------- trust
def _interval(metrics: InterviewFigures, key: str) -> str:
    ci = metrics.ci.of(key) if metrics.ci else None
    return DASH if not ci else f"[{ci[0]:.1f}, {ci[1]:.1f}]"


def _p(test: McNemar | None) -> str:
    return DASH if not test else f"{test.p_value:.3g} (b={test.b}, c={test.c})"


def _perm_p(test: Permutation | None) -> str:
    if not test:
        return DASH
    how = "exact" if test.method == "exact" else f"{test.n_permutations} draws"
    return f"{test.p_value:.3g} ({test.n_nonzero} of {test.n_batches} batches changed; {how})"


def _batched(metrics: InterviewFigures) -> bool:
    """Whether the run's intervals resample batches (runs before the batch statistics resampled questions)."""
    return metrics.ci is not None and metrics.ci.over_batches


def significance(metrics: InterviewFigures) -> Table | None:
    """ACC1, ACC2 and ΔACC with 95% bootstrap intervals, against the controls, with the batch
    permutation test's p and McNemar's (which treats the questions as independent)."""
    tests = metrics.mcnemar
    if not tests:
        return None
    perm = metrics.permutation

    def tail(name: str) -> list[str]:
        p = [_perm_p(perm.get(f"suggestions_vs_{name}"))] if perm else []
        return [*p, _p(tests.get(f"suggestions_vs_{name}"))]

    rows = [
        ["first answers (ACC1)", pct(metrics.acc1), _interval(metrics, "acc1"), DASH, DASH, *([DASH] * len(tail("none")))],
        ["with suggestions (ACC2)", pct(metrics.acc2), _interval(metrics, "acc2"), signed(metrics.delta_acc), _interval(metrics, "delta_acc"), *tail("none")],
    ]
    for name, label in (("plain", "plain re-ask (control)"), ("placebo", "placebo suggestion (control)")):
        control, minus = metrics.controls.named(name)
        if control is not None:
            rows.append([label, pct(control.acc), DASH, signed(minus), DASH, *tail(name)])
    ci = "95% CI (batches)" if _batched(metrics) else "95% CI"
    tests_cols = (["batch permutation p"] if perm else []) + ["McNemar exact p (independent questions)"]
    return Table(["answers", "accuracy %", ci, "ACC2 − this", ci, *tests_cols], rows, numeric={1, 3})


def significance_note(metrics: InterviewFigures) -> str:
    """How the intervals and tests of :func:`significance` were made, and the design effect."""
    if _batched(metrics):
        how = ("Intervals: bootstrap over whole batches, since a batch's seeds share one set of suggestions. "
               "Batch permutation: the sign of each batch's ΔACC flipped, all ways when few batches changed. "
               "McNemar: exact test on the right/wrong flips (b right→wrong, c wrong→right), treating the questions as independent, which they are not.")
    else:
        how = ("Intervals: paired bootstrap over the seed questions. "
               "McNemar: exact test on the right/wrong flips (b right→wrong, c wrong→right) between ACC2's answers and the row's.")
    if metrics.ci is not None and metrics.ci.thin and metrics.ci.note:
        how = f"ACC1, ACC2 and ΔACC: {metrics.ci.note}. {how}"  # one batch resamples to itself: no width to claim
    deff = metrics.design_effect.delta_acc if metrics.design_effect else None
    if deff is not None:
        how += f" Design effect on ΔACC: {deff:.2f} (its variance over batches, divided by its variance were the questions independent)"
        if deff > 0:
            ratio = deff**0.5
            how += f": an interval over questions is about {ratio:.2f}× too narrow" if ratio >= 1 else f": an interval over questions is about {1 / ratio:.2f}× too wide"
        how += "."
    return how + " The controls re-ask the same questions with no suggestions, and with a content-free placebo of the same length."


def leakage(metrics: InterviewFigures) -> Table | None:
    """How often the suggestions gave answers away, and ACC2 without those batches."""
    leak = metrics.leakage
    if not leak.batches_checked:
        return None
    lf = leak.leak_free
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(leak.leak_kinds.items())) or "none"
    rows = [[str(leak.batches_checked), str(leak.batches_leaking), str(leak.batches_rewritten), str(leak.batches_flagged), kinds,
             str(lf.n_batches), pct(lf.acc2), signed(lf.delta_acc)]]
    cols = ["batches checked", "leaking", "rewritten", "still leaking", "leak kinds", "leak-free batches", "leak-free ACC2", "leak-free ΔACC"]
    return Table(cols, rows, numeric={0, 1, 2, 3, 5, 6, 7})


def gate(metrics: InterviewFigures) -> Table | None:
    """Pass rate of each quality-gate check over every generated question tried."""
    checks = metrics.gate.checks
    if not any(v.run for v in checks.values()):
        return None
    rows = [[name, str(v.run), str(v.passed), pct(None if v.pass_rate is None else 100.0 * v.pass_rate)] for name, v in checks.items()]
    return Table(["check", "run", "passed", "pass rate %"], rows, numeric={1, 2, 3})


# ----------------------------------------------------------------------------- usage
def usage(metrics: RunFigures) -> Table | None:
    """Requests, tokens, cost and latency per stage, then the total. "prompt cached %" is the
    share of prompt tokens the provider read from its prompt cache (a repeated prefix)."""
    u = metrics.llm_usage
    if not u.stages and not u.total:
        return None

    def row(name: str, b: UsageFigures) -> list[str]:
        return [
            name,
            num(b.requests),
            num(b.cached),
            num(b.http_requests),
            num(b.prompt_tokens),
            pct(None if b.cached_share is None else 100.0 * b.cached_share),
            num(b.completion_tokens),
            f"{b.cost_usd:.4f}",
            DASH if b.latency_p50_s is None else f"{b.latency_p50_s:.2f}",
            DASH if b.latency_p95_s is None else f"{b.latency_p95_s:.2f}",
        ]

    rows = [row(name, b) for name, b in u.stages.items()]
    if u.total:
        rows.append(row("total", u.total))
    cols = ["stage", "requests", "cached", "HTTP requests", "prompt tokens", "prompt cached %", "completion tokens", "cost $",
            "p50 s", "p95 s"]  # fmt: skip
    return Table(cols, rows, numeric=set(range(1, 10)))


TIMING_NAMES = {"preflight_s": "endpoint checks", "plan_s": "graph and path planning", "interview_s": "interview (all model calls)"}


def timings(metrics: RunFigures) -> list[tuple[str, str]]:
    """Wall time of each phase of the run, in seconds."""
    t = metrics.timings
    rows = [(TIMING_NAMES.get(k, k.removesuffix("_s")), f"{v:.1f} s") for k, v in t.items()]
    if rows:
        rows.append(("total", f"{sum(t.values()):.1f} s"))
    return rows


# ----------------------------------------------------------------------------- interview summary
SUMMARY_PARTS = (
    ("strengths", "Strengths"),
    ("weaknesses", "Weaknesses"),
    ("knowledge_gaps", "Knowledge gaps"),
    ("reasoning_gaps", "Reasoning gaps"),
)


class SummaryFile(JsonModel):
    """summary.json: the judge's closing interview summary, or why there is none."""

    strengths: list[str] | str = Field(default_factory=list)
    weaknesses: list[str] | str = Field(default_factory=list)
    knowledge_gaps: list[str] | str = Field(default_factory=list)
    reasoning_gaps: list[str] | str = Field(default_factory=list)
    response_to_feedback: str | None = None
    error: str | None = None

    def part(self, key: str) -> list[str]:
        value = {"strengths": self.strengths, "weaknesses": self.weaknesses, "knowledge_gaps": self.knowledge_gaps,
                 "reasoning_gaps": self.reasoning_gaps}[key]
        return [value] if isinstance(value, str) else [str(v) for v in value]


@dataclass
class InterviewSummary:
    lists: list[tuple[str, list[str]]]  # (heading, statements)
    response_to_feedback: str
    error: str | None = None


def interview_summary(summary: Json | None) -> InterviewSummary | None:
    """summary.json in display order; None when the run has none."""
    if summary is None:
        return None
    s = SummaryFile.from_json(summary)
    if s.error:
        return InterviewSummary([], "", error=s.error)
    return InterviewSummary([(title, s.part(key)) for key, title in SUMMARY_PARTS], s.response_to_feedback or "")


# ----------------------------------------------------------------------------- examples
@dataclass
class SeedOutcome:
    question: QuestionRecord
    first: AnswerRecord  # the stage-1 answer
    after: AnswerRecord  # the answer after the feedback


@dataclass
class Example:
    batch_id: str
    seeds: list[SeedOutcome]  # the batch's seed questions with this outcome
    followups: list[RoundRecord]  # the batch's asked rounds
    suggestions: str | None
    evaluation_error: str | None


def seed_outcomes(record: InterviewRecord) -> list[tuple[tuple[bool, bool], SeedOutcome]]:
    after = record.last.reanswers or record.seed_answers
    return [((a.correct, b.correct), SeedOutcome(q, a, b)) for q, a, b in zip(record.seed, record.seed_answers, after)]


def examples(records: Sequence[InterviewRecord], per_outcome: int = 2) -> list[tuple[str, str, list[Example]]]:
    """For each outcome (right→right, …), up to ``per_outcome`` batches that have it;
    batches not shown under an earlier outcome come first, so the examples vary."""
    out = []
    shown: set[str] = set()
    for key, flags, title in OUTCOMES:
        candidates = [r for r in records if any(f == flags for f, _ in seed_outcomes(r))]
        candidates.sort(key=lambda r: r.batch_id in shown)  # stable: batch order otherwise
        chosen: list[Example] = []
        for r in candidates[:per_outcome]:
            final = r.last
            chosen.append(
                Example(
                    r.batch_id,
                    [s for f, s in seed_outcomes(r) if f == flags],
                    [rd for rd in r.rounds if rd.question],
                    final.evaluation.suggestions if final.evaluation else None,
                    final.evaluation_error,
                )
            )
            shown.add(r.batch_id)
        out.append((key, title, chosen))
    return out


def outcome_counts(records: Sequence[InterviewRecord]) -> dict[str, int]:
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


def trajectories(records: Sequence[InterviewRecord]) -> list[Trajectory]:
    return [Trajectory(r.batch_id, list(r.trajectory), len(r.seed)) for r in records if r.trajectory]

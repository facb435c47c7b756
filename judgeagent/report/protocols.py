"""Report sections per protocol: each protocol's figures and transcripts, from the run folder.

A run of the ``judgeagent`` protocol keeps the interview report and gains the Appendix E.2
sections when it ran them; a run of another protocol gets its own document: an overview,
its figures and its transcripts. Pure: the run folder in, blocks out.
"""

from __future__ import annotations

import json

from judgeagent.report import sections as sec
from judgeagent.report.document import Bullets, Document, Facts, Heading, Para, QuestionBlock, Section, TableBlock, _cut
from judgeagent.report.load import Run
from judgeagent.report.sections import DASH, Table, pct, signed

EXAMPLES_PER_RANGE = 2


def run_protocol(run: Run) -> str:
    return str(run.config.get("protocol") or run.metrics.get("protocol") or "judgeagent")


def protocol_sections(run: Run) -> list[Section]:
    from judgeagent.protocols import PROTOCOLS

    cls = PROTOCOLS.get(run_protocol(run))
    return cls().report_sections(run) if cls is not None else []


def protocol_document(run: Run) -> Document | None:
    """The document of a run made by a protocol other than JudgeAgent's; None for JudgeAgent's."""
    name = run_protocol(run)
    if name == "judgeagent":
        return None
    from judgeagent.protocols import PROTOCOLS

    title = PROTOCOLS[name].title if name in PROTOCOLS else name
    overview = [("Protocol", f"{name}: {title}"), *sec.overview(run)[:4]]
    head = Section("Summary", "summary", [Facts(overview), *[Para(w, "warn") for w in _warnings(run)]])
    return Document(f"JudgeAgent report ({name}): {run.target} on {run.data_name}",
                    f"judge {run.judge} · {run.date or 'undated'} · run folder {run.path.name}", [head, *protocol_sections(run)])


def _warnings(run: Run) -> list[str]:
    return ["The run is incomplete (stopped early): the figures cover the finished units only."] if run.metrics.get("complete") is False else []


def _num(v) -> str:
    return DASH if v is None else f"{v:.2f}"


# ----------------------------------------------------------------------------- kieval
def kieval_sections(run: Run) -> list[Section]:
    k = run.metrics.get("kieval") or {}
    aspects = k.get("aspects") or {}
    table = Table(["overall", *aspects, "completeness", "early stops %"],
                  [[_num(k.get("overall")), *(_num(v) for v in aspects.values()), _num(k.get("completeness")), _num((k.get("early_stop") or {}).get("rate"))]],
                  numeric=set(range(len(aspects) + 3)))
    reasons = [f"{r}: {n}" for r, n in ((k.get("early_stop") or {}).get("reasons") or {}).items()]
    blocks: list = [TableBlock(table, f"KIEval scores (0–100; 1–4 mapped 1→1, 2→3, 3→7, 4→10, turn t weighted exp(−0.2·t)) over "
                                      f"{k.get('n_dialogues', 0)} dialogues; completeness is the mean number of turns held, of {k.get('max_turns')}.")]
    blocks += [Heading("Early-stop reasons"), Bullets(reasons)] if reasons else [Para("No dialogue stopped early.", "note")]
    transcripts: list = []
    for r in run.records:
        d = r["dialogue"]
        transcripts.append(Heading(f"{r['batch_id']}: {d['turns_held']} turns held" + (f", stopped: {d['stop_reason']}" if d.get("stop_reason") else ""), 4))
        for t in d["turns"]:
            s = t.get("score")
            scored = "unscored" if not s else f"overall {s['overall']}; " + "; ".join(f"{a} {s['aspects'][a]} ({s['comments'][a]})" for a in s["aspects"])
            transcripts.append(Facts([(f"Turn {t['index']} examiner", _cut(t["question"], 400)), ("Candidate", _cut(t["reply"] or "(no reply)", 400)), ("Evaluator", _cut(scored, 500))]))
    return [Section("KIEval", "kieval", blocks), Section("Dialogues", "dialogues", transcripts)]


# ----------------------------------------------------------------------------- interviewer
def interviewer_sections(run: Run) -> list[Section]:
    from judgeagent.metrics.interviewer import SCORE_RANGES, score_range

    m = run.metrics.get("interviewer") or {}
    acc = m.get("accuracy_at") or {}
    fu = m.get("followups") or {}
    blocks: list = [TableBlock(Table([f"acc{k}" for k in acc], [[pct(v) for v in acc.values()]], numeric=set(range(len(acc)))),
                               "Accuracy @k: right within the first k answers (the first, then a revision after each feedback), % of questions.")]
    blocks.append(TableBlock(Table(["follow-up kind", "asked", "adequate"], [[k, str(v["asked"]), str(v["adequate"])] for k, v in fu.items()], numeric={1, 2}),
                             "Follow-ups of two kinds: rationale (why the answer holds) and clarification (what a term or step means)."))
    report = _read(run, "interview_report.json")
    blocks += [Heading("Strengths"), Bullets(report.get("strengths") or ["(none given)"]), Heading("Weaknesses"), Bullets(report.get("weaknesses") or ["(none given)"])]
    scores = Table(["question", "answers", "follow-ups", "score"], [[r["batch_id"], " → ".join("right" if x else "wrong" for x in r["interview"]["right"]),
                   ", ".join(f"{f['kind']}: {f['verdict'] or 'ungraded'}" for f in r["interview"]["followups"]) or DASH, str(r["interview"]["score"])] for r in run.records], numeric={3})
    blocks += [Heading("Score per question (0–5)"), TableBlock(scores)]
    examples: list = []
    for name, lo, hi in SCORE_RANGES:
        chosen = [r for r in run.records if score_range(r["interview"]["score"]) == name][:EXAMPLES_PER_RANGE]
        examples.append(Heading(f"Scores {lo}–{hi} ({name})"))
        examples += [_interview_block(r) for r in chosen] or [Para("No question scored in this range.", "note")]
    return [Section("Interview Report", "interview-report", blocks), Section("Example transcripts by score", "transcripts", examples)]


def _interview_block(r: dict) -> QuestionBlock:
    q, i = r["seed"][0], r["interview"]
    facts = [("Correct answer", sec.correct_text(q))]
    for n, a in enumerate(i["attempts"], 1):
        facts.append((f"Answer {n}", sec.answer_text(q, a["answer"]) + (" ✓" if a["answer"]["correct"] else " ✗")))
        if a.get("feedback"):
            facts.append((f"Feedback {n}", _cut(a["feedback"], 400)))
    for f in i["followups"]:
        facts.append((f"{f['kind'].capitalize()} follow-up", f"{_cut(f['question'], 300)} → {_cut(f['reply'] or '(no reply)', 300)} [{f['verdict'] or 'ungraded'}]"))
    return QuestionBlock(q["question"], q.get("options"), facts, f"{r['batch_id']}, score {i['score']}")


def _read(run: Run, name: str) -> dict:
    try:
        return json.loads((run.path / name).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}


# ----------------------------------------------------------------------------- escalate
def escalate_sections(run: Run) -> list[Section]:
    e = run.metrics.get("escalate") or {}
    by = e.get("acc_by_level") or {}
    table = Table(["ACC-AUC (levels)", "ACC-AUC (normalised)", "highest level held", *(f"held {lv} %" for lv in by)],
                  [[f"{e.get('acc_auc', 0):.3f}", f"{e.get('acc_auc_normalised') or 0:.3f}", str(e.get("highest_level_held") or "none"), *(pct(v) for v in by.values())]],
                  numeric=set(range(3 + len(by))))
    rows = [[r["batch_id"], str(r.get("held") or "none"), " → ".join(f"{rd['level']} {'✓' if (rd.get('answer') or {}).get('correct') else ('skipped' if not rd.get('answer') else '✗')}" for rd in r["rounds"]) or DASH, r["end"]] for r in run.records]
    blocks = [TableBlock(table, "ACC(t): share of seeds that held level t (answered one of its questions right). ACC-AUC: trapezoids between levels up to the first level at 0, "
                                "in level units and divided by the span of the levels."),
              Heading("Highest level held per seed"), TableBlock(Table(["seed", "held", "ladder", "ended"], rows))]
    return [Section("Escalation", "escalation", blocks)]


# ----------------------------------------------------------------------------- judgeagent, Appendix E.2
def appendix_e2_sections(run: Run) -> list[Section]:
    m = run.metrics
    blocks: list = []
    if (rx := m.get("reask_extended")) is not None:
        rows = [["follow-ups", str(rx["followups"]["n_questions"]), *(pct(rx["followups"][k]) for k in ("acc1", "acc2", "cr", "cte"))],
                ["seeds", str(rx["seeds"]["n_questions"]), *(pct(rx["seeds"][k]) for k in ("acc1", "acc2", "cr", "cte"))]]
        blocks += [Heading("Follow-ups re-asked with the suggestions"), TableBlock(Table(["questions", "N", "ACC1", "ACC2", "CR", "CtE"], rows, numeric={1, 2, 3, 4, 5}))]
    if (tr := m.get("transfer")) is not None:
        blocks.append(Heading("Transfer to held-out questions"))
        if tr.get("error"):
            blocks.append(Para(tr["error"], "warn"))
        else:
            ci = lambda c: DASH if not c else f"[{c[0]:.1f}, {c[1]:.1f}]"  # noqa: E731
            rows = [["source suggestions", pct(tr["acc1"]), pct(tr["acc2"]), signed(tr["delta_acc"]), ci(tr["ci_delta_acc"])],
                    ["placebo", pct(tr["acc1"]), pct(tr["placebo"]["acc"]), signed(tr["placebo"]["delta_acc"]), ci(tr["placebo"]["ci_delta_acc"])]]
            blocks.append(TableBlock(Table(["held-out re-ask with", "ACC1", "ACC2", "ΔACC", "95% CI (batches)"], rows, numeric={1, 2, 3}),
                                     f"{tr['n_questions']} held-out questions in {tr['n_batches']} batches; source {', '.join(tr['source'])}, held out {', '.join(tr['held_out'])}. "
                                     f"Suggestions − placebo: {signed(tr['suggestions_minus_placebo']['delta'])} {ci(tr['suggestions_minus_placebo']['ci'])}."))
    return [Section("Appendix E.2", "appendix-e2", blocks)] if blocks else []

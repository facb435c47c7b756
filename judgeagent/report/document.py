"""The report as a list of simple blocks, laid out once for both output formats.

``build_document`` decides what goes where; ``markdown`` and ``html`` only know how to
write each kind of block. So the two files always hold the same content.
"""

from __future__ import annotations

from judgeagent.blocks import (  # noqa: F401  (the block types are still importable from here)
    CHUNK_CHARS,
    Block,
    Bullets,
    Document,
    Excerpt,
    Facts,
    Figure,
    Heading,
    Links,
    Para,
    QuestionBlock,
    Section,
    TableBlock,
)
from judgeagent.blocks import (
    shorten as _cut,
)
from judgeagent.records import QuestionRecord, RoundRecord
from judgeagent.report import audited, plots
from judgeagent.report import boundary as kb
from judgeagent.report import sections as sec
from judgeagent.report.load import Run


# ----------------------------------------------------------------------------- sections
def summary_section(run: Run) -> Section:
    m = run.figures
    blocks: list[Block] = [Facts(sec.overview(run)), Para(sec.headline_sentence(m), "lead"), TableBlock(sec.headline(m), "All figures are % of the N seed questions; the conditional rates are % of the initially wrong (CR | wrong) or right (CtE | right) answers.")]
    blocks += [Para(w, "warn") for w in sec.warnings(run)]
    counts = sec.outcome_counts(run.interviews)
    if run.records:
        blocks.append(Para("Seed answers by outcome: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + "."))
    if (t := sec.by_difficulty(m)) is not None:
        blocks += [Heading("By seed difficulty label"), TableBlock(t)]
    if (t := sec.by_round(m)) is not None:
        blocks += [Heading("By extension round"), TableBlock(t, "Feedback and validation after round 0 (seed answers only), 1, 2, …")]
    if (t := sec.extension_accuracy(m)) is not None:
        blocks += [Heading("Follow-up questions"), TableBlock(t, f"{m.extension.asked} asked, {m.extension.skipped} skipped.")]
        blocks += audited.audit_blocks(run.metrics, "follow-up questions", "RUN_DIR", dropped=run.audit_dropped)
    if (t := sec.usage(m)) is not None:
        blocks += [Heading("Requests, tokens and cost"), TableBlock(t, "Per stage; cached calls were answered from the run's journal and cost nothing.")]
    if tm := sec.timings(m):
        blocks += [Heading("Wall time"), Facts(tm)]
    return Section("Summary", "summary", blocks)


def trust_section(run: Run) -> Section | None:
    m = run.figures
    blocks: list[Block] = []
    if (t := sec.significance(m)) is not None:
        blocks += [Heading("Is ΔACC real?"), TableBlock(t, sec.significance_note(m))]
    if (t := sec.leakage(m)) is not None:
        blocks += [Heading("Leakage guard"), TableBlock(t, "Suggestions that named an answer (its option text, its letter, the reference phrase, or a sentence close to it in meaning) were rewritten once by the judge; still leaking, the batch is flagged and left out of the leak-free figures.")]
    if (t := sec.gate(m)) is not None:
        note = f"Every generated question tried, before it was asked. {m.gate.single_hop} Hard question(s) were answerable from one chunk and counted as Medium."
        blocks += [Heading("Quality of the generated questions"), TableBlock(t, note)]
    if (d := m.decontamination):
        blocks.append(Para(f"Seed questions decontaminated by {d.mode}: {d.rewritten} rewritten, {d.kept_original} kept as they were (the rewrite failed its checks)."))
    return Section("Trust", "trust", blocks) if blocks else None


def interview_summary_section(run: Run) -> Section | None:
    s = sec.interview_summary(run.summary)
    if s is None:
        return None
    if s.error:
        return Section("Interview summary", "interview", [Para(f"The judge's summary could not be made: {s.error}", "warn")])
    blocks: list[Block] = []
    for title, items in s.lists:
        blocks += [Heading(title), Bullets(items) if items else Para("(none named)", "note")]
    blocks += [Heading("Response to feedback"), Para(s.response_to_feedback or "(not stated)")]
    return Section("Interview summary", "interview", blocks)


def boundary_section(run: Run) -> Section:
    stats = kb.entity_stats(run.interviews)
    if not stats:
        return Section("Knowledge boundary", "boundary", [Para("No question of this run was linked to a graph entity (no graph, or no extension).", "note")])
    blocks: list[Block] = [
        Para(
            "The graph entities the target was asked about, worst first. A follow-up question counts for every entity "
            "of its knowledge path; a seed question for the graph entities matched to its text."
        ),
        TableBlock(kb.boundary_table(stats), f"{len(stats)} entities in all" + (f", the worst {kb.BOUNDARY_ROWS} shown." if len(stats) > kb.BOUNDARY_ROWS else ".")),
    ]
    worst = kb.worst_entities(stats)
    if worst:
        blocks.append(Heading("Where it failed: the path chunks behind the failed questions"))
    for st in worst:
        blocks.append(Heading(f"{st.entity}: {st.wrong} of {st.asked} wrong", 4))
        for q in kb.failed_questions(st):
            where = f"{q.kind} question, batch {q.batch_id}" + (f", {q.level}" if q.level else "")
            blocks.append(Para(f"{where}: {q.text}"))
            blocks += [Excerpt(f"{s.entity} · chunk {s.chunk_id}", _cut(s.text)) for s in q.steps if s.text]
    good = kb.mastered(stats)
    blocks.append(Heading("Mastered"))
    if good:
        blocks.append(Para("Entities asked about at least twice and never failed: " + ", ".join(f"{s.entity} ({s.asked})" for s in good) + "."))
    else:
        blocks.append(Para("No entity was asked about twice or more without a failure.", "note"))
    return Section("Knowledge boundary", "boundary", blocks)


def plots_section(run: Run) -> Section:
    m = run.figures
    t1, t2 = run.thresholds
    blocks: list[Block] = []
    trajs = sec.trajectories(run.interviews)
    if trajs:
        blocks.append(Figure("trajectory", "Difficulty trajectory per batch", f"The score s after each answer; the next question is Easy at s ≤ {t1:g}, Medium up to {t2:g}, Hard above.", plots.trajectory_plot(trajs, t1, t2)))
    if m.extension_accuracy:
        blocks.append(Figure("extension-accuracy", "Accuracy by generated difficulty", "Accuracy on the follow-up questions, by the difficulty they were generated at.", plots.extension_accuracy_plot(m.extension_accuracy)))
    if m.by_difficulty:
        blocks.append(Figure("acc-by-label", "ACC1 vs ACC2 by difficulty label", "Seed accuracy before and after the feedback, per difficulty label of the benchmark.", plots.acc_by_label_plot(m.by_difficulty)))
    if m.by_round:
        blocks.append(Figure("delta-by-round", "ΔACC per extension round", "How much the feedback helped when it was given after each extension round (--eval-every-round).", plots.round_delta_plot(m.by_round)))
    if not blocks:
        blocks.append(Para("Nothing to plot: the run has no batch records.", "note"))
    return Section("Plots", "plots", blocks)


def _seed_block(s: sec.SeedOutcome) -> QuestionBlock:
    q = s.question
    facts = [("Correct answer", sec.correct_text(q)), ("Target's first answer", sec.answer_text(q, s.first)), ("After the feedback", sec.answer_text(q, s.after))]
    label = "Seed question" + (f" ({q.difficulty})" if q.difficulty else "")
    return QuestionBlock(q.question, q.options, facts, label)


def _followup_block(rd: RoundRecord, q: QuestionRecord) -> QuestionBlock:
    a = rd.answer
    facts = [("Correct answer", sec.correct_text(q)), ("Target's answer", sec.answer_text(q, a) + (" ✓" if a and a.correct else " ✗"))]
    return QuestionBlock(q.question, q.options, facts, f"Follow-up, round {rd.round} ({rd.level})")


def examples_section(run: Run) -> Section:
    blocks: list[Block] = []
    for key, title, chosen in sec.examples(run.interviews):
        blocks.append(Heading(f"{key}: {title}"))
        if not chosen:
            blocks.append(Para("No seed question had this outcome.", "note"))
        for ex in chosen:
            blocks.append(Heading(f"Batch {ex.batch_id}", 4))
            blocks += [_seed_block(s) for s in ex.seeds]
            blocks += [_followup_block(rd, rd.question) for rd in ex.followups if rd.answer and rd.question]
            if ex.suggestions:
                blocks.append(Facts([("Judge's suggestions", ex.suggestions)]))
            elif ex.evaluation_error:
                blocks.append(Para(f"No evaluation: {ex.evaluation_error}", "warn"))
    return Section("Examples", "examples", blocks)


def build_document(run: Run) -> Document:
    from judgeagent.report.protocols import protocol_document, protocol_sections

    if (doc := protocol_document(run)) is not None:  # another protocol's run: its own sections
        return doc
    parts = [summary_section(run), trust_section(run), interview_summary_section(run), boundary_section(run), plots_section(run), examples_section(run)]
    parts += protocol_sections(run)  # the Appendix E.2 experiments, when the run has them
    title = f"JudgeAgent report: {run.target} on {run.data_name}"
    subtitle = f"judge {run.judge} · {run.date or 'undated'} · run folder {run.path.name}"
    return Document(title, subtitle, [p for p in parts if p is not None])

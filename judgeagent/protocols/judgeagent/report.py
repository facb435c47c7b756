"""The JudgeAgent protocol's own report section: the Appendix E.2 experiments, when run.
(The interview's report itself is judgeagent.report's default document.)"""

from __future__ import annotations

from judgeagent.blocks import DASH, Block, Heading, Para, Section, Table, TableBlock, pct, signed
from judgeagent.engine.services import FinishedRun
from judgeagent.metrics.figures import InterviewFigures, PaperFigures
from judgeagent.records import InterviewRecord


def _ci(c: tuple[float, float] | None) -> str:
    return DASH if not c else f"[{c[0]:.1f}, {c[1]:.1f}]"


def _row(label: str, m: PaperFigures) -> list[str]:
    return [label, str(m.n_questions), pct(m.acc1), pct(m.acc2), pct(m.cr), pct(m.cte)]


def appendix_e2_sections(run: FinishedRun[InterviewRecord]) -> list[Section]:
    m = InterviewFigures.from_json(run.metrics)
    blocks: list[Block] = []
    if (rx := m.reask_extended) is not None:
        rows = [_row("follow-ups", rx.followups), _row("seeds", rx.seeds)]
        blocks += [Heading("Follow-ups re-asked with the suggestions"), TableBlock(Table(["questions", "N", "ACC1", "ACC2", "CR", "CtE"], rows, numeric={1, 2, 3, 4, 5}))]
    if (tr := m.transfer) is not None:
        blocks.append(Heading("Transfer to held-out questions"))
        if tr.error:
            blocks.append(Para(tr.error, "warn"))
        else:
            rows = [["source suggestions", pct(tr.acc1), pct(tr.acc2), signed(tr.delta_acc), _ci(tr.ci_delta_acc)],
                    ["placebo", pct(tr.acc1), pct(tr.placebo.acc), signed(tr.placebo.delta_acc), _ci(tr.placebo.ci_delta_acc)]]
            diff = tr.suggestions_minus_placebo
            blocks.append(TableBlock(Table(["held-out re-ask with", "ACC1", "ACC2", "ΔACC", "95% CI (batches)"], rows, numeric={1, 2, 3}),
                                     f"{tr.n_questions} held-out questions in {tr.n_batches} batches; source {', '.join(tr.source)}, held out {', '.join(tr.held_out)}. "
                                     f"Suggestions − placebo: {signed(diff.delta)} {_ci(diff.ci)}."))
            if tr.note:
                blocks.append(Para(tr.note, "warn"))
    return [Section("Appendix E.2", "appendix-e2", blocks)] if blocks else []

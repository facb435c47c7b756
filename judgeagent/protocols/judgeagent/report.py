"""The JudgeAgent protocol's own report section: the Appendix E.2 experiments, when run.
(The interview's report itself is judgeagent.report's default document.)"""

from __future__ import annotations

from typing import Any

from judgeagent.blocks import DASH, Bullets, Facts, Heading, Para, QuestionBlock, Section, Table, TableBlock, answer_text, correct_text, pct, shorten, signed  # noqa: F401


def appendix_e2_sections(run: Any) -> list[Section]:
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

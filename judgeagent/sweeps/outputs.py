"""The leaderboard as files: leaderboard.json (every figure), .md, .csv, .tex, and
report.html (with the per-item comparison of every two targets). All rendered from the
:class:`~judgeagent.sweeps.board.Leaderboard`, so the files never disagree."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

from judgeagent.blocks import DASH, Block, Document, Facts, Heading, Links, Para, Section, Table, TableBlock, shorten
from judgeagent.metrics.audited import AuditBlock, PairOnValid
from judgeagent.metrics.ranking import PairTest, ordinal
from judgeagent.metrics.stats import MIN_UNITS
from judgeagent.sweeps.board import Leaderboard, SharedAnswer, TargetRow
from judgeagent.sweeps.folder import LEADERBOARD, REPORT, SHARED_ITEMS_FILE, SweepFolder, read_model
from judgeagent.sweeps.state import SharedItem, SharedItems


def write_outputs(folder: SweepFolder, board: Leaderboard, *, report: bool) -> dict[str, Path]:
    """Every leaderboard file from ``board``; report.html too when ``report``."""
    files = {"json": folder.write_json(f"{LEADERBOARD}.json", board.to_json())}
    files["md"] = folder.write_text(f"{LEADERBOARD}.md", to_markdown(board))
    files["csv"] = folder.write_text(f"{LEADERBOARD}.csv", to_csv(board))
    files["tex"] = folder.write_text(f"{LEADERBOARD}.tex", to_latex(board))
    if report:
        from judgeagent.report.html import to_html

        items = (read_model(folder.path / SHARED_ITEMS_FILE, SharedItems) or SharedItems()).items
        files["html"] = folder.write_text(REPORT, to_html(document(board, items, folder.path.name)))
    return files


# ----------------------------------------------------------------------------- cells
def num(v: float | None, fmt: str = "{:.1f}") -> str:
    return DASH if v is None else fmt.format(v)


def with_ci(v: float | None, ci: Sequence[float] | None) -> str:
    if v is None:
        return DASH
    return f"{v:.1f} [{ci[0]:.1f}, {ci[1]:.1f}]" if ci else f"{v:.1f}"


def signed_ci(v: float | None, ci: Sequence[float] | None) -> str:
    if v is None:
        return DASH
    return f"{v:+.1f} [{ci[0]:+.1f}, {ci[1]:+.1f}]" if ci else f"{v:+.1f}"


def theta(r: TargetRow) -> str:
    return DASH if r.theta is None else f"{r.theta + 0.0:+.2f} ± {r.theta_se or 0.0:.2f}".replace("-0.00", "+0.00")


def shared(r: TargetRow) -> str:
    return DASH if r.shared_accuracy is None else f"{r.shared_accuracy:.1f} ({r.shared_n})"


def status(r: TargetRow) -> str:
    if r.status == "failed":
        return r.error or "failed"
    notes = [r.status] if r.status != "ok" else []
    if r.shared_status == "failed":
        notes.append(f"shared items failed: {r.shared_error}")
    elif r.shared_status == "incomplete":
        notes.append("shared items incomplete")
    return "; ".join(notes) or "ok"


COLUMNS = ["rank", "target", "ACC1 % [95% CI]", "ΔACC pts [95% CI]", "shared items % (n)", "θ ± SE", "status"]
NUMERIC = {2, 3, 4, 5}


def table_rows(board: Leaderboard) -> list[list[str]]:
    return [[r.rank_label or DASH, r.name, with_ci(r.acc1, r.acc1_ci), signed_ci(r.delta_acc, r.delta_acc_ci), shared(r), theta(r), status(r)]
            for r in board.targets]  # fmt: skip


def basis_note(board: Leaderboard) -> str:
    if board.ranked_on == "shared items":
        what = f"{board.n_shared_items} shared items (every target asked the same gate-passed follow-ups the judge wrote)"
        how = "of the interview batches that wrote them"
    else:
        what = f"the {board.n_seed_questions} seed questions (ACC1), as no shared item was answered"
        how = "of the seed batches"
    return " ".join([f"Ranked on {what}; rank intervals from {board.n_bootstrap} bootstrap resamples {how} (95%). "
                     f"ACC1 and ΔACC intervals resample each interview's batches. θ: one 2PL calibration over every target and shared item. "
                     f"Judge: {board.judge}.", *board.interval_notes])  # fmt: skip


def pair_rows(pairs: Sequence[PairTest | PairOnValid]) -> list[list[str]]:
    out = []
    for p in pairs:
        diff = DASH if p.diff is None else f"{p.diff:+.1f}"
        out.append([f"{p.a} vs {p.b}", str(p.n_shared), str(p.a_only), str(p.b_only), diff, f"{p.p_value:.3g}", f"{p.p_holm:.3g}",
                    "yes" if p.significant else "no"])  # fmt: skip
    return out


PAIR_NUMERIC = {1, 2, 3, 4, 5, 6}
PAIR_COLUMNS = ["pair", "items both answered", "first only right", "second only right", "difference pts", "p", "p (Holm)", "significant"]


def _interval(ci: Sequence[float] | None) -> str:
    return f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""


def validity_lines(board: Leaderboard) -> list[str]:
    a = board.validity.seed_vs_generated
    if a is None:
        return ["Rank agreement, generated items vs seed questions: needs two targets with answers to shared items."]
    sp = DASH if a.spearman is None else f"{a.spearman:.2f}{_interval(a.spearman_ci)}"
    kt = DASH if a.kendall is None else f"{a.kendall:.2f}{_interval(a.kendall_ci)}"
    thin = f" Its intervals are the whole range: fewer than {MIN_UNITS} batches to resample." if a.thin else ""
    return [f"Rank agreement, generated items vs seed questions (ACC1), {a.n_targets} targets: Spearman {sp}, Kendall τ-b {kt}.{thin}"]


def difficulty_rows(board: Leaderboard) -> list[list[str]]:
    d = board.validity.difficulty
    if not d:
        return []
    rows = []
    for r in d.rows:
        ci = f" [{r.ci[0]:.1f}, {r.ci[1]:.1f}]" if r.ci else ""
        gap = DASH if r.gap_vs_seeds is None else f"{r.gap_vs_seeds:+.1f}" + (f" [{r.gap_ci[0]:+.1f}, {r.gap_ci[1]:+.1f}]" if r.gap_ci else "")
        rows.append([r.level, str(r.n_items), str(r.n_answers), DASH if r.accuracy is None else f"{r.accuracy:.1f}{ci}", gap])
    return rows


DIFFICULTY_NUMERIC = {1, 2, 3, 4}
DIFFICULTY_COLUMNS = ["questions", "items", "answers", "accuracy % [95% CI]", "vs seeds pts [95% CI]"]


def difficulty_verdict(board: Leaderboard) -> str | None:
    d = board.validity.difficulty
    if not d:
        return None

    def yn(v: bool | None) -> str:
        return "not enough data" if v is None else ("yes" if v else "no")

    return (f"Easy > Medium > Hard in accuracy: {yn(d.ordered)}. Hard harder than the seeds: {yn(d.hard_harder_than_seeds)}. "
            f"Generated items easier than the seeds: {yn(d.generated_easier_than_seeds)}.")


# ----------------------------------------------------------------------------- text formats
def _md_table(columns: list[str], rows: list[list[str]], numeric: set[int]) -> list[str]:
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---:" if i in numeric else "---" for i in range(len(columns))) + "|"]
    return lines + ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]


def to_markdown(board: Leaderboard) -> str:
    lines = ["# Leaderboard", "", lead_sentence(board), "", audit_line(board, "SWEEP_DIR"), "", *_md_table(COLUMNS, table_rows(board), NUMERIC), "",
             basis_note(board), ""]  # fmt: skip
    if rows := valid_rows(board):
        lines += ["## On the shared items audited valid", "", *_md_table(VALID_COLUMNS, rows, {2, 3}), "", valid_note(board) or "", ""]
    if board.pairwise:
        lines += ["## Pairwise differences", "", f"{board.pairwise_method}, {board.correction}-corrected over all pairs.", "",
                  *_md_table(PAIR_COLUMNS, pair_rows(board.pairwise), PAIR_NUMERIC), ""]  # fmt: skip
    lines += ["## Validity", "", *validity_lines(board), ""]
    if rows := difficulty_rows(board):
        lines += [*_md_table(DIFFICULTY_COLUMNS, rows, DIFFICULTY_NUMERIC), "", difficulty_verdict(board) or "", ""]
    return "\n".join(lines)


CSV_COLUMNS = ["rank", "target", "status", "rank_lo", "rank_hi", "rank_label", "acc1", "acc1_lo", "acc1_hi", "acc2", "delta_acc", "delta_acc_lo",
               "delta_acc_hi", "shared_accuracy", "shared_n", "theta", "theta_se", "error", "model",
               # On the shared items audited valid (empty: never audited); the invalid rate is the same on every row.
               "valid_rank", "valid_rank_label", "valid_accuracy", "valid_n", "valid_theta", "invalid_rate", "invalid_lo", "invalid_hi"]  # fmt: skip


def _csv_error(r: TargetRow) -> str | None:
    if r.status == "failed":
        return r.error
    return f"shared items: {r.shared_error}" if r.shared_error else r.error


def to_csv(board: Leaderboard) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    block = board.audit
    valid = {t.name: t for t in block.leaderboard.targets} if block is not None and block.leaderboard is not None else {}
    rate = block.invalid if block is not None else None
    for r in board.targets:
        ri, a1, da = r.rank_interval or (None, None), r.acc1_ci or (None, None), r.delta_acc_ci or (None, None)
        failed = r.status == "failed"
        values: list[object] = [r.rank, r.name, r.status, ri[0], ri[1], r.rank_label, r.acc1, a1[0], a1[1], r.acc2, r.delta_acc, da[0], da[1],
                                r.shared_accuracy, None if failed else r.shared_n, r.theta, r.theta_se, _csv_error(r), r.model]  # fmt: skip
        mine = valid.get(r.name)
        values += [mine.rank, mine.rank_label, mine.accuracy, mine.n, mine.theta] if mine is not None else [None] * 5
        values += [rate.estimate, rate.ci[0], rate.ci[1]] if rate is not None and rate.estimate is not None and rate.ci else [None] * 3
        w.writerow(["" if v is None else v for v in values])
    return buf.getvalue()


def to_latex(board: Leaderboard) -> str:
    from judgeagent.report.compare import latex_escape

    cols = ["Rank", "Target", "ACC1 (\\%)", "$\\Delta$ACC (pts)", "Shared (\\%)", "$\\theta \\pm$ SE"]
    lines = [r"\begin{tabular}{llrrrr}", r"\toprule", " & ".join(cols) + r" \\", r"\midrule"]
    for r, row in zip(board.targets, table_rows(board)):
        cells = [latex_escape(c).replace("±", r"$\pm$") for c in row[:6]]
        if r.status == "failed":
            cells = [cells[0], cells[1], r"\multicolumn{4}{l}{" + latex_escape(status(r)) + "}"]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- the audit, and the lead
def lead_sentence(board: Leaderboard) -> str:
    """Who is best, said as the rank intervals allow: one best target, a tie, or no clear best."""
    ranked = [r for r in board.targets if r.rank is not None]
    if not ranked:
        return "No target has figures yet."
    could_lead = [r for r in ranked if (r.rank_interval[0] if r.rank_interval else r.rank) == 1]
    tied = [r for r in ranked if r.rank == 1]
    first = ranked[0]
    if len(tied) > 1:
        score = "" if first.score is None else f" ({first.score:.1f}% each on the {_basis_words(board)})"
        return f"Tied for first: {_and([r.name for r in tied])}{score}; the data cannot tell them apart."
    if len(could_lead) > 1:
        others = [r for r in could_lead if r is not first]
        intervals = ", ".join(f"{r.name} {r.rank_label}" for r in could_lead)
        return (f"No clear best: {first.name} leads on the point estimate, but {_and([r.name for r in others])} could also be first "
                f"(rank intervals at 95%: {intervals}).")  # fmt: skip
    if first.rank_label == "1st":
        return f"Best: {first.name} (1st at 95%: no other target's rank interval reaches first)."
    return f"Best on the point estimate: {first.name} (ranked {first.rank_label} at 95%)."


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _basis_words(board: Leaderboard) -> str:
    return "shared items" if board.ranked_on == "shared items" else "seed questions"


def audit_line(board: Leaderboard, source: str) -> str:
    from judgeagent.report.audited import audit_sentence

    return audit_sentence(board.audit, items="shared items", source=source)


VALID_COLUMNS = ["rank on valid items", "target", "shared items audited valid % (n)", "θ ± SE", "rank on all items"]


def valid_rows(board: Leaderboard) -> list[list[str]]:
    on_valid = board.audit.leaderboard if board.audit is not None else None
    if on_valid is None:
        return []
    # On all items, the rank as the main table shows it: with its interval, not the point alone.
    on_all = {r.name: r.rank_label for r in board.targets}
    rows = []
    for t in on_valid.targets:
        th = DASH if t.theta is None or t.theta_se is None else f"{t.theta + 0.0:+.2f} ± {t.theta_se:.2f}".replace("-0.00", "+0.00")
        rank_all = on_all.get(t.name) or (DASH if t.rank_all is None else ordinal(t.rank_all))
        rows.append([t.rank_label or DASH, t.name, DASH if t.accuracy is None else f"{t.accuracy:.1f} ({t.n})", th, rank_all])
    return rows


def valid_note(board: Leaderboard) -> str | None:
    """What the table on valid items rests on, and how its ranking differs from all items'."""
    v = board.audit.leaderboard if board.audit is not None else None
    if v is None:
        return None
    rests = (f"On the {v.n_valid} of {v.n_items} shared items audited valid ({v.n_invalid} audited invalid and {v.n_unlabelled} not labelled "
             "are left out); rank intervals resample the batches that wrote them.")  # fmt: skip
    if v.interval_note:
        rests += f" Rank intervals: {v.interval_note}; every rank is shown as possible."
    if v.note:
        return f"{rests} {v.note[0].upper()}{v.note[1:]}."
    if v.ranking_changed:
        return f"{rests} The ranking changes on valid items: {'; '.join(v.changes)}."
    return f"{rests} The ranking is the same as on all items."


# ----------------------------------------------------------------------------- HTML
def document(board: Leaderboard, items: list[SharedItem], title: str, source: str = "SWEEP_DIR") -> Document:
    block: AuditBlock | None = board.audit
    top: list[Block] = [Para(lead_sentence(board), "lead"), Para(audit_line(board, source), "note" if block else "warn"),
                        *[Para(f"Audit: {n}.", "note") for n in (block.notes if block else [])],
                        TableBlock(Table(COLUMNS, table_rows(board), NUMERIC), basis_note(board))]  # fmt: skip
    if rows := valid_rows(board):
        top += [Heading("On the shared items audited valid"), TableBlock(Table(VALID_COLUMNS, rows, {2, 3}), valid_note(board) or "")]
    elif note := valid_note(board):
        top.append(Para(note, "note"))
    labelled = [r for r in board.targets if r.model and r.model != r.name]
    if labelled:
        top += [Heading("The models behind the labels"), Facts([(r.name, r.model or "") for r in labelled])]
    links = [(f"{r.name}: interview report", f"{r.run_dir}/report.html") for r in board.targets if r.run_dir]
    if links:
        top += [Heading("Each target's interview"), Links(links)]
    sections = [Section("Leaderboard", "leaderboard", top)]
    if board.pairwise:
        pw: list[Block] = [Para(f"{board.pairwise_method}, {board.correction}-corrected over all pairs."),
                           TableBlock(Table(PAIR_COLUMNS, pair_rows(board.pairwise), PAIR_NUMERIC))]  # fmt: skip
        if block is not None and block.leaderboard is not None and (valid_pairs := pair_rows(block.leaderboard.pairwise)):
            pw += [Heading("On the shared items audited valid"), TableBlock(Table(PAIR_COLUMNS, valid_pairs, PAIR_NUMERIC))]
        sections.append(Section("Pairwise differences", "pairwise", pw))
    valid: list[Block] = [Para(line) for line in validity_lines(board)]
    if rows := difficulty_rows(board):
        valid += [TableBlock(Table(DIFFICULTY_COLUMNS, rows, DIFFICULTY_NUMERIC)), Para(difficulty_verdict(board) or "")]
    sections.append(Section("Validity", "validity", valid))
    sections.append(Section("Per-item comparison", "items", per_item_blocks(board, items)))
    return Document(f"Sweep {title}", f"{len(board.targets)} targets, judge {board.judge}, {board.n_shared_items} shared items", sections)


INVALID_MARK = "[audited invalid]"


def per_item_blocks(board: Leaderboard, items: list[SharedItem]) -> list[Block]:
    """For every two targets: the shared items both got right, both wrong, or one only, with
    both answers side by side. An item the audit found invalid is marked where it is listed
    (a reader would otherwise count a win on a broken item as a win)."""
    names = board.matrix.targets
    answers = board.answers
    if len(names) < 2 or not items:
        return [Para("Needs two targets with answers to shared items.", "note")]
    verdicts = board.audit.verdicts if board.audit is not None else {}
    invalid = {i for i, valid in verdicts.items() if valid is False}
    out: list[Block] = []
    if invalid:
        shown = sum(1 for it in items if it.item_id in invalid)
        out.append(Para(f"{shown} of the {len(items)} shared items were audited invalid: they are marked {INVALID_MARK} below, and left out of "
                        "the comparison on valid items.", "note"))  # fmt: skip
    for a, b in combinations(names, 2):
        groups: dict[str, list[SharedItem]] = {"one only: " + a: [], "one only: " + b: [], "both wrong": [], "both right": []}
        for it in items:
            x, y = answers.get(a, {}).get(it.item_id), answers.get(b, {}).get(it.item_id)
            if x is None or y is None:
                continue
            key = "both right" if x.correct and y.correct else "both wrong" if not (x.correct or y.correct) else "one only: " + (a if x.correct else b)
            groups[key].append(it)
        out.append(Heading(f"{a} vs {b}", 3))
        out.append(Facts([(k, str(len(v)) + (f" ({n} audited invalid)" if (n := sum(1 for it in v if it.item_id in invalid)) else ""))
                          for k, v in groups.items()]))  # fmt: skip
        for key, its in groups.items():
            if not its:
                continue
            out.append(Heading(f"{key} ({len(its)})", 4))
            rows = [[(f"{INVALID_MARK} " if it.item_id in invalid else "") + shorten(it.question, 300), it.level or DASH, _correct(it),
                     _reply(it, answers[a][it.item_id]), _reply(it, answers[b][it.item_id])] for it in its]  # fmt: skip
            out.append(TableBlock(Table(["question", "level", "correct", f"{a} answered", f"{b} answered"], rows)))
    return out


def _correct(it: SharedItem) -> str:
    opts = it.options or {}
    return f"{it.answer}. {opts[it.answer]}" if it.answer in opts else it.answer


def _reply(it: SharedItem, ans: SharedAnswer) -> str:
    mark = "✓ " if ans.correct else "✗ "
    opts = it.options or {}
    if ans.chosen and ans.chosen in opts:
        text = f"{ans.chosen}. {opts[ans.chosen]}"
    else:
        text = shorten(ans.reply or ans.error or "(no answer)", 300)
    raw = " ".join((ans.reply or "").split())
    if raw and raw != ans.chosen:
        text += f" (reply: {shorten(raw, 300)})"
    return mark + text

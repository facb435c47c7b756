"""Several runs side by side, the way the paper's tables lay them out.

Table 2: targets as rows, datasets as column groups of ACC1, ACC2, CR, CtE (``--by data``
swaps the two). Table 3: the settings of one ``ablate`` run with ACC2, CR, CtE and ΔACC.
Figures are only comparable when the judge, the graph and the settings match, so every
difference among those is named in a warning.

Runs of different protocols (``--protocol``) each bring their own columns, side by side:
a run has figures only in its protocol's columns, and a warning names the columns that
cannot be compared across protocols.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field

from pydantic import JsonValue

from judgeagent.engine.registry import AnyProtocol, get_protocol
from judgeagent.errors import JudgeAgentError
from judgeagent.metrics.audited import AuditBlock
from judgeagent.metrics.figures import paper_values
from judgeagent.records import Json
from judgeagent.report.audited import block_of, rate_cell
from judgeagent.report.load import AblationRun, Run
from judgeagent.report.sections import DASH, pct, signed

TABLE3 = (("ACC2", "acc2"), ("CR", "cr"), ("CtE", "cte"), ("ΔACC", "delta_acc"))
FORMATS = ("table", "md", "csv", "latex")

# Settings that do not change the figures (where outputs go, speed, retries), or that are
# the very thing a comparison varies (target, data, the graph folder named after the data).
IGNORED_SETTINGS = {
    "target", "judge", "data", "graph", "out", "resume", "concurrency", "settings", "protocol",
    "graph_build.workers", "graph_build.embed_batch_size", "graph_build.force", "graph_build.out", "graph_build.judge",
}
IGNORED_PREFIXES = ("llm.",)


@dataclass
class Grid:
    """A table with column groups: ``cells[(row, group)]`` is one run's figures, by key, and
    ``audits[(row, group)]`` the audit of its generated questions (None: never audited; a
    run whose protocol writes no questions has none to audit and no entry)."""

    row_title: str
    rows: list[str]
    groups: list[str]
    metrics: tuple[tuple[str, str], ...]
    cells: dict[tuple[str, str], dict[str, float | None]]
    audits: dict[tuple[str, str], AuditBlock | None] = field(default_factory=dict)
    signed_keys: frozenset[str] = frozenset({"delta_acc"})

    def value(self, row: str, group: str, key: str) -> str:
        m = self.cells.get((row, group))
        if m is None:
            return DASH
        if key == AUDIT_KEY:  # the audit of the run's generated questions: its invalid rate, or "not audited"
            return rate_cell(self.audits[(row, group)]) if (row, group) in self.audits else DASH
        return signed(m.get(key)) if key in self.signed_keys else pct(m.get(key))

    def flat_columns(self) -> list[str]:
        if self.groups == [""]:
            return [label for label, _ in self.metrics]
        return [f"{g} {label}" for g in self.groups for label, _ in self.metrics]

    def flat_rows(self) -> list[list[str]]:
        groups = self.groups
        return [[r, *(self.value(r, g, key) for g in groups for _, key in self.metrics)] for r in self.rows]


# ----------------------------------------------------------------------------- building
def table2(runs: list[Run], by: str = "target") -> Grid:
    """The paper's Table 2; with runs of several protocols, each protocol's own columns."""
    if by not in ("target", "data"):
        raise JudgeAgentError(f"--by must be target or data (got {by!r})")
    protocols = list(dict.fromkeys(r.protocol for r in runs))
    # One protocol of the interview report: its rows plain, under its columns. Otherwise each
    # row names its protocol and every protocol's columns are shown.
    mixed = len(protocols) != 1 or not _protocol(protocols[0]).interview_report
    cells: dict[tuple[str, str], dict[str, float | None]] = {}
    audits: dict[tuple[str, str], AuditBlock | None] = {}
    rows: list[str] = []
    groups: list[str] = []
    for run in runs:
        row, group = (run.target, run.data_name) if by == "target" else (run.data_name, run.target)
        if mixed:
            row = f"{row} [{run.protocol}]"
        if (row, group) in cells:  # the same pair twice: keep both, told apart by folder
            row = f"{row} ({run.path.name})"
        cells[(row, group)] = _protocol(run.protocol).compare_values(run.metrics)
        if writes_questions(run):  # else the protocol writes no questions: nothing to audit
            audits[(row, group)] = block_of(run.metrics)
        rows += [row] if row not in rows else []
        groups += [group] if group not in groups else []
    columns = tuple(c for p in protocols for c in _protocol(p).compare_columns) if mixed else _protocol(protocols[0]).compare_columns
    if any(writes_questions(r) for r in runs):
        columns += (AUDIT_COLUMN,)
    return Grid("target" if by == "target" else "data", rows, groups, columns, cells, audits)


AUDIT_KEY = "audit"
AUDIT_COLUMN = ("invalid items % [95% CI]", AUDIT_KEY)  # of the run's generated questions, from its audit
def writes_questions(run: Run) -> bool:
    """Whether the run's figures rest on questions a model wrote (or a bank's items), which an
    audit can check: its protocol says so."""
    return bool(_protocol(run.protocol).audited_items)


def audit_notes(runs: list[Run]) -> list[str]:
    """One line naming the runs whose generated questions were never audited."""
    never = [n for n, r in zip(_run_names(runs), runs) if writes_questions(r) and block_of(r.metrics) is None]
    if not never:
        return []
    return [f"never audited: {', '.join(never)}: how many of their generated questions are invalid is unknown (`judgeagent audit RUN_DIR`)"]


def _protocol(name: str) -> AnyProtocol:
    """The run's protocol, asked of the registry: the report imports no protocol."""
    return get_protocol(name)


def protocol_notes(runs: list[Run]) -> list[str]:
    """Which columns cannot be compared: those of different protocols measure different things."""
    protocols = list(dict.fromkeys(r.protocol for r in runs))
    if len(protocols) < 2:
        return []
    per = "; ".join(f"{p}: {', '.join(label for label, _ in _protocol(p).compare_columns)}" for p in protocols)
    return [f"the runs follow different protocols, whose columns are not comparable with each other ({per}); "
            "compare a column only between runs of its own protocol"]


def table3(abl: AblationRun) -> Grid:
    cells = {(name, ""): paper_values(abl.metrics[name]) for name in abl.settings if name in abl.metrics}
    return Grid("setting", [n for n in abl.settings if n in abl.metrics], [""], TABLE3, cells)


# ----------------------------------------------------------------------------- mismatches
def _flatten(d: Json, prefix: str = "") -> dict[str, JsonValue]:
    out: dict[str, JsonValue] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _show(v: object) -> str:
    return json.dumps(v) if not isinstance(v, str) else v


def _differs(label: str, values: dict[str, object]) -> str | None:
    """``label (run: value; run: value)`` when the runs disagree, else None."""
    if len({_show(v) for v in values.values()}) <= 1:
        return None
    return f"{label} (" + "; ".join(f"{name}: {_show(v)}" for name, v in values.items()) + ")"


def mismatches(runs: list[Run]) -> list[str]:
    """One warning per kind of difference (judges, graphs, settings), naming the fields."""
    if len(runs) < 2:
        return []
    names = _run_names(runs)
    out = []
    judge = _differs("judge", {n: r.judge for n, r in zip(names, runs)})
    if judge:
        out.append(f"the runs were made with different judges: {judge}")
    # A graph is built per dataset, so graphs are compared among runs on the same data.
    graph_diffs = []
    for data in dict.fromkeys(r.data_name for r in runs):
        same = [(n, r) for n, r in zip(names, runs) if r.data_name == data]
        g = _differs(f"{data} graph input hash", {n: r.saved.graph.manifest_hash if r.saved.graph else None for n, r in same})
        if g:
            graph_diffs.append(g)
    if graph_diffs:
        out.append("the runs were made with different graphs: " + ", ".join(graph_diffs))
    flat = [_flatten(r.settings.to_json()) for r in runs]
    keys = sorted({k for f in flat for k in f} - IGNORED_SETTINGS)
    diffs = []
    for k in keys:
        if k.startswith(IGNORED_PREFIXES):
            continue
        d = _differs(k, {n: f.get(k) for n, f in zip(names, flat)})
        if d:
            diffs.append(d)
    if diffs:
        out.append("the runs were made with different settings: " + ", ".join(diffs))
    return protocol_notes(runs) + out


def _run_names(runs: list[Run]) -> list[str]:
    names = [r.path.name for r in runs]
    if len(set(names)) < len(names):  # same folder name under different parents
        names = [str(r.path) for r in runs]
    return names


# ----------------------------------------------------------------------------- output
def to_markdown(grid: Grid) -> str:
    cols = [grid.row_title, *grid.flat_columns()]
    lines = ["| " + " | ".join(cols) + " |", "|---|" + "---:|" * (len(cols) - 1)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in grid.flat_rows()]
    return "\n".join(lines) + "\n"


def to_csv(grid: Grid) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([grid.row_title, *grid.flat_columns()])
    for row in grid.flat_rows():
        w.writerow(["" if c == DASH else c for c in row])
    return buf.getvalue()


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in text).replace("Δ", r"$\Delta$").replace(DASH, "--")


def to_latex(grid: Grid) -> str:
    """A booktabs table: one \\multicolumn group per dataset (or target), as in the paper."""
    k = len(grid.metrics)
    grouped = grid.groups != [""]
    spec = "l" + "r" * k * len(grid.groups)
    lines = [r"\begin{tabular}{" + spec + "}", r"\toprule"]
    if grouped:
        heads = [rf"\multicolumn{{{k}}}{{c}}{{{latex_escape(g)}}}" for g in grid.groups]
        lines.append(" & " + " & ".join(heads) + r" \\")
        lines.append(" ".join(rf"\cmidrule(lr){{{2 + i * k}-{1 + (i + 1) * k}}}" for i in range(len(grid.groups))))
    labels = [latex_escape(label) for label, _ in grid.metrics] * len(grid.groups)
    lines.append(latex_escape(grid.row_title.capitalize()) + " & " + " & ".join(labels) + r" \\")
    lines.append(r"\midrule")
    for row in grid.flat_rows():
        lines.append(" & ".join(latex_escape(c) for c in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def render(grid: Grid, fmt: str) -> str:
    """Text output for md, csv and latex (the CLI draws ``table`` with rich)."""
    if fmt == "md":
        return to_markdown(grid)
    if fmt == "csv":
        return to_csv(grid)
    if fmt == "latex":
        return to_latex(grid)
    raise JudgeAgentError(f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})")

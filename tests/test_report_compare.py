"""``judgeagent compare`` on recorded run folders: Table 2 and Table 3 layouts in every
format, and the warning that names what differs between runs."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.report import compare as cmp
from judgeagent.report.load import load_ablation, load_run

FIXTURES = Path(__file__).parent / "fixtures" / "runs"
A, B, Q, ABL = (str(FIXTURES / n) for n in ("medqa-a", "medqa-b", "quality-a", "ablation-a"))


def metrics(path: str) -> dict:
    return json.loads((Path(path) / "metrics.json").read_text())


def invoke(*args):
    return CliRunner().invoke(app, ["compare", *args])


def out_err(res) -> tuple[str, str]:
    """stdout and stderr apart (Click ≥ 8.2 captures both; ``output`` is the two mixed)."""
    return res.stdout, res.stderr


def test_table2_targets_as_rows_datasets_as_groups():
    grid = cmp.table2([load_run(A), load_run(B), load_run(Q)])
    assert grid.rows == ["target-a", "target-b"]
    assert grid.groups == ["medqa-demo", "quality-demo"]
    # Each run's four figures, then the invalid rate of its generated questions (these were never audited).
    assert grid.flat_columns()[:5] == ["medqa-demo ACC1", "medqa-demo ACC2", "medqa-demo CR", "medqa-demo CtE", "medqa-demo invalid items % [95% CI]"]
    rows = {r[0]: r[1:] for r in grid.flat_rows()}
    for row, run, offset in (("target-a", A, 0), ("target-b", B, 0), ("target-a", Q, 5)):
        m = metrics(run)
        assert [float(x) for x in rows[row][offset : offset + 4]] == pytest.approx([m["acc1"], m["acc2"], m["cr"], m["cte"]], abs=0.005)
        assert rows[row][offset + 4] == "not audited"
    assert rows["target-b"][5:] == [cmp.DASH] * 5  # target-b was not run on quality-demo


def test_by_data_swaps_rows_and_groups():
    grid = cmp.table2([load_run(A), load_run(B)], by="data")
    assert grid.rows == ["medqa-demo"] and grid.groups == ["target-a", "target-b"]


def test_same_target_and_data_twice_keeps_both_rows(tmp_path):
    shutil.copytree(FIXTURES / "medqa-a", tmp_path / "again")
    grid = cmp.table2([load_run(A), load_run(tmp_path / "again")])
    assert grid.rows == ["target-a", "target-a (again)"]


def test_mismatch_warning_names_the_fields():
    warnings = cmp.mismatches([load_run(A), load_run(B)])
    text = "\n".join(warnings)
    assert "different judges" in text and "medqa-a: judge-x" in text and "medqa-b: judge-y" in text
    assert "different settings" in text
    for field in ("rounds (medqa-a: 3; medqa-b: 2)", "seed (medqa-a: 0; medqa-b: 7)", "eval_every_round (medqa-a: true; medqa-b: false)"):
        assert field in text
    # what a comparison varies on purpose, or what does not change figures, is not a mismatch
    for quiet in ("target", "data", "concurrency", "llm.", "graph_build.workers"):
        assert f" {quiet} (" not in text and f": {quiet} (" not in text
    assert "graphs" not in text  # same graph input on the same data


def test_same_settings_no_warning():
    assert cmp.mismatches([load_run(A), load_run(A)]) == []
    assert cmp.mismatches([load_run(A)]) == []


def test_graph_mismatch_is_per_dataset(tmp_path):
    other = tmp_path / "medqa-c"
    shutil.copytree(FIXTURES / "medqa-a", other)
    cfg = json.loads((other / "config.json").read_text())
    cfg["graph"]["manifest_hash"] = "0" * 64
    (other / "config.json").write_text(json.dumps(cfg))
    text = "\n".join(cmp.mismatches([load_run(A), load_run(other)]))
    assert "different graphs" in text and "medqa-demo graph input hash" in text
    # different datasets naturally have different graphs: no warning for that
    assert not any("graphs" in w for w in cmp.mismatches([load_run(A), load_run(Q)]))


def test_formats():
    grid = cmp.table2([load_run(A), load_run(Q)])
    md = cmp.render(grid, "md").splitlines()
    assert md[0] == ("| target | medqa-demo ACC1 | medqa-demo ACC2 | medqa-demo CR | medqa-demo CtE | medqa-demo invalid items % [95% CI] "
                     "| quality-demo ACC1 | quality-demo ACC2 | quality-demo CR | quality-demo CtE | quality-demo invalid items % [95% CI] |")
    assert md[1].startswith("|---|---:|") and md[2].startswith("| target-a | ")
    rows = list(csv.reader(io.StringIO(cmp.render(grid, "csv"))))
    assert rows[0][0] == "target" and len(rows) == 2 and len(rows[1]) == 11
    assert float(rows[1][1]) == pytest.approx(metrics(A)["acc1"], abs=0.005) and rows[1][5] == "not audited"
    tex = cmp.render(grid, "latex")
    assert r"\multicolumn{5}{c}{medqa-demo}" in tex and r"\cmidrule(lr){2-6} \cmidrule(lr){7-11}" in tex
    assert r"\begin{tabular}{lrrrrrrrrrr}" in tex
    assert tex.count(r"\\") == 3  # group header, metric header, one row
    with pytest.raises(Exception, match="--format"):
        cmp.render(grid, "xml")


def test_latex_escapes_names():
    assert cmp.latex_escape("gpt_4 & 50% #1") == r"gpt\_4 \& 50\% \#1"
    assert cmp.latex_escape("ΔACC") == r"$\Delta$ACC"


def test_table3_from_ablation_run():
    abl = json.loads((Path(ABL) / "ablation.json").read_text())
    grid = cmp.table3(load_ablation(ABL))
    assert grid.rows == abl["settings"] == ["full", "no graph", "no adaptive difficulty", "no extension"]
    assert grid.flat_columns() == ["ACC2", "CR", "CtE", "ΔACC"]
    for row in grid.flat_rows():
        m = abl["metrics"][row[0]]
        assert [float(x) for x in row[1:]] == pytest.approx([m["acc2"], m["cr"], m["cte"], m["delta_acc"]], abs=0.005)
    assert row[4].startswith(("+", "-"))


# ----------------------------------------------------------------------------- CLI
def test_cli_compare_md_with_warning_on_stderr():
    res = invoke(A, B, "--format", "md")
    assert res.exit_code == 0, res.output
    out, err = out_err(res)
    assert "| target | medqa-demo ACC1 |" in out
    assert "| target-a | 50.00 |" in out and "| target-b |" in out
    assert "warning:" in err and "judge-y" in err and "rounds" in err


def test_cli_compare_table_is_not_truncated():
    res = invoke(A, B, Q)
    assert res.exit_code == 0, res.output
    out, _ = out_err(res)
    for word in ("target-a", "target-b", "medqa-demo", "quality-demo", "ACC1", "CtE"):
        assert word in out
    assert "…" not in out


def test_cli_compare_csv_and_by_data():
    res = invoke(A, B, "-f", "csv", "--by", "data")
    out, err = out_err(res)
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["data", "target-a ACC1", "target-a ACC2", "target-a CR", "target-a CtE", "target-a invalid items % [95% CI]",
                       "target-b ACC1", "target-b ACC2", "target-b CR", "target-b CtE", "target-b invalid items % [95% CI]"]  # fmt: skip
    # Runs nobody audited say so in one line.
    assert " ".join(err.split()).count("never audited: medqa-a, medqa-b: how many of their generated questions are invalid is unknown") == 1


def test_cli_compare_ablation():
    res = invoke("--ablation", ABL, "--format", "latex")
    assert res.exit_code == 0, res.output
    out, _ = out_err(res)
    assert "no adaptive difficulty" in out and r"$\Delta$ACC" in out


@pytest.mark.parametrize(
    "args,message",
    [
        (["/no/such/run"], "no such run folder"),
        (["--ablation", A], "no ablation.json"),
        (["--ablation", A, B], "exactly one run folder"),
        ([A, "--format", "xml"], "--format"),
        ([A, "--by", "model"], "--by"),
    ],
)
def test_cli_compare_user_errors(args, message):
    res = invoke(*args)
    assert res.exit_code == 2
    assert message in out_err(res)[1].replace("\n", " ")
    assert "Traceback" not in res.output

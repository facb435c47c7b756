"""One run engine: every way of running is a protocol, a setting given to the wrong protocol is
refused with one line naming the protocol it belongs to, and the import graph has no cycle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judgeagent import EvalConfig, evaluate
from judgeagent.cli.app import app
from judgeagent.engine.options import resolve
from judgeagent.engine.registry import owners, protocols
from judgeagent.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "240"})


# ----------------------------------------------------------------------------- the wrong protocol's flags
@pytest.mark.parametrize(
    "args,message",
    [
        (("ablate", "--protocol", "kieval"), "--ablation belongs to the judgeagent protocol, not to --protocol kieval"),
        (("evaluate", "--protocol", "bank", "--bank", "graphs/medqa-demo", "--rounds", "5"),
         "--rounds belongs to the judgeagent protocol, not to --protocol bank"),
        (("evaluate", "--bank", "graphs/medqa-demo"), "--bank belongs to the bank protocol, not to --protocol judgeagent"),
        (("evaluate", "--protocol", "kieval", "--revisions", "2"), "--revisions belongs to the interviewer protocol, not to --protocol kieval"),
        (("evaluate", "--protocol", "escalate", "--leak-check", "rules"),
         "--leak-check belongs to the judgeagent, interviewer protocols, not to --protocol escalate"),
        (("contamination", "--rounds", "2"), "--rounds belongs to the judgeagent protocol, not to --protocol contamination"),
        (("contamination", "--protocol", "kieval"), "--protocol kieval does not go with this command, which runs --protocol contamination"),
        (("ablate", "--no-graph"), "--ablation runs every arm; --no-graph picks one arm of a single interview"),
    ],
)
def test_a_flag_of_another_protocol_is_one_line_and_exit_2(args, message, tmp_path):
    res = invoke(*args, "--out", str(tmp_path / "run"))
    assert res.exit_code == 2, res.output
    assert message in res.output and res.output.count("\n") == 1, res.output
    assert not (tmp_path / "run").exists()  # refused before anything ran


def test_the_python_api_refuses_them_the_same_way(tmp_path):
    # bank= with the default protocol used to run a normal interview.
    with pytest.raises(ConfigError, match=r"^--bank belongs to the bank protocol, not to --protocol judgeagent$"):
        evaluate(EvalConfig(bank=ROOT / "graphs" / "medqa-demo", out=tmp_path / "run"))
    with pytest.raises(ConfigError, match=r"^--ablation belongs to the judgeagent protocol, not to --protocol kieval$"):
        evaluate(target="local", protocol="kieval", ablation=True, out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_options_are_validated_by_their_protocols_model():
    protocol, opts = resolve(EvalConfig(protocol="kieval", kieval_turns="2", limit=3))
    assert (protocol.name, opts.kieval_turns, opts.limit, opts.hops) == ("kieval", 2, 3, 2)
    protocol, opts = resolve(EvalConfig(protocol="bank", bank="g", bank_size=4))
    assert (protocol.name, str(opts.bank), opts.bank_size, opts.adaptive) == ("bank", "g", 4, False)
    # Given flat or nested, the same options.
    assert EvalConfig(rounds=2).options == EvalConfig(options={"rounds": 2}).options == {"rounds": 2}


def test_every_option_belongs_to_some_protocol_and_shared_ones_are_listed_once():
    assert owners("rounds") == ["judgeagent"]
    assert owners("batch_size") == ["judgeagent", "kieval", "interviewer", "escalate", "contamination"]
    assert owners("bank") == ["bank"]
    assert owners("target") == []  # a shared setting, no protocol's option
    assert list(protocols()) == ["judgeagent", "kieval", "interviewer", "escalate", "contamination", "bank"]


def test_protocols_command_lists_them_and_one_protocols_options():
    res = invoke("protocols")
    assert res.exit_code == 0 and all(name in res.output for name in protocols())
    res = invoke("protocols", "kieval")
    assert res.exit_code == 0, res.output
    assert "--kieval-turns" in res.output and "--evaluator" in res.output and "--rounds" not in res.output
    assert invoke("protocols", "mmlu").exit_code == 2


def test_evaluate_help_shows_each_protocols_options_in_its_own_panel():
    out = invoke("evaluate", "--help").output
    assert "(--protocol kieval)" in out and "(--protocol bank)" in out and "Seed questions (every protocol but bank)" in out


# ----------------------------------------------------------------------------- layout
def test_the_import_graph_has_no_cycle_and_no_arrow_back_up():
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_imports.py")], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stdout
    assert "no cycle, none back up the pipeline" in res.stdout


def test_the_import_check_finds_a_cycle():
    """The checker itself: a two-module cycle and an arrow back up, planted in a copy."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import check_imports
    finally:
        sys.path.pop(0)
    edges = {"judgeagent.data.a": {"judgeagent.data.b"}, "judgeagent.data.b": {"judgeagent.data.a", "judgeagent.report.x"},
             "judgeagent.report.x": set()}
    assert check_imports.cycles(edges) == [["judgeagent.data.a", "judgeagent.data.b"]]
    assert check_imports.back_arrows(edges) == ["judgeagent.data.b (data) imports judgeagent.report.x (report)"]


def test_no_module_but_the_engine_runs_an_event_loop_or_catches_ctrl_c():
    """The engine's job, done once: nothing else calls asyncio.run or catches KeyboardInterrupt
    (the CLI turns the engine's RunInterrupted into exit 130)."""
    offenders = []
    for path in sorted((ROOT / "judgeagent").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT).as_posix()
        if ("asyncio.run(" in text or "except KeyboardInterrupt" in text) and rel != "judgeagent/engine/run.py":
            offenders.append(rel)
    # Building a graph with the LLM extractor is not a run, nor is the audit's model pass: each
    # has its own short event loop.
    assert offenders == ["judgeagent/audit/auditor.py", "judgeagent/graph/llm_extract.py"]

"""Our protocols as Inspect tasks: run with ``inspect_ai.eval`` on the demo data, Inspect's
``mockllm/model`` for the target and the judge (its replies scripted by the interview double,
which tells requests apart by the reply schema they ask for, as it does over HTTP); the same
replies through the CLI and through Inspect give the same figures; and a task whose models
are our scripted OpenAI-compatible server, through Inspect's OpenAI-compatible provider."""

from __future__ import annotations

import json
from math import exp
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from interview_double import OrderFreeScript, Script  # noqa: E402
from scripted_server import ScriptedServer  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from judgeagent.cli.app import app  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]
FAST = {"leak_check": "rules", "bootstrap": 200}  # the guard's rules only; a small bootstrap


def scripted(demo_seeds, cls: type[Script] = Script, **kw) -> Script:
    return cls(seed_plan={q.question.strip(): p for q, p in zip(demo_seeds, PLAN)}, answers={q.question.strip(): q.answer for q in demo_seeds}, **kw)


def mock(script: Script):
    """Inspect's mockllm/model answering as ``script`` answers an HTTP request: the body it
    reads is the messages and the reply schema's name, as Inspect's config carries them.
    Usage is counted in words, as the scripted server counts it (mockllm would otherwise
    count tokens with tiktoken, whose encoding it downloads)."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def reply(messages, tools, tool_choice, config) -> ModelOutput:
        body: dict = {"messages": [{"role": m.role, "content": m.text} for m in messages]}
        if config.response_schema is not None:
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": config.response_schema.name}}
        output = ModelOutput.from_content(model="mockllm/model", content=script(body))
        words_in, words_out = sum(len(m.text.split()) for m in messages), len(output.completion.split())
        output.usage = ModelUsage(input_tokens=words_in, output_tokens=words_out, total_tokens=words_in + words_out)
        return output

    return get_model("mockllm/model", custom_outputs=reply)


def run_task(name: str, tmp_path: Path, target, roles: dict, **args):
    from inspect_ai import eval as inspect_eval

    logs = inspect_eval(f"judgeagent/{name}", model=target, model_roles=roles, task_args=args, log_dir=str(tmp_path / "logs"),
                        display="none", max_samples=1)
    assert len(logs) == 1
    return logs[0]


def figures(log) -> dict[str, float]:
    (score,) = log.results.scores
    return {k: m.value for k, m in score.metrics.items()}


def kieval_by_hand(overall: list[int]) -> float:
    mapped = {1: 1, 2: 3, 3: 7, 4: 10}
    weights = [exp(-0.2 * t) for t in range(len(overall))]
    return 10 * sum(w * mapped[s] for w, s in zip(weights, overall)) / sum(weights)


# --------------------------------------------------------------------------- arguments
def test_inspect_finds_the_tasks_by_name():
    """Through the inspect_ai entry point, as `inspect eval judgeagent/interview` looks them up."""
    from inspect_ai._util.registry import registry_info, registry_lookup

    names = ["judgeagent/interview", "judgeagent/kieval", "judgeagent/interviewer", "judgeagent/escalate"]
    assert [registry_info(registry_lookup("task", n)).name for n in names] == names


@pytest.mark.parametrize(("args", "message"), [
    ({"limit": 0}, "-T limit: Input should be greater than or equal to 1 (got 0)"),
    ({"kieval_turns": 3}, "-T kieval_turns belongs to the kieval protocol, not to this task"),
    ({"judge": "openai/gpt-4o"}, "-T judge: not a task argument; the judge is the model role judge: --model-role judge=<model>"),
    ({"rounds": "many"}, "-T rounds: Input should be a valid integer"),
    ({"t1": 1.0, "t2": 0.5}, "t2 (0.5) must be greater than t1 (1)"),
    ({"colour": "red"}, "-T colour: no option of this task"),
])  # fmt: skip
def test_a_wrong_task_argument_is_one_line_naming_it(args, message):
    from inspect_ai._util.error import PrerequisiteError

    from judgeagent.inspect.tasks import interview

    with pytest.raises(PrerequisiteError) as e:
        interview(data=str(DATA), **args)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_the_evaluator_is_a_model_role_not_an_argument():
    from inspect_ai._util.error import PrerequisiteError

    from judgeagent.inspect.tasks import kieval

    with pytest.raises(PrerequisiteError, match=r"-T evaluator: under Inspect the evaluator is a model role: --model-role evaluator=<model>"):
        kieval(data=str(DATA), evaluator="openai/gpt-4o")


def test_task_arguments_take_the_cli_defaults_and_spellings():
    from judgeagent.inspect.arguments import task_config

    cfg = task_config("judgeagent", {"data": str(DATA), "batch-size": "2", "t2": 1.5, "limit": 4})
    assert (cfg.options["batch_size"], cfg.options["limit"], cfg.options["rounds"], cfg.options["difficulty"]["t2"]) == (2, 4, 3, 1.5)
    assert cfg.options["difficulty"]["t1"] == 0.5 and cfg.options["leak_threshold"] == 0.85


@pytest.mark.slow
def test_the_graph_argument_names_the_graph(demo_graph):
    """(The first test of the file to ask for the session's demo graph: its build is this
    test's setup, not that of a test that runs an eval as well.)"""
    from judgeagent.inspect.arguments import task_config

    assert task_config("kieval", {"data": str(DATA), "graph": str(demo_graph)}).graph_dir() == demo_graph


# --------------------------------------------------------------------------- the tasks on mockllm
@pytest.mark.slow
def test_interview_on_mockllm(tmp_path, demo_graph, demo_seeds, monkeypatch):
    import asyncio

    from judgeagent.engine import setup

    where: list[str] = []
    load = setup.ensure_graph

    def loading(*args, **kwargs):
        try:
            asyncio.get_running_loop()
            where.append("on the event loop")
        except RuntimeError:
            where.append("in a worker thread")
        return load(*args, **kwargs)

    monkeypatch.setattr(setup, "ensure_graph", loading)
    script = scripted(demo_seeds)
    log = run_task("interview", tmp_path, mock(script), {"judge": mock(script)}, data=str(DATA), graph=str(demo_graph), limit=6, **FAST)
    assert log.status == "success"
    assert where == ["in a worker thread"]  # once, and never blocking Inspect's event loop
    assert [s.id for s in log.samples] == ["b0000", "b0001"]
    # PLAN: batch 0 right before (1, 1, 0) and after (1, 0, 1); batch 1 (0, 0, 1) and (0, 1, 1).
    first = log.samples[0].scores["interview"]
    assert [first.value[f"seed_answers[{i}]"] for i in range(3)] == [1.0, 1.0, 0.0]
    last = len(first.metadata["records"][0]["validations"]) - 1
    assert [first.value[f"validations[{last}].reanswers[{i}]"] for i in range(3)] == [1.0, 0.0, 1.0]
    rounds = first.metadata["records"][0]["rounds"]
    asked = {f"rounds[{i}].answer": rd["level"] for i, rd in enumerate(rounds) if rd.get("answer")}
    assert asked and first.metadata["levels"] == {k: v for k, v in asked.items()} and set(asked.values()) <= {"easy", "medium", "hard"}
    assert all(first.value[k] == 1.0 for k in asked)  # the double's target gets its follow-ups right
    m = figures(log)
    assert m["acc1"] == pytest.approx(50.0, abs=1e-3) and m["acc2"] == pytest.approx(400 / 6, abs=1e-3)
    assert m["cr"] == pytest.approx(200 / 6, abs=1e-3) and m["cte"] == pytest.approx(100 / 6, abs=1e-3) and m["delta_acc"] == pytest.approx(100 / 6, abs=1e-3)
    assert m["delta_acc_ci_low"] <= m["delta_acc"] <= m["delta_acc_ci_high"] and m["n_questions"] == 6
    # The dialogue: the target's prompts and answers, the judge's turns labelled between them.
    speakers = [(msg.role, (msg.metadata or {}).get("speaker")) for msg in log.samples[0].messages]
    assert speakers[:2] == [("user", "interviewer"), ("assistant", "target")]
    assert ("user", "judge") in speakers
    judge_turn = next(msg for msg in log.samples[0].messages if (msg.metadata or {}).get("speaker") == "judge")
    assert judge_turn.text.startswith("[judge, ")
    # Inspect counted the judge's calls under its role.
    assert log.stats.role_usage.get("judge") is not None and log.stats.role_usage["judge"].output_tokens > 0


@pytest.mark.slow
def test_kieval_with_the_evaluator_role(tmp_path, demo_graph, demo_seeds):
    judge, evaluator = scripted(demo_seeds), scripted(demo_seeds, kieval_overall=[1])
    log = run_task("kieval", tmp_path, mock(judge), {"judge": mock(judge), "evaluator": mock(evaluator)}, data=str(DATA),
                   graph=str(demo_graph), limit=3, kieval_turns=2)
    assert log.status == "success" and len(log.samples) == 3
    assert [s.scores["interview"].value for s in log.samples] == [{"dialogue.turns[0]": 1.0, "dialogue.turns[1]": 1.0}] * 3
    m = figures(log)
    assert (m["kieval_overall"], m["kieval_completeness"]) == (10.0, 2.0)


@pytest.mark.slow
def test_kieval_evaluator_defaults_to_the_judge(tmp_path, demo_graph, demo_seeds):
    script = scripted(demo_seeds)
    log = run_task("kieval", tmp_path, mock(script), {"judge": mock(script)}, data=str(DATA), graph=str(demo_graph), limit=3)
    assert log.status == "success"
    assert figures(log)["kieval_overall"] == pytest.approx(kieval_by_hand([4, 3, 2, 1, 4]), abs=1e-4)


@pytest.mark.slow
def test_interviewer_on_mockllm(tmp_path, demo_graph, demo_seeds):
    qs = [q.question.strip() for q in demo_seeds[:3]]
    plan = {qs[0]: [True, True, True], qs[1]: [False, True, True], qs[2]: [False, False, True]}
    script = scripted(demo_seeds, attempt_plan=plan)
    log = run_task("interviewer", tmp_path, mock(script), {"judge": mock(script)}, data=str(DATA), limit=3, leak_check="rules")
    assert log.status == "success" and len(log.samples) == 3
    m = figures(log)
    assert (m["interviewer_acc1"], m["interviewer_acc2"], m["interviewer_acc3"]) == (pytest.approx(100 / 3, abs=1e-3), pytest.approx(200 / 3, abs=1e-3), 100.0)


@pytest.mark.slow
def test_escalate_on_mockllm(tmp_path, demo_graph, demo_seeds):
    script = scripted(demo_seeds, level_right={"easy": True, "medium": True, "hard": False})
    log = run_task("escalate", tmp_path, mock(script), {"judge": mock(script)}, data=str(DATA), graph=str(demo_graph), limit=3)
    assert log.status == "success" and len(log.samples) == 3
    s = log.samples[0].scores["interview"]
    assert sorted(s.metadata["levels"].values()) == ["easy", "hard", "hard", "medium"]
    assert [s.value[k] for k in sorted(s.metadata["levels"], key=lambda k: int(k.split("[")[1].split("]")[0]))] == [1.0, 1.0, 0.0, 0.0]
    m = figures(log)
    assert (m["escalate_auc"], m["escalate_hard"]) == (75.0, 0.0)


# --------------------------------------------------------------------------- same replies, same figures
@pytest.mark.slow
def test_the_cli_and_inspect_give_the_same_figures(tmp_path, demo_graph, demo_seeds):
    from judgeagent.engine.registry import get_protocol

    with ScriptedServer(scripted(demo_seeds, OrderFreeScript)) as srv:
        model = f"{srv.base_url}@scripted"
        res = CliRunner().invoke(app, ["evaluate", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(demo_graph),
                                       "--limit", "6", "--out", str(tmp_path / "run"), "--concurrency", "1", "--no-report",
                                       "--leak-check", "rules", "--bootstrap", "200", "--no-summary"])
        assert res.exit_code == 0, res.output
    cli = get_protocol("judgeagent").headline_figures(json.loads((tmp_path / "run" / "metrics.json").read_text()))
    script = scripted(demo_seeds, OrderFreeScript)
    log = run_task("interview", tmp_path, mock(script), {"judge": mock(script)}, data=str(DATA), graph=str(demo_graph), limit=6, **FAST)
    assert log.status == "success"
    assert figures(log) == {k: v for k, v in cli.items() if v is not None}
    cli_records = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text().splitlines()]
    inspect_records = [r for s in log.samples for r in s.scores["interview"].metadata["records"]]
    levels = [[rd["level"] for rd in r["rounds"]] for r in sorted(cli_records, key=lambda r: r["batch_index"])]
    assert levels == [[rd["level"] for rd in r["rounds"]] for r in inspect_records]


# --------------------------------------------------------------------------- an OpenAI-compatible server
def interview_served(responder, model: str, tmp_path: Path, graph: Path):
    """The interview task with target and judge on our scripted server, through Inspect's
    OpenAI-compatible provider: its log and the request bodies the server received."""
    from inspect_ai.model import get_model

    with ScriptedServer(responder) as srv:
        def served():
            return get_model(model, base_url=srv.base_url, api_key="not-needed")

        log = run_task("interview", tmp_path, served(), {"judge": served()}, data=str(DATA), graph=str(graph), limit=3, rounds=1,
                       controls=False, **FAST)
        return log, srv.requests


@pytest.mark.slow
def test_a_task_through_inspects_openai_compatible_provider(tmp_path, demo_graph, demo_seeds):
    log, bodies = interview_served(scripted(demo_seeds), "openai-api/scripted/scripted-model", tmp_path, demo_graph)
    assert log.status == "success", log.error
    m = figures(log)
    assert (m["acc1"], m["acc2"]) == (pytest.approx(200 / 3, abs=1e-3), pytest.approx(200 / 3, abs=1e-3))
    named = {b["response_format"]["json_schema"]["name"] for b in bodies if b.get("response_format")}
    assert {"answer_batch", "feedback"} <= named  # our reply schemas reached the server as JSON schemas


@pytest.mark.slow
def test_a_server_that_refuses_json_schema_gets_llama_cpps_form_through_inspect(tmp_path, demo_graph, demo_seeds):
    """llama.cpp's server (llama-cpp-python 0.3) refuses ``response_format.type:
    json_schema`` with a 500 naming it; the task then asks with its ``json_object`` form and
    the schema, which must reach the server through Inspect's OpenAI-compatible provider, so
    the replies are held to the schema rather than left to the prompt."""
    from interview_double import schema_name
    from scripted_server import Fault

    script = scripted(demo_seeds)

    def llama_like(body):
        rf = body.get("response_format")
        if rf and rf.get("type") not in ("text", "json_object"):
            return Fault.status(500, message="1 validation error: ('body', 'response_format', 'type') Input should be 'text' or 'json_object'")
        return script(body)

    log, bodies = interview_served(llama_like, "openai-api/llama/smollm2", tmp_path, demo_graph)
    assert log.status == "success", log.error
    forms = [(b["response_format"]["type"], "schema" in b["response_format"], schema_name(b)) for b in bodies if b.get("response_format")]
    refused = [i for i, (kind, _, _) in enumerate(forms) if kind == "json_schema"]
    # Only each model's first structured call was asked with a JSON schema (the target's
    # answers, the judge's first question; the OpenAI SDK under Inspect's provider tries a 500
    # again itself), then every structured request in llama.cpp's form, with its schema.
    assert {forms[i][2] for i in refused} == {"answer_batch", "generated_mc"}
    after = forms[refused[-1] + 1:]
    assert len(after) >= 4 and all(kind == "json_object" and has_schema for kind, has_schema, _ in after)
    m = figures(log)
    assert (m["acc1"], m["acc2"]) == (pytest.approx(200 / 3, abs=1e-3), pytest.approx(200 / 3, abs=1e-3))


@pytest.mark.slow
def test_eval_retry_asks_the_failed_unit_again(tmp_path, demo_graph, demo_seeds, monkeypatch):
    """A call that fails after Inspect's retries is its sample's error, never a wrong answer;
    `inspect eval-retry` asks that unit again and the metrics cover every sample."""
    from inspect_ai import eval_retry
    from scripted_server import Fault

    with ScriptedServer(scripted(demo_seeds)) as srv:
        monkeypatch.setenv("SCRIPTED_BASE_URL", srv.base_url)
        monkeypatch.setenv("SCRIPTED_API_KEY", "not-needed")
        # Batch 0's seed answers: tried once with a JSON schema (the first request of the model),
        # then again with Inspect's retries, which do not retry a refused key.
        srv.push_faults(Fault.status(401, message="key refused"), Fault.status(401, message="key refused"))
        args = {"data": str(DATA), "graph": str(demo_graph), "limit": 6, "rounds": 1, "controls": False, **FAST}
        from inspect_ai import eval as inspect_eval

        (first,) = inspect_eval("judgeagent/interview", model="openai-api/scripted/scripted-model",
                                model_roles={"judge": "openai-api/scripted/scripted-model"}, task_args=args, log_dir=str(tmp_path / "logs"),
                                display="none", max_samples=1, fail_on_error=False)
        errors = {s.id: s.error is not None for s in first.samples}
        assert errors == {"b0000": True, "b0001": False}
        (retried,) = eval_retry(first, log_dir=str(tmp_path / "logs"), display="none")
    assert retried.status == "success" and {s.id for s in retried.samples} == {"b0000", "b0001"}
    assert all(s.error is None for s in retried.samples)
    m = figures(retried)
    assert (m["acc1"], m["acc2"], m["n_questions"]) == (pytest.approx(50.0, abs=1e-3), pytest.approx(400 / 6, abs=1e-3), 6.0)

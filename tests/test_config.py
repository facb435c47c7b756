"""One typed configuration: the CLI's options come from the model fields, bad values give one
line naming the flag, and a run's config.json re-creates the run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer
from interview_double import Script
from scripted_server import ScriptedServer
from typer.testing import CliRunner

import judgeagent.api
from judgeagent.cli.app import app
from judgeagent.cli.evaluate import FLAGS as EVALUATE_FLAGS
from judgeagent.cli.graph import BUILD_FLAGS
from judgeagent.config import DifficultyConfig, EvalConfig, GraphConfig, LLMConfig
from judgeagent.engine.options import resolved
from judgeagent.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "medqa-demo"
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "240"})


def click_params(command: str) -> dict:
    group = typer.main.get_group(app)
    return {p.name: p for p in group.commands[command].params}


def field_value(cfg, path: tuple[str, ...]):
    for part in path:
        cfg = getattr(cfg, part)
    return cfg


def shown(value) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


class Captured(ConfigError):
    pass


@pytest.fixture
def captured(monkeypatch):
    """Stop `evaluate`/`ablate` at the library call and keep the EvalConfig it was given."""
    seen: list[EvalConfig] = []

    def fake_run(cfg, **kw):
        seen.append(cfg)
        raise Captured("captured")

    monkeypatch.setattr(judgeagent.api, "evaluate", fake_run)
    return seen


# ----------------------------------------------------------------------------- defaults
@pytest.mark.parametrize(
    "command,flags,model",
    [("evaluate", EVALUATE_FLAGS, EvalConfig), ("ablate", EVALUATE_FLAGS, EvalConfig),
     ("contamination", EVALUATE_FLAGS, EvalConfig), ("build-graph", BUILD_FLAGS, GraphConfig)],
)
def test_help_default_is_the_field_default(command, flags, model):
    params = click_params(command)
    for f in flags:
        param = params[f.name]
        assert param.default is None  # "not given": the model's default applies
        value = f.info.get_default(call_default_factory=True)  # the field's own: shared or a protocol's option
        if value is None or f.info.is_required():
            assert "[default:" not in param.help
        else:
            assert f"\\[default: {shown(value)}]" in param.help, (f.flag, param.help)
        assert f.info.description in param.help


def test_help_page_shows_defaults_ranges_and_choices():
    out = invoke("evaluate", "--help").output
    line = next(row for row in out.splitlines() if "--batch-size" in row)
    assert "[default: 3] [range: ≥ 1]" in line
    line = next(row for row in out.splitlines() if "--fixed-difficulty" in row)
    assert "[easy|medium|hard]" in line
    line = next(row for row in invoke("build-graph", "--help").output.splitlines() if "--stop-entity-share" in row)
    assert "--stop-share" in line and f"[default: {GraphConfig().stop_entity_share}] [range: [0, 1]]" in line


def test_no_flags_give_the_model_defaults(captured):
    res = invoke("evaluate")
    assert res.exit_code == 2 and "captured" in res.output
    assert captured == [resolved(EvalConfig())]


def test_every_flag_sets_its_field_old_spellings_included(captured, tmp_path):
    args = [
        "--target", "t", "--judge", "j", "--data", "d", "--graph", "g", "--batch-size", "5", "--rounds", "0", "--hops", "3",
        "--limit", "9", "--seed", "7", "--concurrency", "2", "--no-graph", "--fixed-difficulty", "hard", "--no-extension",
        "--eval-every-round", "--reask-correct", "--out", "o", "--resume", "r", "--models", "m.toml", "--cache", "c.sqlite",
        "--no-cache", "--max-requests", "40", "--budget-usd", "1.5", "--max-attempts", "2", "--timeout", "30",
        "--breaker-window", "5", "--breaker-failure-share", "0.5",
        "--gain-easy", "0.5", "--gain-medium", "1", "--gain-hard", "3", "--t1", "0.2", "--t2", "0.9", "--hard-wrong-penalty", "0.2",
        "--no-report", "--no-summary", "--workers", "1", "--no-gate", "--no-check-hops", "--no-gate-overlap",
        "--seed-similarity", "0.8", "--generation-tries", "4", "--leak-threshold", "0.7", "--leak-check", "rules", "--no-controls", "--bootstrap", "500",
        "--decontaminate", "modify",
    ]
    res = invoke("evaluate", *args)
    assert res.exit_code == 2, res.output
    assert captured == [resolved(EvalConfig(
        target="t", judge="j", data=Path("d"), graph=Path("g"), batch_size=5, rounds=0, hops=3, limit=9, seed=7, concurrency=2,
        no_graph=True, fixed_difficulty="hard", no_extension=True, eval_every_round=True, reask_correct=True,
        out=Path("o"), resume=Path("r"), report=False, summary=False, gate=False, check_hops=False, gate_overlap=False,
        seed_similarity=0.8, generation_tries=4, leak_threshold=0.7, leak_check="rules", controls=False, bootstrap=500,
        decontaminate="modify",
        llm=LLMConfig(models_file=Path("m.toml"), cache=Path("c.sqlite"), no_cache=True, max_requests=40, budget_usd=1.5,
                      max_attempts=2, timeout_s=30.0, breaker_window=5, breaker_failure_share=0.5),
        difficulty=DifficultyConfig(gain_easy=0.5, gain_medium=1.0, gain_hard=3.0, t1=0.2, t2=0.9, hard_wrong_penalty=0.2),
        graph_build=GraphConfig(workers=1, judge="j"),
    ))]
    # The new spellings of the renamed flags set the same fields.
    captured.clear()
    invoke("evaluate", "--models-file", "m.toml", "--timeout-s", "30", "--check-hops", "--report")
    assert captured[0].llm.models_file == Path("m.toml") and captured[0].llm.timeout_s == 30.0
    assert captured[0].options["check_hops"] is True and captured[0].report is True


def test_the_graph_is_built_with_the_runs_judge_unless_told_otherwise():
    assert EvalConfig(judge="j").graph_build.judge == "j"
    assert EvalConfig(judge="j", graph_build={"judge": "k"}).graph_build.judge == "k"
    assert EvalConfig().graph_build.judge == "local"


# ----------------------------------------------------------------------------- bad values
BAD_EVALUATE = [
    (("--batch-size", "0"), "--batch-size must be an integer ≥ 1 (got 0)"),
    (("--rounds", "-1"), "--rounds must be an integer ≥ 0 (got -1)"),
    (("--hops", "0"), "--hops must be an integer ≥ 1 (got 0)"),
    (("--limit", "0"), "--limit must be an integer ≥ 1 (got 0)"),
    (("--concurrency", "0"), "--concurrency must be an integer ≥ 1 (got 0)"),
    (("--seed", "x"), "--seed must be an integer (got x)"),
    (("--fixed-difficulty", "extreme"), "--fixed-difficulty must be one of easy, medium, hard (got extreme)"),
    (("--seed-similarity", "0"), "--seed-similarity must be a number in (0, 1] (got 0)"),
    (("--seed-similarity", "1.5"), "--seed-similarity must be a number in (0, 1] (got 1.5)"),
    (("--generation-tries", "0"), "--generation-tries must be an integer ≥ 1 (got 0)"),
    (("--leak-threshold", "1.2"), "--leak-threshold must be a number in (0, 1] (got 1.2)"),
    (("--leak-check", "maybe"), "--leak-check must be one of auto, rules, judge, off (got maybe)"),
    (("--bootstrap", "99"), "--bootstrap must be an integer ≥ 100 (got 99)"),
    (("--decontaminate", "rewrite"), "--decontaminate must be one of paraphrase, modify, unclarify (got rewrite)"),
    (("--max-requests", "0"), "--max-requests must be an integer ≥ 1 (got 0)"),
    (("--budget-usd", "0"), "--budget-usd must be a number > 0 (got 0)"),
    (("--max-attempts", "0"), "--max-attempts must be an integer ≥ 1 (got 0)"),
    (("--timeout", "0"), "--timeout-s must be a number > 0 (got 0)"),
    (("--timeout-s", "soon"), "--timeout-s must be a number > 0 (got soon)"),
    (("--breaker-window", "0"), "--breaker-window must be an integer ≥ 1 (got 0)"),
    (("--breaker-failure-share", "1"), "--breaker-failure-share must be a number in [0, 1) (got 1)"),
    (("--batch-api-poll-s", "0"), "--batch-api-poll-s must be a number > 0 (got 0)"),
    (("--batch-api-deadline", "soon"), "--batch-api-deadline must be a duration such as 90m, 2h or 1h30m (got soon)"),
    (("--batch-api-expired", "wait"), "--batch-api-expired must be one of retry, live, stop (got wait)"),
    (("--batch-api-expired-retries", "11"), "--batch-api-expired-retries must be an integer in [0, 10] (got 11)"),
    (("--gain-easy", "-1"), "--gain-easy must be a number ≥ 0 (got -1)"),
    (("--gain-medium", "-1"), "--gain-medium must be a number ≥ 0 (got -1)"),
    (("--gain-hard", "-1"), "--gain-hard must be a number ≥ 0 (got -1)"),
    (("--t1", "-0.5"), "--t1 must be a number ≥ 0 (got -0.5)"),
    (("--t2", "-1"), "--t2 must be a number ≥ 0 (got -1)"),
    (("--hard-wrong-penalty", "-0.2"), "--hard-wrong-penalty must be a number ≥ 0 (got -0.2)"),
    (("--t1", "1.2"), "--t2 (1) must be greater than --t1 (1.2)"),
    (("--workers", "0"), "--workers must be an integer ≥ 1 (got 0)"),
    (("--protocol", "mmlu"), "--protocol must be one of judgeagent, kieval, interviewer, escalate, contamination, bank (got mmlu)"),
    (("--protocol", "kieval", "--kieval-turns", "0"), "--kieval-turns must be an integer ≥ 1 (got 0)"),
    (("--protocol", "interviewer", "--revisions", "0"), "--revisions must be an integer ≥ 1 (got 0)"),
    (("--protocol", "bank", "--bank", "g", "--bank-size", "0"), "--bank-size must be an integer ≥ 1 (got 0)"),
    (("--protocol", "bank", "--bank", "g", "--target-se", "0"), "--target-se must be a number > 0 (got 0)"),
]
BAD_BUILD = [
    (("--workers", "0"), "--workers must be an integer ≥ 1 (got 0)"),
    (("--chunk-tokens", "8"), "--chunk-tokens must be an integer ≥ 16 (got 8)"),
    (("--section-chunks", "0"), "--section-chunks must be an integer ≥ 1 (got 0)"),
    (("--stop-share", "1.5"), "--stop-entity-share must be a number in [0, 1] (got 1.5)"),
    (("--stop-entity-share", "-0.1"), "--stop-entity-share must be a number in [0, 1] (got -0.1)"),
    (("--extractor", "bert"), "--extractor must be one of spacy, llm (got bert)"),
    (("--embed-batch-size", "0"), "--embed-batch-size must be an integer ≥ 1 (got 0)"),
    (("--engine", "spark"), "--engine must be one of local, ray (got spark)"),
    (("--embed", "some"), "--embed must be one of lazy, all (got some)"),
    (("--embed-backend", "tpu"), "--embed-backend must be one of torch, onnx, onnx-int8, openvino (got tpu)"),
    (("--entity-encoder", "glove"), "--entity-encoder must be one of minilm, wordllama (got glove)"),
    (("--chunk-encoder", "bert"), "--chunk-encoder must be one of minilm, wordllama (got bert)"),
]


@pytest.mark.parametrize("command", ["evaluate", "ablate"])
@pytest.mark.parametrize("args,message", BAD_EVALUATE)
def test_a_bad_value_is_one_line_naming_the_flag(command, args, message, captured):
    if command == "ablate" and "--protocol" in args and args[1] != "mmlu":
        # ablate runs the judgeagent protocol's arms: another protocol is refused first.
        message = f"--ablation belongs to the judgeagent protocol, not to --protocol {args[1]}"
    res = invoke(command, *args)
    assert res.exit_code == 2
    assert res.output == f"error: {message}\n"
    assert captured == []  # refused before anything ran


@pytest.mark.parametrize("args,message", BAD_BUILD)
def test_a_bad_graph_setting_is_one_line(args, message, tmp_path):
    res = invoke("build-graph", str(DATA), "--out", str(tmp_path / "g"), *args)
    assert res.exit_code == 2 and res.output == f"error: {message}\n"
    assert not (tmp_path / "g").exists()


def test_the_contamination_probe_checks_its_flags_the_same_way(tmp_path):
    res = invoke("contamination", "--batch-size", "0", "--limit", "0", "--out", str(tmp_path / "r"))
    assert res.exit_code == 2
    assert res.output == "error: --batch-size must be an integer ≥ 1 (got 0); --limit must be an integer ≥ 1 (got 0)\n"


def test_every_constrained_field_has_a_bad_value_case():
    """A new range or mode on a field must come with its one-line message above."""
    # A case names the flag it tries last (after the --protocol and --bank it needs).
    tried = {[x for x in a if x.startswith("--")][-1] for a, _ in BAD_EVALUATE} | {"--timeout-s"}
    for flags, cases in ((EVALUATE_FLAGS, tried), (BUILD_FLAGS, {a[0] for a, _ in BAD_BUILD} | {"--stop-entity-share"})):
        constrained = {f.flag for f in flags if f.info.metadata or "Literal" in str(f.info.annotation)}
        assert constrained <= cases, constrained - cases


# ----------------------------------------------------------------------------- saved configs
def every_field_changed() -> EvalConfig:
    return EvalConfig(
        target="t", judge="j", data=Path("/d"), graph=Path("/g"), batch_size=5, rounds=0, hops=3, limit=9, seed=7,
        concurrency=2, no_graph=True, fixed_difficulty="easy", no_extension=True, eval_every_round=True, reask_correct=True,
        report=False, summary=False, gate=False, check_hops=False, gate_overlap=False, seed_similarity=0.8,
        generation_tries=4, leak_threshold=0.7, controls=False, bootstrap=500, decontaminate="unclarify", out=Path("/o"),
        resume=Path("/r"),
        difficulty=DifficultyConfig(gain_easy=0.5, gain_medium=1.0, gain_hard=3.0, t1=0.2, t2=0.9, hard_wrong_penalty=0.2),
        llm=LLMConfig(models_file=Path("/m.toml"), cache=Path("/c"), no_cache=True, max_requests=3, budget_usd=0.5,
                      max_attempts=1, timeout_s=9.5, breaker_window=4, breaker_failure_share=0.5, batch_api=True,
                      batch_api_deadline="1h30m", batch_api_poll_s=3.0),
        graph_build=GraphConfig(extractor="llm", workers=3, chunk_tokens=64, section_chunks=2, stop_entity_share=0.5,
                                embed_batch_size=8, force=True, out=Path("/go"), judge="k"),
    )


@pytest.mark.parametrize("cfg", [EvalConfig(), every_field_changed()], ids=["defaults", "every-field-changed"])
def test_config_round_trips_through_json(cfg):
    cfg = resolved(cfg)  # as config.json keeps it: every option of the protocol spelt out
    text = json.dumps(cfg.model_dump(mode="json"))
    assert EvalConfig.model_validate(json.loads(text)) == cfg
    assert cfg.to_json() == cfg.model_dump(mode="json")


def write_run_config(folder: Path, eval_config: dict, settings: list | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.json"
    path.write_text(json.dumps({"settings": {"settings": settings or [{"name": "full"}]}, "eval_config": eval_config}))
    return path


def test_config_flag_loads_the_saved_config_and_flags_override_it(captured, tmp_path):
    saved = resolved(every_field_changed())
    path = write_run_config(tmp_path / "run", saved.model_dump(mode="json"))
    res = invoke("evaluate", "--config", str(path), "--seed", "11", "--t2", "2")
    assert res.exit_code == 2 and "captured" in res.output
    options = saved.options | {"difficulty": saved.options["difficulty"] | {"t2": 2.0}}
    expected = saved.model_copy(update={"seed": 11, "resume": (tmp_path / "run").resolve(), "options": options})
    assert captured == [expected]
    # Naming where the run goes starts a new run with the saved settings.
    captured.clear()
    invoke("evaluate", "--config", str(path), "--out", str(tmp_path / "new"))
    assert captured[0].resume is None and captured[0].out == tmp_path / "new" and captured[0].seed == 7


def test_a_run_written_before_eval_config_is_read_from_its_settings(captured, tmp_path):
    path = tmp_path / "old" / "config.json"
    path.parent.mkdir()
    # One flat list of every setting of every mode, as runs were saved before the engine.
    settings = EvalConfig().to_json() | {"batch_size": 2, "limit": 4, "rounds": 3, "kieval_turns": 5, "bank": None}
    for k in ("out", "resume", "options", "protocol"):
        settings.pop(k)
    settings["llm"] = {"max_attempts": 6}
    path.write_text(json.dumps({"settings": settings | {"settings": [{"name": "full"}]}}))
    invoke("evaluate", "--config", str(path))
    assert captured == [resolved(EvalConfig(batch_size=2, limit=4, resume=path.parent.resolve()))]


@pytest.mark.parametrize(
    "eval_config,message",
    [
        ({"batch_size": 0}, "{path}: batch_size must be an integer ≥ 1 (got 0)"),
        ({"llm": {"timeout_s": -1}}, "{path}: llm.timeout_s must be a number > 0 (got -1)"),
        ({"fixed_difficulty": "extreme"}, "{path}: fixed_difficulty must be one of easy, medium, hard (got extreme)"),
        ({"difficulty": {"t1": 2}}, "{path}: difficulty: t2 (1) must be greater than t1 (2)"),
        ({"batch_sise": 3}, "{path}: unknown setting batch_sise"),
        ({"options": {"batch_sise": 3}}, "{path}: batch_sise: unknown setting"),
        ({"options": {"kieval_turns": 3}}, "{path}: kieval_turns belongs to the kieval protocol, not to --protocol judgeagent"),
    ],
)
def test_a_bad_config_file_is_one_line_naming_the_file_and_field(eval_config, message, captured, tmp_path):
    path = write_run_config(tmp_path / "run", eval_config)
    res = invoke("evaluate", "--config", str(path))
    assert res.exit_code == 2
    assert res.output == "error: " + message.format(path=path) + "\n"
    assert captured == []


def test_any_run_replays_through_evaluate_and_a_config_of_another_kind_or_no_run_is_refused(captured, tmp_path):
    ablation = write_run_config(tmp_path / "abl", {}, settings=[{"name": "full"}, {"name": "no graph"}])
    invoke("evaluate", "--config", str(ablation))
    assert captured.pop().options["ablation"] is True  # `evaluate --config` re-creates any kind of run
    res = invoke("contamination", "--config", str(ablation))
    assert res.exit_code == 2
    assert res.output == f"error: {ablation}: ablation belongs to the judgeagent protocol, not to --protocol contamination\n"
    (tmp_path / "junk.json").write_text("[1, 2]")
    res = invoke("evaluate", "--config", str(tmp_path / "junk.json"))
    assert res.exit_code == 2 and res.output == f"error: {tmp_path / 'junk.json'}: not a run's config.json (no eval_config)\n"
    assert captured == []


def test_config_json_replays_the_run_from_another_working_directory(tmp_path, demo_graph, demo_seeds, monkeypatch):
    script = Script(
        seed_plan={q.question.strip(): p for q, p in zip(demo_seeds, PLAN)},
        answers={q.question.strip(): q.answer for q in demo_seeds},
    )
    first, elsewhere = tmp_path / "first", tmp_path / "elsewhere"
    shutil.copytree(DATA, first / "data" / "medqa-demo")
    elsewhere.mkdir()
    with ScriptedServer(script) as srv:
        model = f"{srv.base_url}@scripted"
        # Relative paths, resolved against the first working directory.
        monkeypatch.chdir(first)
        res = invoke("evaluate", "--target", model, "--judge", model, "--data", "data/medqa-demo", "--graph", str(demo_graph),
                     "--limit", "6", "--concurrency", "2", "--bootstrap", "500", "--out", "ev")
        assert res.exit_code == 0, res.output
        sent = len(srv.requests)
        ref = json.loads((first / "ev" / "metrics.json").read_text())
        saved = json.loads((first / "ev" / "config.json").read_text())["eval_config"]

        monkeypatch.chdir(elsewhere)
        res = invoke("evaluate", "--config", "../first/ev/config.json")
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == sent  # replayed from the journal: no request sent
    assert f"run folder: {(first / 'ev').resolve()}" in res.output.replace("\n", "")
    assert saved["data"] == str((first / "data" / "medqa-demo").resolve()) and saved["options"]["bootstrap"] == 500
    replay = json.loads((first / "ev" / "metrics.json").read_text())
    assert replay["llm_usage"]["run_total"] == ref["llm_usage"]["run_total"]
    assert replay["llm_usage"]["total"]["http_requests"] == 0
    for d in (ref, replay):
        d.pop("llm_usage")
        d.pop("timings")
    assert replay == ref
    assert not list(elsewhere.iterdir())  # nothing written where the replay ran


def test_config_json_replays_a_contamination_probe(tmp_path, demo_graph, demo_seeds, monkeypatch):
    script = Script(
        seed_plan={q.question.strip(): (r, r) for q, r in zip(demo_seeds, [True, False, True, True, False, True], strict=True)},
        answers={q.question.strip(): q.answer for q in demo_seeds},
    )
    with ScriptedServer(script) as srv:
        model = f"{srv.base_url}@scripted"
        res = invoke("contamination", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(demo_graph),
                     "--limit", "6", "--batch-size", "2", "--out", str(tmp_path / "probe"))
        assert res.exit_code == 0, res.output
        sent = len(srv.requests)
        ref = json.loads((tmp_path / "probe" / "contamination.json").read_text())
        monkeypatch.chdir(tmp_path)
        res = invoke("contamination", "--config", "probe/config.json")
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == sent
        # Any run replays through `evaluate --config` as well; an ablation of a probe is refused.
        res = invoke("evaluate", "--config", "probe/config.json")
        assert res.exit_code == 0 and len(srv.requests) == sent, res.output
        res = invoke("ablate", "--config", "probe/config.json")
        assert res.exit_code == 2 and "--ablation belongs to the judgeagent protocol, not to --protocol contamination" in res.output
    replay = json.loads((tmp_path / "probe" / "contamination.json").read_text())
    for d in (ref, replay):
        d.pop("llm_usage")
    assert replay == ref and ref["n_batches"] == 3


# A sweep's settings that a run or the interview also has are those fields themselves (issue 31).
SWEEP_SHARES = {"judge": EvalConfig, "data": EvalConfig, "graph": EvalConfig, "seed": EvalConfig, "concurrency": EvalConfig, "report": EvalConfig,
                "llm": EvalConfig, "limit": "judgeagent", "batch_size": "judgeagent", "rounds": "judgeagent", "bootstrap": "judgeagent"}


@pytest.mark.parametrize("name", sorted(SWEEP_SHARES))
def test_a_sweep_setting_shared_with_a_run_has_the_runs_type_default_and_range(name):
    from judgeagent.protocols.judgeagent import JudgeAgentOptions
    from judgeagent.sweeps.config import SweepConfig

    source = JudgeAgentOptions if SWEEP_SHARES[name] == "judgeagent" else SWEEP_SHARES[name]
    mine, theirs = SweepConfig.model_fields[name], source.model_fields[name]
    assert mine.annotation == theirs.annotation
    assert mine.metadata == theirs.metadata
    assert mine.get_default(call_default_factory=True) == theirs.get_default(call_default_factory=True)
    assert mine.description.startswith(theirs.description)
    assert getattr(SweepConfig(targets=["a"]), name) == getattr(source(), name)

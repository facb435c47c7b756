"""``judgeagent export RUN_DIR --format inspect``: a run as an Inspect AI eval log.

Built with inspect-ai's own log types and written by its ``write_eval_log``, so ``inspect
view`` shows our interviews beside a team's other evaluations. One sample per seed question
(scored before and after the judge's feedback: ``acc1``, ``acc2``) and one per follow-up
question (scored ``extension``); the run's paper metrics are the log's results.
"""

from __future__ import annotations

import json
from pathlib import Path

from judgeagent.bank.export import _optional, run_exporter
from judgeagent.engine.folder import RunFolder


def _text(q: dict) -> str:
    lines = [q["question"].strip(), *(f"{k}. {v}" for k, v in (q.get("options") or {}).items())]
    return "\n".join(lines)


def _grade(correct: bool | None) -> str:
    return "C" if correct else "I"


def _sample(rec: dict, q: dict, reply: str, model: str, scores: dict, metadata: dict):
    """One asked question as an Inspect sample: the question, the target's reply and its scores."""
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput

    return EvalSample(
        id=f"{rec.get('setting', 'full')}:{q['id']}", epoch=1, input=_text(q), target=q["answer"],
        choices=list((q.get("options") or {}).values()) or None,
        messages=[ChatMessageUser(content=_text(q)), ChatMessageAssistant(content=reply)],
        output=ModelOutput.from_content(model, reply),
        scores=scores, metadata={"batch_id": rec["batch_id"], **metadata},
    )


def seed_samples(rec: dict, model: str) -> list:
    """The batch's seed questions: the first answer, and the re-answer after the feedback."""
    from inspect_ai.scorer import Score

    last = (rec.get("validations") or [{}])[-1]
    reanswers = last.get("reanswers") or rec["seed_answers"]
    suggestions = (last.get("evaluation") or {}).get("suggestions")
    return [
        _sample(rec, q, a.get("reply") or "", model,
                {"acc1": Score(value=_grade(a["correct"]), answer=a.get("chosen")),
                 "acc2": Score(value=_grade(re["correct"]), answer=re.get("chosen"), explanation=suggestions)},
                {"kind": "seed", "difficulty": q.get("difficulty")})
        for q, a, re in zip(rec["seed"], rec["seed_answers"], reanswers)
    ]


def followup_samples(rec: dict, model: str) -> list:
    from inspect_ai.scorer import Score

    asked = [rd for rd in rec.get("rounds") or [] if rd.get("question") and rd.get("answer")]
    return [
        _sample(rec, rd["question"], rd["answer"].get("reply") or "", model,
                {"extension": Score(value=_grade(rd["answer"]["correct"]), answer=rd["answer"].get("chosen"))},
                {"kind": "follow-up", "round": rd["round"], "level": rd["level"],
                 "chunk_ids": [s["chunk_id"] for s in (rd.get("path") or {}).get("steps", [])]})
        for rd in asked
    ]


def results(metrics: dict, samples: list):
    """The paper's figures (percentages of the seed questions) and the follow-ups' accuracy."""
    from inspect_ai.log import EvalMetric, EvalResults, EvalScore

    names = ("acc1", "acc2", "cr", "cte", "delta_acc")
    paper = {n: EvalMetric(name=n, value=float(metrics[n])) for n in names if metrics.get(n) is not None}
    scores = [EvalScore(name="judgeagent", scorer="judgeagent", metrics=paper)]
    graded = [s.scores["extension"].value == "C" for s in samples if "extension" in (s.scores or {})]
    if graded:
        accuracy = EvalMetric(name="accuracy", value=round(100 * sum(graded) / len(graded), 2))
        scores.append(EvalScore(name="extension", scorer="judgeagent", metrics={"accuracy": accuracy}))
    return EvalResults(total_samples=len(samples), completed_samples=len(samples), scores=scores)


@run_exporter("inspect")
def run_to_inspect(run_dir: Path, out: Path) -> list[Path]:
    _optional("inspect_ai", "inspect")
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSpec, write_eval_log

    folder = RunFolder(run_dir)
    config = folder.read_config()
    metrics = json.loads(folder.metrics_path.read_text()) if folder.metrics_path.exists() else {}
    target = (config.get("models") or {}).get("target") or {}
    model = f"judgeagent/{target.get('name', 'target')}"
    records = [r for r in folder.read_records() if r.get("setting", "full") == "full"]
    samples = [s for rec in records for s in (*seed_samples(rec, model), *followup_samples(rec, model))]
    bench = config.get("benchmark") or {}
    spec = EvalSpec(
        created=config.get("created") or "1970-01-01T00:00:00+00:00", task="judgeagent/interview",
        dataset=EvalDataset(name=bench.get("name"), samples=len(samples)), model=model, config=EvalConfig(),
        task_args={"judge": ((config.get("models") or {}).get("judge") or {}).get("name")},
        metadata={"judgeagent_run": str(Path(run_dir).resolve()), "graph": config.get("graph")},
    )
    log = EvalLog(eval=spec, status="success", results=results(metrics, samples), samples=samples)
    out = out if out.suffix in (".eval", ".json") else out / f"{Path(run_dir).resolve().name}.eval"
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(out))
    return [out]

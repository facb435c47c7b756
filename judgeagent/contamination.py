"""The contamination probe (the JudgeAgent paper, Appendix E.1): does the target do better on
the published seed questions than on new questions about the same knowledge?

For every batch of seed questions:
1. the target answers the seeds (stage 1, as in an interview);
2. a knowledge path is planned from the seeds' entities (the full method's plan_batch), and the
   judge writes one new question per seed from successive windows of it, at the seed's
   difficulty label — or at "medium" when the benchmark has no labels, the level an
   unlabeled seed counts as in the difficulty controller;
3. the target answers the new questions in the same form (one prompt per batch; reading
   questions one at a time, each with its own passage), and they are graded.

gap = acc_seed − acc_generated, in percentage points, with a bootstrap interval that resamples
the two groups independently (they are different questions, not pairs). A large positive gap
suggests the seeds, not the knowledge, were learned. Generated questions are also harder to
answer for reasons other than contamination (new wording, judge-written distractors), so a
small gap is the meaningful null, not exactly zero.

Everything lands in a run folder like an interview's: config.json, records.jsonl (one line per
probed batch), journal.sqlite (so rerunning the command resumes it) and contamination.json.
A batch one of whose calls brought no answer is left out of the figures and listed, with the
reason, under "incomplete" (as in metrics.json); Ctrl-C stops the probe as it stops evaluate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from judgeagent.batches import Batch
from judgeagent.config import EvalConfig
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.followup import FollowUp, FollowUpWriter
from judgeagent.interview import Setting, grade_seeds, record_head
from judgeagent.metrics.stats import unpaired_gap_ci
from judgeagent.metrics.summary import incomplete_summary
from judgeagent.run import run_config
from judgeagent.runfolder import data_name, settings_json
from judgeagent.scaffold import RunScaffold
from judgeagent.stages.gate import gate_summary
from judgeagent.stages.grading import Answer, ask_batch
from judgeagent.stages.models import Models

PROBE = Setting("full")  # the path is planned as in a full interview: from the seeds' entities
UNLABELED = "unlabeled"
LEVEL = 0.95


def _acc(flags: Sequence[bool]) -> float | None:
    return round(100.0 * sum(map(bool, flags)) / len(flags), 4) if flags else None


def _gap_figures(seed_flags: Sequence[bool], gen_flags: Sequence[bool], *, seed: int, n_resamples: int) -> dict:
    acc_s, acc_g = _acc(seed_flags), _acc(gen_flags)
    ci = unpaired_gap_ci(seed_flags, gen_flags, n_resamples=n_resamples, seed=seed, level=LEVEL)
    return {
        "n_seed": len(seed_flags),
        "n_generated": len(gen_flags),
        "acc_seed": acc_s,
        "acc_generated": acc_g,
        "gap": round(acc_s - acc_g, 4) if acc_s is not None and acc_g is not None else None,
        "gap_ci": list(ci) if ci is not None else None,
    }


def contamination_metrics(
    seed_flags: Sequence[bool],
    gen_flags: Sequence[bool],
    seed_labels: Sequence[str | None],
    gen_labels: Sequence[str | None],
    *,
    seed: int = 0,
    n_resamples: int = 2000,
) -> dict:
    """Accuracies (percent), gap = acc_seed − acc_generated (points) with a 95% bootstrap CI,
    overall and per difficulty label (None → "unlabeled"). A figure with no questions is None."""
    if len(seed_flags) != len(seed_labels) or len(gen_flags) != len(gen_labels):
        raise ValueError("every correctness flag needs a label")
    out = _gap_figures(seed_flags, gen_flags, seed=seed, n_resamples=n_resamples) | {"level": LEVEL, "n_resamples": n_resamples}
    s_labels = [lab or UNLABELED for lab in seed_labels]
    g_labels = [lab or UNLABELED for lab in gen_labels]
    out["by_difficulty"] = {
        label: _gap_figures(
            [f for f, lab in zip(seed_flags, s_labels) if lab == label],
            [f for f, lab in zip(gen_flags, g_labels) if lab == label],
            seed=seed,
            n_resamples=n_resamples,
        )
        for label in sorted(set(s_labels) | set(g_labels))
    }
    return out


async def probe_batch(models: Models, bench: Benchmark, batch: Batch, plan: dict, cfg: EvalConfig, gate=None) -> dict:
    """Seed answers and one matched generated question per seed, graded. Returns the record."""
    seed_answers = await grade_seeds(models, bench, batch)
    writer = FollowUpWriter.for_batch(models, bench, batch, plan, cfg, gate)
    items: list[dict] = []
    written: list[tuple[dict, Question, str | None]] = []  # (item, question, its passages)
    for i, seed_q in enumerate(batch.questions):
        level = seed_q.difficulty or "medium"
        followup = await writer.write(i, level, qid=f"{batch.id}-c{i + 1}")
        items.append(_generated_item(seed_q, level, followup))
        if followup.question is not None:
            written.append((items[-1], followup.question, followup.source))
    answers = await ask_generated(models, bench, [(q, src) for _, q, src in written])
    for (item, _, _), answer in zip(written, answers):
        item["answer"] = answer.to_dict()
    return record_head(batch, plan, seed_answers) | {"generated": items}


def _generated_item(seed_q: Question, level: str, followup: FollowUp) -> dict:
    question = followup.question.to_dict() if followup.question is not None else None
    return {"seed_id": seed_q.id, "seed_difficulty": seed_q.difficulty, "level": level, "path": followup.path,
            "question": question, "answer": None, "skipped": followup.skipped, **followup.generation()}


async def ask_generated(models: Models, bench: Benchmark, written: list[tuple[Question, str | None]]) -> list[Answer]:
    """The target answers the generated questions (each with the passages it was written from)
    in the form it answered the seeds."""
    if bench.qtype.shows_context:
        # Each reading question needs its own passage, so they cannot share one prompt.
        return [(await ask_batch(models, bench.qtype, [q], stage="contamination", context=src))[0] for q, src in written]
    # One prompt, like the seeds were asked: the two groups differ in the questions only.
    return await ask_batch(models, bench.qtype, [q for q, _ in written], stage="contamination") if written else []


def summarize(records: list[dict], *, seed: int) -> dict:
    """contamination_metrics over the records, plus counts of generated and skipped questions."""
    seed_flags, seed_labels, gen_flags, gen_labels = [], [], [], []
    skipped: Counter = Counter()
    for rec in records:
        seed_flags += [a["correct"] for a in rec["seed_answers"]]
        seed_labels += [q["difficulty"] for q in rec["seed"]]
        for item in rec["generated"]:
            if item["answer"] is None:
                skipped[item["skipped"] or "not asked"] += 1
                continue
            gen_flags.append(item["answer"]["correct"])
            # Grouped with the seed it was matched to, so an unlabeled benchmark stays one group.
            gen_labels.append(item["seed_difficulty"])
    m = contamination_metrics(seed_flags, gen_flags, seed_labels, gen_labels, seed=seed)
    gate = gate_summary([item for rec in records for item in rec["generated"]])
    return m | {"generated": len(gen_flags), "skipped": sum(skipped.values()), "skipped_reasons": dict(skipped), "gate": gate}


def run_contamination(cfg: EvalConfig, *, console=None) -> dict:
    """Run the probe and write contamination.json into the run folder; returns its content
    (with "folder" set). ``console``: a rich Console for progress, or None for a quiet run.

    Ctrl-C raises RunInterrupted (the folder stays resumable), as for evaluate; see RunScaffold.drive."""
    # One generated question per seed, from successive path windows: a path as long as an
    # interview with batch_size rounds.
    cfg = cfg.model_copy(update={"rounds": cfg.batch_size})
    identity = settings_json(cfg, (PROBE,)) | {"probe": "contamination"}
    run = RunScaffold.open(cfg, (PROBE,), identity, name=f"contamination-{cfg.target}", label="contamination probe",
                           progress=console is not None, console=console, command="contamination")
    return run.drive(lambda: _run(run, identity))


async def _run(run: RunScaffold, identity: dict) -> dict:
    cfg = run.cfg
    done = {r["batch_id"]: r for r in run.folder.read_records()}
    async with run.connected() as models:
        graph, plans = run.graph_and_plans([(PROBE, b) for b in run.batches if b.id not in done])
        run.folder.write_json("config.json", run_config(cfg, identity, run.bench, run.batches, graph, run.target, run.judge))
        # The same quality gate as an interview: an unsound question would widen the gap by itself.
        gate = run.gates(graph, run.embedding_queue(graph), done.values()).get(PROBE.name)

        async def work(b: Batch) -> None:
            if b.id not in done:
                run.folder.append_record(await probe_batch(models, run.bench, b, plans[(PROBE.name, b.id)], cfg, gate))

        await run.run_batches(work)
        usage = run.llm_usage()

    records = sorted(run.folder.read_records(), key=lambda r: r["batch_index"])
    result = contamination_json(run, records, usage)
    run.folder.write_json("contamination.json", result)
    run.raise_if_stopped(len(records))
    return result | {"folder": str(run.folder.path)}


def contamination_json(run: RunScaffold, records: list[dict], usage: dict) -> dict:
    """contamination.json: the figures over the finished batches alone, and which batches are
    missing and why, as metrics.json says it: a call that brought no answer must not read as
    a gap, and the reader must see that the figures cover part of the seeds."""
    cfg = run.cfg
    finished = {r["batch_id"] for r in records}
    return {
        "target": cfg.target,
        "judge": cfg.judge,
        "data": data_name(cfg),
        **summarize(records, seed=cfg.seed),
        "n_batches": len(records),
        "complete": run.complete and len(records) == len(run.batches),
        "incomplete": incomplete_summary([b.id for b in run.batches if b.id not in finished], run.incomplete, run.stopped),
        "llm_usage": usage,
    }

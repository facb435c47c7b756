"""`judgeagent validate SWEEP_DIR [--reference FILE.csv]` through the CLI, on sweep folders
built here in the layout `judgeagent sweep` writes (judgeagent/sweeps/__init__.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.metrics.ranking import difficulty_check, rank_agreement

TARGETS = ["alpha", "Beta-7B", "gamma"]


def _cells(x) -> list[list[int | None]]:
    return [[None if np.isnan(v) else int(v) for v in row] for row in np.asarray(x, dtype=float)]


def write_sweep(folder: Path, generated, seeds, *, clusters=None, seed_clusters=None, levels=None, counted_as=None, targets=TARGETS) -> Path:
    """A finished sweep folder holding what validate reads: sweep.json, shared_items.json and
    leaderboard.json with its per-item matrices."""
    generated, seeds = np.asarray(generated, dtype=float), np.asarray(seeds, dtype=float)
    items = [f"q{j}" for j in range(generated.shape[1])]
    questions = [f"s{j}" for j in range(seeds.shape[1])]
    clusters = clusters or [f"b{j}" for j in range(len(items))]
    seed_clusters = seed_clusters or [f"seedbatch{j}" for j in range(len(questions))]
    levels = levels or ["medium"] * len(items)
    folder.mkdir(parents=True)
    (folder / "sweep.json").write_text(json.dumps({"version": 1, "targets": [{"name": t, "status": "ok"} for t in targets], "complete": True}))
    shared = [{"item_id": i, "level": lv, "counted_as": (counted_as or levels)[j], "cluster": c} for j, (i, lv, c) in enumerate(zip(items, levels, clusters))]
    (folder / "shared_items.json").write_text(json.dumps({"items": shared}))
    board = {
        "version": 1,
        "targets": [{"name": t} for t in targets],
        "matrix": {"targets": targets, "items": items, "clusters": clusters, "levels": levels, "correct": _cells(generated)},
        "seed_matrix": {"questions": questions, "clusters": seed_clusters, "correct": _cells(seeds)},
        "n_bootstrap": 500,
        "seed": 0,
    }
    (folder / "leaderboard.json").write_text(json.dumps(board))
    return folder


# Generated: alpha 75%, Beta 50%, gamma 25%; seeds: alpha 75%, Beta 25%, gamma 50%. One
# cluster on each side, so every resample would redraw all the data and the intervals would be
# points: they are the whole range instead (fewer than MIN_UNITS batches).
# Spearman of ranks (3, 2, 1) and (3, 1, 2) is 1/2; Kendall's tau-b (pairs +, +, −) is 1/3.
GEN = [[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]]
SEEDS = [[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 0, 0]]
ONE = {"clusters": ["k"] * 4, "seed_clusters": ["s"] * 4}


def invoke(*args: str):
    return CliRunner().invoke(app, ["validate", *map(str, args)])


def as_json(*args) -> dict:
    res = invoke(*args, "--json")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_rank_agreement_with_seeds_and_a_reference_hand_computed(tmp_path):
    sweep = write_sweep(tmp_path / "sweep", GEN, SEEDS, levels=["easy", "easy", "medium", "hard"], **ONE)
    ref = tmp_path / "board.csv"
    ref.write_text("model,score,notes\nalpha,71.5,x\nBeta-7B,60,\ngamma,12.25,y\n")
    out = as_json(sweep, "--reference", ref)
    assert [(t["name"], t["generated_accuracy"], t["seed_accuracy"], t["reference_score"]) for t in out["targets"]] == [
        ("alpha", 75.0, 75.0, 71.5),
        ("Beta-7B", 50.0, 25.0, 60.0),
        ("gamma", 25.0, 50.0, 12.25),
    ]
    a, b = out["vs_seeds"], out["vs_reference"]
    assert (a["n_targets"], a["spearman"], a["spearman_ci"], a["kendall"], a["kendall_ci"], a["thin"]) == (3, 0.5, [-1.0, 1.0], 0.3333, [-1.0, 1.0], True)
    assert (b["n_targets"], b["spearman"], b["spearman_ci"], b["kendall"], b["kendall_ci"], b["thin"]) == (3, 1.0, [-1.0, 1.0], 1.0, [-1.0, 1.0], True)
    assert (out["n_shared_items"], out["n_seed_questions"], out["n_bootstrap"], out["not_on_reference"]) == (4, 4, 500, [])
    # Difficulty: seeds 6/12 = 50%; generated 6/12 = 50%; Easy 5/6, Medium 1/3, Hard 0/3.
    rows = {r["level"]: (r["n_items"], r["n_answers"], r["accuracy"], r["gap_vs_seeds"]) for r in out["difficulty"]["rows"]}
    assert rows == {
        "seeds": (4, 12, 50.0, None),
        "all generated": (4, 12, 50.0, 0.0),
        "Easy": (2, 6, 83.3333, 33.3333),
        "Medium": (1, 3, 33.3333, -16.6667),
        "Hard": (1, 3, 0.0, -50.0),
    }
    assert out["difficulty"]["ordered"] is True
    # One cluster each side: the gap's interval is the whole range, so Hard is not shown harder (a point, −50, would claim it).
    assert out["difficulty"]["hard_harder_than_seeds"] is False


def test_the_printed_table(tmp_path):
    sweep = write_sweep(tmp_path / "sweep", GEN, SEEDS, levels=["easy", "easy", "medium", "hard"], **ONE)
    ref = tmp_path / "board.csv"
    ref.write_text("model,score\nalpha,3\nbeta-7b,2\ngamma,1\n")  # a folder name (slug) names a target too
    res = invoke(sweep, "--reference", ref)
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "3 targets, 4 shared generated items, 4 seed questions (500 bootstrap resamples over batches, seed 0)" in text
    seeds_row = next(line for line in text.splitlines() if "(a) seeds, ACC1" in line)
    assert [cell.strip() for cell in seeds_row.split("│")[2:5]] == ["3", "0.50 [-1.00, 1.00]", "0.33 [-1.00, 1.00]"]
    assert f"(b) reference: {ref}" in text
    ref_row = next(line for line in text.splitlines() if "(b) board.csv" in line)
    assert [cell.strip() for cell in ref_row.split("│")[2:5]] == ["3", "1.00 [-1.00, 1.00]", "1.00 [-1.00, 1.00]"]
    assert "rank agreement: intervals shown as the whole range where they rest on fewer than 3 batches (one resamples to itself)" in " ".join(text.split())
    hard = next(line for line in text.splitlines() if line.strip().startswith("Hard "))
    assert hard.split() == ["Hard", "1", "1", "0.0", "[0.0,", "100.0]", "-50.0", "[-100.0,", "100.0]"]
    # One cluster each side: every interval would be a point; shown as the whole range, the order shows by the point estimates only.
    assert ("Easy > Medium > Hard: yes by the point estimates, no by the intervals (Easy − Medium 50.0 [-100.0, 100.0]; "
            "Medium − Hard 33.3 [-100.0, 100.0]); Hard harder than the seeds: no; generated items easier than the seeds: no") in " ".join(text.split())
    names = [line.split("│")[1].strip() for line in text.split("scores (%)")[1].split("rank agreement")[0].splitlines() if line.count("│") > 2]
    assert names == ["alpha", "Beta-7B", "gamma"]  # best first on the generated items


def test_intervals_resample_batches_and_match_the_maths(tmp_path):
    rng = np.random.default_rng(2)
    ability = np.array([1.5, 0.0, -1.5])
    gen = (rng.random((3, 60)) < 1 / (1 + np.exp(-(ability[:, None] - rng.normal(size=60))))).astype(float)
    seeds = (rng.random((3, 40)) < 1 / (1 + np.exp(-(ability[:, None] - 0.5)))).astype(float)
    gen[1, :3] = np.nan  # a target that failed three items: not wrong, not counted
    clusters = [f"t/b{j // 4}" for j in range(60)]
    seed_clusters = [f"b{j // 5}" for j in range(40)]
    levels = [("easy", "medium", "hard")[j % 3] for j in range(60)]
    sweep = write_sweep(tmp_path / "sweep", gen, seeds, clusters=clusters, seed_clusters=seed_clusters, levels=levels)
    out = as_json(sweep, "--bootstrap", 300, "--seed", 5)
    expected = rank_agreement(gen, clusters, seeds, reference_clusters=seed_clusters, n_resamples=300, seed=5)
    assert out["vs_seeds"] == expected.to_dict()
    assert out["difficulty"] == difficulty_check(gen, levels, seeds, clusters=clusters, seed_clusters=seed_clusters, n_resamples=300, seed=5).to_dict()
    assert out["vs_reference"] is None and out["reference"] is None
    assert out["targets"][1]["generated_accuracy"] == pytest.approx(100 * np.nansum(gen[1]) / 57, abs=1e-4)


def test_levels_come_from_counted_as(tmp_path):
    # A Hard item one passage answers counts as Medium: the check uses the level it counts as.
    sweep = write_sweep(tmp_path / "sweep", GEN, SEEDS, levels=["easy", "easy", "hard", "hard"], counted_as=["easy", "easy", "medium", "hard"], **ONE)
    rows = {r["level"]: r["n_items"] for r in as_json(sweep)["difficulty"]["rows"]}
    assert rows == {"seeds": 4, "all generated": 4, "Easy": 2, "Medium": 1, "Hard": 1}


def test_a_reference_that_misses_a_target_leaves_it_out(tmp_path):
    sweep = write_sweep(tmp_path / "sweep", GEN, SEEDS, **ONE)
    ref = tmp_path / "board.csv"
    ref.write_text("score,model\n10,gamma\n\n20,alpha\n")  # any column order; blank lines allowed
    out = as_json(sweep, "--reference", ref)
    assert out["not_on_reference"] == ["Beta-7B"]
    # alpha 75 vs 20, gamma 25 vs 10: the same order over the two on the reference.
    assert (out["vs_reference"]["n_targets"], out["vs_reference"]["spearman"]) == (2, 1.0)


def test_a_target_that_failed_in_the_sweep_may_be_on_the_reference(tmp_path):
    # delta's interview failed: it is in sweep.json but has no row in the matrices.
    sweep = write_sweep(tmp_path / "sweep", GEN, SEEDS, **ONE)
    (sweep / "sweep.json").write_text(json.dumps({"targets": [{"name": t, "status": "ok"} for t in TARGETS] + [{"name": "delta", "status": "failed"}]}))
    ref = tmp_path / "board.csv"
    ref.write_text("model,score\nalpha,3\ndelta,9\ngamma,1\nBeta-7B,2\n")
    out = as_json(sweep, "--reference", ref)
    assert out["unranked"] == ["delta"] and out["not_on_reference"] == []
    assert (out["vs_reference"]["n_targets"], out["vs_reference"]["spearman"]) == (3, 1.0)
    res = invoke(sweep, "--reference", ref)
    assert res.exit_code == 0 and "failed in the sweep, not ranked: delta" in res.stdout
    ref.write_text("model,score\nepsilon,1\n")
    res = invoke(sweep, "--reference", ref)
    assert res.stderr.strip() == f"error: {ref}:2: unknown model 'epsilon': the sweep's targets are alpha, Beta-7B, gamma, delta"


BAD_REFERENCES = [
    ("model,points\nalpha,1\n", 1, "missing column 'score' (the header has: model, points; expected model,score)"),
    ("name,score\nalpha,1\n", 1, "missing column 'model' (the header has: name, score; expected model,score)"),
    ("", 1, "empty: expected a header row with the columns model,score"),
    ("model,score\nalpha,1\ndelta,2\n", 3, "unknown model 'delta': the sweep's targets are alpha, Beta-7B, gamma"),
    ("model,score\nalpha,1\ngamma,2\nalpha,3\n", 4, "model 'alpha' is listed twice (first on line 2)"),
    ("model,score\nalpha,high\n", 2, "score 'high' of model 'alpha' is not a number"),
    ("model,score\nalpha,\n", 2, "score '' of model 'alpha' is not a number"),
    ("model,score\nalpha,nan\n", 2, "score 'nan' of model 'alpha' is not a finite number"),
    ("model,score\nalpha\n", 2, "expected at least 2 fields (model,score), got 1"),
    ("model,score\n,3\n", 2, "empty model name"),
    ("model,score\n", 1, "no model rows after the header"),
]


@pytest.mark.parametrize("text, line, message", BAD_REFERENCES)
def test_a_malformed_reference_is_one_line_naming_file_and_line(tmp_path, text, line, message):
    sweep = write_sweep(tmp_path / "sweep", GEN, SEEDS, **ONE)
    ref = tmp_path / "board.csv"
    ref.write_text(text)
    res = invoke(sweep, "--reference", ref)
    assert res.exit_code == 2
    assert res.stderr.strip() == f"error: {ref}:{line}: {message}"
    assert "Traceback" not in res.output


def test_missing_or_unfinished_sweeps_are_one_line(tmp_path):
    res = invoke(tmp_path / "nowhere")
    assert res.exit_code == 2 and res.stderr.strip() == f"error: {tmp_path / 'nowhere'}: no such folder (pass the folder `judgeagent sweep` wrote)"
    (tmp_path / "plain").mkdir()
    res = invoke(tmp_path / "plain")
    assert res.exit_code == 2 and res.stderr.strip() == f"error: {tmp_path / 'plain'}: not a sweep folder (no sweep.json)"
    sweep = write_sweep(tmp_path / "sweep", GEN, SEEDS, **ONE)
    (sweep / "leaderboard.json").unlink()
    res = invoke(sweep)
    assert res.exit_code == 2 and "leaderboard.json: not found; the sweep has not finished" in res.stderr
    (sweep / "leaderboard.json").write_text("{not json")
    res = invoke(sweep)
    assert res.exit_code == 2 and res.stderr.strip().startswith(f"error: {sweep / 'leaderboard.json'}:1: not valid JSON")
    missing = write_sweep(tmp_path / "sweep2", GEN, SEEDS, **ONE)
    ref = tmp_path / "absent.csv"
    res = invoke(missing, "--reference", ref)
    assert res.exit_code == 2 and res.stderr.strip() == f"error: {ref}: not found"


def test_no_answered_shared_item_says_so(tmp_path):
    nan = float("nan")
    sweep = write_sweep(tmp_path / "sweep", [[nan] * 2] * 3, SEEDS, clusters=["k", "k"], seed_clusters=["s"] * 4)
    out = as_json(sweep)
    assert out["note"] == "no target answered a shared item: nothing to compare"
    assert out["vs_seeds"] is None and out["difficulty"] is None
    res = invoke(sweep)
    assert res.exit_code == 0 and "no target answered a shared item" in res.stdout


@pytest.mark.slow
def test_validate_a_real_sweep_of_known_ability_targets(tmp_path, demo_graph, demo_seeds):
    """The whole path: a sweep of three known-ability targets (tests/ability_server.py) with
    the scripted judge, then validate on its folder, with and without a reference."""
    import shutil

    from ability_server import AbilityTarget, ability_servers
    from interview_double import Script
    from scripted_server import ScriptedServer

    from judgeagent.sweeps import SweepConfig, sweep

    graph = tmp_path / "graphs" / "medqa-demo"
    shutil.copytree(demo_graph, graph)
    key = {q.question.strip(): q.answer for q in demo_seeds}
    doubles = [AbilityTarget(a, name=n, answers=key) for n, a in (("strong", 3.0), ("middle", 0.0), ("weak", -3.0))]
    with ability_servers(doubles) as servers, ScriptedServer(Script()) as judge:
        models = tmp_path / "judgeagent.toml"
        urls = {"judge": judge.base_url} | {d.name: s.base_url for d, s in zip(doubles, servers)}
        models.write_text("".join(f'[models.{n}]\nbase_url = "{u}"\nmodel = "{n}"\n\n' for n, u in urls.items()))
        cfg = SweepConfig.model_validate({
            "targets": ["weak", "strong", "middle"], "judge": "judge", "data": Path(__file__).resolve().parents[1] / "data" / "medqa-demo",
            "graph": graph, "limit": 6, "bootstrap": 300, "options": {"summary": False, "controls": False, "leak_check": "rules"},
            "out": tmp_path / "sweep", "report": False, "llm": {"models_file": models, "max_attempts": 1},
        })  # fmt: skip
        result = sweep(cfg)
        sent = [len(s.requests) for s in servers] + [len(judge.requests)]
        ref = tmp_path / "board.csv"
        ref.write_text("model,score\nstrong,90\nmiddle,50\nweak,10\n")
        out = as_json(result.sweep_dir, "--reference", ref)
        assert [len(s.requests) for s in servers] + [len(judge.requests)] == sent  # validate sends nothing
    assert all(d.unknown == [] for d in doubles)
    board = json.loads((result.sweep_dir / "leaderboard.json").read_text())
    accuracy = {t["name"]: t["generated_accuracy"] for t in out["targets"]}
    assert accuracy == {r["name"]: r["shared_accuracy"] for r in board["targets"]}
    assert out["n_shared_items"] == board["n_shared_items"] > 0
    assert out["vs_seeds"] == board["validity"]["seed_vs_generated"]  # the same figures the sweep shows
    assert out["vs_reference"]["n_targets"] == 3
    assert out["vs_reference"]["spearman"] == spearman_of(accuracy, {"strong": 90, "middle": 50, "weak": 10})
    res = invoke(result.sweep_dir, "--reference", ref)
    assert res.exit_code == 0 and "(b) board.csv" in res.stdout
    bad = tmp_path / "bad.csv"
    bad.write_text("model,score\nstrong,90\nlocal,50\n")
    res = invoke(result.sweep_dir, "--reference", bad)
    assert res.exit_code == 2 and res.stderr.strip() == f"error: {bad}:3: unknown model 'local': the sweep's targets are " + ", ".join(board["matrix"]["targets"])


def spearman_of(a: dict, b: dict) -> float | None:
    from judgeagent.metrics.ranking import spearman

    names = sorted(a)
    return spearman([a[n] for n in names], [b[n] for n in names])


def test_seeds_that_tie_every_target_have_no_correlation(tmp_path):
    # Every target got the same seeds right: ACC1 ranks them all equal, in every resample too.
    sweep = write_sweep(tmp_path / "sweep", GEN, [[1, 0, 1], [1, 0, 1], [1, 0, 1]], clusters=["k"] * 4)
    out = as_json(sweep)
    assert (out["vs_seeds"]["n_targets"], out["vs_seeds"]["spearman"], out["vs_seeds"]["spearman_ci"]) == (3, None, None)
    row = next(line for line in invoke(sweep).stdout.splitlines() if "(a) seeds, ACC1" in line)
    assert [cell.strip() for cell in row.split("│")[2:5]] == ["3", "tied –", "tied –"]

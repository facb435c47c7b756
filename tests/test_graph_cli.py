"""build-graph / graph-info / sample-path through the real Typer app."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app

DOCS = [
    ("heart", "Myocardial infarction follows rupture of an atherosclerotic plaque.\n\n"
              "Aspirin and heparin limit the thrombus in myocardial infarction."),
    ("blood", "Heparin potentiates antithrombin.\n\nWarfarin blocks vitamin K recycling in the liver."),
    ("lung", "Asthma causes reversible bronchoconstriction.\n\nInhaled corticosteroids reduce airway inflammation."),
]


@pytest.fixture
def data_dir(tmp_path):
    d = tmp_path / "tinybench"
    d.mkdir()
    (d / "corpus.jsonl").write_text("".join(json.dumps({"doc_id": i, "text": t}) + "\n" for i, t in DOCS))
    (d / "questions.jsonl").write_text(
        json.dumps({"id": "q1", "question": "What does heparin potentiate?", "answer": "antithrombin"}) + "\n"
    )
    return d


@pytest.fixture
def runner(spacy_extractor, embedder):
    # The fixtures load the models once; the commands then find them already in memory.
    return CliRunner()


def _build(runner, data_dir, out, *extra):
    return runner.invoke(app, ["build-graph", str(data_dir), "--out", str(out), "--stop-share", "1.0", *extra])


def test_build_then_reuse_then_force(runner, data_dir, tmp_path):
    out = tmp_path / "graphs" / "tiny"
    first = _build(runner, data_dir, out)
    assert first.exit_code == 0, first.output
    assert "built graph at" in first.stdout
    assert "entities" in first.stdout and "3 chunks, 3 documents" in first.stdout
    again = _build(runner, data_dir, out)
    assert again.exit_code == 0 and "reused graph" in again.stdout
    forced = _build(runner, data_dir, out, "--force")
    assert forced.exit_code == 0 and "built graph" in forced.stdout
    changed = _build(runner, data_dir, out, "--chunk-tokens", "16")
    assert changed.exit_code == 0 and "built graph" in changed.stdout


def test_bad_data_is_a_one_line_error(runner, tmp_path):
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["build-graph", str(tmp_path / "empty"), "--out", str(tmp_path / "g")])
    assert result.exit_code == 2
    assert "error:" in result.stderr and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1


def test_graph_info_json(runner, data_dir, tmp_path):
    out = tmp_path / "g"
    assert _build(runner, data_dir, out).exit_code == 0
    result = runner.invoke(app, ["graph-info", str(out), "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["chunks"] == 3 and info["documents"] == 3
    assert info["nodes"] > 5 and info["edges"]["total"] == info["edges"]["strong"] + info["edges"]["weak"]
    for key in ("connected_components", "largest_component_share", "degree_quantiles",
                "top_entities_by_degree", "stop_entities"):
        assert key in info
    text = runner.invoke(app, ["graph-info", str(out)])
    assert text.exit_code == 0 and "top entities by degree" in text.stdout


def test_graph_info_on_missing_graph(runner, tmp_path):
    result = runner.invoke(app, ["graph-info", str(tmp_path / "nothing")])
    assert result.exit_code == 2 and "build-graph" in result.stderr


def test_sample_path_is_reproducible(runner, data_dir, tmp_path):
    out = tmp_path / "g"
    assert _build(runner, data_dir, out).exit_code == 0
    args = ["sample-path", str(out), "--entity", "Heparin", "--hops", "3", "--seed", "4"]
    a, b = runner.invoke(app, args), runner.invoke(app, args)
    assert a.exit_code == 0, a.output
    assert a.stdout == b.stdout
    assert "'heparin'" in a.stdout and "encoder was not loaded" in a.stdout
    assert a.stdout.count("  1. (") == 1 and "  3. (" in a.stdout


def test_sample_path_free_text_uses_the_encoder(runner, data_dir, tmp_path):
    out = tmp_path / "g"
    assert _build(runner, data_dir, out).exit_code == 0
    result = runner.invoke(app, ["sample-path", str(out), "--entity", "blood clotting drugs", "--hops", "2"])
    assert result.exit_code == 0, result.output
    assert "nearest graph entity" in result.stdout and "cosine" in result.stdout
    assert "embedded with MiniLM" in result.stdout

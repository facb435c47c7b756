"""The MiniLM backends: selection, the export cache, agreement with torch, missing packages."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from judgeagent.errors import ConfigError
from judgeagent.graph import embed_backends
from judgeagent.graph.embed import Embedder, model_path, shared_embedder

pytest.importorskip("onnxruntime", reason="the onnx extra is not installed: pip install -e '.[onnx]'")
pytest.importorskip("openvino", reason="the openvino extra is not installed: pip install -e '.[openvino]'")

BACKENDS = ("torch", "onnx", "onnx-int8", "openvino")
MEDQA_DEMO = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"


@pytest.fixture(scope="session")
def export_cache(tmp_path_factory):
    """One export cache for the session: each backend is exported into it once."""
    folder = tmp_path_factory.mktemp("embed-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUDGEAGENT_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(scope="session")
def loaded(export_cache):
    """The three backends, loaded (and the ONNX ones exported) once, with the exports counted."""
    before = embed_backends.exports_made
    out = {}
    for backend in BACKENDS:
        out[backend] = Embedder(backend=backend, bf16=False)
        out[backend].model  # noqa: B018
    return out, embed_backends.exports_made - before


@pytest.fixture(scope="session")
def demo_texts():
    """Real-ish strings: the first medqa-demo chunks and questions."""
    from judgeagent.data import load_benchmark

    b = load_benchmark(MEDQA_DEMO)
    return [c.text for c in b.chunks[:24]], [q.question for q in b.questions[:12]]


def test_each_backend_loads_its_own_runner(loaded, export_cache):
    embedders, _ = loaded
    runners = {b: type(e.model).__name__ for b, e in embedders.items()}
    assert runners == {"torch": "TorchRunner", "onnx": "OnnxRunner", "onnx-int8": "OnnxRunner", "openvino": "OpenVinoRunner"}
    for backend, export in (("onnx", "onnx"), ("onnx-int8", "onnx-int8"), ("openvino", "onnx")):
        path = embedders[backend].model.path
        assert path == embed_backends.export_dir(export, model_path()) / "model.onnx"
        assert path.parent.parent == export_cache / "embed"
    precisions = {b: e.precision for b, e in embedders.items()}
    assert precisions == {"torch": "fp32", "onnx": "fp32", "onnx-int8": "int8-block16", "openvino": "fp32"}
    assert Embedder(backend="openvino", bf16=True).precision == "bf16" and Embedder(backend="onnx", bf16=True).precision == "fp32"


def test_exports_are_built_once_and_reused(loaded):
    embedders, first = loaded
    assert first == 2  # the fp32 export (OpenVINO reads it too), then its int8 quantisation
    before = embed_backends.exports_made
    again = Embedder(backend="onnx-int8")
    v = again.encode(["warfarin"])
    assert embed_backends.exports_made == before
    np.testing.assert_array_equal(v, embedders["onnx-int8"].encode(["warfarin"]))
    identity = json.loads((again.model.path.parent / "identity.json").read_text())
    assert identity == {"model_dir": model_path(), "model_sha256": embed_backends.model_identity(model_path()),
                        "backend": "onnx-int8", "recipe": embed_backends.RECIPE_VERSION}


def test_the_cache_key_follows_the_model_and_the_backend(monkeypatch):
    path = model_path()
    onnx, int8 = embed_backends.export_dir("onnx", path), embed_backends.export_dir("onnx-int8", path)
    assert onnx != int8 and onnx.name.startswith("minilm-onnx-") and int8.name.startswith("minilm-onnx-int8-")
    monkeypatch.setattr(embed_backends, "model_identity", lambda _: "other weights")
    assert embed_backends.export_dir("onnx", path) != onnx


@pytest.mark.slow
def test_onnx_backends_agree_with_torch(loaded, demo_texts):
    embedders, _ = loaded
    chunks, questions = demo_texts
    ref_c, ref_q = embedders["torch"].encode(chunks), embedders["torch"].encode(questions)
    want = [set(np.argsort(-row)[:5]) for row in ref_q @ ref_c.T]
    for backend, floor in (("onnx", 0.9999), ("onnx-int8", 0.999), ("openvino", 0.9999)):
        c, q = embedders[backend].encode(chunks), embedders[backend].encode(questions)
        assert (c * ref_c).sum(axis=1).mean() >= floor
        got = [set(np.argsort(-row)[:5]) for row in q @ c.T]
        assert sum(a == b for a, b in zip(got, want)) / len(want) >= 0.95, backend


def test_a_missing_package_is_one_config_error(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "onnxruntime", None)
    with pytest.raises(ConfigError) as err:
        Embedder(backend="onnx-int8")
    assert str(err.value) == ("--embed-backend onnx-int8 needs the onnxruntime package: "
                              "pip install 'judgeagent[onnx]' (or use --embed-backend torch)")
    monkeypatch.setitem(__import__("sys").modules, "openvino", None)
    with pytest.raises(ConfigError, match=r"^--embed-backend openvino needs the openvino package: pip install 'judgeagent\[openvino\]'"):
        Embedder(backend="openvino")
    with pytest.raises(ConfigError, match="unknown embedding backend 'tensorrt'; choose one of torch, onnx, onnx-int8, openvino"):
        Embedder(backend="tensorrt")


def test_shared_embedders_are_one_per_backend(export_cache):
    assert shared_embedder() is shared_embedder("torch")
    assert shared_embedder("onnx") is shared_embedder("onnx") is not shared_embedder("torch")
    assert shared_embedder("onnx").backend == "onnx"


def test_build_graph_records_the_backend_and_never_reuses_another(loaded, make_benchmark, scripted_extractor, tmp_path):
    from judgeagent.config import GraphConfig
    from judgeagent.graph import build_graph

    embedders, _ = loaded
    bench = make_benchmark({"d": ["Warfarin thins the blood.", "Heparin acts on antithrombin."]})
    extractor = scripted_extractor({"Warfarin thins the blood.": ["warfarin"], "Heparin acts on antithrombin.": ["heparin"]})
    out = tmp_path / "g"
    g = build_graph(bench, GraphConfig(embed_backend="onnx"), out, progress=False, extractor=extractor, embedder=embedders["onnx"])
    assert (g.manifest["embedding_model"]["backend"], g.manifest["settings"]["embed_backend"]) == ("onnx", "onnx")
    again = build_graph(bench, GraphConfig(embed_backend="onnx"), out, progress=False, extractor=extractor, embedder=embedders["onnx"])
    assert again.reused
    other = build_graph(bench, GraphConfig(embed_backend="torch"), out, progress=False, extractor=extractor, embedder=embedders["torch"])
    assert not other.reused and other.manifest["embedding_model"]["backend"] == "torch"


def test_cli_offers_the_flag_and_rejects_a_bad_value(tmp_path):
    from judgeagent.cli.app import app

    runner = CliRunner()
    help_text = runner.invoke(app, ["build-graph", "--help"], env={"COLUMNS": "250"}).output
    line = next(x for x in help_text.splitlines() if "--embed-backend" in x)
    assert "[torch|onnx|onnx-int8|openvino]" in line and "(needs the onnx extra of judgeagent)" in line
    bad = runner.invoke(app, ["build-graph", str(MEDQA_DEMO), "--embed-backend", "cuda", "--out", str(tmp_path / "g")])
    assert bad.exit_code == 2
    assert bad.output.strip().splitlines()[-1].endswith("--embed-backend must be one of torch, onnx, onnx-int8, openvino (got cuda)")


def test_cli_names_the_missing_package(monkeypatch, tmp_path):
    from judgeagent.cli.app import app

    monkeypatch.setitem(__import__("sys").modules, "onnxruntime", None)
    result = CliRunner().invoke(app, ["build-graph", str(MEDQA_DEMO), "--embed-backend", "onnx", "--out", str(tmp_path / "g")])
    assert result.exit_code == 2
    assert "--embed-backend onnx needs the onnxruntime package: pip install 'judgeagent[onnx]'" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "g").exists()

"""The ray build engine: the same graph as the local engine, on a real two-node Ray cluster.

The cluster runs on 127.0.0.1 (``ray.cluster_utils.Cluster``): a head and one worker node,
each given 4 logical CPUs so that actor pools and Ray Data's own tasks never wait on each
other on a 2-core machine. One cluster serves the whole module, to keep its wall time down.
"""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest
from conftest import MEDQA_DEMO
from graph_compare import assert_same_graph
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.config import GraphConfig
from judgeagent.data import load_benchmark
from judgeagent.graph import build_graph, load_graph, make_extractor

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Ray Data's own settings

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                               reason="the ray extra is not installed (pip install 'judgeagent[ray]')")


@pytest.fixture(scope="module")
def cluster():
    """A head and a worker node on this machine; the test process is connected as the driver."""
    import ray
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 4, "include_dashboard": False})
    c.add_node(num_cpus=4)
    c.wait_for_nodes()
    ray.init(address=c.address, log_to_driver=False)
    yield c
    ray.shutdown()
    c.shutdown()


def _node_ids() -> set[str]:
    import ray

    return {n["NodeID"] for n in ray.nodes() if n["Alive"]}


@pytest.mark.ray
@needs_ray
@pytest.mark.slow
def test_two_node_cluster_builds_the_same_graph_as_the_local_engine(cluster, demo_graph, tmp_path):
    from judgeagent.graph.embed import shared_embedder
    from judgeagent.graph.ray_engine import RayEngine

    config = GraphConfig(engine="ray")
    engine = RayEngine(config, make_extractor(config), shared_embedder(), actors=2)
    out = tmp_path / "medqa-demo-ray"
    graph = build_graph(load_benchmark(MEDQA_DEMO), config, out, progress=False, engine=engine)

    assert_same_graph(demo_graph, out)  # both lazy (the default): the cluster only extracted
    build = graph.manifest["build"]
    assert build["engine"] == "ray"
    # The per-batch output names the node that extracted it.
    assert set(build["nodes"]) <= _node_ids() and build["nodes"]
    r = build["reused"]
    assert sum(build["nodes"].values()) == r["extracted"]
    assert r["extracted"] == graph.manifest["counts"]["chunks"]


@pytest.mark.ray
@needs_ray
@pytest.mark.slow
def test_cli_joins_a_cluster_by_address_and_says_what_it_reused(cluster, make_benchmark, tmp_path):
    import ray

    data = tmp_path / "tiny"
    data.mkdir()
    docs = {"d1": "Aspirin inhibits platelet aggregation in the heart.", "d2": "Warfarin blocks vitamin K in the liver.",
            "d3": "Heparin potentiates antithrombin in the blood."}
    (data / "corpus.jsonl").write_text("".join(json.dumps({"doc_id": d, "text": t}) + "\n" for d, t in docs.items()))
    (data / "questions.jsonl").write_text(json.dumps({"id": "q1", "question": "What does aspirin inhibit?", "answer": "platelets"}) + "\n")
    ray.shutdown()  # the command connects by itself, through --ray-address
    try:
        args = ["build-graph", str(data), "--out", str(tmp_path / "g"), "--engine", "ray", "--ray-address", cluster.address,
                "--embed", "all"]
        first = CliRunner().invoke(app, args)
        assert first.exit_code == 0, first.output
        assert "reused 0 of 3 chunk extractions, 0 of 3 chunk vectors" in first.output
        assert not ray.is_initialized()  # the engine disconnected what it connected
        again = CliRunner().invoke(app, [*args, "--force"])
        assert again.exit_code == 0, again.output
        m = load_graph(tmp_path / "g").manifest
        r = m["build"]["reused"]
        assert f"reused 3 of 3 chunk extractions, 3 of 3 chunk vectors, {r['entity_vectors']} of {r['entity_vectors']} entity vectors" in again.output
        assert m["build"]["nodes"] == {}  # nothing was left for the cluster to do
    finally:
        ray.init(address=cluster.address, log_to_driver=False)


def test_engine_ray_without_ray_says_how_to_install_it(monkeypatch, tmp_path):
    for name in [m for m in sys.modules if m == "ray" or m.startswith("ray.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError, as when it is absent
    result = CliRunner().invoke(app, ["build-graph", str(MEDQA_DEMO), "--engine", "ray", "--out", str(tmp_path / "g")])
    assert result.exit_code == 2
    assert result.output == "error: --engine ray needs Ray, which is not installed: pip install 'judgeagent[ray]'\n"
    assert not (tmp_path / "g").exists()

"""`--extractor llm`: entities come from the judge model through the client layer."""

import json

from scripted_server import ScriptedServer

from judgeagent.config import GraphConfig
from judgeagent.data.benchmark import Benchmark, Chunk, Document, Question, QuestionType
from judgeagent.graph import build_graph

TEXTS = {
    "c1": "Warfarin inhibits vitamin K epoxide reductase. Vitamin K reverses warfarin.",
    "c2": "Heparin activates antithrombin. Protamine reverses heparin.",
}
ENTITIES = {
    "Warfarin": ["Warfarin", "vitamin K epoxide reductase", "Vitamin K"],
    "Heparin": ["Heparin", "antithrombin", "Protamine", "x"],  # "x" is too short to be a node
}


def responder(body):
    user = body["messages"][-1]["content"]
    key = "Warfarin" if "Warfarin" in user else "Heparin"
    return json.dumps({"entities": [{"name": n, "type": "DRUG"} for n in ENTITIES[key]]})


def test_llm_extractor_builds_nodes_from_the_models_entities(tmp_path):
    bench = Benchmark(
        name="tiny", format="generic", qtype=QuestionType.KQA,
        questions=[Question(id="q1", question="What reverses heparin?", answer="protamine")],
        documents=[Document("d1", "d1", ("c1",)), Document("d2", "d2", ("c2",))],
        chunks=[Chunk(cid, f"d{cid[1]}", text) for cid, text in TEXTS.items()],
    )
    with ScriptedServer(responder) as srv:
        g = build_graph(bench, GraphConfig(extractor="llm", judge=f"{srv.base_url}@scripted", stop_entity_share=1.0),
                        tmp_path / "g", progress=False)
        assert len(srv.requests) == 2  # one request per chunk
    assert g.manifest["extractor"] == "llm"
    assert set(g.entity_names) == {"warfarin", "vitamin k epoxide reductase", "vitamin k", "heparin", "antithrombin", "protamine"}
    assert set(g.chunk_entities("c2")) == {"heparin", "antithrombin", "protamine"}
    assert "protamine" in {n for n, _, _ in g.neighbors("heparin")}

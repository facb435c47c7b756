"""Shared fixtures. The spaCy and MiniLM models load at most once per test session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Air-gapped: models come from installed packages, never a hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parents[1]

pytest_plugins = ("tests.regrowth", "pytester")


@pytest.fixture(scope="session", autouse=True)
def isolated_workdir(tmp_path_factory):
    """The whole session runs in a fresh directory that holds only a link to the repository's
    bundled ``data/``. What a user's commands leave in the checkout (``runs/`` of ``make demo``,
    ``graphs/``, a ``judgeagent.toml``) is then invisible to every test: the estimate would
    otherwise resume a demo run with nothing left to ask, and a graph built by another version
    would be reused."""
    work = tmp_path_factory.mktemp("cwd")
    (work / "data").symlink_to(REPO / "data", target_is_directory=True)
    before = Path.cwd()
    os.chdir(work)
    try:
        yield work
    finally:
        os.chdir(before)


@pytest.fixture(scope="session")
def spacy_extractor():
    """The default spaCy entity extractor, single process, model already loaded."""
    from judgeagent.graph import SpacyExtractor

    extractor = SpacyExtractor(workers=1)
    extractor.nlp  # noqa: B018 - load once here, not inside the first test
    return extractor


@pytest.fixture(scope="session")
def spacys_pipeline():
    """spaCy's own pipeline with the components the graph keeps, none of them replaced by ours."""
    import spacy

    from judgeagent.graph.extract import SPACY_COMPONENTS, SPACY_MODEL

    nlp = spacy.load(SPACY_MODEL)
    for extra in [p for p in nlp.component_names if p not in SPACY_COMPONENTS]:
        nlp.remove_pipe(extra)
    return nlp


@pytest.fixture(scope="session")
def embedder():
    """The process-wide MiniLM embedder (the one the graph and CLI code also use)."""
    from judgeagent.graph import shared_embedder

    emb = shared_embedder()
    emb.model  # noqa: B018
    return emb


@pytest.fixture
def make_benchmark():
    """Build a Benchmark from ``{doc_id: [chunk text, ...]}``; chunk IDs are ``<doc>-<n>``."""
    from judgeagent.data.benchmark import Benchmark, Chunk, Document, QuestionType

    def make(docs: dict[str, list[str]], name: str = "tiny") -> Benchmark:
        chunks, documents = [], []
        for doc_id, texts in docs.items():
            ids = tuple(f"{doc_id}-{i}" for i in range(len(texts)))
            chunks += [Chunk(cid, doc_id, text) for cid, text in zip(ids, texts)]
            documents.append(Document(doc_id, doc_id.title(), ids))
        return Benchmark(name, "generic", QuestionType.KQA, [], documents, chunks)

    return make


class ScriptedExtractor:
    """An entity extractor that returns a fixed entity list per text (text → names)."""

    name = "scripted:v1"

    def __init__(self, table: dict[str, list[str]]):
        self.table = table
        self.labels = {n: (n.upper(), "TEST") for ents in table.values() for n in ents}

    def extract(self, texts, progress=None):
        if progress:
            progress(len(texts))
        return [list(self.table.get(t, [])) for t in texts]


@pytest.fixture
def scripted_extractor():
    """Factory: ``scripted_extractor({text: [entity, ...]})``, so graph tests need no spaCy."""
    return ScriptedExtractor


MEDQA_DEMO = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"


@pytest.fixture(scope="session")
def demo_graph(tmp_path_factory):
    """The medqa-demo context graph, built once for the pipeline tests."""
    from judgeagent.config import GraphConfig
    from judgeagent.data import load_benchmark
    from judgeagent.graph import build_graph

    out = tmp_path_factory.mktemp("graph") / "medqa-demo"
    build_graph(load_benchmark(MEDQA_DEMO), GraphConfig(), out, progress=False)
    return out


@pytest.fixture(scope="session")
def bundled_e2e(tmp_path_factory) -> dict[str, Path]:
    """What the end-to-end runs with the bundled model share: one graph folder (the first run
    builds it, the others load it) and one request cache. Prompt evaluation on two cores is
    most of their time, and the interview of ``--reask-extended --transfer`` asks the very
    requests of the plain interview first, so it replays them instead of asking them again."""
    root = tmp_path_factory.mktemp("bundled-e2e")
    return {"graph": root / "graph", "cache": root / "cache.sqlite"}


@pytest.fixture(scope="session")
def leak_guard_run():
    """The leakage guard's verdict on every check of the leak corpus (tests.leak_table): the
    stored ones (tests.leak_snapshot), refused if taken with another guard or corpus, and
    taken again here, once per session, for an even sample, which must agree with them. The
    corpus floors and the precision test read the same verdicts.

    The run embedder is forced to bf16, as on a CPU with native bf16: the guard decides with
    its fp32 companion whatever the run's precision, which is what the precision test checks."""
    from judgeagent.graph.embed import Embedder
    from judgeagent.graph.embed_queue import EmbeddingQueue
    from tests import leak_snapshot
    from tests.leak_table import GuardRun, guard_verdicts

    try:
        stored = leak_snapshot.read()
    except leak_snapshot.StaleSnapshot as e:
        pytest.fail(str(e), pytrace=False)
    embedder = EmbeddingQueue(Embedder(bf16=True))
    again = stored.sample()
    taken = guard_verdicts(embedder, again)
    differ = [(t[0], t[1], stored.verdicts[i][2], t[2]) for i, t in zip(again, taken, strict=True) if t[2] != stored.verdicts[i][2]]
    assert differ == [], f"{len(differ)} of {len(again)} verdicts taken again differ from the stored ones: {differ[:3]}"
    # The stored margins pick the checks the precision test takes again: they must be this
    # CPU's too, to well within the nearest of those.
    moved = max((abs(t[3] - stored.verdicts[i][3]) for i, t in zip(again, taken, strict=True) if t[3] != stored.verdicts[i][3]), default=0.0)
    assert moved < leak_snapshot.NEAR_FLOOR / 2, moved
    verdicts = list(stored.verdicts)
    for i, t in zip(again, taken, strict=True):
        verdicts[i] = t
    return GuardRun(embedder, verdicts, again)


@pytest.fixture(scope="session")
def demo_seeds():
    """The first six medqa-demo questions: two batches of three."""
    from judgeagent.data import load_benchmark

    return load_benchmark(MEDQA_DEMO).questions[:6]


@pytest.fixture(scope="session")
def audit_source(tmp_path_factory, demo_graph, demo_seeds):
    """A finished judgeagent run made against the scripted judge whose gate rejects two
    questions (tests/audit_double.py), and the graph copy whose bank it filled:
    (run folder, graph folder, the judge's model name). Made once; tests audit copies of it."""
    from audit_double import scripted_run

    return scripted_run(tmp_path_factory.mktemp("audit-source"), demo_graph, demo_seeds)


@pytest.fixture
def audit_run(audit_source, tmp_path) -> Path:
    """A copy of the scripted run, so each test's audit folder starts empty."""
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(audit_source[0], copy)
    return copy

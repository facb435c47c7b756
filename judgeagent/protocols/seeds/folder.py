"""The seed set on disk: a benchmark folder in the generic format, and its manifest.

``corpus.jsonl`` holds every document of the graph (its chunks joined by blank lines, which
the generic loader splits again), ``questions.jsonl`` the kept seeds, ``benchmark.json`` their
question type, and ``seeds.json`` how they were made: the graph, the writer, the settings,
what the filters dropped and the spread. A seed's extra fields (its citations, path,
difficulty reason, where its options came from) ride in its line, which the loader keeps in
``Question.meta``. Each file is written whole or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeagent.data.generic import CORPUS, QUESTIONS, SEEDS, SETTINGS
from judgeagent.files import write_json_atomic, write_text_atomic

if TYPE_CHECKING:
    from judgeagent.graph.context_graph import ContextGraph

MANIFEST = SEEDS
GENERATION = "generation"  # the run folder (journal, records) inside the seed set


def corpus_lines(graph: ContextGraph) -> list[dict[str, str]]:
    """One line per document of the graph: its id, title and text."""
    by_doc: dict[str, list[str]] = {}
    for cid in graph.chunk_ids:
        by_doc.setdefault(graph.chunk_doc(cid), []).append(graph.chunk_text(cid))
    return [{"doc_id": str(d["id"]), "title": str(d.get("title") or d["id"]), "text": "\n\n".join(by_doc[d["id"]])}
            for d in graph.documents if by_doc.get(d["id"])]  # fmt: skip


def _jsonl(rows: Sequence[Mapping[str, object]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def write_seed_set(folder: Path, graph: ContextGraph, qtype: str, questions: Sequence[Mapping[str, object]], manifest: Mapping[str, object]) -> None:
    """The benchmark folder: corpus, questions, type, manifest (questions last but one, so a
    folder with questions always has its corpus)."""
    folder.mkdir(parents=True, exist_ok=True)
    write_text_atomic(folder / CORPUS, _jsonl(corpus_lines(graph)))
    write_json_atomic(folder / SETTINGS, {"question_type": qtype})
    write_text_atomic(folder / QUESTIONS, _jsonl(questions))
    write_json_atomic(folder / MANIFEST, dict(manifest))


def read_manifest(folder: Path) -> dict[str, Any] | None:
    path = Path(folder) / MANIFEST
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    return data if isinstance(data, dict) else None

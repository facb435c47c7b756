"""A graph's manifest.json, read once into typed objects.

The builder writes the manifest as JSON (:func:`judgeagent.graph.build._manifest`), and that
file is the edge: :attr:`ContextGraph.meta <judgeagent.graph.context_graph.ContextGraph.meta>`
parses it here, and the graph's readers (graph-info, the encoders check, the command line)
read attributes, not keys. Graphs built by earlier versions lack some of these fields, so
each has a default, and keys this version does not know are kept, not refused.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

ROLES = ("entities", "chunks")


class _Part(BaseModel):
    # An older or newer graph may hold keys this version does not read: kept, never an error.
    model_config = ConfigDict(extra="allow", frozen=True)


class RoleEncoder(_Part):
    """The encoder that embedded one role's texts (:func:`judgeagent.graph.encoders.role_identity`)."""

    encoder: str = "minilm"
    model: str | None = None
    version: str | None = None
    dim: int | None = None
    backend: str | None = None
    precision: str | None = None

    def identity(self) -> tuple[Any, ...]:
        """What its vectors depend on: another model, version, dimension or backend makes
        other vectors; the precision does not (a graph built on another CPU may differ in it)."""
        return (self.model, self.version, self.dim, self.backend)


class EmbeddingModel(_Part):
    name: str | None = None
    version: str | None = None
    dim: int | None = None
    precision: str | None = None
    backend: str | None = None


class IndexInfo(_Part):
    """One FAISS index (:meth:`judgeagent.graph.index.IndexChoice.to_dict`, in its order)."""

    type: str | None = None
    kind: str = "?"
    vectors: int | None = None
    dim: int | None = None


class Counts(_Part):
    entities: int = 0
    stop_entities: int = 0
    edges_strong: int = 0
    edges_weak: int = 0
    chunks: int = 0
    documents: int = 0
    mentions: int = 0


class Reuse(_Part):
    """What the per-chunk cache saved in one build (a lazy build embeds nothing: its vector
    counts stay 0)."""

    chunks: int = 0
    extracted: int = 0
    extraction_reused: int = 0
    chunk_vectors_embedded: int = 0
    entity_vectors: int = 0
    entity_vectors_embedded: int = 0


class BuildStats(_Part):
    engine: str = "local"
    nodes: dict[str, int] = Field(default_factory=dict)
    reused: Reuse = Field(default_factory=Reuse)


class SourceDocument(_Part):
    """One file of a folder of documents: its document id, path in the folder and sha256 of its bytes."""

    id: str
    source: str
    sha256: str
    title: str = ""
    chunks: int = 0


class SkippedSource(_Part):
    """A file of a folder of documents left out of the graph, and why."""

    source: str
    reason: str


class GraphManifest(_Part):
    format_version: int | None = None
    embed: str = "all"  # "lazy": no vector stored, each made on demand (graphs before format 3 stored all)
    name: str = ""
    input_hash: str | None = None
    extractor: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict)
    embedding_model: EmbeddingModel = Field(default_factory=EmbeddingModel)
    encoders: dict[str, RoleEncoder] | None = None
    indexes: dict[str, IndexInfo] = Field(default_factory=dict)
    counts: Counts = Field(default_factory=Counts)
    build: BuildStats = Field(default_factory=BuildStats)
    timings_s: dict[str, float] = Field(default_factory=dict)
    documents: list[SourceDocument] = Field(default_factory=list)  # a folder of documents only
    skipped: list[SkippedSource] = Field(default_factory=list)

    def roles(self) -> dict[str, RoleEncoder]:
        """Each role's recorded encoder; a graph from before roles existed used MiniLM for both."""
        if self.encoders is not None and all(r in self.encoders for r in ROLES):
            return dict(self.encoders)
        m = self.embedding_model
        old = RoleEncoder(encoder="minilm", model=m.name, version=m.version, dim=m.dim, backend=m.backend or "torch", precision=m.precision)
        return dict.fromkeys(ROLES, old)

"""Where the two model-heavy stages of a graph build run: entity extraction and embedding.

An engine streams per-chunk extractions (in input order) and returns embeddings; the
builder does everything else (cache, co-occurrence, FAISS, writing) the same way for every
engine, which is why both engines give the same graph. ``local`` runs in this process (spaCy
worker processes, the process-wide embedder); ``ray`` (:mod:`judgeagent.graph.ray_engine`)
runs the same functions in Ray actor pools. Engines register by name, like extractors.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

import numpy as np

from judgeagent.errors import ConfigError
from judgeagent.graph.cooccur import ChunkExtraction
from judgeagent.graph.embed import Embedder
from judgeagent.graph.extract import EntityExtractor, Progress, extractions

# extractions and Progress live with the extractors, so the ray engine imports them from
# there and never this module (which names the ray engine): no import cycle between the two.
__all__ = ["Engine", "LocalEngine", "Progress", "check_engine", "extractions", "make_engine", "register_engine"]


class Engine(Protocol):
    name: str
    node_items: Counter  # node id -> chunks or strings it processed (one node for the local engine)
    embeds_while_extracting: bool  # the builder may call embed from another thread while extract runs

    def extract(self, texts: Sequence[str], progress: Progress | None = None) -> Iterator[ChunkExtraction]:
        """One extraction per text, in input order, as they finish."""
        ...

    def embed(self, texts: Sequence[str], batch_size: int, progress: Progress | None = None) -> np.ndarray:
        """(len(texts), dim) float32 rows, L2-normalised."""
        ...

    def close(self) -> None: ...


class LocalEngine:
    """This process: the extractor's own worker pool, then the given embedder."""

    name = "local"
    # The builder may call embed from another thread while extract runs (chunk vectors need
    # no entities): the extraction's workers are processes, the embedder has its own lock.
    embeds_while_extracting = True

    def __init__(self, extractor: EntityExtractor, embedder: Embedder):
        self.extractor = extractor
        self.embedder = embedder
        self.node_items: Counter = Counter()

    def extract(self, texts, progress=None):
        self.node_items["local"] += len(texts)
        return extractions(self.extractor, texts, progress)

    def embed(self, texts, batch_size, progress=None):
        return self.embedder.encode(list(texts), batch_size=batch_size, progress=progress)

    def close(self) -> None:
        pass


def _ray_engine(config, extractor, embedder, **options) -> Engine:
    from judgeagent.graph.ray_engine import RayEngine

    return RayEngine(config, extractor, embedder, **options)


_ENGINES: dict[str, Callable[..., Engine]] = {
    "local": lambda config, extractor, embedder, **_: LocalEngine(extractor, embedder),
    "ray": _ray_engine,
}


def register_engine(name: str, factory: Callable[..., Engine]) -> None:
    """Make ``GraphConfig(engine=name)`` run with ``factory(config, extractor, embedder)``."""
    _ENGINES[name] = factory


def check_engine(config) -> None:
    """Fail early (before any work) when the named engine cannot run here."""
    if config.engine not in _ENGINES:
        raise ConfigError(f"unknown build engine {config.engine!r} (known: {', '.join(sorted(_ENGINES))})")
    if config.engine == "ray":
        from judgeagent.graph.ray_engine import require_ray

        require_ray()


def make_engine(config, extractor: EntityExtractor, embedder: Embedder, **options) -> Engine:
    check_engine(config)
    return _ENGINES[config.engine](config, extractor, embedder, **options)

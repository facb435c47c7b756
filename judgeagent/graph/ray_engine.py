"""The ``ray`` build engine: entity extraction and embedding as Ray Data map stages.

What runs where, and why:

- **Actors (any node).** Extraction runs in a pool of actors that each load the spaCy
  pipeline once (:class:`_ExtractActor`); embedding in a pool that each load the
  embedding model once (:class:`_EmbedActor`). These two stages are where a build spends
  its time (on 2 cores: extraction about 60 chunks/s, MiniLM 25–50 strings/s), they are
  independent per chunk, and their inputs and outputs are small (a chunk's text in; its
  mention list or one 384-float vector out), so they are what is worth shipping to other
  machines. An extraction actor asks for one CPU (spaCy runs on one core), an embedding
  actor for its node's CPUs but one (the model's threads use them); Ray Data places pool
  actors with its default ``SPREAD`` strategy, so a pool of one actor per node reaches every node.
- **Driver (this process).** Reading the cache, co-occurrence counting, the stop and
  generic rules, the FAISS build and writing the artefact stay here. Co-occurrence is a few
  sparse matrix products over the whole corpus (43 s of an 18-minute build at 16k chunks):
  splitting it would need a shuffle of every (entity, chunk) pair and a merge that costs
  about as much as the products themselves. The FAISS build is single-node by nature and
  small next to embedding. The per-chunk cache sits in the graph folder on the driver's disk.

The driver feeds the engine only the chunks the cache lacks, consumes extractions in
input order (``preserve_order``), and so streams them into the same co-occurrence tables
the local engine fills: the graph is the same whichever engine built it. A lazy build
(the default) runs only the extraction here; with ``--embed all`` the embeddings agree
with the local engine's within float tolerance, as batches pad differently.

Expected scaling to N machines of c cores each. Extraction and embedding scale with the
number of actors, so their time falls about as 1 / (N·c) until the driver becomes the
limit: the driver still does (a) the cached and fresh records' aggregation, about 10k
chunks/s, (b) co-occurrence and FAISS, about 2–5% of today's single-machine build, and
(c) serialising chunk texts out and records and vectors back (about 2 KB per chunk, well
under a network's bandwidth at these rates). On the local two-node cluster of the tests,
which shares one machine's cores, the ray engine can only lose (Ray's own processes and
per-actor model copies compete for the same cores; the bench reports the ratio). Across
machines, with the model stages at about 95% of a local build, Amdahl's law gives a speed-up
of about 1 / (0.05 + 0.95 / N): ~1.9× on 2 machines, ~6.9× on 10, and a ceiling near 20×
set by the driver's share, which is when a corpus should be split by document instead.
"""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from judgeagent.errors import ConfigError
from judgeagent.graph.cooccur import ChunkExtraction
from judgeagent.graph.embed import Embedder
from judgeagent.graph.extract import EntityExtractor, Progress, SpacyExtractor, extractions

INSTALL_HINT = "--engine ray needs Ray, which is not installed: pip install 'judgeagent[ray]'"
EXTRACT_BATCH = 32  # chunks per actor call: big enough to amortise a call, small enough to spread
EMBED_BATCH = 256  # strings per actor call (entity names are short)


def require_ray() -> None:
    """Raise the one-line install hint when Ray (with Ray Data) cannot be imported."""
    try:
        import ray  # noqa: F401
        import ray.data  # noqa: F401
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None


class _ExtractActor:
    """Holds one loaded extractor; turns a batch of texts into JSON extraction records."""

    def __init__(self, make_extractor: Callable[[], Any]):
        import ray

        self.extractor = make_extractor()
        self.node = ray.get_runtime_context().get_node_id()

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        records = [json.dumps(e.to_json(), ensure_ascii=False) for e in extractions(self.extractor, list(batch["text"]))]
        return {"i": batch["i"], "record": np.array(records, dtype=object),
                "node": np.array([self.node] * len(records), dtype=object)}


class _EmbedActor:
    """Holds one loaded embedding model; turns a batch of strings into normalised vectors."""

    def __init__(self, make_embedder: Callable[[], Embedder], batch_size: int):
        import ray

        self.embedder = make_embedder()
        self.batch_size = batch_size
        self.node = ray.get_runtime_context().get_node_id()

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        vecs = self.embedder.encode(list(batch["text"]), batch_size=self.batch_size)
        return {"i": batch["i"], "vec": vecs, "node": np.array([self.node] * len(vecs), dtype=object)}


def _extractor_factory(extractor: EntityExtractor) -> Callable[[], Any]:
    """How an actor gets its own extractor: a spaCy one is rebuilt there (one process per
    actor, so no worker pool inside); any other is shipped as it is (pickled)."""
    if isinstance(extractor, SpacyExtractor):
        return functools.partial(SpacyExtractor, workers=1, batch_size=extractor.batch_size, model=extractor.model)
    return lambda: extractor


def _embedder_factory(embedder: Embedder) -> Callable[[], Embedder]:
    """The same backend and precision as the driver's embedder, so vectors agree and the
    cache identity holds whichever node computed them."""
    return functools.partial(Embedder, backend=embedder.backend, bf16=embedder.bf16)


class RayEngine:
    """Extraction and embedding over Ray actor pools; see the module docstring.

    ``address`` as for ``ray.init`` (None: ``config.ray_address``; when that is None too, an
    embedded Ray in this process). A Ray already initialised by the caller is used as it
    is and left running. ``actors`` fixes each pool's size (default: one extraction actor
    per cluster CPU less one per node, which Ray Data's own tasks keep; one embedding actor
    per node, whose model uses that node's cores).
    """

    name = "ray"
    # Both pools want the cluster's cores: the chunks are embedded after the extraction ends.
    embeds_while_extracting = False

    def __init__(self, config, extractor: EntityExtractor, embedder: Embedder, *, address: str | None = None,
                 actors: int | None = None):
        require_ray()
        import ray

        self._started = False
        if not ray.is_initialized():
            self._init(ray, address if address is not None else config.ray_address)
        _quiet_ray_data()
        self.node_items: Counter = Counter()  # node id -> items (chunks or strings) it processed
        self._make_extractor = _extractor_factory(extractor)
        self._make_embedder = _embedder_factory(embedder)
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        cpus = int(ray.cluster_resources().get("CPU", 1))
        node_cpus = min((int(n.get("Resources", {}).get("CPU", 1)) for n in nodes), default=1)
        self.n_nodes = max(1, len(nodes))
        self.extract_actors = actors or max(self.n_nodes, cpus - self.n_nodes)
        self.embed_actors = actors or self.n_nodes
        # An embedding actor asks for its node's CPUs but one: Ray sets its workers' thread
        # count (OMP_NUM_THREADS) from what they ask for, and the model should use the node.
        self.embed_cpus = max(1, node_cpus - 1)

    def _init(self, ray, address: str | None) -> None:
        import logging

        kwargs = dict(ignore_reinit_error=True, include_dashboard=False, log_to_driver=False,
                      logging_level=logging.WARNING)
        if address is None:
            # Embedded Ray: logical CPUs above the physical count leave room for Ray Data's own
            # tasks beside a full actor pool (on 2 cores they could otherwise wait on each other).
            kwargs["num_cpus"] = max(3, (os.cpu_count() or 1) + 1)
        try:
            ray.init(address=address, **kwargs)
        except (ConnectionError, RuntimeError) as e:
            raise ConfigError(f"--ray-address {address}: cannot reach a Ray cluster there ({e})") from None
        self._started = True

    # --- the two stages ---------------------------------------------------------------

    def extract(self, texts: Sequence[str], progress: Progress | None = None) -> Iterator[ChunkExtraction]:
        if not texts:
            return iter(())
        ds = self._dataset(texts, EXTRACT_BATCH).map_batches(
            _ExtractActor, fn_constructor_args=(self._make_extractor,), batch_size=EXTRACT_BATCH,
            compute=_pool(min(self.extract_actors, _batches(len(texts), EXTRACT_BATCH))), num_cpus=1,
            batch_format="numpy")
        return self._records(ds, progress)

    def _records(self, ds, progress: Progress | None) -> Iterator[ChunkExtraction]:
        expected = 0
        for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
            for i, record, node in zip(batch["i"], batch["record"], batch["node"]):
                if int(i) != expected:  # preserve_order is what lets the driver stream
                    raise RuntimeError(f"ray returned chunk {int(i)} where {expected} was due")
                expected += 1
                self.node_items[node] += 1
                yield ChunkExtraction.from_json(json.loads(record))
            if progress is not None:
                progress(len(batch["i"]))

    def embed(self, texts: Sequence[str], batch_size: int, progress: Progress | None = None) -> np.ndarray:
        out = np.empty((len(texts), Embedder.dim), dtype=np.float32)
        if not texts:
            return out
        # Longest first, as the local embedder sorts, so each actor batch pads little.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        ds = self._dataset([texts[i] for i in order], EMBED_BATCH).map_batches(
            _EmbedActor, fn_constructor_args=(self._make_embedder, batch_size), batch_size=EMBED_BATCH,
            compute=_pool(min(self.embed_actors, _batches(len(texts), EMBED_BATCH))), num_cpus=self.embed_cpus,
            batch_format="numpy")
        for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
            rows = np.asarray([order[int(i)] for i in batch["i"]], dtype=np.int64)
            out[rows] = batch["vec"]
            for node in batch["node"]:
                self.node_items[node] += 1
            if progress is not None:
                progress(len(rows))
        return out

    def _dataset(self, texts: Sequence[str], batch: int):
        import ray

        ctx = ray.data.DataContext.get_current()
        ctx.execution_options.preserve_order = True
        ctx.enable_progress_bars = False
        ctx.print_on_execution_start = False
        blocks = max(1, min(_batches(len(texts), batch), 4 * self.extract_actors))
        return ray.data.from_items([{"i": i, "text": t} for i, t in enumerate(texts)], override_num_blocks=blocks)

    def close(self) -> None:
        if self._started:
            import ray

            ray.shutdown()
            self._started = False


def _quiet_ray_data() -> None:
    """Ray Data logs every dataset's start and end at INFO; our progress bars say enough."""
    import logging

    logging.getLogger("ray.data").setLevel(logging.WARNING)


def _pool(size: int):
    """A fixed-size actor pool: each actor loads its model once, so growing and shrinking
    the pool would only pay for more loads."""
    import ray.data

    return ray.data.ActorPoolStrategy(size=size)


def _batches(n: int, size: int) -> int:
    return max(1, -(-n // size))

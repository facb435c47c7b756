"""Sentence embeddings with MiniLM, loaded once per process and only when first needed.

Loading torch + the model takes seconds, so nothing here imports torch until
:meth:`Embedder.encode` is called; a graph query that can be answered from the stored
vectors never pays for it. How the model runs (torch, ONNX Runtime fp32 or int8) is the
embedder's ``backend``; the runners live in :mod:`judgeagent.graph.embed_backends`.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from judgeagent.graph.embed_backends import check_backend, load_runner, precision_of
from judgeagent.minilm import DIM, MODEL_NAME, count_wordpieces_batch, model_path, model_version

__all__ = ["DEFAULT_BACKEND", "DIM", "MODEL_NAME", "Embedder", "bf16_supported", "model_path", "model_version",
           "padding_batches", "set_torch_threads", "shared_embedder", "torch_threads"]

# torch's OpenMP threads spin while they wait for work. On a 2-core machine whose cores are
# shared (spaCy workers, other jobs) the spinning starves the thread doing the work: MiniLM
# took twice as long in our measurements. Passive waiting has to be chosen before torch
# loads (spaCy imports it too), hence here, at import; a user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# torch stays the default: it needs nothing beyond the base install. openvino also passes the
# agreement bars and was about 1.2x faster per CPU second in bench/embed_backends.py (a noisy,
# shared machine); onnx-int8 passes them narrowly and gains least. See the bench before changing.
DEFAULT_BACKEND = "torch"


def bf16_supported() -> bool:
    """Whether this CPU multiplies bfloat16 natively (AMX or AVX512-BF16).

    There, MiniLM under bf16 autocast needs well under half the CPU time of fp32 and its
    embeddings keep a cosine above 0.9999 to the fp32 ones; elsewhere bf16 would be
    emulated and slow. ``JUDGEAGENT_EMBED_BF16=0|1`` overrides the detection.
    """
    env = os.environ.get("JUDGEAGENT_EMBED_BF16")
    if env is not None:
        return env.strip().lower() not in ("0", "false", "no", "off", "")
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return "amx_bf16" in flags or "avx512_bf16" in flags
    except OSError:
        pass
    return False


class Embedder:
    """``encode(texts)`` → float32 array (n, 384), each row L2-normalised.

    ``backend`` names how the model runs (``torch``, ``onnx``, ``onnx-int8``, ``openvino``);
    ``bf16`` applies to torch and OpenVINO (None: where the CPU multiplies bf16 natively).
    """

    name = MODEL_NAME
    dim = DIM

    def __init__(self, batch_size: int = 64, device: str = "cpu", bf16: bool | None = None, backend: str = DEFAULT_BACKEND):
        check_backend(backend)
        self.batch_size = batch_size
        self.device = device
        self.backend = backend
        # ONNX Runtime has no bf16 kernels for this model on CPU; torch and OpenVINO have.
        self.bf16 = (bf16_supported() if bf16 is None else bf16) and backend in ("torch", "openvino")
        self._model = None
        # Interview batches run concurrently; the first ones must not each load the model.
        self._lock = threading.Lock()

    @property
    def precision(self) -> str:
        return precision_of(self.backend, self.bf16)

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def model(self):
        """The loaded runner (``encode(texts, batch_size)`` → unnormalised float32 rows)."""
        with self._lock:
            if self._model is None:
                self._model = self._load()
        return self._model

    def _load(self):
        # Air-gapped: the weights come from an installed package, never a hub.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        # Our own progress bars are the only ones a user should see.
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        return load_runner(self.backend, model_path(), device=self.device, bf16=self.bf16)

    def encode(
        self,
        texts: Sequence[str],
        batch_size: int | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Embed ``texts``; identical texts are encoded once.

        Texts are sorted by their length in the model's word-pieces across the whole call,
        longest first, and handed to the model one batch at a time, each of texts of a
        similar length (see :func:`padding_batches`); ``progress`` is called with the number
        of input texts done.
        """
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        bs = batch_size or self.batch_size
        unique, inverse = np.unique(np.array(texts, dtype=object), return_inverse=True)
        vecs = np.empty((len(unique), self.dim), dtype=np.float32)
        # Count progress in input texts, so duplicates are credited when their first copy is.
        per_unique = np.bincount(inverse, minlength=len(unique))
        for idx in padding_batches(list(unique), bs):
            vecs[idx] = self.model.encode([unique[i] for i in idx], bs)
            if progress is not None:
                progress(int(per_unique[idx].sum()))
        # Normalise in float32 ourselves: inner product must be a true cosine.
        vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
        return vecs[inverse]


# A batch is cut before a text of at most half the word-pieces of the batch's longest, when
# that saves at least this many pieces of padding per text: below it, one more pass costs
# more than the padding it saves.
_CUT_SAVING = 16


def padding_batches(texts: list[str], batch_size: int) -> list[list[int]]:
    """Indices of ``texts`` in the batches to encode them in: longest first in the model's
    word-pieces (ties: longer text first), at most ``batch_size`` to a batch, and a new batch
    where the length halves.

    A batch is padded to its longest member, so sorting by what the model counts, not by
    characters, is what keeps padding small: on real technical prose, entity names sorted
    by characters padded to 3.5x their word-pieces (``v4l2_pix_fmt_y41p`` is short in
    characters and long in pieces), sorted by word-pieces 1.5x, which took 40% less CPU.
    The runner gets one batch per call, so its own (character) sort cannot regroup them.

    Cutting where the length halves matters for small calls of mixed lengths, which fit one
    batch: the leakage guard's first check of a feedback embeds some thirty sentences and
    options of 10-40 pieces with a reading passage of 250, and padded every one of them to
    250. Cut, that check's encoding took a third of the CPU (``bench/leak_guard.py --cost``).
    """
    pieces = count_wordpieces_batch(texts) if len(texts) > 1 else [0] * len(texts)
    order = sorted(range(len(texts)), key=lambda i: (-pieces[i], -len(texts[i])))
    batches: list[list[int]] = []
    for i in order:
        longest = pieces[batches[-1][0]] if batches else 0
        if not batches or len(batches[-1]) == batch_size or (2 * pieces[i] <= longest and longest - pieces[i] >= _CUT_SAVING):
            batches.append([])
        batches[-1].append(i)
    return batches


@contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Let torch use ``n`` intra-op threads inside the block (None: leave it as it is).

    The setting is process-wide, so this is for a block that is the only torch user. With
    torch not imported (an ONNX backend) there is nothing to limit, and importing it would
    only cost a second.
    """
    if n is None or "torch" not in sys.modules:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def set_torch_threads(n: int) -> int | None:
    """Give torch ``n`` intra-op threads from here on and return how many it had (None, and
    nothing changed, when torch is not loaded). For a thread that changes its count as it
    goes; :func:`torch_threads` is the block form."""
    if "torch" not in sys.modules:
        return None
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    return before


_shared: dict[str, Embedder] = {}
_shared_lock = threading.Lock()


def shared_embedder(backend: str | None = None) -> Embedder:
    """The process-wide embedder of ``backend`` (default :data:`DEFAULT_BACKEND`), so each
    model is loaded at most once."""
    backend = backend or DEFAULT_BACKEND
    with _shared_lock:
        if backend not in _shared:
            _shared[backend] = Embedder(backend=backend)
        return _shared[backend]

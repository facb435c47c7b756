"""The ways to run the packaged MiniLM: torch, ONNX Runtime fp32 or int8, OpenVINO.

Each backend registers a loader under its ``--embed-backend`` name; :func:`load_runner`
looks the name up. A runner's ``encode(texts, batch_size)`` returns one float32 row per text
(mean-pooled token states, not yet normalised): :class:`~judgeagent.graph.embed.Embedder`
does the batching, de-duplication and normalisation for every backend alike.

Why our own export rather than sentence-transformers' ``backend="onnx"|"openvino"``: both
export (and quantise) through Optimum, and ``optimum-onnx`` requires transformers < 4.58,
which the installed sentence-transformers (6.x, on transformers 5) refuses; optimum-intel
would downgrade transformers below 5.6 and swap our CPU torch for a CUDA build. So the export here is torch's own ``torch.onnx.export`` of the BERT encoder; the
int8 model is ONNX Runtime's blockwise int8 (see :func:`quantize_int8`); OpenVINO compiles
the same ONNX file. Tokenisation uses the model's ``tokenizer.json`` through ``tokenizers``
and pooling is numpy, so these runners never import torch once the export is cached.

Exports are built once per model identity (a hash of the model files, the recipe version
and the backend) into a user cache folder, written to a staging folder and renamed into
place, so two processes exporting at once cannot leave a half-written model behind.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Protocol

import numpy as np

from judgeagent.errors import ConfigError
from judgeagent.files import cache_root

# Bump when an export or quantisation recipe changes: the cache key includes it.
RECIPE_VERSION = 2  # 2: int8 through MatMulNBits blocks
ONNX_OPSET = 17
ONNX_FILE = "model.onnx"
ONNX_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# int8 blocks: inputs per weight scale (and per activation scale) in MatMulNBits. Blocks of 32
# gave the same top-5 chunks for 92.6% of the bench's chunk queries, 16 for 95.1%.
INT8_BLOCK = 16

exports_made = 0  # exports (and quantisations) actually run in this process: tests count them


class Runner(Protocol):
    precision: str

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray: ...


_LOADERS: dict[str, Callable[..., Runner]] = {}
_NEEDS: dict[str, tuple[tuple[str, ...], str]] = {}  # backend → (modules beyond the base install, extra)


def register_backend(name: str, needs: tuple[str, ...] = (), extra: str = "") -> Callable[[Callable[..., Runner]], Callable[..., Runner]]:
    """Make ``--embed-backend name`` load its runner with the decorated function; ``needs``
    names the modules it imports, which the package extra ``extra`` installs."""

    def add(loader: Callable[..., Runner]) -> Callable[..., Runner]:
        _LOADERS[name] = loader
        _NEEDS[name] = (needs, extra)
        return loader

    return add


def backend_names() -> tuple[str, ...]:
    return tuple(_LOADERS)


def check_backend(backend: str) -> None:
    """Fail early, in one line, on an unknown backend or one whose packages are missing:
    before a build spends minutes extracting entities. Looks the modules up without importing them."""
    if backend not in _LOADERS:
        raise ConfigError(f"unknown embedding backend {backend!r}; choose one of {', '.join(_LOADERS)}")
    modules, extra = _NEEDS[backend]
    for module in modules:
        if not _importable(module):
            raise ConfigError(f"--embed-backend {backend} needs the {module.replace('_', '-')} package: "
                              f"pip install 'judgeagent[{extra}]' (or use --embed-backend torch)")


def _importable(module: str) -> bool:
    if module in sys.modules:
        return sys.modules[module] is not None  # None: imports of it are blocked
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def load_runner(backend: str, model_dir: str, *, device: str = "cpu", bf16: bool = False) -> Runner:
    """The loaded runner of ``backend`` for the model folder ``model_dir``."""
    check_backend(backend)
    return _LOADERS[backend](model_dir, device=device, bf16=bf16)


def precision_of(backend: str, bf16: bool) -> str:
    """What the manifest records as the embeddings' precision, known before any model loads."""
    if backend == "torch":
        return "bf16-autocast" if bf16 else "fp32"
    if backend == "openvino":
        return "bf16" if bf16 else "fp32"
    return {"onnx": "fp32", "onnx-int8": f"int8-block{INT8_BLOCK}"}.get(backend, "?")


# ----------------------------------------------------------------------------- torch


class TorchRunner:
    """sentence-transformers on torch, in bf16 autocast where the CPU multiplies bf16 natively."""

    def __init__(self, model, bf16: bool):
        self.model = model
        self.bf16 = bf16
        self.precision = precision_of("torch", bf16)

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        import torch

        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.bf16):
            out = self.model.encode(list(texts), batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(out, dtype=np.float32)


def _linears_in_bf16(model) -> None:
    """Store every Linear layer's weight and bias in bfloat16, which is what autocast casts
    them to on each call: the same embeddings bit for bit, without re-casting the weights at
    every batch (autocast's cast cache lasts one ``with`` block, i.e. one batch). On real
    prose that was 5-8% of the CPU of entity names (short texts, so small batches of work
    per weight cast) and half the memory of those weights."""
    import torch

    for module in model.modules():
        if isinstance(module, torch.nn.Linear):
            module.weight.data = module.weight.data.to(torch.bfloat16)
            if module.bias is not None:
                module.bias.data = module.bias.data.to(torch.bfloat16)


@register_backend("torch")
def _load_torch(model_dir: str, *, device: str, bf16: bool) -> TorchRunner:
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    model = SentenceTransformer(model_dir, device=device)
    if bf16:  # this model is only ever run under bf16 autocast: its weights need not stay fp32
        _linears_in_bf16(model)
    return TorchRunner(model, bf16)


# ----------------------------------------------------------------------------- ONNX Runtime


class OnnxRunner:
    """An exported MiniLM in ONNX Runtime, with the model's own tokenizer and mean pooling."""

    def __init__(self, onnx_path: Path, model_dir: str, precision: str):
        import onnxruntime as ort

        options = ort.SessionOptions()
        # Like OMP_WAIT_POLICY=PASSIVE for torch (see embed.py): threads that spin while
        # waiting starve the working thread when the cores are shared.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
        self.tokenizer = _tokenizer(model_dir)
        self.precision = precision
        self.path = onnx_path

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        parts = [np.zeros((0, 0), dtype=np.float32)] if not texts else []
        for lo in range(0, len(texts), batch_size):
            enc = self.tokenizer.encode_batch(list(texts[lo : lo + batch_size]))
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            parts.append(_mean_pool(self._run(feed), mask))
        return np.concatenate(parts)


    def _run(self, feed: dict[str, np.ndarray]) -> np.ndarray:
        return self.session.run(None, feed)[0]


def _mean_pool(states: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean of the token states that are not padding: MiniLM's pooling (1_Pooling/config.json)."""
    m = mask[..., None].astype(np.float32)
    return ((states * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)).astype(np.float32)


def _tokenizer(model_dir: str):
    """The model's fast tokenizer, truncating where sentence-transformers does (max_seq_length)."""
    from tokenizers import Tokenizer

    folder = Path(model_dir)
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    max_len = json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"]
    tok.enable_truncation(max_length=max_len)
    tok.enable_padding(pad_id=tok.token_to_id("[PAD]") or 0, pad_token="[PAD]")
    return tok


ONNX_NEEDS = ("onnxruntime", "onnx", "onnx_ir")  # onnx_ir: ONNX Runtime's int8 quantiser imports it


@register_backend("onnx", needs=ONNX_NEEDS, extra="onnx")
def _load_onnx(model_dir: str, *, device: str, bf16: bool) -> OnnxRunner:
    return OnnxRunner(exported_model("onnx", model_dir), model_dir, precision_of("onnx", bf16))


@register_backend("onnx-int8", needs=ONNX_NEEDS, extra="onnx")
def _load_onnx_int8(model_dir: str, *, device: str, bf16: bool) -> OnnxRunner:
    return OnnxRunner(exported_model("onnx-int8", model_dir), model_dir, precision_of("onnx-int8", bf16))


class OpenVinoRunner(OnnxRunner):
    """The same ONNX export compiled by OpenVINO's CPU plugin, in bf16 where the CPU has it.

    OpenVINO reads the ONNX file itself, so this route needs no Optimum either. On a CPU
    without native bf16 its fp32 kernels were the fastest exact route in the bench.
    """

    def __init__(self, onnx_path: Path, model_dir: str, bf16: bool):
        import openvino as ov

        core = ov.Core()
        hint = "bf16" if bf16 else "f32"
        self.compiled = core.compile_model(core.read_model(str(onnx_path)), "CPU", {"INFERENCE_PRECISION_HINT": hint})
        self.tokenizer = _tokenizer(model_dir)
        self.precision = precision_of("openvino", bf16)
        self.path = onnx_path
        self._local = threading.local()  # an infer request serves one thread at a time

    def _run(self, feed: dict[str, np.ndarray]) -> np.ndarray:
        request = getattr(self._local, "request", None)
        if request is None:
            request = self._local.request = self.compiled.create_infer_request()
        return request.infer(feed)[0]


@register_backend("openvino", needs=("openvino", "onnx"), extra="openvino")
def _load_openvino(model_dir: str, *, device: str, bf16: bool) -> OpenVinoRunner:
    return OpenVinoRunner(exported_model("onnx", model_dir), model_dir, bf16)


# ----------------------------------------------------------------------------- the export cache


@cache
def model_identity(model_dir: str) -> str:
    """sha256 over the model folder's files (names and bytes): the same weights anywhere give
    the same identity, and a changed file gives a new one."""
    h = hashlib.sha256()
    folder = Path(model_dir)
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
        h.update(b"\0" + str(path.relative_to(folder)).encode() + b"\0")
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def export_dir(backend: str, model_dir: str) -> Path:
    """Where the export of ``backend`` for this model lives: keyed by model, recipe and opset."""
    key = hashlib.sha256(f"{model_identity(model_dir)}|{backend}|recipe{RECIPE_VERSION}|opset{ONNX_OPSET}|block{INT8_BLOCK}".encode()).hexdigest()[:16]
    return cache_root() / "embed" / f"minilm-{backend}-{key}"


def exported_model(backend: str, model_dir: str) -> Path:
    """The cached ONNX file of ``backend`` ("onnx" or "onnx-int8"), exported on first use."""
    folder = export_dir(backend, model_dir)
    path = folder / ONNX_FILE
    if path.is_file():
        return path
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    try:
        if backend == "onnx-int8":
            quantize_int8(exported_model("onnx", model_dir), staging / ONNX_FILE)
        else:
            export_onnx(model_dir, staging / ONNX_FILE)
        (staging / "identity.json").write_text(
            json.dumps({"model_dir": model_dir, "model_sha256": model_identity(model_dir), "backend": backend, "recipe": RECIPE_VERSION}, indent=1)
        )
        _publish(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return path


def _publish(staging: Path, folder: Path) -> None:
    """Rename the finished export into place; another process that got there first wins."""
    try:
        staging.rename(folder)
    except OSError:
        if not (folder / ONNX_FILE).is_file():
            raise


def export_onnx(model_dir: str, dest: Path) -> None:
    """The BERT encoder of the packaged model as ONNX, with dynamic batch and sequence axes.

    torch's TorchScript-based exporter (``dynamo=False``) needs only ``onnx``; the newer one
    would add onnxscript for nothing this model needs.
    """
    global exports_made
    import torch
    from sentence_transformers import SentenceTransformer

    bert = SentenceTransformer(model_dir, device="cpu")[0].auto_model
    bert.eval()  # type: ignore[union-attr]  # a BertModel: module 0 of the sentence-transformer
    tok = _tokenizer(model_dir)
    enc = tok.encode_batch(["an example sentence to trace", "a second one"])
    ids = torch.tensor([e.ids for e in enc], dtype=torch.long)
    mask = torch.tensor([e.attention_mask for e in enc], dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*ONNX_INPUTS, "last_hidden_state")}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(_last_hidden_state(bert), (ids, mask, torch.zeros_like(ids)), str(dest), input_names=list(ONNX_INPUTS),
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=ONNX_OPSET, dynamo=False)
    exports_made += 1


def _last_hidden_state(bert):
    """BertModel with plain tensor inputs and one output, which is what the exported graph needs."""
    import torch

    class LastHiddenState(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state

    return LastHiddenState()


def quantize_int8(src: Path, dest: Path) -> None:
    """Every weight MatMul as ONNX Runtime's MatMulNBits: int8 weights with one scale per block
    of :data:`INT8_BLOCK` inputs, multiplied in int8 (``accuracy_level=4``), which quantises
    the activations per block of the same size too.

    Why not ``quantize_dynamic``, the usual dynamic int8: it quantises each activation tensor
    with one scale, and a few large values in it (GELU outputs, LayerNorm outliers) make that
    scale coarse for all the rest. Even with per-channel weights and the FFN output layers
    kept in fp32 it reached a mean cosine of 0.995-0.997 to torch but the same top-5 chunks
    for only 83-86% of queries (bench/embed_backends.py); per-tensor weights gave the issue's
    0.94. Blocks of 16 keep the cosine above 0.999.
    """
    global exports_made
    import logging

    import onnx
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    chatty = logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer")  # one INFO line per graph node
    level = chatty.level
    chatty.setLevel(logging.WARNING)
    try:
        quantizer = MatMulNBitsQuantizer(onnx.load(str(src)), bits=8, block_size=INT8_BLOCK, is_symmetric=True, accuracy_level=4)
        quantizer.process()
        quantizer.model.save_model_to_file(str(dest), use_external_data_format=False)
    finally:
        chatty.setLevel(level)
    exports_made += 1

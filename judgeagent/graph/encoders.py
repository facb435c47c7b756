"""Which encoder serves which role of a graph, and how a graph remembers it.

A graph embeds text in two roles (:data:`ROLES`): ``entities``, the entity names and the
names a question's entities are matched by, and ``chunks``, the chunk texts and the batch
text they are ranked against. Each role is served by an encoder named in the build's
config (``--entity-encoder``, ``--chunk-encoder``): ``minilm``, the MiniLM transformer (on
the backend ``--embed-backend`` names), or ``wordllama``, static token vectors
(:mod:`judgeagent.graph.static_embed`). The manifest records each role's encoder
(:func:`role_identity`), and a loaded graph embeds its queries with the same ones, so a
graph's vectors are never compared with another encoder's: :func:`check_encoders` refuses,
in one line, a graph whose encoder this install cannot give back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

import numpy as np

from judgeagent.errors import JudgeAgentError
from judgeagent.graph.manifest import ROLES, RoleEncoder


class Encoder(Protocol):
    name: str
    dim: int
    backend: str

    @property
    def precision(self) -> str: ...

    @property
    def loaded(self) -> bool: ...

    def encode(self, texts, batch_size: int | None = None, progress=None) -> np.ndarray: ...


class EncoderMismatch(JudgeAgentError):
    """A graph's vectors came from an encoder other than the one that would embed its queries."""


def _wordllama() -> Encoder:
    from judgeagent.graph.static_embed import StaticEncoder, wordllama_files

    wordllama_files()  # not installed: one line now, not a traceback at the first name
    return StaticEncoder()


_FACTORIES: dict[str, Callable[[], Encoder]] = {"wordllama": _wordllama}
_made: dict[str, Encoder] = {}
_made_lock = threading.Lock()


def register_encoder(kind: str, factory: Callable[[], Encoder]) -> None:
    """Make ``kind`` an encoder a role may name (the bench registers its candidates this way)."""
    _FACTORIES[kind] = factory


def encoder_for(kind: str, minilm: Encoder) -> Encoder:
    """The encoder named ``kind``, one per process; ``minilm`` is the MiniLM embedder to use
    for ``"minilm"`` (its backend is the build's or the graph's)."""
    if kind == "minilm":
        return minilm
    if kind not in _FACTORIES:
        raise EncoderMismatch(f"unknown encoder {kind!r}; this install has minilm, {', '.join(_FACTORIES)}")
    with _made_lock:
        if kind not in _made:
            _made[kind] = _FACTORIES[kind]()
        return _made[kind]


def encoder_version(encoder: Encoder) -> str:
    version = getattr(encoder, "version", None)
    if version is None:
        from judgeagent.minilm import model_version

        version = model_version()
    return str(version)


def embed_identity(encoder: Encoder) -> str:
    """What an embedding depends on besides its text: model, version, backend, precision
    (the key its vector is cached under)."""
    return f"{encoder.name}@{encoder_version(encoder)}/{encoder.backend}/{encoder.precision}"


def role_identity(kind: str, encoder: Encoder) -> dict:
    """What the manifest records of one role's encoder (its vectors depend on all of it but
    the precision, which a graph built on another CPU may differ in: see docs/measurements/build.md)."""
    return {"encoder": kind, "model": encoder.name, "version": encoder_version(encoder), "dim": encoder.dim,
            "backend": encoder.backend, "precision": encoder.precision}


def check_encoders(folder, recorded: dict[str, RoleEncoder], encoders: dict[str, Encoder]) -> None:
    """Refuse, in one line, a graph whose recorded encoder differs from the one given for a
    role (another model, version, dimension or backend; not precision)."""
    for role in ROLES:
        want = recorded[role]
        have = RoleEncoder.model_validate(role_identity(want.encoder, encoders[role]))
        if want.identity() != have.identity():
            built, here = ("/".join(map(str, r.identity())) for r in (want, have))
            raise EncoderMismatch(f"{folder}: its {role} vectors were made by {built}, and this would embed "
                                  f"queries with {here}; rebuild it with `judgeagent build-graph --force`")

"""The model layer: every stage talks to models through this package, and only through it.

- ``registry``      presets, judgeagent.toml entries and command-line model forms -> ModelSpec
- ``client``        LLMClient: puts the layers below together
- ``request``       ChatRequest: the immutable request (cache key, journal record, HTTP body)
- ``sender``        one attempt -> a Reply or a typed Failure (``outcome``)
- ``retry``         the retry policy and the requests/minute limiter
- ``negotiation``   what each server taught us: refused options, token parameter, thinking
- ``thinking``      <think> blocks out of replies, reasoning tokens counted
- ``breaker``       the circuit breaker (CircuitOpen)
- ``store``         the journal and the shared cache (``journal``: the SQLite file)
- ``local_server``  the bundled llama.cpp server and the pool of them
- ``structured``    JSON repair and schema validation
- ``usage``         accounting and the request / cost budget
- ``batch``         the Batch API transport: waves of requests as provider batch jobs, resumable
- ``connect``       the openai client every request to an endpoint goes through

Typical use::

    registry = load_registry(cfg.llm.models_file)
    judge = registry.resolve(cfg.judge)
    async with LLMClient.from_config(cfg.llm, run_dir / "journal.sqlite") as client:
        await client.preflight(judge)
        r = await client.chat(judge, messages, schema=SCHEMA, stage="grading")
        if r.ok: use(r.data)
        elif r.incomplete: leave the batch incomplete (r.failure.kind says why)
        else: grade it wrong (the model's reply was unusable: r.error)
"""

from judgeagent.llm.breaker import CircuitOpen
from judgeagent.llm.client import LLMClient, LLMResult
from judgeagent.llm.outcome import Failure, FailureKind
from judgeagent.llm.registry import ModelRegistry, ModelSpec, load_registry
from judgeagent.llm.usage import TokenUsage

__all__ = [
    "CircuitOpen",
    "Failure",
    "FailureKind",
    "LLMClient",
    "LLMResult",
    "ModelRegistry",
    "ModelSpec",
    "TokenUsage",
    "load_registry",
]

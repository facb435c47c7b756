"""The model layer: every stage talks to models through this package, and only through it.

- ``registry``      presets, judgeagent.toml entries and command-line model forms -> ModelSpec
- ``client``        LLMClient: async chat with concurrency, retries, structured output, journal
- ``local_server``  the bundled llama.cpp server (started on demand, stopped on exit)
- ``structured``    JSON repair and schema validation
- ``journal``       the SQLite journal / cache of answers
- ``usage``         accounting and the request / cost budget

Typical use::

    registry = load_registry(cfg.llm.models_file)
    judge = registry.resolve(cfg.judge)
    async with LLMClient.from_config(cfg.llm, run_dir / "journal.sqlite") as client:
        await client.preflight(judge)
        r = await client.chat(judge, messages, schema=SCHEMA, stage="grading")
        if r.ok: use(r.data)
        else: record(r.error)
"""

from judgeagent.llm.client import LLMClient, LLMResult
from judgeagent.llm.registry import ModelRegistry, ModelSpec, load_registry
from judgeagent.llm.usage import TokenUsage

__all__ = ["LLMClient", "LLMResult", "ModelRegistry", "ModelSpec", "TokenUsage", "load_registry"]

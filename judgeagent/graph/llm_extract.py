"""The LLM entity extractor (``build-graph --extractor llm``): the paper's prompt, sentence
list in, entity list with types out, through the same client layer as every stage.

Names are normalised like the spaCy extractor's (case-folded, white space folded, at least
two characters with a letter), so both kinds of graph merge entities the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from judgeagent.data.chunking import split_sentences
from judgeagent.graph.normalize import clean, is_valid_name
from judgeagent.prompts import messages, render, schemas

Progress = Callable[[int], None]


class LLMExtractor:
    name = "llm"

    def __init__(self, model: str, *, models_file=None, journal_path=None):
        self.model = model
        self.models_file = models_file
        self.journal_path = journal_path  # a rerun of an interrupted build replays from it
        self.labels: dict[str, tuple[str, str]] = {}
        self.failures = 0

    def extract(self, texts: Sequence[str], progress: Progress | None = None) -> list[list[str]]:
        return asyncio.run(self._extract_all(list(texts), progress))

    async def _extract_all(self, texts: list[str], progress: Progress | None) -> list[list[str]]:
        from judgeagent.llm import LLMClient, load_registry

        spec = load_registry(self.models_file).resolve(self.model)
        self.labels, self.failures = {}, 0
        async with LLMClient(self.journal_path) as client:
            await client.preflight(spec)

            async def one(text: str) -> list[str]:
                out = await self._extract_one(client, spec, text)
                if progress is not None:
                    progress(1)
                return out

            return await asyncio.gather(*(one(t) for t in texts))

    async def _extract_one(self, client, spec, text: str) -> list[str]:
        sentences = split_sentences(text) or [text]
        numbered = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(sentences))
        msgs = messages(render("extract_entities_system"), render("extract_entities", sentences=numbered))
        res = await client.chat(spec, msgs, schema=schemas.ENTITIES, stage="extraction", max_tokens=400)
        if not res.ok:
            self.failures += 1  # an unreadable reply leaves this chunk without entities
            return []
        names: list[str] = []
        for ent in res.data.get("entities", []):
            display = " ".join(str(ent.get("name", "")).split())
            name = clean(display)
            if is_valid_name(name) and name not in names:
                names.append(name)
                self.labels.setdefault(name, (display, str(ent.get("type") or "CONCEPT").upper()))
        return names

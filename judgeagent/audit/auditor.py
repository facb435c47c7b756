"""The model-assisted pass: a model audits each item from its source passages, in two steps.

1. **Blind**: shown the passages and the question (and its options), not the key, it answers
   as the quality gate's reader does (the same prompt), or says the passages do not settle it.
2. **The key**: in the same conversation, told the key, it judges it against the passages
   (correct, wrong, or not settled by them) and names any other defect (ambiguous, not
   self-contained, gives the answer away).

Both are kept. The labels come from the second step: a model that re-solves an item trusts
its own answer, so on hard items its blind answer alone both misses wrong keys and cries
wolf; the blind answer is there to make it commit before it sees the key, and to show where
the two disagree. Where people labelled the same items, the results compare them
(:mod:`judgeagent.audit.results`), so a user knows how far a model-only audit can be trusted.

Calls go through the project's client, journaled in the audit folder: a rerun costs nothing,
and a call that brought no answer is retried by the next run instead of being counted.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass

from judgeagent.audit.items import VALID, AuditItem
from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.prompts import render, schemas
from judgeagent.stages.answers import normalize_letter, score_phrase
from judgeagent.stages.gate import answer_messages, undetermined

KEY_LABELS = {"wrong": "wrong key", "cannot tell": "not answerable from the sources"}


@dataclass
class ModelVerdict:
    item_id: str
    model: str
    blind_answer: str | None = None  # what it answered without the key
    blind_matches_key: bool | None = None  # None: undetermined, or a phrase the rules cannot decide
    key_verdict: str | None = None  # correct | wrong | cannot tell
    defects: list[str] | None = None
    reason: str | None = None
    labels: list[str] | None = None  # the audit labels its judgement comes to; None when it gave none
    error: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def labels_of(key_verdict: str, defects: list[str]) -> list[str]:
    """The audit labels a judgement comes to: its key verdict's, then its defects; valid if none."""
    out = [KEY_LABELS[key_verdict]] if key_verdict in KEY_LABELS else []
    out += [d for d in defects if d in schemas.AUDIT_DEFECTS and d not in out]
    return out or [VALID]


def _question(item: AuditItem) -> Question:
    return Question(id=item.item_id, question=item.question, answer=item.key, options=item.options, difficulty=item.level)


def _blind_matches(item: AuditItem, reply: str) -> bool | None:
    if undetermined(reply):
        return None
    if item.options:
        return normalize_letter(reply, item.options) == item.key
    return score_phrase(reply, item.key).correct


def blind_messages(item: AuditItem) -> list[dict]:
    """Step 1: the gate reader's prompt, the item's passages and question, no key."""
    qtype = QuestionType.KMC if item.options else QuestionType.KQA
    return answer_messages(_question(item), qtype, [c.text for c in item.chunks])


def key_messages(item: AuditItem, blind: list[dict], blind_reply: str) -> list[dict]:
    """Step 2: the same conversation, its blind answer in it, then the key to judge."""
    key = f"{item.key}. {item.key_text}" if item.options else item.key
    return [*blind, {"role": "assistant", "content": blind_reply}, {"role": "user", "content": render("audit_key", key=key)}]


async def judge_item(client, spec, item: AuditItem) -> ModelVerdict:
    """One item's two steps. A call with no answer (endpoint, timeout) is an ``error`` the
    next run retries; an unusable reply is the model's, kept as an error too."""
    out = ModelVerdict(item.item_id, spec.name)
    if not item.chunks:
        out.error = "no source passages to judge from"
        return out
    msgs = blind_messages(item)
    schema = schemas.GATE_ANSWER_MC if item.options else schemas.GATE_ANSWER_PHRASE
    blind = await client.chat(spec, msgs, schema=schema, stage="audit-blind", max_tokens=16 if item.options else 40, seed=0)
    if not blind.ok:
        out.error = f"blind answer: {'no answer' if blind.incomplete else 'unusable reply'} ({blind.error})"
        return out
    out.blind_answer = str((blind.data or {}).get("answer", ""))
    out.blind_matches_key = _blind_matches(item, out.blind_answer)
    judged = await client.chat(spec, key_messages(item, msgs, blind.text or ""), schema=schemas.AUDIT_KEY, stage="audit-key", max_tokens=200, seed=0)
    if not judged.ok:
        out.error = f"judgement of the key: {'no answer' if judged.incomplete else 'unusable reply'} ({judged.error})"
        return out
    data = judged.data or {}
    out.key_verdict, out.reason = str(data.get("key", "")), str(data.get("reason", ""))
    out.defects = [str(d) for d in data.get("defects") or []]
    out.labels = labels_of(out.key_verdict, out.defects)
    return out


def judge_items(llm_config, journal_path, model: str, items: list[AuditItem], on_verdict=None) -> list[ModelVerdict]:
    """Every item judged by ``model`` (a registry name), its requests journaled at
    ``journal_path``; ``on_verdict`` hears each verdict as it comes (to keep it at once).

    Not a run of the engine (no run folder, no units): its own short event loop, as the
    graph's LLM extractor has. Ctrl-C cancels the requests in flight; the journal keeps
    every answer that came, so the next run asks only the rest."""
    return asyncio.run(audit_items(llm_config, journal_path, model, items, on_verdict))


async def audit_items(llm_config, journal_path, model: str, items: list[AuditItem], on_verdict=None) -> list[ModelVerdict]:
    from judgeagent.llm import LLMClient, load_registry

    spec = load_registry(llm_config.models_file).resolve(model)
    async with LLMClient.from_config(llm_config, journal_path) as client:
        await client.preflight(spec)

        async def one(item: AuditItem) -> ModelVerdict:
            verdict = await judge_item(client, spec, item)
            if on_verdict is not None:
                on_verdict(verdict)
            return verdict

        return list(await asyncio.gather(*(one(i) for i in items)))


def same_model(spec, writer: dict | None) -> bool:
    """Whether the auditor ``spec`` is the model that wrote the items (``writer``: a run's
    config.json model entry, or a bank's model identity)."""
    if not writer:
        return False
    if writer.get("identity"):
        return writer["identity"] == spec.identity
    if writer.get("name") and writer["name"] == spec.name:
        return True
    return bool(writer.get("model")) and writer.get("model") == spec.model and (writer.get("base_url") or "").rstrip("/") == (spec.base_url or "").rstrip("/")

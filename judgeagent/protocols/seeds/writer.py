"""One seed question from one slot: write → check citations → options → gate → label.

The writer model is shown the slot's passages sentence by sentence, numbered, and asked for
a question, its key and the numbers of the sentences that state the key. A try is
rejected, and the writer asked again with the reason (as a follow-up's writer is), when the
reply is unusable, when its citations fail (:mod:`.citations`: a number not shown, a
sentence not about the question, a key the cited sentences do not state), or when the
quality gate rejects the question. A multiple-choice seed's wrong options come from the
graph (:mod:`.distractors`) before the gate sees it, so the gate judges the options the
target will be shown.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Annotated

from pydantic import BeforeValidator, Field

from judgeagent.budgets import Stage
from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.prompts import messages, render, schemas
from judgeagent.protocols.seeds import citations as cites
from judgeagent.protocols.seeds import distractors as wrong
from judgeagent.protocols.seeds.plan import MULTI_HOP, Slot
from judgeagent.stages.extension import LEVEL_RULES, TYPE_RULES, Draft, assemble, validate
from judgeagent.stages.gate import GateVerdict, QualityGate

if TYPE_CHECKING:
    from judgeagent.graph.context_graph import ContextGraph
    from judgeagent.stages.models import Models

SEED_WRITING = Stage("seed-writing", 600, 170)  # a seed with its citations, written from a slot's passages


def _cited(v: object) -> list[object]:
    return list(v) if isinstance(v, list) else []


class SeedDraft(Draft):
    """A seed as the writer wrote it: a follow-up's draft with the numbers of the sentences it cites."""

    citations: Annotated[list[object], BeforeValidator(_cited)] = Field(default_factory=list)

    def key(self, qtype: QuestionType) -> str:
        return (self.correct_option if qtype.is_multiple_choice else self.answer).strip()


def writing_messages(qtype: QuestionType, level: str, source: str, *, domain: str) -> list[dict[str, str]]:
    """The writer's prompt (judgeagent/prompts/seed_question.txt): the follow-up writer's rules,
    with the numbers of the sentences that state the key. ``source`` is :func:`.citations.excerpts_text`.
    No filled-in example: the bundled model copied the follow-up prompt's example in 27 tries
    of 27 on the demo graph; the shape is described in words and the reply schema holds it."""
    mc = qtype.is_multiple_choice
    user = render(
        "seed_question",
        level=level.upper(),
        domain=domain,
        path_text=source,
        level_rule=LEVEL_RULES[level],
        type_rule=TYPE_RULES[qtype],
        json_shape=render("seed_shape_mc" if mc else "seed_shape_phrase"),
    )
    return messages(render("generate_system"), user)


def retry_messages(first: list[dict[str, str]], reasons: Sequence[str]) -> list[dict[str, str]]:
    """The next try: the first prompt with why each earlier try was refused, and not the
    refused replies (a follow-up's writer is shown its own). Shown its refused reply, the
    bundled model gave the same answer again in 11 of 18 retries, whatever the reason said.
    Every reason so far, not only the last: two tries refused for the same reason would
    otherwise send the same request, which the journal answers with the same reply."""
    system, user = first
    said = "; ".join(f"({k}) {r}" for k, r in enumerate(reasons, 1)) if len(reasons) > 1 else reasons[0]
    return messages(system["content"], user["content"] + "\n\n" + render("seed_retry", reason=said))


def writing_level(slot: Slot, seed: int) -> str:
    """The level the writer is asked for: Hard across passages; Easy or Medium (seeded, half
    each) from one passage."""
    if slot.kind == MULTI_HOP:
        return "hard"
    return "easy" if random.Random(f"{seed}:{slot.id}:level").random() < 0.5 else "medium"


def difficulty(slot: Slot, question: Question, found: Sequence[cites.Citation], verdict: GateVerdict) -> tuple[str, str]:
    """The seed's difficulty label and the reason, from its path and the gate's reading."""
    passages = len({c.passage for c in found})
    if slot.kind == MULTI_HOP:
        hops = next((c for c in verdict.checks if c.name == "needs_hops"), None)
        across = f"written across {len(slot.path)} passages, cited from {passages}"
        if hops is not None and hops.passed:
            return "hard", f"{across}; the gate's reader needs them all ({hops.reason})"
        if verdict.single_hop:
            return "medium", f"{across}; the gate's reader answered it with any one passage removed"
        return "medium", f"{across}; whether it needs them all was not decided ({hops.reason if hops else 'not checked'})"
    key = cites.normalize(question.answer_text)
    if any(key and key in cites.normalize(c.text) for c in found):
        return "easy", "one passage; the key is stated in a cited sentence (recall)"
    return "medium", "one passage; the key is not stated word for word in the cited sentences (a step of inference)"


@dataclass
class Written:
    """A slot's seed as written, or why there is none."""

    question: Question | None = None
    citations: list[cites.Citation] = field(default_factory=list)
    distractor_sources: list[str] = field(default_factory=list)
    attempts: list[dict[str, object]] = field(default_factory=list)
    verdict: GateVerdict | None = None
    difficulty: str | None = None
    difficulty_reason: str | None = None
    skipped: str | None = None


@dataclass
class SeedWriter:
    """Writes the slots' seeds with one model, one graph and one gate (shared by every slot)."""

    models: Models
    graph: ContextGraph
    qtype: QuestionType
    gate: QualityGate
    seed: int
    tries: int
    domain: str = "general knowledge"
    kept: list[str] = field(default_factory=list)  # the stems kept so far: an exact copy is refused before the gate

    async def options(self, slot: Slot, draft: SeedDraft, found: list[cites.Citation], qid: str, level: str) -> tuple[Question, list[str]]:
        """The Question, with the graph's distractors for multiple choice (letters balanced over slots)."""
        if not self.qtype.is_multiple_choice:
            return assemble(draft.model_dump(), self.qtype, qid, level, random.Random(qid)), []
        from judgeagent.stages.gate import balanced_position

        chosen = await wrong.choose(self.graph, self.gate.embedder, draft.correct_option.strip(), draft.question, [c.text for c in found],
                                    draft.distractors)  # fmt: skip
        data = draft.model_dump() | {"distractors": [d.text for d in chosen]}
        position = balanced_position(self.seed, slot.index)
        return assemble(data, self.qtype, qid, level, random.Random(qid), position), [d.source for d in chosen]

    async def write(self, slot: Slot) -> Written:
        qtype, path = self.qtype, slot.path
        level = writing_level(slot, self.seed)
        refused: list[str] = []
        msgs = first = writing_messages(qtype, level, cites.excerpts_text(path.texts, path.entities), domain=self.domain)
        schema = schemas.SEED_MC if qtype.is_multiple_choice else schemas.SEED_PHRASE
        out = Written()
        for attempt in range(self.tries):
            # Another temperature per retry: the journal would otherwise replay the same reply.
            res = await self.models.ask_judge(msgs, schema=schema, stage=SEED_WRITING.name, max_tokens=SEED_WRITING.max_tokens,
                                              temperature=None if attempt == 0 else 0.7)
            reason = res.error if not res.ok else validate(res.data, qtype, self.kept)
            if reason is None:
                draft = SeedDraft.model_validate(res.data)
                found, reason = cites.verify(draft.citations, path.texts, path.chunk_ids, question=draft.question, key=draft.key(qtype))
            if reason is not None:
                out.attempts.append({"error": reason})
            else:
                question, sources = await self.options(slot, draft, found, slot.id, level)
                if qtype.is_multiple_choice and len(sources) < wrong.NEEDED:
                    reason = "fewer than 3 wrong options that are not the key or named by the question"
                    out.attempts.append({"error": reason, "question": question.to_dict()})
                else:
                    verdict = await self.gate.check(question, qtype, level, path.texts, key=f"{slot.id}/{attempt}")
                    if verdict.passed:
                        self.gate.accept(question)  # no await since the check: the duplicate state stays consistent
                        self.kept.append(question.question)
                        label, why = difficulty(slot, question, found, verdict)
                        question = replace(question, difficulty=label)
                        out.question, out.citations, out.distractor_sources, out.verdict = question, found, sources, verdict
                        out.difficulty, out.difficulty_reason = label, why
                        out.attempts.append({"ok": True, "gate": verdict.to_dict()})
                        return out
                    reason = "; ".join(verdict.reasons)
                    out.attempts.append({"error": reason, "gate": verdict.to_dict(), "question": question.to_dict()})
            refused.append(reason)
            msgs = retry_messages(first, refused)
        out.skipped = "; ".join(dict.fromkeys(str(a["error"]) for a in out.attempts))
        return out

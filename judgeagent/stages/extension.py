"""Stage 2: write a follow-up question of the current difficulty from a knowledge path.

The judge returns the question, the correct option and three distractors (MC) or the
answer phrase (QA). We place the correct option ourselves, at a seeded random position (or the
balanced one :func:`judgeagent.stages.gate.balanced_position` gives), because models asked
to "randomise" the letter do not. With a :class:`~judgeagent.stages.gate.QualityGate`, a
question is only kept once it passes the gate; a rejected one is regenerated like an
invalid one, with the gate's reasons fed back.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from judgeagent.budgets import GENERATION
from judgeagent.data.benchmark import DIFFICULTIES, Question, QuestionType
from judgeagent.prompts import messages, render, schemas
from judgeagent.stages.answers import normalize_phrase
from judgeagent.stages.gate import GateVerdict, QualityGate
from judgeagent.stages.models import Models

# The rules a generation prompt states, one template each (judgeagent/prompts/level_*.txt, type_*.txt).
LEVEL_RULES = {level: render(f"level_{level}") for level in DIFFICULTIES}
TYPE_RULES = {qtype: render(f"type_{qtype.value}") for qtype in QuestionType}

MAX_GENERATION_TRIES = 3  # the first try plus 2 regenerations


def _example(qtype: QuestionType) -> str:
    """The filled reply the generation prompt shows (judgeagent/prompts/generate_example_*.txt)."""
    return render("generate_example_mc" if qtype.is_multiple_choice else "generate_example_phrase")


@cache
def _example_question(qtype: QuestionType) -> str:
    """The example's question, normalised: what a copy of it is recognised by."""
    return normalize_phrase(Draft.model_validate_json(_example(qtype)).question)


@dataclass
class Generated:
    question: Question | None
    # One entry per try: {"error": …} or {"ok": True}; a try that reached the gate also has
    # "gate": GateVerdict.to_dict() (the shape gate_summary reads).
    attempts: list[dict] = field(default_factory=list)
    skipped: str | None = None
    verdict: GateVerdict | None = None  # the accepted question's, when a gate ran


def path_text(texts: list[str], entities: list[str]) -> str:
    return "\n".join(f"[{i + 1}] ({e}) {t.strip()}" for i, (e, t) in enumerate(zip(entities, texts)))


def generation_messages(qtype: QuestionType, level: str, source: str, *, domain: str) -> list[dict]:
    # The reply's fields are described in words and shown filled in on an unrelated subject,
    # never as a template with placeholders: small models copy those verbatim. The source comes
    # last, so the reply starts right after the facts it is to be about.
    user = render(
        "generate_question",
        level=level.upper(),
        domain=domain,
        path_text=source,
        level_rule=LEVEL_RULES[level],
        type_rule=TYPE_RULES[qtype],
        json_shape=render("shape_mc" if qtype.is_multiple_choice else "shape_phrase"),
        example=_example(qtype),
    )
    return messages(render("generate_system"), user)


def _text(v: Any) -> str:
    return "" if v is None else str(v)


class Draft(BaseModel):
    """A question the judge wrote (schemas.generate / decontamination's rewrites), parsed once:
    every field is text, absent ones empty."""

    model_config = ConfigDict(extra="ignore")

    question: Annotated[str, BeforeValidator(_text)] = ""
    answer: Annotated[str, BeforeValidator(_text)] = ""  # phrase questions
    correct_option: Annotated[str, BeforeValidator(_text)] = ""  # multiple choice
    distractors: Annotated[list[str], BeforeValidator(lambda v: [_text(d) for d in v] if isinstance(v, list) else [])] = Field(default_factory=list)
    rationale: Annotated[str, BeforeValidator(_text)] = ""
    removed: Annotated[str, BeforeValidator(_text)] = ""  # "unclarify": the fact taken out

    @classmethod
    def of(cls, data: object) -> Draft | None:
        """The draft in a reply's JSON, or None when it is not an object."""
        return cls.model_validate(data) if isinstance(data, dict) else None


def validate(data: object, qtype: QuestionType, avoid: Sequence[str] = ()) -> str | None:
    """Why a generated question is unusable, or None when it is fine.

    ``avoid`` holds the batch's seed questions and earlier follow-ups: a copy of one is
    rejected here rather than listed in the prompt, because small judges copy what they see.
    """
    d = Draft.of(data)
    if d is None:
        return "not a JSON object"
    if not d.question.strip():
        return "empty question text"
    asked = normalize_phrase(d.question)
    if asked in {normalize_phrase(a) for a in avoid}:
        return "copies an existing question"
    if asked == _example_question(qtype):
        return "copies the example instead of asking about the excerpts"
    if qtype.is_multiple_choice:
        correct = d.correct_option.strip()
        if not correct:
            return "no correct option"
        distractors = [x.strip() for x in d.distractors]
        if len(distractors) != 3 or not all(distractors):
            return "needs exactly 3 non-empty distractors"
        options = [correct, *distractors]
        if any(o.strip(" .<>") in ("", "...") or o.startswith("<") for o in options):
            return "placeholder options"
        if len({o.casefold() for o in options}) != 4:
            return "answer not distinct from the other options"
    else:
        if not d.answer.strip():
            return "no answer"
    return None


def assemble(
    data: dict, qtype: QuestionType, qid: str, level: str, rng: random.Random, position: int | None = None
) -> Question:
    """The Question; an MC answer goes to ``position`` (0..3) if given, else a seeded random one."""
    d = Draft.model_validate(data)
    text = d.question.strip()
    if not qtype.is_multiple_choice:
        return Question(id=qid, question=text, answer=d.answer.strip(), difficulty=level)
    opts = [x.strip() for x in d.distractors]
    pos = rng.randrange(4) if position is None else position
    opts.insert(pos, d.correct_option.strip())
    letters = "ABCD"
    return Question(
        id=qid,
        question=text,
        answer=letters[pos],
        options={letters[i]: o for i, o in enumerate(opts)},
        difficulty=level,
        meta={"rationale": d.rationale},
    )


async def generate_question(
    models: Models,
    qtype: QuestionType,
    level: str,
    source: str,
    *,
    qid: str,
    domain: str,
    avoid: list[str],
    gate: QualityGate | None = None,
    path_texts: list[str] | None = None,
    position: int | None = None,
    rng: random.Random | None = None,
    tries: int = MAX_GENERATION_TRIES,
) -> Generated:
    """Up to ``tries`` generations until one is valid and (with a ``gate``) passes it.

    An MC answer goes to ``position`` (0..3); without one, ``rng`` draws it (default: seeded
    by ``qid``).

    ``path_texts`` are the path's passages for the gate's judge (default: ``source`` as one
    passage, which leaves needs_hops not run). An accepted question is registered with the
    gate before returning.
    """
    schema = schemas.GENERATED_MC if qtype.is_multiple_choice else schemas.GENERATED_PHRASE
    msgs = generation_messages(qtype, level, source, domain=domain)
    rng = rng or random.Random(qid)
    out = Generated(question=None)
    for attempt in range(tries):
        # A different temperature per retry: the journal would otherwise replay the same bad answer.
        res = await models.ask_judge(msgs, schema=schema, stage=GENERATION.name, max_tokens=GENERATION.max_tokens, temperature=None if attempt == 0 else 0.7)
        reason = res.error if not res.ok else validate(res.data, qtype, avoid)
        if reason is None:
            question = assemble(res.data, qtype, qid, level, rng, position)
            if gate is None:
                out.question = question
                out.attempts.append({"ok": True})
                return out
            verdict = await gate.check(question, qtype, level, path_texts if path_texts is not None else [source], key=f"{qid}/{attempt}")
            if verdict.passed:
                gate.accept(question)  # no await since check: the duplicate state stays consistent
                out.question, out.verdict = question, verdict
                out.attempts.append({"ok": True, "gate": verdict.to_dict()})
                return out
            reason = "; ".join(verdict.reasons)
            # The rejected question itself, with its key at the letter it was given: an audit
            # of the gate reads it here (runs before this kept only the verdict).
            out.attempts.append({"error": reason, "gate": verdict.to_dict(), "question": question.to_dict()})
        else:
            out.attempts.append({"error": reason})
        msgs = msgs + [
            {"role": "assistant", "content": res.text or ""},
            {"role": "user", "content": render("generate_retry", reason=reason)},
        ]
    out.skipped = "; ".join(dict.fromkeys(a["error"] for a in out.attempts))  # each reason once
    return out

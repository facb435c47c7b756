"""The judge's leak check: a second layer behind the rules, for hints no pattern can see.

The rules find named options next to a cue; a suggestion that describes an option without
naming it ("the vitamin K antagonist monitored by INR") passes them. The judge reads such
advice as a target would. It is shown ONE seed question with its options and the
suggestions, never the answer key, and says whether the advice picks out or eliminates any
option. Without the key it cannot be swayed by knowing the answer into reading a neutral
sentence as a hint, and the same prompt serves distractors and correct options alike.

Which layer runs (``--leak-check``):

* ``rules``: the rules (and the embedding check) only;
* ``judge``: the rules, then one judge call per seed question, concurrently;
* ``off``: no check at all: the suggestions go to the re-ask as written;
* ``auto`` (the default): ``judge`` for a remote judge, ``rules`` for the bundled local
  model. The bundled 135M model cannot tell a hint from advice (its verdicts would be noise
  that triggers needless rewrites), and it answers one request at a time, so n calls per
  batch would sit on every batch's critical path. A remote judge is capable, takes parallel
  requests, and one short prompt per seed costs little next to the feedback call.

The judge layer fails closed. A reply the judge gave but that cannot be read (after the
client's own re-asks) is asked once more; still unreadable, the verdict is ``None`` and the
guard marks the batch ``check_failed``: it is reported, and left out of the leak-free
figures, never counted clean. A call that brings no reply at all leaves the batch
incomplete, as every failed call does: re-asking with unchecked advice would risk a leak.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from judgeagent.batches import together
from judgeagent.budgets import LEAK_CHECK
from judgeagent.data.benchmark import Question
from judgeagent.llm.client import LLMResult
from judgeagent.llm.registry import ModelSpec
from judgeagent.llm.usage import cost_usd
from judgeagent.prompts import messages, render, schemas
from judgeagent.stages.leak_finding import LeakFinding

LEAK_CHECK_MODES = ("rules", "judge", "off")
_LEAKING = {"picks_out", "eliminates", "both"}


def resolve_leak_check(setting: str, judge: ModelSpec) -> str:
    """The mode to run: ``setting`` itself, or for ``auto`` one chosen from the judge's spec."""
    if setting in LEAK_CHECK_MODES:
        return setting
    if setting != "auto":
        raise ValueError(f"leak_check must be auto, rules, judge or off, not {setting!r}")
    return "rules" if judge.is_local else "judge"


@dataclass
class JudgeVerdict:
    """The judge's reading of the suggestions for one seed question, and what it cost."""

    question_id: str
    verdict: str | None  # one of schemas.LEAK_VERDICTS; None when the call failed
    options: list[str] = field(default_factory=list)
    evidence: str = ""
    error: str | None = None
    cached: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def leaks(self) -> bool:
        return self.verdict in _LEAKING

    def finding(self) -> LeakFinding:
        """The verdict as a leak finding of kind ``judge``, like the rules' findings."""
        letters = f" ({', '.join(self.options)})" if self.options else ""
        return LeakFinding(self.question_id, "judge", f"{self.verdict}{letters}: {self.evidence}")

    def to_dict(self) -> dict:
        return dict(self.__dict__) | {"options": list(self.options)}  # asdict's deep copy is slow


def leak_check_messages(suggestions: str, question: Question, number: int, total: int) -> list[dict]:
    """The judge's prompt for one seed question: its text and options, and the suggestions."""
    options = "\n".join(f"{letter}. {text}" for letter, text in (question.options or {}).items())
    user = render(
        "leak_check",
        total=total,
        number=number,
        question=question.question.strip(),
        options=f"Options:\n{options}" if options else "(no options: the answer is a short phrase)",
        suggestions=suggestions.strip(),
    )
    return messages(render("leak_check_system"), user)


async def judge_leak_check(models: Any, suggestions: str, questions: list[Question]) -> list[JudgeVerdict]:
    """One judge call per seed question, all at once; if one brings no answer (CallFailed), the
    others are cancelled with it (together), not left asking for a batch already set aside."""
    calls = [_check_one(models, suggestions, q, i, len(questions)) for i, q in enumerate(questions, 1)]
    return list(await together(*calls))


UNREADABLE_TRIES = 2  # an unreadable verdict is asked for once more before the check fails


class LeakReply(BaseModel):
    """The judge's JSON reply to one leak check (schemas.LEAK_CHECK), parsed once."""

    verdict: Any = None  # checked against schemas.LEAK_VERDICTS: anything else is unreadable
    options: list[Any] = Field(default_factory=list)
    evidence: Any = ""

    @classmethod
    def of(cls, res: LLMResult) -> LeakReply | None:
        if not res.ok or not isinstance(res.data, dict):
            return None
        try:
            return cls.model_validate({k: v for k, v in res.data.items() if v is not None})
        except ValidationError:
            return None


@dataclass(frozen=True)
class Spent:
    """Tokens and cost of the calls for one verdict; a cached answer cost nothing this time."""

    cached: bool
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float

    def __add__(self, other: Spent) -> Spent:
        return Spent(self.cached and other.cached, self.prompt_tokens + other.prompt_tokens,
                     self.completion_tokens + other.completion_tokens, round(self.cost_usd + other.cost_usd, 6))


async def _check_one(models: Any, suggestions: str, question: Question, number: int, total: int) -> JudgeVerdict:
    msgs = leak_check_messages(suggestions, question, number, total)
    spent: Spent | None = None
    error = "no JSON reply"
    for _ in range(UNREADABLE_TRIES):
        # A failed call is never stored, so asking again sends the request again.
        res = await models.ask_judge(msgs, schema=schemas.LEAK_CHECK, stage=LEAK_CHECK.name, max_tokens=LEAK_CHECK.max_tokens)
        one = _spent(res, models.judge)
        spent = one if spent is None else spent + one
        reply = LeakReply.of(res)
        verdict = reply.verdict if reply is not None else None
        if reply is not None and verdict in schemas.LEAK_VERDICTS:
            letters = [str(x).strip().upper() for x in reply.options if str(x).strip()]
            return JudgeVerdict(question.id, verdict, letters, str(reply.evidence).strip(), **asdict(spent))
        error = res.error or f"unreadable verdict {verdict!r}"
    assert spent is not None  # UNREADABLE_TRIES >= 1
    return JudgeVerdict(question.id, None, error=f"leak check failed: {error}", **asdict(spent))


def _spent(res: LLMResult, judge: ModelSpec) -> Spent:
    """Tokens and cost of one call; a cached answer cost nothing this time."""
    usage = res.usage
    cost = 0.0 if res.cached else cost_usd(usage, judge.price_in_per_1k, judge.price_out_per_1k)
    return Spent(res.cached, usage.prompt_tokens, usage.completion_tokens, round(cost, 6))


def leak_check_summary(checks: list[dict]) -> dict:
    """What the leak check did over a run's batches (``checks``: LeakCheck dicts), for metrics.json."""
    modes: dict[str, int] = {}
    for c in checks:
        modes[c.get("mode", "rules")] = modes.get(c.get("mode", "rules"), 0) + 1
    verdicts = [v for c in checks for v in c.get("judge_before", []) + c.get("judge_after", [])]
    counts = {name: sum(1 for v in verdicts if v["verdict"] == name) for name in schemas.LEAK_VERDICTS}
    out: dict = {
        "modes": modes,
        "judge": {
            "calls": len(verdicts),
            "verdicts": counts,
            "failures": sum(1 for v in verdicts if v["verdict"] is None),
            # Batches the rules passed and the judge did not: what the second layer adds.
            "batches_judge_only": sum(1 for c in checks if _judge_only(c)),
            "prompt_tokens": sum(v["prompt_tokens"] for v in verdicts),
            "completion_tokens": sum(v["completion_tokens"] for v in verdicts),
            "cost_usd": round(sum(v["cost_usd"] for v in verdicts), 6),
        },
    }
    # Checks made before the judge layer failed closed have no such field: their runs'
    # figures stay as they were written.
    if any("check_failed" in c for c in checks):
        out["judge"]["batches_check_failed"] = sum(1 for c in checks if c.get("check_failed"))
    return out


def _judge_only(check: dict) -> bool:
    kinds = {leak["kind"] for leak in check.get("leaks_before", [])}  # a record: plain dicts
    return kinds == {"judge"}

"""``--protocol interviewer``: LLM-as-an-Interviewer's feedback-and-revision loop.

Per seed question: the target answers; while it is wrong, the interviewer (the judge role)
gives feedback that must not give the answer away (the same leakage guard as the JudgeAgent
suggestions, run on every feedback), and the target revises, up to ``--revisions`` answers
in all (accuracy @1, @2, @3). Then two follow-ups, labelled by kind: a rationale question
("why?") and a clarification question, answered in free text and graded adequate or not.
At the end, the Interview Report: a score per question, strengths and weaknesses, and
example transcripts per score range (:mod:`judgeagent.metrics.interviewer`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from pydantic import Field

from judgeagent.batches import Batch
from judgeagent.blocks import DASH, Bullets, Heading, Para, QuestionBlock, Section, Table, TableBlock, answer_text, correct_text, pct, shorten
from judgeagent.config import GuardOptions, SeedOptions
from judgeagent.data.benchmark import Question
from judgeagent.engine.callplan import (
    ONE,
    STAND_IN_ADVICE,
    Call,
    answer_call,
    bernoulli,
    guard_calls,
    less_one,
    phrase_judge_calls,
    stand_in_reply,
    tries,
)
from judgeagent.engine.protocol import Parts
from judgeagent.engine.run import RunContext
from judgeagent.metrics import interviewer as im
from judgeagent.prompts import messages, render, schemas
from judgeagent.protocols.dialogue import question_text, reply_messages, target_reply, transcript
from judgeagent.protocols.seedwise import SeedProtocol
from judgeagent.records import AnswerRecord
from judgeagent.registry import register
from judgeagent.stages.grading import Answer, ask_batch
from judgeagent.stages.leak_judge import resolve_leak_check
from judgeagent.stages.models import Models

KINDS = schemas.FOLLOWUP_KINDS


@dataclass
class Attempt:
    answer: AnswerRecord
    feedback: str | None = None  # the (guarded) feedback that followed it, when it was wrong
    leak: dict | None = None  # the leakage guard's check of that feedback


@dataclass
class FollowUpTurn:
    kind: str  # "rationale" | "clarification"
    question: str
    reply: str | None
    verdict: str | None = None  # "adequate" | "inadequate" | None (not graded)


@dataclass
class Interview:
    question_id: str
    attempts: list[Attempt] = field(default_factory=list)
    followups: list[FollowUpTurn] = field(default_factory=list)
    followup_comment: str = ""

    @property
    def right(self) -> list[bool]:
        return [bool(a.answer["correct"]) for a in self.attempts]

    @property
    def score(self) -> int:
        return im.question_score(self.right, sum(f.verdict == "adequate" for f in self.followups))

    def to_dict(self) -> dict:
        return {"interview": asdict(self) | {"right": self.right, "score": self.score}}


def feedback_messages(q: Question, answer: Answer, earlier: list[str]) -> list[dict]:
    correct = f"{q.answer}. {q.answer_text}" if q.options else q.answer
    user = render("interviewer_feedback", question=question_text(q), correct=correct, answer=answer.reply or "(none)",
                  earlier=" / ".join(earlier) or "(none)")
    return messages(render("interviewer_feedback_system"), user)


def revision_advice(previous: list[str], feedback: str) -> str:
    """What the target reads with its next attempt: its earlier answers and the feedback."""
    return render("interviewer_revision", previous="; ".join(previous), feedback=feedback.strip())


def followup_messages(q: Question, exchange: str) -> list[dict]:
    return messages(render("interviewer_followups_system"), render("interviewer_followups", question=question_text(q), transcript=exchange))


def grade_messages(q: Question, turns: list[FollowUpTurn]) -> list[dict]:
    correct = f"{q.answer}. {q.answer_text}" if q.options else q.answer
    by_kind = {t.kind: t for t in turns}
    values = {f"{k}_{part}": (getattr(by_kind[k], attr) or "(no reply)") for k in KINDS for part, attr in (("question", "question"), ("answer", "reply"))}
    return messages(render("followup_grade_system"), render("followup_grade", question=question_text(q), correct=correct, **values))


def report_messages(digest: str) -> list[dict]:
    return messages(render("interview_report_system"), render("interview_report", digest=digest))


class InterviewerOptions(SeedOptions, GuardOptions):
    """LLM-as-an-Interviewer's settings."""

    revisions: int = Field(default=3, ge=1, description="Answers per question, the first and each revision after feedback (gives acc@1..@N).")


@register
class Interviewer(SeedProtocol):
    name = "interviewer"
    title = "LLM-as-an-Interviewer (feedback, revision, follow-ups)"
    order = 20
    options = InterviewerOptions
    compare_columns = (("acc@1", "interviewer_acc1"), ("acc@2", "interviewer_acc2"), ("acc@3", "interviewer_acc3"))

    async def interview(self, unit: Batch, parts: Parts) -> Interview:
        q = unit.questions[0]
        interview = Interview(q.id)
        await self.revise(unit, parts, interview)
        await self.follow_up(parts, q, interview)
        return interview

    async def revise(self, unit: Batch, parts: Parts, interview: Interview) -> None:
        """Answer, then feedback and a revision while wrong, up to ``--revisions`` answers."""
        q, models, qtype = unit.questions[0], parts.models, parts.bench.qtype
        advice = None
        for k in range(parts.options.revisions):
            stage = "interviewer-answer" if k == 0 else "interviewer-revision"
            (answer,) = await ask_batch(models, qtype, [q], stage=stage, context=unit.context, suggestions=advice)
            attempt = Attempt(answer.to_dict())
            interview.attempts.append(attempt)
            if answer.correct or k == parts.options.revisions - 1:
                return
            feedback = await write_feedback(models, q, answer, [a.feedback for a in interview.attempts if a.feedback])
            if feedback is None:
                return  # no feedback, nothing to revise with: the later attempts stay unasked (wrong)
            assert parts.guard is not None
            check = await parts.guard.check(feedback, [q])
            attempt.feedback, attempt.leak = check.suggestions, check.to_dict()
            previous = [a.answer.get("chosen") or a.answer.get("reply") or "(none)" for a in interview.attempts]
            advice = revision_advice(previous, check.suggestions)

    async def follow_up(self, parts: Parts, q: Question, interview: Interview) -> None:
        """The rationale and clarification follow-ups, answered and graded."""
        models = parts.models
        exchange = transcript([(question_text(q), a.answer.get("reply")) for a in interview.attempts])
        res = await models.ask_judge(followup_messages(q, exchange), schema=schemas.INTERVIEWER_FOLLOWUPS, stage="interviewer-followups", max_tokens=300)
        if not res.ok or not isinstance(res.data, dict):
            return
        history = [(question_text(q), interview.attempts[-1].answer.get("reply"))]
        for kind in KINDS:
            question = str(res.data.get(kind, "")).strip()
            if question:
                reply, _ = await target_reply(models, history, question, stage="interviewer-followup-answer")
                interview.followups.append(FollowUpTurn(kind, question, reply))
        if len(interview.followups) == len(KINDS):
            grades = await models.ask_judge(grade_messages(q, interview.followups), schema=schemas.FOLLOWUP_GRADES, stage="interviewer-grade", max_tokens=200)
            if grades.ok and isinstance(grades.data, dict):
                for turn in interview.followups:
                    turn.verdict = str(grades.data.get(turn.kind) or "") or None
                interview.followup_comment = str(grades.data.get("comment", "")).strip()

    async def finish(self, ctx: RunContext) -> None:
        """The Interview Report's strengths and weaknesses, from every question's digest,
        once every question is in."""
        if not ctx.complete:
            return
        assert ctx.models is not None
        models, folder = ctx.models, ctx.folder
        records = folder.read_records()
        with ctx.timed("finish_s"):
            await self.write_report(models, folder, records)

    @staticmethod
    async def write_report(models: Models, folder: Any, records: list[dict]) -> None:
        res = await models.ask_judge(report_messages(digest(records)), schema=schemas.INTERVIEW_REPORT, stage="interview-report", max_tokens=600)
        data = res.data if res.ok and isinstance(res.data, dict) else {}
        report = {k: [str(s).strip() for s in data.get(k) or [] if str(s).strip()] for k in ("strengths", "weaknesses")}
        folder.write_json("interview_report.json", report | ({"error": res.error} if not res.ok else {}))

    def call_plan(self, ctx: RunContext, unit: Batch | None, rates: Mapping[str, float]) -> list[Call]:
        """Per seed: answers until right (at most --revisions), each wrong one but the last
        followed by guarded feedback; the two follow-ups answered and graded. Closing: the
        Interview Report."""
        if unit is None:
            stand_ins = [{"seed": [u.questions[0].to_dict()], "interview": {"score": 3, "right": [False, True], "followups": []}} for u in ctx.units]
            return [Call("interview-report", "judge", ONE, report_messages(digest(stand_ins)), 600)]
        q, bench, opts = unit.questions[0], ctx.bench, ctx.options
        attempts = tries(rates["seed_accuracy"], opts.revisions)
        feedbacks = less_one(attempts)
        revisions = less_one(attempts)
        advice = revision_advice([stand_in_reply(q)], STAND_IN_ADVICE)
        wrong = Answer(q.id, stand_in_reply(q), None, False, "letter")
        mode = resolve_leak_check(opts.leak_check, ctx.judge)
        followed = bernoulli(rates["reply_ok"])
        calls = [
            answer_call(bench, "interviewer-answer", [q], ONE, context=unit.context),
            answer_call(bench, "interviewer-revision", [q], revisions, context=unit.context, suggestions=advice),
            Call("interviewer-feedback", "judge", feedbacks, feedback_messages(q, wrong, []), 200),
            *guard_calls(bench, [q], feedbacks, mode, STAND_IN_ADVICE, rates),
            *phrase_judge_calls(bench, [q], attempts, rates),
            Call("interviewer-followups", "judge", ONE, followup_messages(q, transcript([(question_text(q), stand_in_reply(q))])), 300),
            Call("interviewer-followup-answer", "target", followed.times(len(KINDS)), reply_messages([(question_text(q), stand_in_reply(q))], STAND_IN_ADVICE), 200),
            Call("interviewer-grade", "judge", followed, grade_messages(q, [FollowUpTurn(k, STAND_IN_ADVICE, stand_in_reply(q)) for k in KINDS]), 200),
        ]
        return calls

    def figures(self, records: list[dict], options: Any) -> im.InterviewerFigures:
        interviews = [r["interview"] for r in records]
        kinds = {k: [f["verdict"] == "adequate" for i in interviews for f in i["followups"] if f["kind"] == k] for k in KINDS}
        leaks = [a["leak"] for i in interviews for a in i["attempts"] if a.get("leak")]
        return replace(
            im.interviewer_metrics([i["right"] for i in interviews], [i["score"] for i in interviews], options.revisions),
            followups={k: {"asked": len(v), "adequate": sum(v)} for k, v in kinds.items()},
            leakage={"feedback_checked": len(leaks), "leaking": sum(bool(x["leaks_before"]) for x in leaks),
                     "rewritten": sum(bool(x["rewritten"]) for x in leaks), "flagged": sum(bool(x["flagged"]) for x in leaks)},
        )

    def headline(self, outcome: Any, cfg: Any) -> list[Any]:
        i = outcome.metrics["interviewer"]
        acc = ", ".join(f"acc{k} {_num(v)}" for k, v in i["accuracy_at"].items())
        ranges = ", ".join(f"{k} {v}" for k, v in i["score_ranges"].items())
        return [f"{acc} (% of {i['n_questions']} questions)", f"mean score {_num(i['mean_score'])} of 5; by range: {ranges}"]

    def compare_values(self, m: dict) -> dict:
        acc = (m.get("interviewer") or {}).get("accuracy_at") or {}
        return {f"interviewer_acc{k}": acc.get(f"@{k}") for k in (1, 2, 3)}

    def report_sections(self, run: Any) -> list:
        return interviewer_sections(run)


async def write_feedback(models: Models, q: Question, answer: Answer, earlier: list[str]) -> str | None:
    res = await models.ask_judge(feedback_messages(q, answer, earlier), schema=schemas.INTERVIEWER_FEEDBACK, stage="interviewer-feedback", max_tokens=300)
    text = str(res.data.get("feedback", "")).strip() if res.ok and isinstance(res.data, dict) else ""
    return text or None


def digest(records: list[dict]) -> str:
    """One line per question: its score, its attempts and its follow-up verdicts."""
    lines = []
    for r in records:
        i, q = r["interview"], r["seed"][0]
        verdicts = ", ".join(f"{f['kind']} {f['verdict'] or 'ungraded'}" for f in i["followups"]) or "no follow-ups"
        attempts = " → ".join("right" if ok else "wrong" for ok in i["right"])
        lines.append(f"- score {i['score']}: {q['question'].strip()[:200]} | answers: {attempts} | {verdicts}")
    return "\n".join(lines) or "(no questions)"


def _num(v) -> str:
    return "–" if v is None else f"{v:.2f}"


# ----------------------------------------------------------------------------- report
EXAMPLES_PER_RANGE = 2


def interviewer_sections(run: Any) -> list[Section]:
    from judgeagent.metrics.interviewer import SCORE_RANGES, score_range

    m = run.metrics.get("interviewer") or {}
    acc = m.get("accuracy_at") or {}
    fu = m.get("followups") or {}
    blocks: list = [TableBlock(Table([f"acc{k}" for k in acc], [[pct(v) for v in acc.values()]], numeric=set(range(len(acc)))),
                               "Accuracy @k: right within the first k answers (the first, then a revision after each feedback), % of questions.")]
    blocks.append(TableBlock(Table(["follow-up kind", "asked", "adequate"], [[k, str(v["asked"]), str(v["adequate"])] for k, v in fu.items()], numeric={1, 2}),
                             "Follow-ups of two kinds: rationale (why the answer holds) and clarification (what a term or step means)."))
    report = _read(run, "interview_report.json")
    blocks += [Heading("Strengths"), Bullets(report.get("strengths") or ["(none given)"]), Heading("Weaknesses"), Bullets(report.get("weaknesses") or ["(none given)"])]
    scores = Table(["question", "answers", "follow-ups", "score"], [[r["batch_id"], " → ".join("right" if x else "wrong" for x in r["interview"]["right"]),
                   ", ".join(f"{f['kind']}: {f['verdict'] or 'ungraded'}" for f in r["interview"]["followups"]) or DASH, str(r["interview"]["score"])] for r in run.records], numeric={3})
    blocks += [Heading("Score per question (0–5)"), TableBlock(scores)]
    examples: list = []
    for name, lo, hi in SCORE_RANGES:
        chosen = [r for r in run.records if score_range(r["interview"]["score"]) == name][:EXAMPLES_PER_RANGE]
        examples.append(Heading(f"Scores {lo}–{hi} ({name})"))
        examples += [_interview_block(r) for r in chosen] or [Para("No question scored in this range.", "note")]
    return [Section("Interview Report", "interview-report", blocks), Section("Example transcripts by score", "transcripts", examples)]


def _interview_block(r: dict) -> QuestionBlock:
    q, i = r["seed"][0], r["interview"]
    facts = [("Correct answer", correct_text(q))]
    for n, a in enumerate(i["attempts"], 1):
        facts.append((f"Answer {n}", answer_text(q, a["answer"]) + (" ✓" if a["answer"]["correct"] else " ✗")))
        if a.get("feedback"):
            facts.append((f"Feedback {n}", shorten(a["feedback"], 400)))
    for f in i["followups"]:
        facts.append((f"{f['kind'].capitalize()} follow-up", f"{shorten(f['question'], 300)} → {shorten(f['reply'] or '(no reply)', 300)} [{f['verdict'] or 'ungraded'}]"))
    return QuestionBlock(q["question"], q.get("options"), facts, f"{r['batch_id']}, score {i['score']}")


def _read(run: Any, name: str) -> dict:
    try:
        return json.loads((run.path / name).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}



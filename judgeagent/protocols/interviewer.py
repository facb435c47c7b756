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

from collections.abc import Iterable, Sequence
from dataclasses import replace

from pydantic import Field

from judgeagent.batches import Batch
from judgeagent.blocks import DASH, Block, Bullets, Heading, Para, QuestionBlock, Section, Table, TableBlock, answer_text, correct_text, pct, shorten
from judgeagent.budgets import Stage, answering
from judgeagent.config import EvalConfig, GuardOptions, SeedOptions
from judgeagent.data.benchmark import Question
from judgeagent.engine.callplan import (
    ONE,
    REPLY_OK,
    SEED_ACCURACY,
    STAND_IN_ADVICE,
    Call,
    RateValues,
    Seen,
    answer_call,
    bernoulli,
    less_one,
    phrase_judge_calls,
    seen_answers,
    stand_in_reply,
    tries,
)
from judgeagent.engine.protocol import Renderable
from judgeagent.engine.registry import register
from judgeagent.engine.services import FinishedRun, RunOutcome, RunServices
from judgeagent.metrics import interviewer as im
from judgeagent.prompts import messages, render, schemas
from judgeagent.protocols.dialogue import Reply, Text, question_text, reply_messages, reply_stage, target_reply, transcript
from judgeagent.protocols.seedwise import Parts, SeedProtocol
from judgeagent.protocols.stage_plans import SHARED_RATES, guard_calls, seen_leaks
from judgeagent.records import AnswerRecord, Json, JsonModel, LeakRecord, QuestionRecord, SeedUnitRecord, omittable, read_figures
from judgeagent.stages.grading import Answer, ask_batch
from judgeagent.stages.leak_judge import resolve_leak_check
from judgeagent.stages.models import Models

KINDS = schemas.FOLLOWUP_KINDS
REPORT_FILE = "interview_report.json"
FIRST_ANSWER = answering("interviewer-answer", 15)
REVISION = answering("interviewer-revision", 15)  # an answer after feedback
FEEDBACK = Stage("interviewer-feedback", 300, 60)  # the interviewer's feedback on a wrong answer
FOLLOWUPS = Stage("interviewer-followups", 300, 50)  # the rationale and clarification questions
FOLLOWUP_ANSWER = reply_stage("interviewer-followup-answer", 70)
GRADE = Stage("interviewer-grade", 200, 60)  # both follow-up answers graded
REPORT = Stage("interview-report", 600, 250)  # the Interview Report's strengths and weaknesses


# ----------------------------------------------------------------------------- records
class Attempt(JsonModel):
    answer: AnswerRecord
    feedback: str | None = None  # the (guarded) feedback that followed it, when it was wrong
    leak: LeakRecord | None = None  # the leakage guard's check of that feedback


class FollowUpTurn(JsonModel):
    kind: str  # "rationale" | "clarification"
    question: str
    reply: str | None
    verdict: str | None = None  # "adequate" | "inadequate" | None (not graded)


class Interview(JsonModel):
    question_id: str
    attempts: list[Attempt] = Field(default_factory=list)
    followups: list[FollowUpTurn] = Field(default_factory=list)
    followup_comment: str = ""
    right: list[bool] = Field(default_factory=list)  # each attempt right or wrong
    score: int = 0  # 0–5: 3/2/1 for right at the first/second/third answer, +1 per adequate follow-up

    def scored(self) -> Interview:
        """With ``right`` and ``score`` from its attempts and follow-ups."""
        self.right = [a.answer.correct for a in self.attempts]
        self.score = im.question_score(self.right, sum(f.verdict == "adequate" for f in self.followups))
        return self


class InterviewerRecord(SeedUnitRecord):
    """``--protocol interviewer``: one seed's interview."""

    interview: Interview


class InterviewReport(JsonModel):
    """interview_report.json: the judge's strengths and weaknesses over every question."""

    strengths: list[str] = Field(default_factory=list)
    weaknesses: list[str] = Field(default_factory=list)
    error: str | None = omittable()


# ----------------------------------------------------------------------------- the judge's replies
class FeedbackReply(Reply):
    feedback: Text = ""


class FollowUpQuestions(Reply):
    """The rationale and clarification questions (schemas.INTERVIEWER_FOLLOWUPS)."""

    rationale: Text = ""
    clarification: Text = ""

    def by_kind(self) -> dict[str, str]:
        return {"rationale": self.rationale, "clarification": self.clarification}


class FollowUpGrades(FollowUpQuestions):
    """Each follow-up's verdict ("adequate" or not) and a comment (schemas.FOLLOWUP_GRADES)."""

    comment: Text = ""


class ReportReply(Reply):
    strengths: list[Text] = Field(default_factory=list)
    weaknesses: list[Text] = Field(default_factory=list)


def feedback_messages(q: Question, answer: Answer, earlier: list[str]) -> list[dict[str, str]]:
    correct = f"{q.answer}. {q.answer_text}" if q.options else q.answer
    user = render("interviewer_feedback", question=question_text(q), correct=correct, answer=answer.reply or "(none)",
                  earlier=" / ".join(earlier) or "(none)")
    return messages(render("interviewer_feedback_system"), user)


def revision_advice(previous: list[str], feedback: str) -> str:
    """What the target reads with its next attempt: its earlier answers and the feedback."""
    return render("interviewer_revision", previous="; ".join(previous), feedback=feedback.strip())


def followup_messages(q: Question, exchange: str) -> list[dict[str, str]]:
    return messages(render("interviewer_followups_system"), render("interviewer_followups", question=question_text(q), transcript=exchange))


def grade_messages(q: Question, turns: list[FollowUpTurn]) -> list[dict[str, str]]:
    correct = f"{q.answer}. {q.answer_text}" if q.options else q.answer
    by_kind = {t.kind: t for t in turns}
    values = {f"{k}_{part}": (text or "(no reply)") for k in KINDS for part, text in (("question", by_kind[k].question), ("answer", by_kind[k].reply))}
    return messages(render("followup_grade_system"), render("followup_grade", question=question_text(q), correct=correct, **values))


def report_messages(digest: str) -> list[dict[str, str]]:
    return messages(render("interview_report_system"), render("interview_report", digest=digest))


class InterviewerOptions(SeedOptions, GuardOptions):
    """LLM-as-an-Interviewer's settings."""

    revisions: int = Field(default=3, ge=1, description="Answers per question, the first and each revision after feedback (gives acc@1..@N).")


Run = RunServices[InterviewerOptions, InterviewerRecord]


@register
class Interviewer(SeedProtocol[InterviewerOptions, InterviewerRecord]):
    name = "interviewer"
    title = "LLM-as-an-Interviewer (feedback, revision, follow-ups)"
    order = 20
    compare_columns = (("acc@1", "interviewer_acc1"), ("acc@2", "interviewer_acc2"), ("acc@3", "interviewer_acc3"))
    rates = SHARED_RATES

    def guarded(self, options: InterviewerOptions) -> GuardOptions:
        return options

    async def interview(self, unit: Batch, parts: Parts[InterviewerOptions]) -> InterviewerRecord:
        q = unit.questions[0]
        interview = Interview(question_id=q.id)
        await self.revise(unit, parts, interview)
        await self.follow_up(parts, q, interview)
        return InterviewerRecord(setting="full", protocol=self.name, **parts.head, interview=interview.scored())

    async def revise(self, unit: Batch, parts: Parts[InterviewerOptions], interview: Interview) -> None:
        """Answer, then feedback and a revision while wrong, up to ``--revisions`` answers."""
        q, models, qtype = unit.questions[0], parts.models, parts.bench.qtype
        advice = None
        for k in range(parts.options.revisions):
            stage = FIRST_ANSWER if k == 0 else REVISION
            (answer,) = await ask_batch(models, qtype, [q], stage=stage.name, context=unit.context, suggestions=advice)
            attempt = Attempt(answer=AnswerRecord.of(answer))
            interview.attempts.append(attempt)
            if answer.correct or k == parts.options.revisions - 1:
                return
            feedback = await write_feedback(models, q, answer, [a.feedback for a in interview.attempts if a.feedback])
            if feedback is None:
                return  # no feedback, nothing to revise with: the later attempts stay unasked (wrong)
            assert parts.guard is not None, "the interviewer's feedback goes through the leakage guard"
            check = await parts.guard.check(feedback, [q])
            attempt.feedback, attempt.leak = check.suggestions, LeakRecord.of(check)
            previous = [a.answer.chosen or a.answer.reply or "(none)" for a in interview.attempts]
            advice = revision_advice(previous, check.suggestions)

    async def follow_up(self, parts: Parts[InterviewerOptions], q: Question, interview: Interview) -> None:
        """The rationale and clarification follow-ups, answered and graded."""
        models = parts.models
        exchange = transcript([(question_text(q), a.answer.reply) for a in interview.attempts])
        res = await models.ask_judge(followup_messages(q, exchange), schema=schemas.INTERVIEWER_FOLLOWUPS, stage=FOLLOWUPS.name,
                                     max_tokens=FOLLOWUPS.max_tokens)
        asked = FollowUpQuestions.read(res)
        if asked is None:
            return
        history = [(question_text(q), interview.attempts[-1].answer.reply)]
        for kind, question in asked.by_kind().items():
            if question:
                reply, _ = await target_reply(models, history, question, stage=FOLLOWUP_ANSWER)
                interview.followups.append(FollowUpTurn(kind=kind, question=question, reply=reply))
        if len(interview.followups) == len(KINDS):
            res = await models.ask_judge(grade_messages(q, interview.followups), schema=schemas.FOLLOWUP_GRADES, stage=GRADE.name,
                                         max_tokens=GRADE.max_tokens)
            if (grades := FollowUpGrades.read(res)) is not None:
                verdicts = grades.by_kind()
                for turn in interview.followups:
                    turn.verdict = verdicts.get(turn.kind) or None
                interview.followup_comment = grades.comment

    async def finish(self, run: Run) -> None:
        """The Interview Report's strengths and weaknesses, from every question's digest,
        once every question is in."""
        if not run.complete:
            return
        with run.timed("finish_s"):
            report = await write_report(run.models, run.records())
            run.write_json(REPORT_FILE, report.to_json())

    def call_plan(self, run: Run, unit: Batch | None, rates: RateValues) -> list[Call]:
        """Per seed: answers until right (at most --revisions), each wrong one but the last
        followed by guarded feedback; the two follow-ups answered and graded. Closing: the
        Interview Report."""
        if unit is None:
            stand_ins = [InterviewerRecord(seed=[QuestionRecord.of(u.questions[0])],
                                           interview=Interview(question_id=u.questions[0].id, right=[False, True], score=3)) for u in run.units]
            return [Call(REPORT, "judge", ONE, report_messages(digest(stand_ins)))]
        q, bench, opts = unit.questions[0], run.bench, run.options
        attempts = tries(rates[SEED_ACCURACY], opts.revisions)
        feedbacks = less_one(attempts)
        revisions = less_one(attempts)
        advice = revision_advice([stand_in_reply(q)], STAND_IN_ADVICE)
        wrong = Answer(q.id, stand_in_reply(q), None, False, "letter")
        mode = resolve_leak_check(opts.leak_check, run.judge)
        followed = bernoulli(rates[REPLY_OK])
        return [
            answer_call(bench, FIRST_ANSWER, [q], ONE, context=unit.context),
            answer_call(bench, REVISION, [q], revisions, context=unit.context, suggestions=advice),
            Call(FEEDBACK, "judge", feedbacks, feedback_messages(q, wrong, [])),
            *guard_calls(bench, [q], feedbacks, mode, STAND_IN_ADVICE, rates),
            *phrase_judge_calls(bench, [q], attempts, rates),
            Call(FOLLOWUPS, "judge", ONE, followup_messages(q, transcript([(question_text(q), stand_in_reply(q))]))),
            Call(FOLLOWUP_ANSWER, "target", followed.times(len(KINDS)), reply_messages([(question_text(q), stand_in_reply(q))], STAND_IN_ADVICE)),
            Call(GRADE, "judge", followed, grade_messages(q, [FollowUpTurn(kind=k, question=STAND_IN_ADVICE, reply=stand_in_reply(q)) for k in KINDS])),
        ]

    def observe(self, records: Sequence[InterviewerRecord]) -> Iterable[Seen]:
        """A first answer's accuracy, the judge's phrase verdicts and the guard's leaks."""
        firsts = [r.interview.attempts[0].answer for r in records if r.interview.attempts]
        leaks = [a.leak for r in records for a in r.interview.attempts if a.leak is not None]
        return [*seen_answers(firsts), *seen_leaks(leaks)]

    def figures(self, records: list[InterviewerRecord], options: InterviewerOptions) -> im.InterviewerFigures:
        interviews = [r.interview for r in records]
        kinds = {k: [f.verdict == "adequate" for i in interviews for f in i.followups if f.kind == k] for k in KINDS}
        leaks = [a.leak for i in interviews for a in i.attempts if a.leak]
        return replace(
            im.interviewer_metrics([i.right for i in interviews], [i.score for i in interviews], options.revisions),
            followups={k: {"asked": len(v), "adequate": sum(v)} for k, v in kinds.items()},
            leakage={"feedback_checked": len(leaks), "leaking": sum(bool(x.leaks_before) for x in leaks),
                     "rewritten": sum(x.rewritten for x in leaks), "flagged": sum(x.flagged for x in leaks)},
        )

    def headline(self, outcome: RunOutcome, cfg: EvalConfig) -> list[Renderable]:
        i = read_figures(im.InterviewerFigures, outcome.metrics[self.name])
        acc = ", ".join(f"acc{k} {_num(v)}" for k, v in i.accuracy_at.items())
        ranges = ", ".join(f"{k} {v}" for k, v in i.score_ranges.items())
        return [f"{acc} (% of {i.n_questions} questions)", f"mean score {_num(i.mean_score)} of 5; by range: {ranges}"]

    def compare_values(self, metrics: Json) -> dict[str, float | None]:
        figures = metrics.get(self.name)
        acc = read_figures(im.InterviewerFigures, figures).accuracy_at if figures else {}
        return {f"interviewer_acc{k}": acc.get(f"@{k}") for k in (1, 2, 3)}

    def report_sections(self, run: FinishedRun[InterviewerRecord]) -> list[Section]:
        return interviewer_sections(run)


async def write_feedback(models: Models, q: Question, answer: Answer, earlier: list[str]) -> str | None:
    res = await models.ask_judge(feedback_messages(q, answer, earlier), schema=schemas.INTERVIEWER_FEEDBACK, stage=FEEDBACK.name,
                                 max_tokens=FEEDBACK.max_tokens)
    reply = FeedbackReply.read(res)
    return reply.feedback if reply and reply.feedback else None


async def write_report(models: Models, records: Sequence[InterviewerRecord]) -> InterviewReport:
    res = await models.ask_judge(report_messages(digest(records)), schema=schemas.INTERVIEW_REPORT, stage=REPORT.name, max_tokens=REPORT.max_tokens)
    reply = ReportReply.read(res) or ReportReply()
    report = InterviewReport(strengths=[s for s in reply.strengths if s], weaknesses=[s for s in reply.weaknesses if s])
    if not res.ok:
        report.error = res.error
    return report


def digest(records: Sequence[InterviewerRecord]) -> str:
    """One line per question: its score, its attempts and its follow-up verdicts."""
    lines = []
    for r in records:
        i, q = r.interview, r.seed[0]
        verdicts = ", ".join(f"{f.kind} {f.verdict or 'ungraded'}" for f in i.followups) or "no follow-ups"
        attempts = " → ".join("right" if ok else "wrong" for ok in i.right)
        lines.append(f"- score {i.score}: {q.question.strip()[:200]} | answers: {attempts} | {verdicts}")
    return "\n".join(lines) or "(no questions)"


def _num(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}"


# ----------------------------------------------------------------------------- report
EXAMPLES_PER_RANGE = 2


def interviewer_sections(run: FinishedRun[InterviewerRecord]) -> list[Section]:
    from judgeagent.metrics.interviewer import SCORE_RANGES, score_range

    figures = run.metrics.get("interviewer")
    m = read_figures(im.InterviewerFigures, figures) if figures else None
    acc = m.accuracy_at if m else {}
    fu = m.followups if m else {}
    blocks: list[Block] = [TableBlock(Table([f"acc{k}" for k in acc], [[pct(v) for v in acc.values()]], numeric=set(range(len(acc)))),
                                      "Accuracy @k: right within the first k answers (the first, then a revision after each feedback), % of questions.")]
    blocks.append(TableBlock(Table(["follow-up kind", "asked", "adequate"], [[k, str(v["asked"]), str(v["adequate"])] for k, v in fu.items()], numeric={1, 2}),
                             "Follow-ups of two kinds: rationale (why the answer holds) and clarification (what a term or step means)."))
    report = InterviewReport.from_json(run.read_json(REPORT_FILE))
    blocks += [Heading("Strengths"), Bullets(report.strengths or ["(none given)"]), Heading("Weaknesses"), Bullets(report.weaknesses or ["(none given)"])]
    scores = Table(["question", "answers", "follow-ups", "score"],
                   [[r.batch_id, " → ".join("right" if x else "wrong" for x in r.interview.right),
                     ", ".join(f"{f.kind}: {f.verdict or 'ungraded'}" for f in r.interview.followups) or DASH, str(r.interview.score)] for r in run.records],
                   numeric={3})
    blocks += [Heading("Score per question (0–5)"), TableBlock(scores)]
    examples: list[Block] = []
    for name, lo, hi in SCORE_RANGES:
        chosen = [r for r in run.records if score_range(r.interview.score) == name][:EXAMPLES_PER_RANGE]
        examples.append(Heading(f"Scores {lo}–{hi} ({name})"))
        examples += [_interview_block(r) for r in chosen] or [Para("No question scored in this range.", "note")]
    return [Section("Interview Report", "interview-report", blocks), Section("Example transcripts by score", "transcripts", examples)]


def _interview_block(r: InterviewerRecord) -> QuestionBlock:
    q, i = r.seed[0], r.interview
    facts = [("Correct answer", correct_text(q))]
    for n, a in enumerate(i.attempts, 1):
        facts.append((f"Answer {n}", answer_text(q, a.answer) + (" ✓" if a.answer.correct else " ✗")))
        if a.feedback:
            facts.append((f"Feedback {n}", shorten(a.feedback, 400)))
    for f in i.followups:
        facts.append((f"{f.kind.capitalize()} follow-up", f"{shorten(f.question, 300)} → {shorten(f.reply or '(no reply)', 300)} [{f.verdict or 'ungraded'}]"))
    return QuestionBlock(q.question, q.options, facts, f"{r.batch_id}, score {i.score}")

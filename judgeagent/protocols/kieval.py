"""``--protocol kieval``: KIEval's knowledge-grounded interactive evaluation.

Per seed question, an *interactor* (the judge role) holds a dialogue of up to
``--kieval-turns`` turns with the target, grounded in the seed and its knowledge-path
chunks: turn 0 puts the seed itself, later turns probe understanding beyond the answer. A
separate *evaluator* (``--evaluator``, default the judge) scores every reply on five aspects
(1–4, each with a one-line comment) and overall. The dialogue stops early, with its reason
recorded, when a reply is unusable: none, empty, a repeat of an earlier one, or judged so by
the evaluator. Scores: :mod:`judgeagent.metrics.kieval`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import Field

from judgeagent.batches import Batch
from judgeagent.blocks import Block, Bullets, Facts, Heading, Para, Section, Table, TableBlock, shorten
from judgeagent.budgets import Stage
from judgeagent.config import EvalConfig, PathOptions
from judgeagent.data.benchmark import Question
from judgeagent.engine.callplan import Call, Count, Rate, RateValues, Seen, less_one, stand_in_passages, stand_in_reply, tries
from judgeagent.engine.protocol import Grade, Renderable
from judgeagent.engine.registry import register
from judgeagent.engine.services import FinishedRun, RunOutcome, RunServices
from judgeagent.llm.registry import ModelSpec
from judgeagent.metrics import kieval as score
from judgeagent.prompts import messages, render, schemas
from judgeagent.protocols.dialogue import Reply, Text, question_text, reply_messages, reply_stage, target_reply, transcript
from judgeagent.protocols.seedwise import Parts, SeedProtocol
from judgeagent.records import Json, JsonModel, SeedUnitRecord, read_figures
from judgeagent.stages.extension import path_text
from judgeagent.stages.planning import PathLength, Plan

ASPECTS = schemas.KIEVAL_ASPECTS
KIEVAL_TARGET = reply_stage("kieval-target", 70)  # the target's reply to a turn
INTERACTOR = Stage("kieval-interactor", 150, 40)  # the interactor's next question
EVALUATOR = Stage("kieval-evaluator", 500, 220)  # the evaluator's five scores of one reply
TURN_HELD = Rate("turn_held", (0.5, 0.85, 1.0), frozenset({"target", "judge"}), "a dialogue turn's reply is usable and the evaluator does not stop it")
History = list[tuple[str, str | None]]  # (question, reply) pairs of a dialogue so far


# ----------------------------------------------------------------------------- records
class TurnScore(JsonModel):
    aspects: dict[str, int]
    comments: dict[str, str]
    overall: int
    stop: bool
    stop_reason: str


class Turn(JsonModel):
    index: int
    question: str
    reply: str | None
    score: TurnScore | None = None
    held: bool = False  # the reply was usable and scored


class Dialogue(JsonModel):
    question_id: str
    passages: str
    turns: list[Turn] = Field(default_factory=list)
    stop_reason: str | None = None  # why it ended before the last turn, when it did
    turns_held: int = 0


class DialogueRecord(SeedUnitRecord):
    """``--protocol kieval``: one seed's dialogue."""

    dialogue: Dialogue


def interactor_messages(seed: Question, passages: str, history: History, turn: int) -> list[dict[str, str]]:
    user = render("kieval_interactor", question=question_text(seed), passages=passages, dialogue=transcript(history), turn=turn)
    return messages(render("kieval_interactor_system"), user)


def evaluator_messages(seed: Question, passages: str, history: History, question: str, reply: str) -> list[dict[str, str]]:
    user = render(
        "kieval_evaluator", question=question_text(seed), reference=f"{seed.answer}. {seed.answer_text}" if seed.options else seed.answer, passages=passages,
        dialogue=transcript(history), turn_question=question, reply=reply,
    )
    return messages(render("kieval_evaluator_system"), user)


class AspectScore(Reply):
    score: int
    comment: Text = ""


class EvaluatorReply(Reply):
    """The evaluator's scores of one reply (schemas.KIEVAL_SCORE)."""

    accuracy: AspectScore
    logic: AspectScore
    relevance: AspectScore
    coherence: AspectScore
    conciseness: AspectScore
    overall: int
    stop: Text = ""
    stop_reason: Text = ""

    def score(self) -> TurnScore:
        aspects = {"accuracy": self.accuracy, "logic": self.logic, "relevance": self.relevance, "coherence": self.coherence,
                   "conciseness": self.conciseness}
        return TurnScore(aspects={a: s.score for a, s in aspects.items()}, comments={a: s.comment for a, s in aspects.items()},
                         overall=self.overall, stop=self.stop == "stop", stop_reason=self.stop_reason)


class InteractorReply(Reply):
    question: Text = ""


def unusable(reply: str | None, error: str | None, earlier: list[str | None]) -> str | None:
    """Why a reply cannot carry the dialogue on (checked before the evaluator is asked), or None."""
    if reply is None:
        return f"no usable reply ({error})" if error else "no usable reply"
    if any(reply.strip().lower() == (e or "").strip().lower() for e in earlier):
        return "repeats an earlier reply"
    return None


class KIEvalOptions(PathOptions):
    """KIEval's settings."""

    evaluator: str | None = Field(default=None, description="The model that scores each turn (default: the judge).")
    kieval_turns: int = Field(default=5, ge=1, description="Dialogue turns per seed question.")


Run = RunServices[KIEvalOptions, DialogueRecord]


@register
class KIEval(SeedProtocol[KIEvalOptions, DialogueRecord]):
    name = "kieval"
    title = "KIEval (knowledge-grounded interactive evaluation)"
    order = 10
    compare_columns = (("KIEval overall", "kieval_overall"), ("KIEval accuracy", "kieval_accuracy"), ("completeness", "kieval_completeness"))
    rates = (TURN_HELD,)
    extra_roles = ("evaluator",)

    def roles(self, options: KIEvalOptions) -> dict[str, str]:
        return {"evaluator": options.evaluator} if options.evaluator else {}

    def path_length(self, options: KIEvalOptions, seed: int) -> PathLength:
        return PathLength(options.hops, 1, seed)  # the seed's path chunks ground the whole dialogue

    async def interview(self, unit: Batch, parts: Parts[KIEvalOptions]) -> DialogueRecord:
        seed = unit.questions[0]
        dialogue = Dialogue(question_id=seed.id, passages=passages(parts.plan, parts.options.hops))
        history: History = []
        for t in range(parts.options.kieval_turns):
            question = question_text(seed) if t == 0 else await self.next_question(parts, seed, dialogue.passages, history, t)
            if question is None:
                dialogue.stop_reason = "the interactor wrote no question"
                break
            reply, error = await target_reply(parts.models, history, question, stage=KIEVAL_TARGET)
            turn = Turn(index=t, question=question, reply=reply)
            dialogue.turns.append(turn)
            dialogue.stop_reason = unusable(reply, error, [r for _, r in history]) or await self.score_turn(parts, seed, dialogue.passages, history, turn)
            history.append((question, reply))
            if dialogue.stop_reason:
                break
        dialogue.turns_held = sum(t.held for t in dialogue.turns)
        return DialogueRecord(setting="full", protocol=self.name, **parts.head, dialogue=dialogue)

    async def next_question(self, parts: Parts[KIEvalOptions], seed: Question, passages: str, history: History, turn: int) -> str | None:
        """The interactor's question for ``turn``, from the seed, the passages and the replies so far."""
        msgs = interactor_messages(seed, passages, history, turn)
        res = await parts.models.ask_judge(msgs, schema=schemas.KIEVAL_QUESTION, stage=INTERACTOR.name, max_tokens=INTERACTOR.max_tokens)
        reply = InteractorReply.read(res)
        return reply.question if reply and reply.question else None

    async def score_turn(self, parts: Parts[KIEvalOptions], seed: Question, passages: str, history: History, turn: Turn) -> str | None:
        """The evaluator's scores of one reply; returns the stop reason when it ends the dialogue."""
        assert turn.reply is not None
        msgs = evaluator_messages(seed, passages, history, turn.question, turn.reply)
        models = parts.models
        evaluator: ModelSpec = parts.evaluator or models.judge
        res = await models.client.chat(evaluator, msgs, schema=schemas.KIEVAL_SCORE, stage=EVALUATOR.name, max_tokens=EVALUATOR.max_tokens, seed=models.seed)
        reply = EvaluatorReply.read(res)
        turn.score = reply.score() if reply is not None else None
        if turn.score is None:
            return f"the evaluator gave no score ({res.error or 'incomplete reply'})"
        if turn.score.stop:
            return turn.score.stop_reason or "the evaluator found the reply unusable"
        turn.held = True
        return None

    def call_plan(self, run: Run, unit: Batch | None, rates: RateValues) -> list[Call]:
        """Per seed: turns until one is not held (each held with turn_held), each a target reply
        and the evaluator's scores, and from turn 1 on the interactor's question; the
        transcript grows by about one exchange a turn."""
        if unit is None:
            return []
        opts, seed = run.options, unit.questions[0]
        texts = stand_in_passages(run.bench, unit, opts.hops)
        shown = path_text(texts, [f"entity {i + 1}" for i in range(len(texts))])
        turns = dialogue_turns(rates[TURN_HELD], opts.kieval_turns)
        later = less_one(turns)
        grows = 1 - 1 / turns.mean if turns.mean else 0.0
        evaluator = "evaluator" if opts.evaluator else "judge"
        return [
            Call(KIEVAL_TARGET, "target", turns, reply_messages([], question_text(seed)), growth=120, repeats=grows),
            Call(EVALUATOR, evaluator, turns, evaluator_messages(seed, shown, [], question_text(seed), stand_in_reply(seed)), growth=120, repeats=grows),
            Call(INTERACTOR, "judge", later, interactor_messages(seed, shown, [], 1), growth=120, repeats=grows),
        ]

    def observe(self, records: Sequence[DialogueRecord]) -> Iterable[Seen]:
        return [Seen(TURN_HELD, sum(r.dialogue.turns_held for r in records), sum(len(r.dialogue.turns) for r in records))]

    def figures(self, records: list[DialogueRecord], options: KIEvalOptions) -> score.KIEvalFigures:
        return kieval_metrics([r.dialogue for r in records], options.kieval_turns)

    def headline(self, outcome: RunOutcome, cfg: EvalConfig) -> list[Renderable]:
        k = read_figures(score.KIEvalFigures, outcome.metrics[self.name])
        aspects = ", ".join(f"{a} {_num(k.aspects.get(a))}" for a in ASPECTS)
        stops = k.early_stop
        return [f"KIEval score {_num(k.overall)} (0–100); {aspects}",
                f"completeness {_num(k.completeness)} of {k.max_turns} turns; early stops {_num(stops.rate)}% "
                f"({', '.join(f'{r}: {n}' for r, n in stops.reasons.items()) or 'none'})"]

    def compare_values(self, metrics: Json) -> dict[str, float | None]:
        k = read_figures(score.KIEvalFigures, metrics.get(self.name) or EMPTY)
        return {"kieval_overall": k.overall, "kieval_accuracy": k.aspects.get("accuracy"), "kieval_completeness": k.completeness}

    def grades(self, record: DialogueRecord) -> list[Grade]:
        """The evaluator's overall score (1–4) of each turn it scored."""
        return [Grade(f"dialogue.turns[{t.index}]", float(t.score.overall)) for t in record.dialogue.turns if t.score is not None]

    def report_sections(self, run: FinishedRun[DialogueRecord]) -> list[Section]:
        return kieval_sections(run)


EMPTY: Json = {"n_dialogues": 0, "max_turns": 0, "overall": None, "aspects": {}, "completeness": None, "early_stop": {"rate": None, "n_stopped": 0, "reasons": {}}}


def dialogue_turns(p_held: float, turns: int) -> Count:
    """Turns a dialogue takes when each one is held with ``p_held`` and the first one not held ends it."""
    return tries(1 - p_held, turns) if p_held < 1 else Count.fixed(turns)


def passages(plan: Plan, hops: int) -> str:
    """The seed's knowledge-path chunks, numbered, as the interactor and evaluator read them."""
    if plan.path is None:
        return "(no passages)"
    window = plan.path.window(0, hops)
    return path_text(window.texts, window.entities) if window.steps else "(no passages)"


def kieval_metrics(dialogues: list[Dialogue], max_turns: int) -> score.KIEvalFigures:
    """Per-aspect and overall KIEval scores over the held turns, completeness, early stops."""
    held = [[t.score for t in d.turns if t.held and t.score is not None] for d in dialogues]
    return score.kieval_figures(
        overall=[[s.overall for s in ss] for ss in held],
        aspects={a: [[s.aspects[a] for s in ss] for ss in held] for a in ASPECTS},
        turns_held=[d.turns_held for d in dialogues],
        # A dialogue that held every turn ended by design, whatever its last reply.
        stop_reasons=[d.stop_reason if d.turns_held < max_turns else None for d in dialogues],
        max_turns=max_turns,
    )


def _num(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}"


# ----------------------------------------------------------------------------- report
def kieval_sections(run: FinishedRun[DialogueRecord]) -> list[Section]:
    k = read_figures(score.KIEvalFigures, run.metrics.get("kieval") or EMPTY)
    table = Table(["overall", *k.aspects, "completeness", "early stops %"],
                  [[_num(k.overall), *(_num(v) for v in k.aspects.values()), _num(k.completeness), _num(k.early_stop.rate)]],
                  numeric=set(range(len(k.aspects) + 3)))
    reasons = [f"{r}: {n}" for r, n in k.early_stop.reasons.items()]
    blocks: list[Block] = [TableBlock(table, f"KIEval scores (0–100; 1–4 mapped 1→1, 2→3, 3→7, 4→10, turn t weighted exp(−0.2·t)) over "
                                             f"{k.n_dialogues} dialogues; completeness is the mean number of turns held, of {k.max_turns}.")]
    blocks += [Heading("Early-stop reasons"), Bullets(reasons)] if reasons else [Para("No dialogue stopped early.", "note")]
    transcripts: list[Block] = []
    for r in run.records:
        d = r.dialogue
        transcripts.append(Heading(f"{r.batch_id}: {d.turns_held} turns held" + (f", stopped: {d.stop_reason}" if d.stop_reason else ""), 4))
        for t in d.turns:
            s = t.score
            scored = "unscored" if not s else f"overall {s.overall}; " + "; ".join(f"{a} {s.aspects[a]} ({s.comments[a]})" for a in s.aspects)
            transcripts.append(Facts([(f"Turn {t.index} examiner", shorten(t.question, 400)), ("Candidate", shorten(t.reply or "(no reply)", 400)),
                                      ("Evaluator", shorten(scored, 500))]))
    return [Section("KIEval", "kieval", blocks), Section("Dialogues", "dialogues", transcripts)]

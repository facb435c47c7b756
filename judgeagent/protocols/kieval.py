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

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import Field

from judgeagent.batches import Batch
from judgeagent.blocks import Bullets, Facts, Heading, Para, Section, Table, TableBlock, shorten
from judgeagent.config import PathOptions
from judgeagent.data.benchmark import Question
from judgeagent.engine.callplan import Call, dialogue_turns, less_one, stand_in_passages, stand_in_reply
from judgeagent.engine.protocol import Parts
from judgeagent.graph import KnowledgePath
from judgeagent.metrics import kieval as score
from judgeagent.prompts import messages, render, schemas
from judgeagent.protocols.dialogue import question_text, reply_messages, target_reply, transcript
from judgeagent.protocols.seedwise import SeedProtocol
from judgeagent.registry import register
from judgeagent.stages.extension import path_text

ASPECTS = schemas.KIEVAL_ASPECTS


@dataclass
class TurnScore:
    aspects: dict[str, int]
    comments: dict[str, str]
    overall: int
    stop: bool
    stop_reason: str


@dataclass
class Turn:
    index: int
    question: str
    reply: str | None
    score: TurnScore | None = None
    held: bool = False  # the reply was usable and scored


@dataclass
class Dialogue:
    question_id: str
    passages: str
    turns: list[Turn] = field(default_factory=list)
    stop_reason: str | None = None  # why it ended before the last turn, when it did

    @property
    def turns_held(self) -> int:
        return sum(t.held for t in self.turns)

    def to_dict(self) -> dict:
        return {"dialogue": asdict(self) | {"turns_held": self.turns_held}}


def interactor_messages(seed: Question, passages: str, history: list[tuple[str, str | None]], turn: int) -> list[dict]:
    user = render("kieval_interactor", question=question_text(seed), passages=passages, dialogue=transcript(history), turn=turn)
    return messages(render("kieval_interactor_system"), user)


def evaluator_messages(seed: Question, passages: str, history: list[tuple[str, str | None]], question: str, reply: str) -> list[dict]:
    user = render(
        "kieval_evaluator", question=question_text(seed), reference=f"{seed.answer}. {seed.answer_text}" if seed.options else seed.answer, passages=passages,
        dialogue=transcript(history), turn_question=question, reply=reply,
    )
    return messages(render("kieval_evaluator_system"), user)


def read_score(data: dict) -> TurnScore | None:
    """The evaluator's reply as numbers; None when any score is missing."""
    try:
        aspects = {a: int(data[a]["score"]) for a in ASPECTS}
        overall = int(data["overall"])
    except (KeyError, TypeError, ValueError):
        return None
    comments = {a: str(data[a].get("comment", "")).strip() for a in ASPECTS}
    return TurnScore(aspects, comments, overall, data.get("stop") == "stop", str(data.get("stop_reason", "")).strip())


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


@register
class KIEval(SeedProtocol):
    name = "kieval"
    title = "KIEval (knowledge-grounded interactive evaluation)"
    order = 10
    options = KIEvalOptions
    compare_columns = (("KIEval overall", "kieval_overall"), ("KIEval accuracy", "kieval_accuracy"), ("completeness", "kieval_completeness"))

    def roles(self, options: Any) -> dict[str, str]:
        return {"evaluator": options.evaluator} if options.evaluator else {}

    def path_windows(self, options: Any) -> int:
        return 1  # the seed's path chunks ground the whole dialogue

    async def interview(self, unit: Batch, parts: Parts) -> Dialogue:
        seed = unit.questions[0]
        dialogue = Dialogue(seed.id, passages(parts.plan, parts.options.hops))
        history: list[tuple[str, str | None]] = []
        for t in range(parts.options.kieval_turns):
            question = question_text(seed) if t == 0 else await self.next_question(parts, seed, dialogue.passages, history, t)
            if question is None:
                dialogue.stop_reason = "the interactor wrote no question"
                break
            reply, error = await target_reply(parts.models, history, question, stage="kieval-target")
            turn = Turn(t, question, reply)
            dialogue.turns.append(turn)
            dialogue.stop_reason = unusable(reply, error, [r for _, r in history]) or await self.score_turn(parts, seed, dialogue.passages, history, turn)
            history.append((question, reply))
            if dialogue.stop_reason:
                break
        return dialogue

    async def next_question(self, parts: Parts, seed: Question, passages: str, history, turn: int) -> str | None:
        """The interactor's question for ``turn``, from the seed, the passages and the replies so far."""
        msgs = interactor_messages(seed, passages, history, turn)
        res = await parts.models.ask_judge(msgs, schema=schemas.KIEVAL_QUESTION, stage="kieval-interactor", max_tokens=150)
        text = str(res.data.get("question", "")).strip() if res.ok and isinstance(res.data, dict) else ""
        return text or None

    async def score_turn(self, parts: Parts, seed: Question, passages: str, history, turn: Turn) -> str | None:
        """The evaluator's scores of one reply; returns the stop reason when it ends the dialogue."""
        assert turn.reply is not None
        msgs = evaluator_messages(seed, passages, history, turn.question, turn.reply)
        models = parts.models
        res = await models.client.chat(parts.evaluator or models.judge, msgs, schema=schemas.KIEVAL_SCORE, stage="kieval-evaluator",
                                       max_tokens=500, seed=models.seed)
        turn.score = read_score(res.data) if res.ok and isinstance(res.data, dict) else None
        if turn.score is None:
            return f"the evaluator gave no score ({res.error or 'incomplete reply'})"
        if turn.score.stop:
            return turn.score.stop_reason or "the evaluator found the reply unusable"
        turn.held = True
        return None

    def call_plan(self, ctx: Any, unit: Batch | None, rates: Mapping[str, float]) -> list[Call]:
        """Per seed: turns until one is not held (each held with turn_held), each a target reply
        and the evaluator's scores, and from turn 1 on the interactor's question; the
        transcript grows by about one exchange a turn."""
        if unit is None:
            return []
        opts, seed = ctx.options, unit.questions[0]
        texts = stand_in_passages(ctx.bench, unit, opts.hops)
        shown = path_text(texts, [f"entity {i + 1}" for i in range(len(texts))])
        turns = dialogue_turns(rates["turn_held"], opts.kieval_turns)
        later = less_one(turns)
        grows = 1 - 1 / turns.mean if turns.mean else 0.0
        evaluator = "evaluator" if opts.evaluator else "judge"
        return [
            Call("kieval-target", "target", turns, reply_messages([], question_text(seed)), 200, growth=120, repeats=grows),
            Call("kieval-evaluator", evaluator, turns, evaluator_messages(seed, shown, [], question_text(seed), stand_in_reply(seed)), 500,
                 growth=120, repeats=grows),
            Call("kieval-interactor", "judge", later, interactor_messages(seed, shown, [], 1), 150, growth=120, repeats=grows),
        ]

    def figures(self, records: list[dict], options: Any) -> score.KIEvalFigures:
        return kieval_metrics([r["dialogue"] for r in records], options.kieval_turns)

    def headline(self, outcome: Any, cfg: Any) -> list[Any]:
        k = outcome.metrics["kieval"]
        aspects = ", ".join(f"{a} {_num(k['aspects'][a])}" for a in ASPECTS)
        return [f"KIEval score {_num(k['overall'])} (0–100); {aspects}",
                f"completeness {_num(k['completeness'])} of {k['max_turns']} turns; early stops {_num(k['early_stop']['rate'])}% "
                f"({', '.join(f'{r}: {n}' for r, n in k['early_stop']['reasons'].items()) or 'none'})"]

    def compare_values(self, m: dict) -> dict:
        k = m.get("kieval") or {}
        return {"kieval_overall": k.get("overall"), "kieval_accuracy": (k.get("aspects") or {}).get("accuracy"), "kieval_completeness": k.get("completeness")}

    def report_sections(self, run: Any) -> list:
        return kieval_sections(run)


def passages(plan: dict, hops: int) -> str:
    """The seed's knowledge-path chunks, numbered, as the interactor and evaluator read them."""
    if not plan.get("path"):
        return "(no passages)"
    window = KnowledgePath.from_dict(plan["path"]).window(0, hops)
    return path_text(window.texts, window.entities) if window.steps else "(no passages)"


def kieval_metrics(dialogues: list[dict], max_turns: int) -> score.KIEvalFigures:
    """Per-aspect and overall KIEval scores over the held turns, completeness, early stops."""
    held = [[t for t in d["turns"] if t["held"]] for d in dialogues]
    return score.kieval_figures(
        overall=[[t["score"]["overall"] for t in ts] for ts in held],
        aspects={a: [[t["score"]["aspects"][a] for t in ts] for ts in held] for a in ASPECTS},
        turns_held=[d["turns_held"] for d in dialogues],
        # A dialogue that held every turn ended by design, whatever its last reply.
        stop_reasons=[d["stop_reason"] if d["turns_held"] < max_turns else None for d in dialogues],
        max_turns=max_turns,
    )


def _num(v) -> str:
    return "–" if v is None else f"{v:.2f}"


# ----------------------------------------------------------------------------- report
def kieval_sections(run: Any) -> list[Section]:
    k = run.metrics.get("kieval") or {}
    aspects = k.get("aspects") or {}
    table = Table(["overall", *aspects, "completeness", "early stops %"],
                  [[_num(k.get("overall")), *(_num(v) for v in aspects.values()), _num(k.get("completeness")), _num((k.get("early_stop") or {}).get("rate"))]],
                  numeric=set(range(len(aspects) + 3)))
    reasons = [f"{r}: {n}" for r, n in ((k.get("early_stop") or {}).get("reasons") or {}).items()]
    blocks: list = [TableBlock(table, f"KIEval scores (0–100; 1–4 mapped 1→1, 2→3, 3→7, 4→10, turn t weighted exp(−0.2·t)) over "
                                      f"{k.get('n_dialogues', 0)} dialogues; completeness is the mean number of turns held, of {k.get('max_turns')}.")]
    blocks += [Heading("Early-stop reasons"), Bullets(reasons)] if reasons else [Para("No dialogue stopped early.", "note")]
    transcripts: list = []
    for r in run.records:
        d = r["dialogue"]
        transcripts.append(Heading(f"{r['batch_id']}: {d['turns_held']} turns held" + (f", stopped: {d['stop_reason']}" if d.get("stop_reason") else ""), 4))
        for t in d["turns"]:
            s = t.get("score")
            scored = "unscored" if not s else f"overall {s['overall']}; " + "; ".join(f"{a} {s['aspects'][a]} ({s['comments'][a]})" for a in s["aspects"])
            transcripts.append(Facts([(f"Turn {t['index']} examiner", shorten(t["question"], 400)), ("Candidate", shorten(t["reply"] or "(no reply)", 400)), ("Evaluator", shorten(scored, 500))]))
    return [Section("KIEval", "kieval", blocks), Section("Dialogues", "dialogues", transcripts)]



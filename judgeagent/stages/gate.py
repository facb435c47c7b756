"""The quality gate every generated follow-up question passes before the target sees it.

Checks, cheapest first; once one fails, the rest are not run (so no judge call is spent on
a question that is already rejected; with ``GateConfig.overlap`` the ``answerable`` call is
sent early and withdrawn instead, see :meth:`QualityGate.check`):

1. ``well_formed``   MC: 4 distinct non-empty options and a one-letter answer among them;
                     KQA: a non-empty answer of at most ``max_phrase_words`` words.
2. ``self_contained`` KMC and KQA: the question does not point at "the passage", "the text"
                     or "the article", which the target never sees (RMC: not run).
3. ``not_seed_copy`` not a near-copy of any seed question of the benchmark (cosine).
4. ``not_duplicate`` not a near-copy of a question accepted earlier in the run (cosine).
5. ``answerable``    the judge, shown only the path's passages, reaches the marked answer.
                     It may say "cannot be determined" instead, which fails the check: a
                     judge made to guess would answer from memory, and then "answerable"
                     only shows that it agrees with its own key.
6. ``needs_hops``    Hard only: with any one passage removed the judge should fail (at
                     best, say "cannot be determined") at least once. A question it still
                     answers every time is kept but marked ``single_hop`` -- it is not
                     evidence of multi-hop reasoning.

Similarity uses the question stem only: options are drawn and placed by us, so two copies
of one stem would differ in their options, and the stem is what a target may have memorised.
It is computed from fp32 vectors on every CPU (:mod:`judgeagent.graph.fixed_precision`):
bf16 ones moved a stem's cosine by up to 0.0023 over the demo benchmarks' seed stems and the
replay fixtures' follow-ups (0.0008 for pairs at 0.7 or more), fp32 with AVX2 kernels by
1e-6 (bench/precision.py).
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from judgeagent.budgets import gate_stage
from judgeagent.config import GenerationOptions
from judgeagent.data.benchmark import Benchmark, Question, QuestionType
from judgeagent.graph.embed_queue import embed
from judgeagent.graph.fixed_precision import decision_embedder
from judgeagent.prompts import messages, render, schemas
from judgeagent.records import FollowUpRecord
from judgeagent.stages.answers import normalize_phrase
from judgeagent.stages.grading import grade
from judgeagent.stages.models import Models

CHECKS = ("well_formed", "self_contained", "not_seed_copy", "not_duplicate", "answerable", "needs_hops")
SIMILARITY_CHECKS = ("not_seed_copy", "not_duplicate")
MC_LETTERS = ("A", "B", "C", "D")

# A question that points at its source, which a knowledge question's target never sees:
# "the passage", "this text", "the above article", "according to the passages". Not "the
# text of the treaty" or "the article by Reuters", which name something the target can know.
_SOURCE_REFERENCE = re.compile(
    r"\b(?:the|this|these|that|those)\s+(?:above\s+|given\s+|provided\s+|following\s+|source\s+)?"
    r"(?:passages?|texts?|articles?|excerpts?)\b(?!\s+(?:of|from|by|published|titled|written|messages?)\b)",
    re.I,
)


@dataclass
class GateConfig:
    check_hops: bool = True  # run needs_hops on Hard questions (one judge call per passage)
    seed_similarity: float = 0.9
    duplicate_similarity: float = 0.9
    max_phrase_words: int = 8
    # Send the answerable check while the similarity checks embed the question; a question
    # they reject has its judge call withdrawn. Only worth it when the judge takes requests
    # in parallel (a local llama.cpp server answers one at a time).
    overlap: bool = False


@dataclass
class CheckResult:
    name: str
    passed: bool | None  # None: not run
    reason: str = ""


@dataclass
class GateVerdict:
    checks: list[CheckResult]
    single_hop: bool = False  # a Hard question answerable with a hop missing: reported as not Hard

    @property
    def passed(self) -> bool:
        # needs_hops never rejects: a failing one only sets single_hop.
        return all(c.passed is not False for c in self.checks if c.name != "needs_hops")

    @property
    def reasons(self) -> list[str]:
        """Why the question was rejected (empty when it passed)."""
        return [c.reason for c in self.checks if c.passed is False and c.name != "needs_hops"]

    def to_dict(self) -> dict:
        """``{"passed", "single_hop", "checks": {name: {"passed": bool|None, "reason": str}}}``."""
        return {
            "passed": self.passed,
            "single_hop": self.single_hop,
            "checks": {c.name: {"passed": c.passed, "reason": c.reason} for c in self.checks},
        }

    @classmethod
    def from_dict(cls, d: dict) -> GateVerdict:
        checks = [CheckResult(name, c["passed"], c.get("reason", "")) for name, c in d["checks"].items()]
        return cls(checks, bool(d.get("single_hop", False)))


def balanced_position(batch_seed: int, round_index: int) -> int:
    """Where round ``round_index`` of a batch puts the correct option (0..3).

    Each block of 4 rounds uses a seeded permutation of the 4 positions, so every letter is
    correct exactly once per block. Per batch rather than run-wide: batches run concurrently,
    and a shared counter would make the letters depend on scheduling.
    """
    block = random.Random(f"{batch_seed}:{round_index // 4}").sample(range(4), 4)
    return block[round_index % 4]


def passages_text(texts: list[str]) -> str:
    return "\n\n".join(f"[{i + 1}] {t.strip()}" for i, t in enumerate(texts))


def answer_messages(question: Question, qtype: QuestionType, texts: list[str]) -> list[dict]:
    shown = {"passages": passages_text(texts), "question": question.question.strip()}
    if qtype.is_multiple_choice:
        options = "\n".join(f"{k}. {v}" for k, v in (question.options or {}).items())
        user = render("gate_answer_mc", **shown, options=options)
    else:
        user = render("gate_answer_phrase", **shown)
    return messages(render("gate_answer_system"), user)


def undetermined(reply: str) -> bool:
    """Whether the gate's reader took the way out: the passages do not give the answer."""
    return normalize_phrase(reply).startswith(schemas.UNDETERMINED)


def self_contained(question: Question, qtype: QuestionType) -> CheckResult:
    name = "self_contained"
    if qtype.shows_context:
        return CheckResult(name, None, "the target reads the text")
    m = _SOURCE_REFERENCE.search(question.question)
    if m:
        return CheckResult(name, False, f"refers to {m.group(0).lower()!r}, which the target never sees")
    return CheckResult(name, True)


def well_formed(question: Question, qtype: QuestionType, max_phrase_words: int) -> CheckResult:
    name = "well_formed"
    if not question.question.strip():
        return CheckResult(name, False, "empty question text")
    if qtype.is_multiple_choice:
        opts = question.options or {}
        if len(opts) != 4:
            return CheckResult(name, False, f"needs exactly 4 options, has {len(opts)}")
        if not all(str(o).strip() for o in opts.values()):
            return CheckResult(name, False, "an option is empty")
        if len({normalize_phrase(o) for o in opts.values()}) != 4:
            return CheckResult(name, False, "two options say the same")
        if len(question.answer) != 1 or question.answer not in opts:
            return CheckResult(name, False, f"answer {question.answer!r} is not one option letter")
        return CheckResult(name, True)
    words = question.answer.split()
    if not words:
        return CheckResult(name, False, "no answer")
    if len(words) > max_phrase_words:
        return CheckResult(name, False, f"answer has {len(words)} words, at most {max_phrase_words} allowed")
    return CheckResult(name, True)


async def _withdraw(task: asyncio.Task | None) -> None:
    """Cancel a speculative judge call that is no longer wanted, and wait until it is gone."""
    if task is None:
        return
    task.cancel()
    await asyncio.wait([task])
    if not task.cancelled():
        task.exception()  # finished first (perhaps with an error): its result is not wanted either


def max_cosine(vec: np.ndarray, matrix: np.ndarray) -> float:
    """Largest cosine of ``vec`` to the rows of ``matrix`` (all L2-normalised); 0 when empty."""
    return float((matrix @ vec).max()) if len(matrix) else 0.0


class QualityGate:
    """Run-wide gate state, shared by all batches of one setting.

    Batches run as concurrent asyncio tasks: every read-and-update of the state below is
    free of awaits, so no task sees half an update.
    """

    def __init__(
        self, models: Models, embedder: Any, seed_questions: list[str], config: GateConfig | None = None, *, scope: str = "run"
    ):
        self.models = models
        self.scope = scope  # the setting it serves: names its verdicts in the journal
        # Anything with encode(texts) -> (n, d) L2-normalised rows; MiniLM in fp32 whatever the
        # CPU, so that a copy is a copy on every machine (graph.fixed_precision).
        self.embedder = decision_embedder(embedder)
        self.seed_questions = list(seed_questions)
        self.config = config or GateConfig()
        self._seed_vecs: np.ndarray | None = None
        self._accepted: list[str] = []
        # Accepted questions' vectors, rows [:len(_accepted)] of a buffer grown by doubling: a
        # check reads them all, and stacking a list again at every check grew with the run squared.
        self._accepted_vecs = np.zeros((0, 0), dtype=np.float32)
        self._vec_cache: dict[str, np.ndarray] = {}  # check() embeds, accept() reuses

    def _embed(self, text: str) -> np.ndarray:
        return np.asarray(self.embedder.encode([text]), dtype=np.float32)[0]

    def prime(self) -> None:
        """Embed the seed questions now, before batches run, instead of at the first check."""
        self._seeds()

    def _seeds(self) -> np.ndarray:
        if self._seed_vecs is None:  # once per run
            vecs = self.embedder.encode(self.seed_questions) if self.seed_questions else np.zeros((0, 1))
            self._seed_vecs = np.asarray(vecs, dtype=np.float32)
        return self._seed_vecs

    def _duplicate_check(self, vec: np.ndarray) -> CheckResult:
        if not self._accepted:
            return CheckResult("not_duplicate", True)
        sims = self._accepted_vecs[: len(self._accepted)] @ vec
        best = int(np.argmax(sims))
        if sims[best] >= self.config.duplicate_similarity:
            reason = f"repeats an earlier question ({sims[best]:.2f} similar to: {self._accepted[best][:80]})"
            return CheckResult("not_duplicate", False, reason)
        return CheckResult("not_duplicate", True)

    async def check(
        self, question: Question, qtype: QuestionType, level: str, path_texts: list[str], *, key: str | None = None
    ) -> GateVerdict:
        """Run the checks in order, stopping at the first failure (later ones: not run).

        ``key`` names this try (batch, round, try). Whether a question is a near-copy
        depends on which other batch accepted a question first (and, in the last digits, on
        which texts the embedding queue batched together), so the two similarity verdicts
        are kept in the run's journal under the key: a rerun takes the same verdicts and so
        replays the same requests.

        With ``config.overlap`` the ``answerable`` judge call is sent while the question is
        embedded, and withdrawn if a similarity check rejects the question.
        """
        memo_key = f"gate/similarity/{self.scope}/{key}/{question.question}" if key is not None else None
        remembered = self.models.recall(memo_key) if memo_key is not None else None
        results = [well_formed(question, qtype, self.config.max_phrase_words)]
        if results[-1].passed:
            results.append(self_contained(question, qtype))
        single_hop = False
        if all(r.passed is not False for r in results):  # self_contained is not run for RMC
            speculate = self.config.overlap and (remembered is None or all(c["passed"] for c in remembered))
            answering = asyncio.create_task(self._answerable(question, qtype, path_texts)) if speculate else None
            try:
                vec = await self._vector(question)
            except BaseException:
                await _withdraw(answering)
                raise
            if remembered is not None:  # the verdicts of the first run, not recomputed
                results += [CheckResult(**c) for c in remembered]
            else:
                results += self._similarity(vec)
            if results[-1].passed:
                results.append(await answering if answering is not None else await self._answerable(question, qtype, path_texts))
            else:
                await _withdraw(answering)
            if results[-1].passed:
                hops, single_hop = await self._needs_hops(question, qtype, level, path_texts)
                results.append(hops)
                if remembered is None:
                    # Another batch may have accepted a near-copy while we waited for the judge;
                    # the caller accepts right after this returns, with no await in between.
                    results[CHECKS.index("not_duplicate")] = self._duplicate_check(vec)
            if memo_key is not None and remembered is None:
                self.models.remember(memo_key, [asdict(c) for c in results if c.name in SIMILARITY_CHECKS])
        run = {r.name: r for r in results}
        return GateVerdict([run.get(name, CheckResult(name, None)) for name in CHECKS], single_hop)

    async def _vector(self, question: Question) -> np.ndarray:
        """The stem's vector, kept for :meth:`accept`."""
        # Other batches go on while the model runs; the shared state is read after it.
        vec = (await embed(self.embedder, [question.question]))[0]
        self._vec_cache[question.question] = vec
        return vec

    def _similarity(self, vec: np.ndarray) -> list[CheckResult]:
        """``not_seed_copy``, then (if it passed) ``not_duplicate``."""
        sim = max_cosine(vec, self._seeds())
        ok = sim < self.config.seed_similarity
        results = [CheckResult("not_seed_copy", ok, "" if ok else f"copies a benchmark question ({sim:.2f} similar)")]
        if ok:
            results.append(self._duplicate_check(vec))
        return results

    async def _judge_answers(self, question: Question, qtype: QuestionType, texts: list[str]) -> tuple[bool | None, str]:
        """Whether the judge, reading only ``texts``, gets the marked answer (None: no reply),
        and what it said: an option's text, a phrase, or "cannot be determined" (a miss)."""
        schema = schemas.GATE_ANSWER_MC if qtype.is_multiple_choice else schemas.GATE_ANSWER_PHRASE
        res = await self.models.ask_judge(
            answer_messages(question, qtype, texts), schema=schema, stage=gate_stage(qtype.is_multiple_choice).name,
            max_tokens=gate_stage(qtype.is_multiple_choice).max_tokens,
        )
        reply = res.data.get("answer") if res.ok and isinstance(res.data, dict) else None
        if reply is None:
            return None, f"judge gave no answer ({res.error or 'no answer field'})"
        if undetermined(str(reply)):
            return False, schemas.UNDETERMINED
        # Graded as the target's answer would be, so "answerable" means what a correct target does.
        graded = await grade(self.models, qtype, question, str(reply))
        said = (question.options or {}).get(graded.chosen or "", str(reply)) if qtype.is_multiple_choice else str(reply)
        return graded.correct, said

    async def _answerable(self, question: Question, qtype: QuestionType, path_texts: list[str]) -> CheckResult:
        right, said = await self._judge_answers(question, qtype, path_texts)
        if right is None:
            return CheckResult("answerable", False, said)
        if not right:
            answered = "that it cannot be determined from them" if undetermined(said) else repr(said)
            return CheckResult(
                "answerable", False, f"the passages do not support the answer {question.answer_text!r}: a reader of them answered {answered}"
            )
        return CheckResult("answerable", True)

    async def _needs_hops(
        self, question: Question, qtype: QuestionType, level: str, path_texts: list[str]
    ) -> tuple[CheckResult, bool]:
        """Ablate one passage at a time; the judge must fail at least once.

        With a passage missing, "cannot be determined" is the answer we expect; a wrong
        answer is a miss too. Returns (result, single_hop). Passed: some ablation made the
        judge miss, so every hop is needed. Failed (single_hop): the judge was right with
        each passage removed -- from the other passages or its own knowledge. Not run
        (None): not Hard, fewer than 2 passages, disabled, or an ablation got no reply and
        none missed, which proves nothing either way.
        """
        name = "needs_hops"
        if not self.config.check_hops:
            return CheckResult(name, None, "disabled"), False
        if level != "hard":
            return CheckResult(name, None, "not hard"), False
        if len(path_texts) < 2:
            return CheckResult(name, None, "fewer than 2 passages"), False
        no_reply = False
        for i in range(len(path_texts)):
            right, said = await self._judge_answers(question, qtype, path_texts[:i] + path_texts[i + 1 :])
            if right is False:
                how = "cannot be determined" if undetermined(said) else "missed"
                return CheckResult(name, True, f"{how} without passage {i + 1}"), False
            no_reply = no_reply or right is None
        if no_reply:
            return CheckResult(name, None, "an ablation got no reply"), False
        return CheckResult(name, False, "answered right with any one passage removed"), True

    def accept(self, question: Question) -> None:
        """Register a question the target will be asked: later ones must not repeat it."""
        vec = self._vec_cache.pop(question.question, None)
        vec = vec if vec is not None else self._embed(question.question)
        n = len(self._accepted)
        if n == len(self._accepted_vecs):
            grown = np.zeros((max(16, 2 * n), len(vec)), dtype=np.float32)
            if n:
                grown[:n] = self._accepted_vecs[:n]
            self._accepted_vecs = grown
        self._accepted_vecs[n] = vec
        self._accepted.append(question.question)


def make_gates(options: GenerationOptions, scopes: list[str], bench: Benchmark, models: Models, embedder: object,
               done: Iterable[tuple[str, Sequence[FollowUpRecord]]]) -> dict[str, QualityGate]:
    """One quality gate per scope (an arm of the run) with the run's settings, primed with the
    questions a resumed run already accepted: ``done`` holds each finished unit's (scope,
    follow-ups), in unit order. None when ``options`` turn the gate off."""
    if not options.gate:
        return {}
    seeds = [q.question for q in bench.questions]
    # Overlap only pays when the judge can answer the early call beside other units' calls.
    overlap = options.gate_overlap and models.judge.concurrency > 1
    gate_cfg = GateConfig(check_hops=options.check_hops, seed_similarity=options.seed_similarity, overlap=overlap)
    gates = {name: QualityGate(models, embedder, seeds, gate_cfg, scope=name) for name in scopes}
    for gate in gates.values():
        gate.prime()
    for scope, followups in done:
        if (scoped := gates.get(scope)) is None:
            continue
        for f in followups:
            if f.question is not None:
                scoped.accept(Question(**f.question.fields()))
    return gates


def gate_summary(rounds: Iterable[FollowUpRecord]) -> dict:
    """Gate statistics over a run's round records (or a probe's generated questions).

    Each round may carry ``generation_attempts`` (one per try; a try that reached the gate
    has its verdict, ``GateVerdict.to_dict()`` as written) and ``gate`` (the accepted
    question's verdict, or None). Returns::

        {"checks": {name: {"run": n, "passed": n, "pass_rate": float | None}},  # over every try
         "evaluations": n,          # tries that reached the gate
         "questions_passed": n,     # rounds whose question passed the gate
         "questions_skipped": n,    # rounds that reached the gate but ended with no question
         "single_hop": n}           # passed Hard questions answerable with a hop missing
    """
    counts = {name: {"run": 0, "passed": 0} for name in CHECKS}
    evaluations = questions_passed = questions_skipped = single_hop = 0
    for rnd in rounds:
        verdicts = [a.gate for a in rnd.generation_attempts or [] if a.gate is not None]
        evaluations += len(verdicts)
        for v in verdicts:
            for name, c in v.checks.items():
                if c.passed is not None and name in counts:
                    counts[name]["run"] += 1
                    counts[name]["passed"] += bool(c.passed)
        accepted = rnd.gate
        if accepted is not None:
            questions_passed += 1
            single_hop += accepted.single_hop
        elif verdicts:
            questions_skipped += 1
    checks = {
        name: {**c, "pass_rate": round(c["passed"] / c["run"], 4) if c["run"] else None} for name, c in counts.items()
    }
    return {
        "checks": checks,
        "evaluations": evaluations,
        "questions_passed": questions_passed,
        "questions_skipped": questions_skipped,
        "single_hop": single_hop,
    }

"""The Inspect tasks: ``judgeagent/interview``, ``judgeagent/kieval``, ``judgeagent/interviewer``,
``judgeagent/escalate`` (Inspect loads this module through the ``inspect_ai`` entry point).

    inspect eval judgeagent/interview -T data=data/medqa-demo -T limit=3 \\
        --model openai/gpt-4o-mini --model-role judge=openai/gpt-4o

Each task's ``-T`` arguments are its protocol's options (:mod:`judgeagent.inspect.arguments`);
the target is ``--model``, the judge the model role ``judge`` (``--model`` when not bound),
KIEval's evaluator the role ``evaluator`` (the judge when not bound).
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.package import get_installed_package_name
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from judgeagent.inspect.arguments import task_config
from judgeagent.inspect.log import STORE_KEY, dialogue, question_text, run_figures, score_parts
from judgeagent.inspect.session import InspectSession
from judgeagent.llm.inspect_model import TARGET


def named(name: str) -> str:
    """The task's registry name, ``judgeagent/<name>`` however the package is installed.

    Inspect prefixes the package's name itself when it finds the module installed; it does
    not when a ``judgeagent.egg-info`` of an editable checkout comes first on ``sys.path``
    (it has no ``direct_url.json``), and ``inspect eval judgeagent/interview`` would then
    not find the task."""
    return name if get_installed_package_name(named) == "judgeagent" else f"judgeagent/{name}"


@task(name=named("interview"))
def interview(**options: Any) -> Task:
    """The JudgeAgent interview: seed batches graded, extended with Easy/Medium/Hard follow-ups
    along the context graph's knowledge paths, feedback, the seeds asked again (ACC1, ACC2, ΔACC, CR, CtE)."""
    return protocol_task("judgeagent", options)


@task(name=named("kieval"))
def kieval(**options: Any) -> Task:
    """KIEval: a dialogue per seed, every reply scored by the evaluator (model role evaluator)."""
    return protocol_task("kieval", options)


@task(name=named("interviewer"))
def interviewer(**options: Any) -> Task:
    """The Interviewer: feedback and revisions until right, two follow-ups graded (acc@k)."""
    return protocol_task("interviewer", options)


@task(name=named("escalate"))
def escalate(**options: Any) -> Task:
    """Escalation: follow-ups of rising difficulty until the target fails (ACC by level, ACC-AUC)."""
    return protocol_task("escalate", options)


def protocol_task(protocol: str, given: dict[str, Any]) -> Task:
    """The Inspect task of ``protocol``: one sample per unit (a seed batch, or a seed), each
    holding its whole interview."""
    session = InspectSession(task_config(protocol, given))
    return Task(dataset=samples(session), solver=interviewed(session), scorer=graded(),
                metadata={"protocol": protocol, "data": str(session.cfg.data), "options": session.cfg.options})


def samples(session: InspectSession) -> list[Sample]:
    return [Sample(id=u.id, input="\n\n".join(question_text(q) for q in u.questions), target=[q.answer for q in u.questions],
                   metadata={"batch_index": u.index, "questions": [q.id for q in u.questions]}) for u in session.run.units]


def interviewed(session: InspectSession) -> Solver:
    @solver(name="interviewed")
    def make() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            _, records, calls = await session.ask(str(state.sample_id))
            cfg = session.cfg
            state.messages = dialogue(calls)
            answers = [c for c in calls if c.role == TARGET and c.reply is not None]
            if answers:
                state.output = ModelOutput.from_content(model=answers[-1].model, content=answers[-1].reply or "")
            state.store.set(STORE_KEY, score_parts(session.protocol, cfg.options, cfg.seed, records))
            return state

        return solve

    return make()


@metric(name="figures")
def figures() -> Metric:
    """The run's figures, computed by the protocol's own metrics code from every sample's records."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return run_figures(scores)

    return compute


@scorer(metrics=[figures()], name="interview")
def graded() -> Scorer:
    """Each graded reply of the unit (the solver has graded them, as a CLI run does)."""

    async def score(state: TaskState, target: Target) -> Score:
        parts = state.store.get(STORE_KEY)
        return Score(value=parts["value"], explanation=parts["explanation"], metadata=parts["metadata"])

    return score

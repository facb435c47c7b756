"""A task's ``-T`` arguments as the run's :class:`~judgeagent.config.EvalConfig`.

The names, defaults and checks are those of ``judgeagent evaluate``'s flags, from the same
models: ``-T limit=3`` is ``--limit 3``, ``-T batch_size=2`` (or ``batch-size``) is
``--batch-size 2``, a field of a nested model is named by its own name (``-T t2=1.5`` is
``--t2 1.5``). What Inspect itself decides (the models, the concurrency, the log, retries,
the cache) is refused with the Inspect option to use instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai._util.error import PrerequisiteError  # Inspect's "print the message, no traceback"
from pydantic import BaseModel, ValidationError

from judgeagent.config import EvalConfig, merged
from judgeagent.engine.options import resolve
from judgeagent.engine.registry import owners, protocol_class
from judgeagent.errors import ConfigError

# The run's own settings a task takes (beside its protocol's options).
SHARED = ("data", "graph", "rebuild_graph", "seed")
# What Inspect decides for a task, and how to say it there.
INSPECTS = {
    "target": "the target is Inspect's --model",
    "judge": "the judge is the model role judge: --model-role judge=<model>",
    "concurrency": "use Inspect's --max-samples and --max-connections",
    "out": "the log is Inspect's: --log-dir",
    "resume": "use inspect eval-retry <log>",
    "report": "use inspect view",
    "protocol": "the task names the protocol (judgeagent/interview, judgeagent/kieval, ...)",
    "llm": "Inspect's generation options apply (--max-retries, --timeout, --cache, --batch, --max-tokens...)",
}


class TaskArgumentError(ConfigError, PrerequisiteError):
    """A ``-T`` argument a task does not take, or a value its options model refuses. Inspect
    prints a ``PrerequisiteError`` as its message alone, without a traceback."""

    def __init__(self, message: str):
        ConfigError.__init__(self, message)
        self.message = message


def nested_names(model: type[BaseModel]) -> dict[str, tuple[str, str]]:
    """A nested model's fields by their own name → (field, subfield): ``t2`` → (difficulty, t2)."""
    out: dict[str, tuple[str, str]] = {}
    for name, info in model.model_fields.items():
        sub = info.annotation
        if isinstance(sub, type) and issubclass(sub, BaseModel):
            for inner in sub.model_fields:
                out.setdefault(inner, (name, inner))
    return out


def task_config(protocol: str, given: Mapping[str, Any]) -> EvalConfig:
    """The run of ``protocol`` that ``-T`` arguments ``given`` ask for, its options validated.

    Raises :class:`TaskArgumentError`, one line naming each argument that is wrong."""
    cls = protocol_class(protocol)
    nested = nested_names(cls.options)
    shared: dict[str, Any] = {}
    options: dict[str, Any] = {}
    problems = []
    for raw, value in given.items():
        key = raw.replace("-", "_")
        if key in SHARED:
            shared[key] = value
        elif key in INSPECTS:
            problems.append(f"-T {raw}: not a task argument; {INSPECTS[key]}")
        elif key in cls.options.model_fields:
            options[key] = value
        elif key in nested:
            field, inner = nested[key]
            options = merged(options, {field: {inner: value}})
        elif other := owners(key):
            problems.append(f"-T {raw} belongs to the {', '.join(other)} protocol{'s' if len(other) > 1 else ''}, not to this task")
        else:
            problems.append(f"-T {raw}: no option of this task (`judgeagent protocols {protocol}` lists them)")
    for role in cls.extra_roles:
        if options.get(role) is not None:
            problems.append(f"-T {role}: under Inspect the {role} is a model role: --model-role {role}=<model>")
            options.pop(role)
    if problems:
        raise TaskArgumentError("; ".join(problems))
    try:
        cfg = EvalConfig.model_validate(shared | {"protocol": protocol, "options": options})
        _, validated = resolve(cfg)
    except ValidationError as e:
        raise TaskArgumentError(describe(e)) from None
    return cfg.model_copy(update={"options": validated.model_dump(mode="json")})


def describe(e: ValidationError) -> str:
    """Each bad value in one line, named as the ``-T`` argument it came from."""
    out = []
    for err in e.errors():
        loc = [str(x) for x in err["loc"] if str(x) != "options"]
        name = loc[-1] if loc else "options"
        out.append(f"-T {name}: {err['msg']} (got {err.get('input')!r})" if loc else f"{err['msg']}")
    return "; ".join(out)

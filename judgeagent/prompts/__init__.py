"""Every prompt JudgeAgent sends, in one place.

Templates are plain-text files beside this module, filled with :class:`string.Template`
(``$name``), so JSON braces in them need no escaping. A whole message has one template
(``gate_answer_mc``, ``feedback``, …); a rule or block that several prompts share, or that a
stage picks per question type or difficulty, has its own (``type_kmc``, ``level_hard``,
``shape_mc``, ``answer_context``) and is rendered into the message. The target's answer
prompt is put together from blocks (``answer_context``, ``answer_batch_mc``,
``answer_passages``, ``answer_advice``, ``answer_questions``), the repeated ones first; see
``stages.grading.answer_messages``.

Every reply we ask for in JSON has its schema in :mod:`judgeagent.prompts.schemas`, named
by its ``title``. Stages hold no prompt text and no schema of their own.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template


@cache
def _template(name: str) -> Template:
    text = (resources.files(__package__) / f"{name}.txt").read_text(encoding="utf-8")
    return Template(text)


def names() -> list[str]:
    """The names of every template in this folder, sorted."""
    return sorted(f.name.removesuffix(".txt") for f in resources.files(__package__).iterdir() if f.name.endswith(".txt"))


def fields(name: str) -> list[str]:
    """The ``$fields`` template ``name`` expects, in order of first use."""
    return _template(name).get_identifiers()


def render(name: str, **values: object) -> str:
    """Fill the template ``<name>.txt``; a missing value is a KeyError naming it."""
    return _template(name).substitute({k: str(v) for k, v in values.items()}).strip()


def messages(system: str, user: str) -> list[dict]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]

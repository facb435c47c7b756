"""Every prompt JudgeAgent sends, in one place.

Templates are plain-text files beside this module, filled with :class:`string.Template`
(``$name``), so JSON braces in them need no escaping. Each template that expects JSON back
has its schema in :mod:`judgeagent.prompts.schemas`.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from string import Template


@lru_cache(maxsize=None)
def _template(name: str) -> Template:
    text = (resources.files(__package__) / f"{name}.txt").read_text(encoding="utf-8")
    return Template(text)


def render(name: str, **values: object) -> str:
    """Fill the template ``<name>.txt``; a missing value is a KeyError naming it."""
    return _template(name).substitute({k: str(v) for k, v in values.items()}).strip()


def messages(system: str, user: str) -> list[dict]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]

"""Interview protocols: JudgeAgent's own and the kin systems', over the same parts.

A protocol is one module here that defines a :class:`Protocol` subclass and registers it
under its name with :func:`register`. ``--protocol NAME`` (and ``judgeagent.evaluate``) look
the name up in :data:`PROTOCOLS`; the pipeline never branches on a protocol's name.

    judgeagent   the interview of the JudgeAgent paper (the default), with Appendix E.2
    kieval       KIEval: interactor and evaluator hold a scored multi-turn dialogue per seed
    interviewer  LLM-as-an-Interviewer: feedback and revision, follow-ups, Interview Report
    escalate     MACEval: Easy → Medium → Hard along each seed's path until it fails twice
"""

from __future__ import annotations

from judgeagent.errors import ConfigError
from judgeagent.protocols.base import LeakGuard, Parts, Protocol

PROTOCOLS: dict[str, type[Protocol]] = {}


def register(cls: type[Protocol]) -> type[Protocol]:
    """Class decorator: make ``cls`` available as ``--protocol cls.name``."""
    if cls.name in PROTOCOLS and PROTOCOLS[cls.name] is not cls:
        raise ValueError(f"two protocols are named {cls.name!r}")
    PROTOCOLS[cls.name] = cls
    return cls


def names() -> list[str]:
    return list(PROTOCOLS)


def get_protocol(name: str) -> Protocol:
    """The registered protocol ``name``; an unknown name is one line listing the known ones."""
    try:
        return PROTOCOLS[name]()
    except KeyError:
        raise ConfigError(f"--protocol must be one of {', '.join(PROTOCOLS)} (got {name!r})") from None


# The built-in protocols register themselves on import, in the order --help lists them.
from judgeagent.protocols import judgeagent  # noqa: E402,F401,I001
from judgeagent.protocols import kieval  # noqa: E402,F401
from judgeagent.protocols import interviewer  # noqa: E402,F401
from judgeagent.protocols import escalate  # noqa: E402,F401

__all__ = ["PROTOCOLS", "LeakGuard", "Parts", "Protocol", "get_protocol", "names", "register"]

"""A run's protocol and its validated options, or one line saying which setting is whose.

``EvalConfig`` keeps the protocol's options as they were given; here they meet the
protocol's own options model. A setting that model lacks is refused, naming the protocols
it does belong to, so ``ablate --protocol kieval`` or ``evaluate(bank=...)`` with the default
protocol fail at once instead of running something else than was asked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pydantic import ValidationError

from judgeagent.config import EvalConfig, ProtocolOptions
from judgeagent.engine.registry import AnyProtocol, owners, protocol_class
from judgeagent.errors import ConfigError


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def foreign_settings(protocol: str, given: Mapping[str, object], *, named: Callable[[str], str] | None = None) -> str | None:
    """The refusal for settings ``protocol`` does not take, or None when there are none.

    ``named(key)`` says how to name a setting (a flag, or a file and key); default: a flag."""
    cls = protocol_class(protocol)
    named = named or flag
    parts = []
    for k in (k for k in given if k not in cls.options.model_fields):
        owned = owners(k)
        if not owned:
            parts.append(f"{named(k)}: unknown setting" if named is not flag else f"{flag(k)} is no setting of any protocol")
            continue
        parts.append(f"{named(k)} belongs to the {', '.join(owned)} protocol{'s' if len(owned) > 1 else ''}, not to --protocol {protocol}")
    return "; ".join(parts) if parts else None


def resolve(cfg: EvalConfig) -> tuple[AnyProtocol, ProtocolOptions]:
    """(the protocol, its options model validated from ``cfg.options``).

    Raises ConfigError for a setting of another protocol, and pydantic's ValidationError
    (whose ``title`` is the options model) for a bad value, for the caller to word."""
    cls = protocol_class(cfg.protocol)
    if (why := foreign_settings(cfg.protocol, cfg.options)) is not None:
        raise ConfigError(why)
    return cls(), cls.options.model_validate(cfg.options)


def resolved(cfg: EvalConfig) -> EvalConfig:
    """``cfg`` with every option of its protocol spelt out (defaults included), as config.json
    keeps it: a later change of a default does not change how a saved run replays."""
    _, options = resolve(cfg)
    return cfg.model_copy(update={"options": options.model_dump(mode="json")})


def describe(e: ValidationError) -> str:
    """A bad option value in one line, naming the flag and what it accepts."""
    out = []
    for err in e.errors():
        loc = ".".join(str(x) for x in err["loc"])
        out.append(f"{flag(loc) if loc else 'options'}: {err['msg']} (got {err.get('input')!r})")
    return "; ".join(out)

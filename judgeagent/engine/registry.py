"""Protocols by name: every way of running registers here, and everything else looks names up.

A protocol is a module (or package) whose class is decorated with :func:`register`. The
registry imports the modules of ``judgeagent/protocols/`` by name on first use, the way a
plug-in system reads its entry points: nothing below the protocols imports them, and a new
protocol is found without editing a list. A third-party protocol (``tests/toy_protocol.py``)
registers itself the same way once its module is imported.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, TypeVar

from judgeagent.engine.protocol import Protocol
from judgeagent.errors import ConfigError

AnyProtocol = Protocol[Any, Any]  # a protocol whatever its options and records: the registry's view
P = TypeVar("P", bound=type[AnyProtocol])

PROTOCOLS: dict[str, type[AnyProtocol]] = {}
PLUGIN_PACKAGE = "judgeagent.protocols"
_loaded = False


def register(cls: P) -> P:
    """Class decorator: make a Protocol subclass available as ``--protocol cls.name``."""
    if cls.name in PROTOCOLS and PROTOCOLS[cls.name] is not cls:
        raise ValueError(f"two protocols are named {cls.name!r}")
    PROTOCOLS[cls.name] = cls
    return cls


def load_builtin() -> None:
    """Import every module of ``judgeagent/protocols/`` once, so each registers itself."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    package = importlib.import_module(PLUGIN_PACKAGE)
    for mod in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        importlib.import_module(f"{PLUGIN_PACKAGE}.{mod.name}")


def protocols() -> dict[str, type[AnyProtocol]]:
    """Every protocol `evaluate --protocol` runs (those that interview a target), in --help
    order (the default first, then by ``order``, name)."""
    return {name: cls for name, cls in registered().items() if cls.interviews}


def registered() -> dict[str, type[AnyProtocol]]:
    """Every registered protocol, those that run from their own command (seeds) too."""
    load_builtin()
    return dict(sorted(PROTOCOLS.items(), key=lambda kv: (kv[1].order, kv[0])))


def names() -> list[str]:
    return list(protocols())


def protocol_class(name: str) -> type[AnyProtocol]:
    """The protocol registered as ``name``; an unknown name is one line listing the known ones."""
    try:
        return registered()[name]
    except KeyError:
        raise ConfigError(f"--protocol must be one of {', '.join(protocols())} (got {name})") from None


def get_protocol(name: str) -> AnyProtocol:
    return protocol_class(name)()


def owners(field: str) -> list[str]:
    """The protocols whose options include ``field``."""
    return [name for name, cls in protocols().items() if field in cls.options.model_fields]

"""``--config RUN_DIR/config.json``: a saved run's settings, to re-create and continue it.

A finished run replays from its journal with zero requests. Runs saved before the engine
kept one flat list of every setting of every mode; they are read by keeping the settings of
the protocol that made them (the others were ignored by that run anyway).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judgeagent.config import SHARED_FIELDS
from judgeagent.engine.registry import owners, protocol_class
from judgeagent.errors import ConfigError


def saved_config(path: Path, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The EvalConfig fields of a run's ``config.json``, set to resume that run's folder unless
    the ``overrides`` the caller will lay on top say where the run goes (``out`` or ``resume``).

    Not yet validated, so that a bad value can be named as a flag or as the file's."""
    path = Path(path)
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the run config ({e})") from None
    if not isinstance(saved, dict) or not isinstance(saved.get("eval_config") or saved.get("settings"), dict):
        raise ConfigError(f"{path}: not a run's config.json (no eval_config)")
    fields = dict(saved.get("eval_config") or {})
    if "options" not in fields:
        fields = from_flat(saved, path)
    overrides = overrides or {}
    if "out" not in overrides and "resume" not in overrides:
        fields["resume"] = str(path.resolve().parent)
    else:
        fields.pop("resume", None)
    return fields


def made_by(saved: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(protocol, options it implies) of a config.json written before the engine."""
    settings = saved.get("settings") or {}
    flat = saved.get("eval_config") or {}
    if settings.get("probe"):
        return "contamination", {}
    if flat.get("bank") or settings.get("mode") in ("bank", "adaptive"):
        return "bank", {}
    if len(settings.get("settings") or []) > 1:
        return "judgeagent", {"ablation": True}
    return str(flat.get("protocol") or "judgeagent"), {}


def from_flat(saved: dict[str, Any], path: Path) -> dict[str, Any]:
    """The new form of an old flat eval_config: the shared settings, and the options of the
    protocol that made the run."""
    # Runs written before config.json held eval_config: their settings are the same fields,
    # less the output paths and most of llm.
    flat = dict(saved.get("eval_config") or {k: v for k, v in (saved.get("settings") or {}).items() if k not in ("settings", "probe")})
    protocol, implied = made_by(saved)
    owned = protocol_class(protocol).options.model_fields
    for key in flat:
        if key not in SHARED_FIELDS and not owners(key):
            raise ConfigError(f"{path}: unknown setting {key}")
    options = {k: v for k, v in flat.items() if k in owned} | implied
    shared = {k: v for k, v in flat.items() if k in SHARED_FIELDS and k != "options"}
    return shared | {"protocol": protocol, "options": options}

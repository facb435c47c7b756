"""``--config RUN_DIR/config.json``: a saved run's settings, to re-create and continue it.

A finished run replays from its journal with zero requests. Runs saved before the engine
kept one flat list of every setting of every mode; they are read by keeping the settings of
the protocol that made them (the others were ignored by that run anyway).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, JsonValue, ValidationError

from judgeagent.config import SHARED_FIELDS
from judgeagent.engine.registry import owners, protocol_class
from judgeagent.errors import ConfigError
from judgeagent.records import JsonModel


class SavedIdentity(JsonModel):
    """A saved run's identity (config.json "settings"): what names the protocol of a run made
    before the engine, and its flat settings."""

    probe: str | None = None  # the contamination probe's marker
    mode: str | None = None  # a bank run's: "bank" | "adaptive"
    settings: list[JsonValue] = Field(default_factory=list)  # the interview's arms

    def flat(self) -> dict[str, Any]:
        """Its settings as flat fields (the arms and the probe's marker left out)."""
        return {k: v for k, v in (self.model_extra or {}).items()} | ({"mode": self.mode} if self.mode is not None else {})


class SavedRun(JsonModel):
    """What ``--config`` reads of a run's config.json."""

    eval_config: dict[str, Any] | None = None
    settings: SavedIdentity | None = None


def saved_config(path: Path, overrides: Mapping[str, object] | None = None) -> dict[str, Any]:
    """The EvalConfig fields of a run's ``config.json``, set to resume that run's folder unless
    the ``overrides`` the caller will lay on top say where the run goes (``out`` or ``resume``).

    Not yet validated, so that a bad value can be named as a flag or as the file's."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the run config ({e})") from None
    try:
        saved = SavedRun.model_validate(data)
    except ValidationError:
        saved = SavedRun()
    if not saved.eval_config and saved.settings is None:
        raise ConfigError(f"{path}: not a run's config.json (no eval_config)")
    fields = dict(saved.eval_config or {})
    if "options" not in fields:
        fields = from_flat(saved, path)
    if not {"out", "resume"} & set(overrides or {}):
        fields |= {"resume": str(path.resolve().parent)}
    else:
        fields.pop("resume", None)
    return fields


def made_by(saved: SavedRun) -> tuple[str, dict[str, Any]]:
    """(protocol, options it implies) of a config.json written before the engine."""
    identity = saved.settings or SavedIdentity()
    flat = SavedFlat.model_validate(saved.eval_config or {})
    if identity.probe:
        return "contamination", {}
    if flat.bank or identity.mode in ("bank", "adaptive"):
        return "bank", {}
    if len(identity.settings) > 1:
        return "judgeagent", {"ablation": True}
    return flat.protocol or "judgeagent", {}


class SavedFlat(JsonModel):
    """What names the protocol in an old flat eval_config."""

    bank: str | None = None
    protocol: str | None = None


def from_flat(saved: SavedRun, path: Path) -> dict[str, Any]:
    """The new form of an old flat eval_config: the shared settings, and the options of the
    protocol that made the run."""
    # Runs written before config.json held eval_config: their settings are the same fields,
    # less the output paths and most of llm.
    flat = dict(saved.eval_config or (saved.settings.flat() if saved.settings else {}))
    protocol, implied = made_by(saved)
    owned = protocol_class(protocol).options.model_fields
    for key in flat:
        if key not in SHARED_FIELDS and not owners(key):
            raise ConfigError(f"{path}: unknown setting {key}")
    options = {k: v for k, v in flat.items() if k in owned} | implied
    shared = {k: v for k, v in flat.items() if k in SHARED_FIELDS and k != "options"}
    return shared | {"protocol": protocol, "options": options}

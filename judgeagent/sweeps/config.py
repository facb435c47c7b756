"""What a sweep is: several targets, one judge, one benchmark and graph, one set of settings.

``SweepConfig`` is the one typed model of ``judgeagent sweep``: the command line's flags come
from its fields, a sweep file (TOML or YAML) holds the same keys, and sweep.json keeps it, so
that rerunning the same command finds the sweep folder and resumes it.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator, model_validator

from judgeagent.config import EvalConfig, LLMConfig, _Config, field_of
from judgeagent.errors import ConfigError
from judgeagent.protocols.judgeagent import JudgeAgentOptions

# Settings of the interview the sweep sets itself; the rest of the judgeagent protocol's
# options may be given in ``options``.
OWN_OPTIONS = ("limit", "batch_size", "rounds", "bootstrap")


class SweepConfig(_Config):
    """One sweep: every target interviewed by the same judge on the same seeds and graph, then
    asked the same shared bank items."""

    # Every setting a sweep shares with a run or with the interview is that field itself
    # (default, range, description), declared again here; tests/test_config.py checks the types agree.
    targets: list[str] = Field(min_length=1, description="The models to compare, comma-separated (names from `judgeagent models`, provider:model, URL@model or local:/path.gguf); `label=MODEL` names one by a short label in the leaderboard and its folders.")
    judge: str = field_of(EvalConfig, "judge", note="The same for every target.")
    data: Path = field_of(EvalConfig, "data")
    graph: Path | None = field_of(EvalConfig, "graph", note="A sweep builds it once, before the targets.")
    limit: int | None = field_of(JudgeAgentOptions, "limit")
    batch_size: int = field_of(JudgeAgentOptions, "batch_size")
    rounds: int = field_of(JudgeAgentOptions, "rounds")
    bootstrap: int = field_of(JudgeAgentOptions, "bootstrap", note="Also of the leaderboard's ranks and agreement.")
    seed: int = field_of(EvalConfig, "seed")
    concurrency: int = field_of(EvalConfig, "concurrency", note="Per target.")
    parallel: int | None = Field(default=None, ge=1, description="Targets interviewed at once (default: all). Each model's own concurrency limit holds across them.")
    shared: bool = Field(default=True, description="Ask every target the shared bank items the judge wrote during the sweep's interviews.")
    options: dict[str, Any] = Field(default_factory=dict, description="Further options of the judgeagent protocol for every interview (a sweep file's [options] table).")
    out: Path | None = Field(default=None, description="Sweep folder (default: runs/<date>-sweep-<data>; a rerun of the same sweep finds it).")
    report: bool = field_of(EvalConfig, "report", note="For every run, and the sweep's own report.html.")
    llm: LLMConfig = field_of(EvalConfig, "llm", note="--budget-usd and --max-requests hold per run.")

    @field_validator("targets", mode="before")
    @classmethod
    def _comma_separated(cls, v: Any) -> Any:
        if isinstance(v, str):
            v = v.split(",")
        return [x.strip() if isinstance(x, str) else x for x in v] if isinstance(v, list) else v

    @model_validator(mode="after")
    def _distinct_targets(self) -> SweepConfig:
        # Checked on the whole model, so the message reaches the user as written.
        if (why := targets_problem(self.targets) or options_problem(self.options)) is not None:
            raise ValueError(why)
        return self


    @property
    def names(self) -> list[str]:
        """Each target's name in the leaderboard and its folders: its label, else its model."""
        return [split_target(t)[0] for t in self.targets]

    def model(self, name: str) -> str:
        """The model a target name stands for (the name itself when it has no label)."""
        return next((m for n, m in map(split_target, self.targets) if n == name), name)

    def graph_dir(self) -> Path:
        return self.eval_config(self.names[0]).graph_dir()

    def interview_options(self) -> dict[str, Any]:
        return {"limit": self.limit, "batch_size": self.batch_size, "rounds": self.rounds, "bootstrap": self.bootstrap} | self.options

    def eval_config(self, target: str, out: Path | None = None) -> EvalConfig:
        """The interview of one target (by name): an ordinary run of the judgeagent protocol."""
        return EvalConfig(target=self.model(target), judge=self.judge, data=self.data, graph=self.graph, seed=self.seed, concurrency=self.concurrency,
                          out=out, report=self.report, protocol="judgeagent", options=self.interview_options(), llm=self.llm)

    def shared_config(self, target: str, items: list[str], out: Path) -> EvalConfig:
        """The shared-items pass of one target (by name): a bank run over exactly ``items``."""
        return EvalConfig(target=self.model(target), judge=self.judge, data=self.data, graph=self.graph_dir(), seed=self.seed,
                          concurrency=self.concurrency, out=out, report=False, protocol="bank", options={"bank": self.graph_dir(), "bank_items": items},
                          llm=self.llm)  # fmt: skip

    def identity(self) -> dict[str, Any]:
        """What must match for a rerun to resume a sweep folder: everything that changes a
        figure, with paths made absolute (where the output goes and how requests are sent do not)."""
        d = self.model_dump(mode="json", exclude={"out", "report", "parallel"})
        d["data"] = str(Path(self.data).resolve())
        d["graph"] = str(self.graph_dir().resolve())
        d["llm"] = {k: v for k, v in d["llm"].items() if k in ("max_attempts",)}
        return d


# A target given as ``label=MODEL``: a short label (letters, digits, . _ -) before the first "=".
# A model never starts that way: a URL has "://" before any "=", a provider name a ":".
LABEL = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)=(.*)$", re.S)


def split_target(target: str) -> tuple[str, str]:
    """``label=MODEL`` → (label, model); a target without a label is its own name."""
    m = LABEL.match(target)
    return (m.group(1), m.group(2).strip()) if m else (target, target)


def targets_problem(targets: list[str]) -> str | None:
    if any(t == "" for t in targets):
        return "targets has an empty name (two commas, or one at an end)"
    pairs = [split_target(str(t)) for t in targets]
    empty = next((n for n, m in pairs if not m), None)
    if empty is not None:
        return f"targets: the label {empty} names no model (label=MODEL)"
    names = [n for n, _ in pairs]
    dup = next((t for i, t in enumerate(names) if t in names[:i]), None)
    return None if dup is None else f"targets names {dup} twice"


def options_problem(options: dict[str, Any]) -> str | None:
    own = [k for k in options if k in OWN_OPTIONS]
    if own:
        return f"options.{own[0]}: {own[0]} is a setting of the sweep itself, not of options"
    if options.get("ablation"):
        return "options.ablation: ablation runs four arms per target; a sweep compares targets on one (run `judgeagent ablate` per target)"
    return None


def read_sweep_file(path: Path) -> dict[str, Any]:
    """The settings of a sweep file: TOML (``.toml``) or YAML (``.yaml``/``.yml``), the keys
    of :class:`SweepConfig` at the top level (``[options]`` and ``[llm]`` as tables)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the sweep file ({e.strerror})") from None
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            data = tomllib.loads(text)
        elif suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text) or {}
        elif suffix == ".json":
            data = json.loads(text)
        else:
            raise ConfigError(f"{path}: a sweep file is .toml, .yaml or .yml")
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML ({e})") from None
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}:{e.lineno}: not valid JSON ({e.msg})") from None
    except Exception as e:  # yaml's errors carry the line in their mark
        mark = getattr(e, "problem_mark", None)
        if mark is None:
            raise
        raise ConfigError(f"{path}:{mark.line + 1}: not valid YAML ({getattr(e, 'problem', e)})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a sweep file holds a table of settings (targets, judge, data, ...)")
    if isinstance(data.get("config"), dict) and "version" in data:  # a sweep folder's own sweep.json
        data = dict(data["config"])
    if isinstance(data.get("targets"), list) and (why := targets_problem([str(t).strip() for t in data["targets"]])) is not None:
        raise ConfigError(f"{path}: {why}")
    if isinstance(data.get("options"), dict) and (why := options_problem(data["options"])) is not None:
        raise ConfigError(f"{path}: {why}")
    return data


def describe(e: ValidationError, source: Path | None = None) -> str:
    """A bad sweep setting in one line, naming the flag (or the file and key)."""
    out = []
    for err in e.errors():
        loc = ".".join(str(x) for x in err["loc"])
        where = f"{source}: {loc}" if source is not None else "--" + loc.split(".")[-1].replace("_", "-")
        if err["type"] == "extra_forbidden":
            out.append(f"{where}: unknown setting")
        else:
            msg = str(err.get("ctx", {}).get("error", err["msg"]))
            out.append(f"{where}: {msg}")
    return "; ".join(out)

"""Typer options built from the config models' fields, and their errors turned into one line.

A field ``batch_size`` is the flag ``--batch-size``; its default, range, choices and help come
from the field, so none of them is written twice. A nested field (``llm.timeout_s``) is named
by its own last part (``--timeout-s``). A bool field is a ``--x/--no-x`` pair; one already named
``no_x`` is the single switch ``--no-x``. Every option reaches the command as the raw text the
user typed (or nothing), and the model alone parses and checks it, so a bad value of any kind
gives the same one-line message naming the flag and what it accepts.
"""

from __future__ import annotations

import functools
import inspect
import re
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import typer
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo, PydanticUndefined
from rich.markup import escape

from judgeagent.cli.common import fail
from judgeagent.config import merged


@dataclass(frozen=True)
class ConfigFlag:
    """One command-line option standing for one (possibly nested) model field."""

    path: tuple[str, ...]  # ("llm", "timeout_s")
    info: FieldInfo
    aliases: tuple[str, ...] = ()
    panel: str | None = None

    @property
    def name(self) -> str:
        """The Python parameter name, unique across nested models."""
        return "__".join(self.path)

    @property
    def flag(self) -> str:
        return "--" + self.path[-1].replace("_", "-")

    @property
    def is_bool(self) -> bool:
        return _plain_type(self.info.annotation) is bool

    def decls(self) -> list[str]:
        if not self.is_bool:
            return [self.flag, *self.aliases]
        if self.path[-1].startswith("no_"):
            return [self.flag, *self.aliases]  # a single switch: --no-graph
        return [f"{self.flag}/--no-{self.flag[2:]}", *self.aliases]

    def parameter(self) -> inspect.Parameter:
        """A keyword parameter whose default None means "not given": the model keeps its default."""
        option = typer.Option(
            *self.decls(),
            help=help_text(self.info),
            metavar=None if self.is_bool else metavar(self.info.annotation),
            show_default=False,
            rich_help_panel=self.panel,
        )
        kind = (bool | None) if self.is_bool else (str | None)
        return inspect.Parameter(self.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[kind, option])


def config_flags(
    model: type[BaseModel],
    panels: Mapping[str | None, Sequence[str]],
    aliases: Mapping[str, Sequence[str]] | None = None,
) -> list[ConfigFlag]:
    """The flags for the dotted field paths listed under each help panel, in that order."""
    aliases = aliases or {}
    out = []
    for panel, paths in panels.items():
        for dotted in paths:
            path = tuple(dotted.split("."))
            out.append(ConfigFlag(path, field_info(model, path), tuple(aliases.get(dotted, ())), panel))
    names = [f.flag for f in out]
    assert len(names) == len(set(names)), f"two fields give the same flag: {names}"
    return out


def with_config_flags(flags: Sequence[ConfigFlag]) -> Callable[[Callable], Callable]:
    """Give a command one option per flag; the command receives ``given``, the nested dict of
    the fields the user set (anything else stays at the model's default)."""

    def decorate(body: Callable) -> Callable:
        own = [p for p in inspect.signature(body, eval_str=True).parameters.values() if p.name != "given"]
        params = [*own, *(f.parameter() for f in flags)]

        @functools.wraps(body)
        def command(**kwargs: Any) -> Any:
            given: dict[str, Any] = {}
            for f in flags:
                value = kwargs.pop(f.name, None)
                if value is not None:
                    _put(given, f.path, value)
            return body(given=given, **kwargs)

        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command

    return decorate


def build_config(
    model: type[BaseModel],
    flags: Sequence[ConfigFlag],
    given: dict,
    base: dict | None = None,
    source: Path | None = None,
) -> Any:
    """``model`` from ``base`` (a saved config, from the file ``source``) with ``given`` on top;
    a validation error becomes one line naming the flag (or the file and field), exit 2."""
    data = merged(base or {}, given)
    try:
        return model.model_validate(data)
    except ValidationError as e:
        by_path = {f.path: f for f in flags}
        raise fail("; ".join(describe_error(model, err, by_path, given, source) for err in e.errors())) from None


# ----------------------------------------------------------------------------- messages
def describe_error(model: type[BaseModel], err: Mapping[str, Any], flags: Mapping[tuple, ConfigFlag], given: dict, source: Path | None) -> str:
    loc = tuple(str(x) for x in err["loc"])
    from_cli = _has(given, loc) or source is None
    if err["type"] == "extra_forbidden":
        return f"{source or 'config'}: unknown setting {'.'.join(loc)}"
    try:
        info = field_info(model, loc) if loc else None
    except KeyError:
        info = None
    if info is None or _is_model(info.annotation):
        # A rule across fields (t1 < t2): its message names the fields, shown as flags.
        message = str(err.get("ctx", {}).get("error", err["msg"]))
        if from_cli:
            for path, f in flags.items():
                if path[:-1] == loc:
                    message = re.sub(rf"\b{re.escape(path[-1])}\b", f.flag, message)
            return message
        return f"{source}: {'.'.join(loc) or 'config'}: {message}"
    where = flags[loc].flag if from_cli and loc in flags else (f"{source}: {'.'.join(loc)}" if source else ".".join(loc))
    return f"{where} must be {allowed(info)} (got {_shown(err.get('input'))})"


def allowed(info: FieldInfo) -> str:
    """What a field accepts, in words: 'one of easy, medium, hard', 'an integer ≥ 1' (or what the
    field says it accepts, when its type alone does not: a duration written as text)."""
    extra = info.json_schema_extra
    accepts = extra.get("accepts") if isinstance(extra, dict) else None
    if isinstance(accepts, str):
        return accepts
    t = _plain_type(info.annotation)
    if get_origin(t) is Literal:
        return "one of " + ", ".join(str(v) for v in get_args(t))
    noun = {int: "an integer", float: "a number", bool: "true or false", Path: "a path", str: "text"}.get(t, str(t))
    span = value_range(info)
    if not span:
        return noun
    return f"{noun} in {span}" if span[0] in "[(" else f"{noun} {span}"


def value_range(info: FieldInfo) -> str:
    """The field's bounds: '≥ 1', '> 0', '[0, 1]', '(0, 1]'; '' when it has none."""
    b = {k: getattr(m, k) for m in info.metadata for k in ("ge", "gt", "le", "lt") if getattr(m, k, None) is not None}
    lo = ("[", b["ge"]) if "ge" in b else (("(", b["gt"]) if "gt" in b else None)
    hi = ("]", b["le"]) if "le" in b else ((")", b["lt"]) if "lt" in b else None)
    if lo and hi:
        return f"{lo[0]}{lo[1]:g}, {hi[1]:g}{hi[0]}"
    if lo:
        return f"{'≥' if lo[0] == '[' else '>'} {lo[1]:g}"
    if hi:
        return f"{'≤' if hi[0] == ']' else '<'} {hi[1]:g}"
    return ""


def help_text(info: FieldInfo) -> str:
    """The field's description, then its default and range as click would show them."""
    notes = []
    if (default := shown_default(info)) is not None:
        notes.append(f"default: {default}")
    if span := value_range(info):
        notes.append(f"range: {span}")
    # Escaped: the app renders help as rich markup, where [..] would be read as a style.
    return " ".join([info.description or "", *(escape(f"[{n}]") for n in notes)])


def metavar(annotation: Any) -> str:
    t = _plain_type(annotation)
    if get_origin(t) is Literal:
        return "[" + "|".join(str(v) for v in get_args(t)) + "]"
    return {int: "INTEGER", float: "FLOAT", Path: "PATH"}.get(t, "TEXT")


def shown_default(info: FieldInfo) -> str | None:
    """The default as --help shows it; None when unset (the description says what happens)."""
    default = info.get_default(call_default_factory=True)
    if default is None or default is PydanticUndefined:
        return None
    if isinstance(default, bool):
        return "on" if default else "off"
    return str(default)


def _shown(value: Any) -> str:
    """The value as the user typed it (flags arrive as text)."""
    return repr(value) if value == "" or isinstance(value, (dict, list)) else str(value)


# ----------------------------------------------------------------------------- fields
def field_info(model: type[BaseModel], path: tuple[str, ...]) -> FieldInfo:
    info = model.model_fields[path[0]]
    for part in path[1:]:
        sub = _plain_type(info.annotation)
        if not _is_model(sub):
            raise KeyError(".".join(path))
        info = sub.model_fields[part]
    return info


def _plain_type(annotation: Any) -> Any:
    """``int | None`` → ``int``; ``Optional[Literal[...]]`` → ``Literal[...]``."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _is_model(annotation: Any) -> bool:
    t = _plain_type(annotation)
    return isinstance(t, type) and issubclass(t, BaseModel)


def _put(tree: dict, path: tuple[str, ...], value: Any) -> None:
    for part in path[:-1]:
        tree = tree.setdefault(part, {})
    tree[path[-1]] = value


def _has(tree: dict, path: tuple[str, ...]) -> bool:
    for part in path:
        if not isinstance(tree, dict) or part not in tree:
            return False
        tree = tree[part]
    return True

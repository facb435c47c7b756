"""Reading benchmark files so that every problem becomes a DataError naming file and line.

JSONL records carry their 1-based physical line number. Items of a JSON array carry their
1-based item number in place of a line (``corpus.json:5: item 5: ...``), because a
pretty-printed array gives no useful line per item.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeagent.errors import DataError

_TYPE_NAMES = {str: "a string", dict: "an object", list: "a list", int: "an integer"}


@dataclass
class Record:
    """One JSON object plus where it came from, with checked field access."""

    data: dict
    path: Path
    line: int
    context: str = ""  # e.g. "item 4" or "question 2", put before the message
    unit: str = "line"  # what ``line`` counts: "line" (JSONL) or "item" (JSON array)

    def error(self, message: str) -> DataError:
        prefix = f"{self.context}: " if self.context else ""
        return DataError(self.path, prefix + message, self.line)

    def child(self, data: Any, context: str) -> Record:
        """A nested object (e.g. one question of a QuALITY article) at the same line."""
        full = f"{self.context}: {context}" if self.context else context
        if not isinstance(data, dict):
            raise self.error(f"{context}: expected an object, found {_describe(data)}")
        return Record(data, self.path, self.line, full, self.unit)

    def require(self, key: str, kind: type = str, *, nonempty: bool = True) -> Any:
        if key not in self.data or self.data[key] is None:
            raise self.error(f'missing field "{key}"')
        return self._checked(key, kind, nonempty)

    def require_id(self, key: str) -> str:
        """An identifier: a non-empty string, or an integer (read as its decimal string)."""
        value = self.data.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return self.require(key).strip()

    def optional(self, key: str, kind: type = str, default: Any = None, *, nonempty: bool = False) -> Any:
        if self.data.get(key) is None:
            return default
        return self._checked(key, kind, nonempty)

    def _checked(self, key: str, kind: type, nonempty: bool) -> Any:
        value = self.data[key]
        # bool is an int in Python, but `"gold_label": true` is a data error.
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.error(f'field "{key}" must be {_TYPE_NAMES.get(kind, kind.__name__)}, found {_describe(value)}')
        if nonempty and kind in (str, list, dict) and not (value.strip() if isinstance(value, str) else value):
            raise self.error(f'field "{key}" is empty')
        return value


def read_jsonl(path: Path | str, *, what: str = "records") -> list[Record]:
    """The objects of a JSONL file, one per non-blank line; an empty file is an error."""
    path = Path(path)
    records = [Record(obj, path, n) for n, obj in _iter_jsonl(path)]
    if not records:
        # Line 1 so that even this error reads as file:line, like every other.
        raise DataError(path, f"file is empty (expected {what}, one JSON object per line)", 1)
    return records


def read_json_list(path: Path | str, *, what: str = "items") -> list[Record]:
    """The objects of a file holding one JSON array; an empty array is an error."""
    path = Path(path)
    text = read_text(path)
    if not text.strip():
        raise DataError(path, f"file is empty (expected a JSON list of {what})", 1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise DataError(path, f"not valid JSON ({err.msg} at column {err.colno})", err.lineno) from None
    if not isinstance(data, list):
        raise DataError(path, f"expected a JSON list of {what}, found {_describe(data)}", 1)
    if not data:
        raise DataError(path, f"the list is empty (expected {what})", 1)
    records = []
    for n, item in enumerate(data, 1):
        if not isinstance(item, dict):
            raise DataError(path, f"item {n}: expected an object, found {_describe(item)}", n)
        records.append(Record(item, path, n, f"item {n}", unit="item"))
    return records


def first_json_object(path: Path | str) -> dict | None:
    """The object on the first non-blank line of ``path``, or None if it is not one.

    Used to sniff a file's format without reading it all; never raises.
    """
    try:
        with open(path, encoding="utf-8-sig") as handle:
            for line in handle:
                if line.strip():
                    obj = json.loads(line)
                    return obj if isinstance(obj, dict) else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return None


def read_text(path: Path | str) -> str:
    """The whole file as text; undecodable bytes are reported with their line."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise DataError(path, f"cannot read file ({err.strerror or err})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise DataError(path, f"not valid UTF-8 (byte 0x{raw[err.start]:02x})", line) from None


def read_lines(path: Path | str) -> list[tuple[int, str]]:
    """(1-based line number, stripped text) for every non-blank line of a text file."""
    text = read_text(path).replace("\r\n", "\n").replace("\r", "\n")
    return [(n, line.strip()) for n, line in enumerate(text.split("\n"), 1) if line.strip()]


class UniqueIds:
    """Remembers where each id was first seen, so a duplicate names both places."""

    def __init__(self, what: str):
        self.what = what
        self._seen: dict[str, Record] = {}

    def add(self, key: str, record: Record) -> None:
        first = self._seen.get(key)
        if first is not None:
            same_file = first.path == record.path
            where = f"{first.unit} {first.line}" if same_file else f"{first.path}:{first.line}"
            raise record.error(f'duplicate {self.what} "{key}" (first seen at {where})')
        self._seen[key] = record

    def __contains__(self, key: str) -> bool:
        return key in self._seen


def _iter_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    text = read_text(path).replace("\r\n", "\n").replace("\r", "\n")
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise DataError(path, f"not valid JSON ({err.msg} at column {err.colno})", n) from None
        if not isinstance(obj, dict):
            raise DataError(path, f"expected a JSON object, found {_describe(obj)}", n)
        yield n, obj


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        shown = value if len(value) <= 30 else value[:27] + "..."
        return f"the string {json.dumps(shown)}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    return type(value).__name__

"""Structured output: get a JSON value out of a model reply, repair it, check it against a schema.

Small models (and some large ones) wrap JSON in code fences, add a sentence before or
after it, use Python quoting, leave trailing commas or stop before the closing brackets.
``parse_structured`` undoes those, then validates against the subset of JSON Schema this
project uses (type, properties, required, enum, items, minItems/maxItems, plus
additionalProperties, minimum/maximum, minLength/maxLength). No jsonschema dependency:
the subset is small and the error messages are written to be fed back to the model.
"""

from __future__ import annotations

import json
import re
from typing import Any


class ParseError(ValueError):
    """The reply holds no JSON value that satisfies the schema; str() is fed back to the model."""


# --------------------------------------------------------------------------- prompting


def describe(schema: dict) -> str:
    """A compact pseudo-JSON template of the schema, e.g. ``{"answer": <"A" | "B">, "why": <string>}``.

    Small models follow a template far better than a raw JSON Schema document.
    """
    if "enum" in schema:
        return "<" + " | ".join(json.dumps(e, ensure_ascii=False) for e in schema["enum"]) + ">"
    t = schema.get("type")
    if t == "object" or "properties" in schema:
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        parts = [
            f"{json.dumps(k, ensure_ascii=False)}: {describe(v)}" + ("" if k in required else " (optional)")
            for k, v in props.items()
        ]
        return "{" + ", ".join(parts) + "}"
    if t == "array":
        inner = describe(schema.get("items", {})) if isinstance(schema.get("items"), dict) else "<any>"
        bounds = []
        if "minItems" in schema:
            bounds.append(f"at least {schema['minItems']}")
        if "maxItems" in schema:
            bounds.append(f"at most {schema['maxItems']}")
        return f"[{inner}, ...]" + (f" ({' and '.join(bounds)} items)" if bounds else "")
    if isinstance(t, list):
        return "<" + " or ".join(t) + ">"
    if t in ("integer", "number"):
        lo, hi = schema.get("minimum"), schema.get("maximum")
        rng = f" {lo}..{hi}" if lo is not None and hi is not None else ""
        return f"<{t}{rng}>"
    return f"<{t or 'any'}>"


def schema_instructions(schema: dict) -> str:
    """Text added to the prompt so the model knows the shape even without response_format."""
    return "Reply with only JSON (no code fences, no other text) in this form:\n" + describe(schema)


def reask_message(error: str, schema: dict) -> str:
    return (
        f"Your previous reply could not be used: {error}. "
        "Reply again with only the corrected JSON in this form:\n" + describe(schema)
    )


# --------------------------------------------------------------------------- repair

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\n?(.*?)(?:```|$)", re.S)


def _strip_fences(text: str) -> str:
    m = _FENCE.search(text)
    return m.group(1).strip() if m else text


def _find_start(text: str, want: str | None) -> int:
    """Index of the first '{' or '[' (preferring the schema's top-level type), or -1."""
    opener = {"object": "{", "array": "["}.get(want or "")
    if opener is not None:
        i = text.find(opener)
        if i >= 0:
            return i
    idx = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    return min(idx) if idx else -1


_BARE = {"True": "true", "False": "false", "None": "null", "true": "true", "false": "false", "null": "null"}


def _normalise(text: str) -> str:
    """Rewrite one JSON-ish value into JSON: a small scanner, string-aware.

    Converts single-quoted strings, quotes bare keys, maps Python literals, drops trailing
    commas, stops after the first complete value (so trailing prose is ignored) and closes
    brackets the reply stopped before -- but only where that is unambiguous: a reply cut
    inside a string or right after a key is not repaired.
    """
    out: list[str] = []
    stack: list[str] = []
    i, n = 0, len(text)
    started = False
    while i < n:
        c = text[i]
        if c in "\"'":
            token, i = _read_string(text, i)
        elif c.isalpha() or c == "_":
            token, i = _read_word(text, i, in_object=bool(stack) and stack[-1] == "}")
        elif c in "-0123456789" and not stack:
            out.extend(_bare_number(text, i))
            break
        else:
            if c in "}]" and not stack:
                break
            _copy_char(c, out, stack)
            i += 1
            if c in "{[":
                started = True
            elif c in "}]" and not stack:
                break
            continue
        out.append(token)
        started = True
        if not stack:
            break
    if not started:
        raise ParseError("no JSON value found in the reply")
    if stack:
        return _close_truncated("".join(out), stack)
    return "".join(out)


def _read_string(text: str, i: int) -> tuple[str, int]:
    """The string opening at ``text[i]`` in either quote style, re-emitted double-quoted.

    Small models often answer with Python's single quotes; JSON accepts only double ones.
    Returns the JSON string and the index just after the closing quote.
    """
    quote, n = text[i], len(text)
    j, buf = i + 1, []
    while j < n and text[j] != quote:
        if text[j] == "\\" and j + 1 < n:
            nxt = text[j + 1]
            # \' is not a JSON escape; inside a double-quoted result it is just '.
            buf.append("'" if nxt == "'" else "\\" + nxt)
            j += 2
            continue
        buf.append('\\"' if text[j] == '"' else ("\\n" if text[j] == "\n" else text[j]))
        j += 1
    if j >= n:
        raise ParseError("reply ends inside a string (truncated output)")
    return '"' + "".join(buf) + '"', j + 1


def _read_word(text: str, i: int, in_object: bool) -> tuple[str, int]:
    """A bare word at ``text[i]``: a key to quote, or a Python/JSON literal to map.

    Models write ``{answer: "A"}`` and ``True``/``None``; inside an object a word followed by
    ``:`` is a key. Returns the JSON token and the index just after the word.
    """
    n = len(text)
    j = i
    while j < n and (text[j].isalnum() or text[j] in "_-"):
        j += 1
    word = text[i:j]
    k = j
    while k < n and text[k] in " \t\r\n":
        k += 1
    if k < n and text[k] == ":" and in_object:
        return json.dumps(word), j  # bare key
    return _BARE.get(word, word), j


def _bare_number(text: str, i: int) -> list[str]:
    """The number at ``text[i]`` outside any bracket, as a token list (empty if none)."""
    m = re.match(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", text[i:])
    return [m.group(0)] if m else []


def _copy_char(c: str, out: list[str], stack: list[str]) -> None:
    """Copy a bracket or other character, keeping ``stack`` of the closers still owed.

    A closer drops a trailing comma before it (Python allows one, JSON does not) and is
    replaced by the closer the opener expects, so ``[1, 2}`` still parses.
    """
    if c in "{[":
        stack.append("}" if c == "{" else "]")
        out.append(c)
    elif c in "}]":
        while out and out[-1].strip() == "":
            out.pop()
        if out and out[-1] == ",":
            out.pop()
        out.append(stack.pop())
    else:
        out.append(c)


def _close_truncated(text: str, stack: list[str]) -> str:
    """Close the brackets a reply stopped before, only where the last value is complete.

    Replies cut by the output limit often lack only their closers; adding them recovers the
    answer. After a bare key, or mid-value (a trailing number may itself be cut short),
    guessing would invent data, so those raise.
    """
    tail = text.rstrip()
    if tail.endswith(","):
        tail = tail[:-1].rstrip()
    if stack[-1] == "}" and _ends_with_bare_key(tail):
        raise ParseError("reply ends after a key without its value (truncated output)")
    if not (tail.endswith(('"', "}", "]", "true", "false", "null")) or tail.endswith(("{", "["))):
        raise ParseError("reply stops in the middle of a value (truncated output)")
    return tail + "".join(reversed(stack))


def _ends_with_bare_key(tail: str) -> bool:
    # Inside an object, a string directly after '{' or ',' is a key whose value never came.
    m = re.search(r'[{,]\s*"(?:[^"\\]|\\.)*"$', tail)
    return m is not None


def extract_json(text: str, want: str | None = None) -> Any:
    """The first JSON value in ``text``, repaired where safe; ``want`` is the schema's top type."""
    s = text.strip()
    try:
        return json.loads(s, strict=False)
    except (json.JSONDecodeError, ValueError):
        pass
    s = _strip_fences(s)
    try:
        return json.loads(s, strict=False)
    except (json.JSONDecodeError, ValueError):
        pass
    start = _find_start(s, want)
    candidate = s[start:] if start >= 0 else s
    fixed = _normalise(candidate)
    try:
        return json.loads(fixed, strict=False)
    except json.JSONDecodeError as e:
        raise ParseError(f"invalid JSON ({e.msg} at character {e.pos})") from None


# --------------------------------------------------------------------------- validation

_PY_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def validate(value: Any, schema: dict, path: str = "$") -> list[str]:
    """Every way ``value`` breaks ``schema``, as short messages naming the JSON path."""
    errors: list[str] = []
    types = schema.get("type")
    if types is not None:
        tlist = types if isinstance(types, list) else [types]
        if not any(_PY_TYPES.get(t, lambda v: True)(value) for t in tlist):
            return [f"{path}: expected {'/'.join(tlist)}, got {_json_type(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {json.dumps(value)[:60]} is not one of {json.dumps(schema['enum'])}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing required property '{key}'")
        for key, sub in props.items():
            if key in value:
                errors.extend(validate(value[key], sub, f"{path}.{key}"))
        if schema.get("additionalProperties") is False:
            extra = sorted(set(value) - set(props))
            if extra:
                errors.append(f"{path}: unexpected properties {extra}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{path}: expected at least {schema['minItems']} items, got {len(value)}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{path}: expected at most {schema['maxItems']} items, got {len(value)}")
        if isinstance(schema.get("items"), dict):
            for i, item in enumerate(value):
                errors.extend(validate(item, schema["items"], f"{path}[{i}]"))
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{path}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{path}: longer than {schema['maxLength']} characters")
    if _PY_TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: {value} is below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: {value} is above the maximum {schema['maximum']}")
    return errors


def _json_type(v: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _PY_TYPES[name](v):
            return name
    return type(v).__name__


def coerce(value: Any, schema: dict) -> Any:
    """Harmless fixes before validation: enum case/whitespace, integral floats for integers."""
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        return {k: coerce(v, schema["properties"].get(k, {})) for k, v in value.items()}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [coerce(v, schema["items"]) for v in value]
    if isinstance(value, str) and "enum" in schema and value not in schema["enum"]:
        hits = [e for e in schema["enum"] if isinstance(e, str) and e.strip().lower() == value.strip().lower()]
        if len(hits) == 1:
            return hits[0]
    if schema.get("type") == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def parse_structured(text: str, schema: dict) -> Any:
    """Parse, repair, coerce and validate; raises ParseError with a message for a re-ask."""
    want = schema.get("type") if isinstance(schema.get("type"), str) else None
    value = coerce(extract_json(text, want), schema)
    errors = validate(value, schema)
    if errors:
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise ParseError("schema violation: " + "; ".join(errors[:3]) + more)
    return value

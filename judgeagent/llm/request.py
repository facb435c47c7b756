"""One chat request, immutable: the only place that knows its cache key, its journal record
and its HTTP body, so the three can never disagree.

What the request holds is what the caller chose (model identity, messages, schema,
temperature, the answer budget, seed, variant, extra_body). What the server has taught
us about the model (which structured-output form it takes, ``max_tokens`` or
``max_completion_tokens``, a temperature it insists on, options it refuses) arrives as a
:class:`Wire` when the body is built; it never changes the key, so an answer is found
again under the request the user made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from judgeagent.llm.journal import request_key
from judgeagent.llm.registry import ModelSpec
from judgeagent.llm.structured import schema_instructions

# Structured-output request forms, most specific first. A model starts at the first form
# its kind supports and steps down, once for the whole process, if the server refuses one.
FORMS_REMOTE = ["json_schema", "json_object+schema", "json_object", "none"]
FORMS_LLAMA = ["json_object+schema", "none"]  # llama.cpp's server 500s on json_schema
FORMS_FORCED = {
    "json_schema": ["json_schema", "none"],
    "json_object": ["json_object+schema", "none"],
    "none": ["none"],
}


def forms_for(spec: ModelSpec) -> list[str]:
    if spec.response_format != "auto":
        return list(FORMS_FORCED[spec.response_format])
    return list(FORMS_LLAMA if spec.is_local else FORMS_REMOTE)


def form_of(rf: dict | None) -> str:
    """The structured-output form a request's ``response_format`` was sent in."""
    if not rf:
        return "none"
    if rf.get("type") == "json_object":
        return "json_object+schema" if "schema" in rf else "json_object"
    return str(rf.get("type"))


def response_format(form: str, schema: dict) -> dict | None:
    if form == "json_schema":
        name = re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title", "response")))[:64] or "response"
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}
    if form == "json_object+schema":
        return {"type": "json_object", "schema": schema}
    if form == "json_object":
        return {"type": "json_object"}
    return None


@dataclass(frozen=True)
class Wire:
    """How to say a request to one server, as negotiated so far (see negotiation.py)."""

    form: str = "none"  # structured-output form, for requests with a schema
    send_seed: bool = True
    token_param: str = "max_tokens"  # or max_completion_tokens (OpenAI reasoning models)
    limit: int = 1024  # output tokens sent: the answer budget plus any reasoning allowance
    temperature: float | None = None  # None: the request's own; else the only one the server takes
    send_temperature: bool = True
    added: dict = field(default_factory=dict)  # options the server turned out to require
    dropped: frozenset[str] = frozenset()  # optional options the server refused


@dataclass(frozen=True)
class ChatRequest:
    spec: ModelSpec
    messages: tuple[dict, ...]
    schema: dict | None
    temperature: float
    max_tokens: int  # the budget for the visible answer
    seed: int | None
    variant: str | None = None
    stage: str = "misc"

    @classmethod
    def build(
        cls,
        spec: ModelSpec,
        messages: list[dict],
        *,
        schema: dict | None = None,
        stage: str = "misc",
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = 0,
        variant: str | None = None,
    ) -> ChatRequest:
        """The spec's temperature and max_tokens stand in for what the caller leaves out."""
        return cls(
            spec,
            tuple(dict(m) for m in messages),
            schema,
            spec.temperature if temperature is None else float(temperature),
            spec.max_tokens if max_tokens is None else int(max_tokens),
            seed,
            variant,
            stage,
        )

    @property
    def extra_body(self) -> dict:
        return dict(self.spec.extra_body or {})

    @cached_property
    def key(self) -> str:
        """The journal / cache key: the identity the user chose, never what a server served."""
        return request_key(
            self.spec.identity, list(self.messages), temperature=self.temperature, max_tokens=self.max_tokens,
            schema=self.schema, seed=self.seed, variant=self.variant, extra_body=self.extra_body or None,
        )  # fmt: skip

    def journal_record(self) -> dict:
        """What was asked, as the journal keeps it (no key, no header)."""
        record: dict[str, Any] = {
            "model": self.spec.model, "messages": list(self.messages), "schema": self.schema,
            "temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed,
        }  # fmt: skip
        if self.variant is not None:
            record["variant"] = self.variant
        if self.extra_body:
            record["extra_body"] = self.extra_body
        return record

    def conversation(self) -> list[dict]:
        """The messages to send; with a schema, described in the system message too, because
        not every server enforces response_format."""
        out = [dict(m) for m in self.messages]
        if self.schema is None:
            return out
        note = schema_instructions(self.schema)
        if out and out[0].get("role") == "system":
            out[0]["content"] = f"{out[0].get('content', '')}\n\n{note}"
        else:
            out.insert(0, {"role": "system", "content": note})
        return out

    def body(self, convo: list[dict], wire: Wire) -> dict:
        """The JSON body of one HTTP request: ``convo`` (the conversation so far, re-asks
        included) said the way ``wire`` says this server wants it."""
        body: dict[str, Any] = {"model": self.spec.model, "messages": convo}
        if wire.send_temperature:
            body["temperature"] = self.temperature if wire.temperature is None else wire.temperature
        body[wire.token_param] = wire.limit
        rf = response_format(wire.form, self.schema) if self.schema is not None else None
        if rf is not None:
            body["response_format"] = rf
        if self.seed is not None and wire.send_seed:
            body["seed"] = self.seed
        body.update(wire.added)
        body.update(self.extra_body)  # verbatim, last: the user's word wins
        for name in wire.dropped:
            body.pop(name, None)
        return body

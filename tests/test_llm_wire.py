"""The server's reply, parsed once at the edge (llm/wire.py through sender.reply_from):
providers' shapes read as values, odd fields as absent, and no choices is malformed."""

from judgeagent.llm.outcome import Failure, FailureKind, Reply
from judgeagent.llm.sender import error_fields, reply_from

CONVO = [{"role": "user", "content": "two words"}]


def test_openai_and_deepseek_usage_read_the_same_cached_count():
    openai = {"choices": [{"message": {"content": "A"}, "finish_reason": "stop"}], "model": "m",
              "usage": {"prompt_tokens": 100, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 64},
                        "completion_tokens_details": {"reasoning_tokens": 3}}}
    deepseek = {"choices": [{"message": {"content": "A", "reasoning_content": "hm"}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 7, "prompt_cache_hit_tokens": 64, "prompt_cache_miss_tokens": 36}}
    a, b = reply_from(openai, CONVO), reply_from(deepseek, CONVO)
    assert isinstance(a, Reply) and isinstance(b, Reply)
    assert (a.tokens.prompt_tokens, a.tokens.completion_tokens, a.tokens.reasoning_tokens, a.tokens.cached_tokens) == (100, 7, 3, 64)
    assert (a.text, a.finish_reason, a.served_model) == ("A", "stop", "m")
    assert (b.tokens.cached_tokens, b.thinking, b.served_model, b.finish_reason) == (64, "hm", "", None)


def test_fields_of_an_odd_shape_read_as_absent():
    odd = {"choices": [{"message": "not a dict"}, 5],
           "usage": {"prompt_tokens": "12", "completion_tokens": None, "prompt_tokens_details": [], "completion_tokens_details": {"reasoning_tokens": "x"},
                     "prompt_cache_hit_tokens": "abc"}}
    r = reply_from(odd, CONVO)
    assert isinstance(r, Reply) and r.text is None
    assert (r.tokens.prompt_tokens, r.tokens.completion_tokens, r.tokens.reasoning_tokens, r.tokens.cached_tokens) == (12, 0, 0, 0)
    no_usage = reply_from({"choices": [{"message": {"content": "one two three"}}], "usage": "n/a"}, CONVO)
    assert isinstance(no_usage, Reply) and (no_usage.tokens.prompt_tokens, no_usage.tokens.completion_tokens) == (2, 3)  # by words


def test_no_choices_is_malformed():
    for resp in ({}, {"choices": []}, {"choices": None}, {"choices": ["text"]}, [1, 2], None):
        r = reply_from(resp, CONVO)
        assert isinstance(r, Failure) and r.kind is FailureKind.MALFORMED


def test_error_bodies_of_each_provider():
    assert error_fields({"error": {"message": "bad  max_tokens", "param": "max_tokens", "code": None}}) == ("bad max_tokens", "max_tokens", None)
    assert error_fields({"error": {"code": 1302, "message": "限流"}}) == ("限流", None, "1302")
    assert error_fields({"message": {"nested": 1}})[0] == '{"message": {"nested": 1}}'

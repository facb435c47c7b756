"""JSON repair and the small schema validator (judgeagent.llm.structured)."""

import pytest

from judgeagent.llm.structured import ParseError, describe, extract_json, parse_structured, validate

GRADE = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "enum": ["A", "B", "C", "D"]},
        "score": {"type": "integer", "minimum": 0, "maximum": 5},
        "reasons": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
        "correct": {"type": "boolean"},
    },
    "required": ["answer", "score"],
}


@pytest.mark.parametrize(
    "text",
    [
        '{"answer": "B", "score": 3}',
        '```json\n{"answer": "B", "score": 3}\n```',
        '```\n{"answer": "B", "score": 3}\n```',
        'Sure! Here is the JSON:\n{"answer": "B", "score": 3}\nHope this helps.',
        "{'answer': 'B', 'score': 3}",
        '{"answer": "B", "score": 3,}',
        '{answer: "B", score: 3}',
        '{"answer": "B", "score": 3, "correct": True}',
        '{"answer": "B", "score": 3, "reasons": ["x",]',  # truncated after a complete value
        '{"answer": "b", "score": 3}',  # enum case fixed
        '{"answer": "B", "score": 3.0}',  # integral float is an integer
    ],
)
def test_repairs_common_breakage(text):
    data = parse_structured(text, GRADE)
    assert data["answer"] == "B" and data["score"] == 3
    assert isinstance(data["score"], int)


def test_single_quotes_keep_inner_double_quotes_and_apostrophes_in_double_quoted():
    assert extract_json("{'q': 'say \"hi\"'}") == {"q": 'say "hi"'}
    assert extract_json('{"q": "it\'s fine"}') == {"q": "it's fine"}


def test_text_after_value_with_braces_is_ignored():
    assert extract_json('{"a": 1} and then {"b": 2}') == {"a": 1}


def test_array_top_level_preferred_when_schema_wants_array():
    assert extract_json('note {"x":1} list: ["a", "b"]', want="array") == ["a", "b"]


@pytest.mark.parametrize(
    "text",
    [
        '{"answer": "B", "score": 3, "reasons": ["because it',  # cut inside a string
        '{"answer": "B", "score":',  # cut after a key
        '{"answer": "B", "score": 3, "reasons"',  # key without value
        '{"answer": "B", "score": 4',  # a trailing number may itself be cut short
        "I think the answer is B.",
        "",
    ],
)
def test_unsafe_or_hopeless_replies_raise(text):
    with pytest.raises(ParseError):
        parse_structured(text, GRADE)


def test_validator_messages_name_the_path():
    errors = validate({"answer": "E", "score": "3", "reasons": []}, GRADE)
    joined = " | ".join(errors)
    assert "$.answer" in joined and "not one of" in joined
    assert "$.score: expected integer, got string" in joined
    assert "$.reasons: expected at least 1 items" in joined
    assert validate({"answer": "A"}, GRADE) == ["$: missing required property 'score'"]
    assert validate({"answer": "A", "score": 9}, GRADE) == ["$.score: 9 is above the maximum 5"]
    assert validate({"answer": "A", "score": 1, "reasons": ["a"] * 4}, GRADE) == [
        "$.reasons: expected at most 3 items, got 4"
    ]


def test_validator_types():
    assert validate(True, {"type": "integer"})  # a bool is not an integer
    assert not validate(2, {"type": "number"})
    assert not validate(None, {"type": ["string", "null"]})
    assert validate({"a": 1, "b": 2}, {"type": "object", "properties": {"a": {}}, "additionalProperties": False})
    assert not validate([{"k": "x"}], {"type": "array", "items": {"type": "object", "required": ["k"]}})
    assert validate([{}], {"type": "array", "items": {"type": "object", "required": ["k"]}}) == [
        "$[0]: missing required property 'k'"
    ]


def test_schema_violation_message_is_usable_for_a_reask():
    with pytest.raises(ParseError, match=r"schema violation: \$: missing required property 'score'"):
        parse_structured('{"answer": "A"}', GRADE)


def test_describe_is_a_template():
    text = describe(GRADE)
    assert '"answer": <"A" | "B" | "C" | "D">' in text
    assert '"score": <integer 0..5>' in text
    assert "(optional)" in text

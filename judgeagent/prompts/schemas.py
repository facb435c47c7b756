"""JSON schemas of the replies we ask for. Kept to the subset our validator and llama.cpp's
grammar support: object, array, string, enum, required, properties, items, min/maxItems."""

from __future__ import annotations

LETTERS = ("A", "B", "C", "D", "E")


def answer_batch(n: int, letters: list[str] | None) -> dict:
    """``{"response": [{"answer": …}] * n}``; with ``letters`` the answer is one of them."""
    answer: dict = {"type": "string"}
    if letters:
        answer = {"type": "string", "enum": list(letters)}
    return {
        "type": "object",
        "properties": {
            "response": {
                "type": "array",
                "items": {"type": "object", "properties": {"answer": answer}, "required": ["answer"]},
                "minItems": n,
                "maxItems": n,
            }
        },
        "required": ["response"],
    }


GENERATED_MC = {
    "type": "object",
    "properties": {
        "question": {"type": "string"},
        "correct_option": {"type": "string"},
        "distractors": {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 3},
        "rationale": {"type": "string"},
    },
    "required": ["question", "correct_option", "distractors"],
}

GENERATED_PHRASE = {
    "type": "object",
    "properties": {
        "question": {"type": "string"},
        "answer": {"type": "string"},
        "rationale": {"type": "string"},
    },
    "required": ["question", "answer"],
}

PHRASE_JUDGEMENT = {
    "type": "object",
    "properties": {"equivalent": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["equivalent"],
}

FEEDBACK = {
    "type": "object",
    "properties": {
        "flaws_knowledge": {"type": "string"},
        "flaws_capability": {"type": "string"},
        "comprehensive_performance": {"type": "string"},
        "suggestions": {"type": "string"},
    },
    "required": ["flaws_knowledge", "flaws_capability", "comprehensive_performance", "suggestions"],
}

ENTITIES = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "type": {"type": "string"}},
                "required": ["name"],
            },
        }
    },
    "required": ["entities"],
}

_STATEMENTS = {"type": "array", "items": {"type": "string"}, "maxItems": 8}

SUMMARY = {
    "type": "object",
    "properties": {
        "strengths": _STATEMENTS,
        "weaknesses": _STATEMENTS,
        "knowledge_gaps": _STATEMENTS,
        "reasoning_gaps": _STATEMENTS,
        "response_to_feedback": {"type": "string"},
    },
    "required": ["strengths", "weaknesses", "knowledge_gaps", "reasoning_gaps", "response_to_feedback"],
}

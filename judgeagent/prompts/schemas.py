"""JSON schemas of the replies we ask for, every one of them. Kept to the subset our validator
and llama.cpp's grammar support: object, array, string, enum, required, properties, items,
min/maxItems.

Each schema has a ``title``: the client sends it as the ``json_schema`` name of
``response_format``, and the journal and the test doubles tell replies apart by it. Titles
are unique; the factories below always give the same title, whatever their arguments.
"""

from __future__ import annotations

LETTERS = ("A", "B", "C", "D", "E")
MC_LETTERS = ("A", "B", "C", "D")  # a generated question has four options
UNDETERMINED = "cannot be determined"  # the gate's reader says so when the passages do not answer


def _named(name: str, schema: dict) -> dict:
    return {"title": name, **schema}


def _answer_object(answer: dict) -> dict:
    return {"type": "object", "properties": {"answer": answer}, "required": ["answer"]}


def answer_batch(n: int | None, letters: list[str] | None) -> dict:
    """``{"response": [{"answer": …}] * n}``; with ``letters`` the answer is one of them.
    ``n`` None: any number of answers (one schema for every request about an article)."""
    answer: dict = {"type": "string"}
    if letters:
        answer = {"type": "string", "enum": list(letters)}
    response: dict = {"type": "array", "items": _answer_object(answer)}
    if n is not None:
        response.update(minItems=n, maxItems=n)
    return _named("answer_batch", {"type": "object", "properties": {"response": response}, "required": ["response"]})


# The gate's reader (stages/gate.py): an option letter or a phrase, or the way out.
GATE_ANSWER_MC = _named("gate_answer_mc", _answer_object({"type": "string", "enum": [*MC_LETTERS, UNDETERMINED]}))
GATE_ANSWER_PHRASE = _named("gate_answer_phrase", _answer_object({"type": "string"}))


def decon_verify(letters: list[str] | None) -> dict:
    """The blind answer to a decontaminated question (stages/decontaminate.py)."""
    answer: dict = {"type": "string", "enum": list(letters)} if letters else {"type": "string"}
    return _named("decon_verify", _answer_object(answer))


_GENERATED_MC = {
    "type": "object",
    "properties": {
        "question": {"type": "string"},
        "correct_option": {"type": "string"},
        "distractors": {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 3},
        "rationale": {"type": "string"},
    },
    "required": ["question", "correct_option", "distractors"],
}
_GENERATED_PHRASE = {
    "type": "object",
    "properties": {
        "question": {"type": "string"},
        "answer": {"type": "string"},
        "rationale": {"type": "string"},
    },
    "required": ["question", "answer"],
}

# A follow-up question (stages/extension.py) and a decontaminating "modify" rewrite: the same
# shape, named apart because they answer different requests.
GENERATED_MC = _named("generated_mc", _GENERATED_MC)
GENERATED_PHRASE = _named("generated_phrase", _GENERATED_PHRASE)
DECON_MODIFY_MC = _named("decon_modify_mc", _GENERATED_MC)
DECON_MODIFY_PHRASE = _named("decon_modify_phrase", _GENERATED_PHRASE)

# A seed question written from a graph path (protocols/seeds): a follow-up's shape, then the
# numbers of the sentences that state its key. Last, not first: the bundled model, asked for
# the numbers first, listed 1, 2, 3, ... and then wrote about something else (on a folder of
# five short documents, 0 of 18 tries passed the citation check; 5 of 24 with the numbers last).
_CITATIONS = {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 6}
SEED_MC = _named("seed_mc", {"type": "object", "properties": {**_GENERATED_MC["properties"], "citations": _CITATIONS},  # type: ignore[dict-item]
                             "required": [*_GENERATED_MC["required"], "citations"]})  # fmt: skip
SEED_PHRASE = _named("seed_phrase", {"type": "object", "properties": {**_GENERATED_PHRASE["properties"], "citations": _CITATIONS},  # type: ignore[dict-item]
                                     "required": [*_GENERATED_PHRASE["required"], "citations"]})  # fmt: skip

DECON_PARAPHRASE = _named(
    "decon_paraphrase",
    {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]},
)
DECON_UNCLARIFY = _named(
    "decon_unclarify",
    {
        "type": "object",
        "properties": {"question": {"type": "string"}, "removed": {"type": "string"}},
        "required": ["question", "removed"],
    },
)

PHRASE_JUDGEMENT = _named(
    "phrase_judgement",
    {
        "type": "object",
        "properties": {"equivalent": {"type": "string", "enum": ["yes", "no"]}},
        "required": ["equivalent"],
    },
)

FEEDBACK = _named(
    "feedback",
    {
        "type": "object",
        "properties": {
            "flaws_knowledge": {"type": "string"},
            "flaws_capability": {"type": "string"},
            "comprehensive_performance": {"type": "string"},
            "suggestions": {"type": "string"},
        },
        "required": ["flaws_knowledge", "flaws_capability", "comprehensive_performance", "suggestions"],
    },
)

LEAK_REWRITE = _named(
    "leak_rewrite",
    {"type": "object", "properties": {"suggestions": {"type": "string"}}, "required": ["suggestions"]},
)

ENTITIES = _named(
    "entities",
    {
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
    },
)

_STATEMENTS = {"type": "array", "items": {"type": "string"}, "maxItems": 8}

SUMMARY = _named(
    "summary",
    {
        "type": "object",
        "properties": {
            "strengths": _STATEMENTS,
            "weaknesses": _STATEMENTS,
            "knowledge_gaps": _STATEMENTS,
            "reasoning_gaps": _STATEMENTS,
            "response_to_feedback": {"type": "string"},
        },
        "required": ["strengths", "weaknesses", "knowledge_gaps", "reasoning_gaps", "response_to_feedback"],
    },
)

LEAK_VERDICTS = ("none", "picks_out", "eliminates", "both")

# The judge's leak check of one seed question's advice (stages/leak_judge.py).
LEAK_CHECK = _named(
    "leak_check",
    {
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": list(LEAK_VERDICTS)},
            "options": {"type": "array", "items": {"type": "string"}, "maxItems": 6},
            "evidence": {"type": "string"},
        },
        "required": ["verdict", "evidence"],
    },
)

# The audit's model auditor (audit/auditor.py): its blind answer is the gate reader's
# (GATE_ANSWER_*); then its judgement of the key against the passages.
AUDIT_KEY_VERDICTS = ("correct", "wrong", "cannot tell")
AUDIT_DEFECTS = ("ambiguous", "not self-contained", "gives the answer away")
AUDIT_KEY = _named(
    "audit_key",
    {
        "type": "object",
        "properties": {
            "key": {"type": "string", "enum": list(AUDIT_KEY_VERDICTS)},
            "defects": {"type": "array", "items": {"type": "string", "enum": list(AUDIT_DEFECTS)}, "maxItems": 3},
            "reason": {"type": "string"},
        },
        "required": ["key", "defects", "reason"],
    },
)

# ----------------------------------------------------------------------------- protocols
# The roles of the kin systems' protocols (judgeagent/protocols/).

KIEVAL_ASPECTS = ("accuracy", "logic", "relevance", "coherence", "conciseness")
SCORES_1_4 = ("1", "2", "3", "4")
_SCORED = {
    "type": "object",
    "properties": {"score": {"type": "string", "enum": list(SCORES_1_4)}, "comment": {"type": "string"}},
    "required": ["score", "comment"],
}

# KIEval's interactor: the next question of the dialogue.
KIEVAL_QUESTION = _named("kieval_question", {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]})

# The target's free-text turn in a dialogue (KIEval) or its answer to a follow-up (interviewer).
DIALOGUE_REPLY = _named("dialogue_reply", {"type": "object", "properties": {"reply": {"type": "string"}}, "required": ["reply"]})

# KIEval's evaluator: five aspects 1–4 with a one-line comment, an overall 1–4, and whether to stop.
KIEVAL_SCORE = _named(
    "kieval_score",
    {
        "type": "object",
        "properties": {
            **{a: _SCORED for a in KIEVAL_ASPECTS},
            "overall": {"type": "string", "enum": list(SCORES_1_4)},
            "stop": {"type": "string", "enum": ["continue", "stop"]},
            "stop_reason": {"type": "string"},
        },
        "required": [*KIEVAL_ASPECTS, "overall", "stop", "stop_reason"],
    },
)

# LLM-as-an-Interviewer: feedback on a wrong answer (never the answer itself).
INTERVIEWER_FEEDBACK = _named(
    "interviewer_feedback", {"type": "object", "properties": {"feedback": {"type": "string"}}, "required": ["feedback"]}
)

FOLLOWUP_KINDS = ("rationale", "clarification")
INTERVIEWER_FOLLOWUPS = _named(
    "interviewer_followups",
    {"type": "object", "properties": {k: {"type": "string"} for k in FOLLOWUP_KINDS}, "required": list(FOLLOWUP_KINDS)},
)
FOLLOWUP_VERDICTS = ("adequate", "inadequate")
FOLLOWUP_GRADES = _named(
    "followup_grades",
    {
        "type": "object",
        "properties": {
            **{k: {"type": "string", "enum": list(FOLLOWUP_VERDICTS)} for k in FOLLOWUP_KINDS},
            "comment": {"type": "string"},
        },
        "required": [*FOLLOWUP_KINDS, "comment"],
    },
)
INTERVIEW_REPORT = _named(
    "interview_report",
    {"type": "object", "properties": {"strengths": _STATEMENTS, "weaknesses": _STATEMENTS}, "required": ["strengths", "weaknesses"]},
)

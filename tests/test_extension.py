import random

from judgeagent.data.benchmark import QuestionType
from judgeagent.stages.extension import assemble, validate

GOOD = {"question": "Which ion rises?", "correct_option": "Potassium", "distractors": ["Sodium", "Calcium", "Chloride"]}


def test_a_good_question_passes_and_its_answer_position_is_seeded():
    assert validate(GOOD, QuestionType.KMC) is None
    positions = {assemble(GOOD, QuestionType.KMC, "q", "easy", random.Random(s)).answer for s in range(20)}
    assert positions == {"A", "B", "C", "D"}
    q = assemble(GOOD, QuestionType.KMC, "q", "easy", random.Random(3))
    assert q.options[q.answer] == "Potassium"
    assert assemble(GOOD, QuestionType.KMC, "q", "easy", random.Random(3)).answer == q.answer


def test_unusable_questions_say_why():
    assert validate({"question": ""}, QuestionType.KMC) == "empty question text"
    assert validate({**GOOD, "distractors": ["...", "...", "..."]}, QuestionType.KMC) == "placeholder options"
    assert validate({**GOOD, "distractors": ["Sodium", "potassium", "Chloride"]}, QuestionType.KMC) == "answer not distinct from the other options"
    assert validate({**GOOD, "distractors": ["Sodium"]}, QuestionType.KMC) == "needs exactly 3 non-empty distractors"
    assert validate(GOOD, QuestionType.KMC, avoid=["which ion rises"]) == "copies an existing question"
    assert validate({"question": "Who won?", "answer": ""}, QuestionType.KQA) == "no answer"
    assert validate("text", QuestionType.KQA) == "not a JSON object"
    # Small judges copy the prompt's filled-in example: that is no question about the path.
    copied = {"question": "Which metal forms the filament of a classic incandescent light bulb?", "answer": "Tungsten"}
    assert validate(copied, QuestionType.KQA) == "copies the example instead of asking about the excerpts"
    assert validate({**copied, "correct_option": "Tungsten", "distractors": ["Copper", "Tin", "Zinc"]}, QuestionType.KMC) == (
        "copies the example instead of asking about the excerpts"
    )

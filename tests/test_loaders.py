import json
import shutil
from pathlib import Path

import pytest

from judgeagent.data import QuestionType, load_benchmark
from judgeagent.data.detect import detect_format
from judgeagent.errors import ConfigError, DataError

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).parent.parent


def check_consistent(bench):
    """Structural promises every loader makes to the later stages."""
    chunk_ids = [c.id for c in bench.chunks]
    assert len(chunk_ids) == len(set(chunk_ids))
    assert len({d.id for d in bench.documents}) == len(bench.documents)
    assert len({q.id for q in bench.questions}) == len(bench.questions)
    by_id = bench.chunk_by_id()
    for doc in bench.documents:
        for cid in doc.chunk_ids:
            assert by_id[cid].doc_id == doc.id
    assert sum(len(d.chunk_ids) for d in bench.documents) == len(bench.chunks)
    docs = bench.document_by_id()
    for q in bench.questions:
        assert q.question.strip() and q.answer.strip()
        assert q.difficulty in (None, "easy", "medium", "hard")
        if bench.qtype.is_multiple_choice:
            assert q.answer in q.options
        else:
            assert q.options is None
        if q.doc_id is not None:
            assert q.doc_id in docs
    for path in bench.source_files:
        assert Path(path).is_file()


def write_jsonl(path: Path, rows: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


# -- detection ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "folder,fmt",
    [("medqa_small", "medqa"), ("multihop_small", "multihop"), ("quality_small", "quality"), ("generic_small", "generic")],
)
def test_detect_format(folder, fmt):
    assert detect_format(FIXTURES / folder) == fmt
    assert load_benchmark(FIXTURES / folder).format == fmt


def test_unknown_layout_names_folder_and_expectations():
    with pytest.raises(DataError) as err:
        detect_format(FIXTURES / "broken_unknown_layout")
    msg = str(err.value)
    assert "broken_unknown_layout" in msg and "unknown benchmark layout" in msg
    for expected in ("textbooks/", "MultiHopRAG.json", "article_id", "corpus.jsonl"):
        assert expected in msg
    assert "questions.csv" in msg  # says what it did find


def test_missing_and_non_folder_paths(tmp_path):
    with pytest.raises(DataError, match="no such folder"):
        load_benchmark(tmp_path / "nope")
    (tmp_path / "file.jsonl").write_text("{}\n")
    with pytest.raises(DataError, match="not a folder"):
        load_benchmark(tmp_path / "file.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="empty folder"):
        load_benchmark(tmp_path / "empty")


def test_bad_chunk_settings():
    with pytest.raises(ConfigError):
        load_benchmark(FIXTURES / "medqa_small", chunk_tokens=0)
    with pytest.raises(ConfigError):
        load_benchmark(FIXTURES / "medqa_small", section_chunks=0)


# -- MedQA --------------------------------------------------------------------------


def test_medqa_small():
    bench = load_benchmark(FIXTURES / "medqa_small")
    check_consistent(bench)
    assert bench.name == "medqa_small"
    assert bench.qtype is QuestionType.KMC
    q = bench.questions[0]
    assert q.id == "questions-1"
    assert q.answer == "B" and q.options["B"] == "Intravenous calcium gluconate"
    assert q.difficulty is None and q.doc_id is None
    assert q.meta == {"meta_info": "step2&3"}
    assert bench.questions[2].options.keys() == {"A", "B", "C", "D", "E"}
    assert [d.id for d in bench.documents] == ["cardiology-s1", "nephrology-s1"]
    assert bench.documents[0].title == "cardiology §1"
    assert bench.chunks[0].id == "cardiology-s1-c1"
    assert bench.source_files[0].endswith("questions.jsonl")


def test_medqa_sections_and_no_text_lost():
    bench = load_benchmark(FIXTURES / "medqa_small", chunk_tokens=20, section_chunks=2)
    check_consistent(bench)
    cardio = [d for d in bench.documents if d.id.startswith("cardiology")]
    assert [d.id for d in cardio] == [f"cardiology-s{n}" for n in range(1, len(cardio) + 1)]
    assert all(len(d.chunk_ids) <= 2 for d in bench.documents)
    assert len(cardio) >= 2
    book = (FIXTURES / "medqa_small/textbooks/cardiology.txt").read_text()
    text = " ".join(bench.document_text(d.id) for d in cardio)
    assert text.split() == book.split()


def test_medqa_real_layout(tmp_path):
    """The layout of the real MedQA download: textbooks/en/ and questions/US/..."""
    src = FIXTURES / "medqa_small"
    root = tmp_path / "data_clean"
    shutil.copytree(src / "textbooks", root / "textbooks" / "en")
    (root / "textbooks" / "zh_paragraph").mkdir()
    (root / "textbooks" / "zh_paragraph" / "内科学.txt").write_text("不应读取。\n")
    lines = (src / "questions.jsonl").read_text()
    four = root / "questions/US/4_options/phrases_no_exclude_test.jsonl"
    four.parent.mkdir(parents=True)
    four.write_text(lines)
    (root / "questions/US/test.jsonl").write_text(lines.splitlines()[0] + "\n")
    assert detect_format(root) == "medqa"
    bench = load_benchmark(root)
    assert bench.name == "data_clean"
    assert [q.id for q in bench.questions][:2] == ["phrases_no_exclude_test-1", "phrases_no_exclude_test-2"]
    assert all("zh_paragraph" not in f for f in bench.source_files)
    four.unlink()  # then the 5-option test set is used
    assert [q.id for q in load_benchmark(root).questions] == ["test-1"]


def test_medqa_without_questions_file(tmp_path):
    shutil.copytree(FIXTURES / "medqa_small" / "textbooks", tmp_path / "textbooks")
    with pytest.raises(DataError, match="no questions file"):
        load_benchmark(tmp_path)


def test_medqa_without_textbooks(tmp_path):
    (tmp_path / "textbooks").mkdir()
    shutil.copy(FIXTURES / "medqa_small" / "questions.jsonl", tmp_path)
    with pytest.raises(DataError, match="no .txt textbooks"):
        load_benchmark(tmp_path)


# -- MultiHop-RAG -------------------------------------------------------------------


def test_multihop_small():
    bench = load_benchmark(FIXTURES / "multihop_small")
    check_consistent(bench)
    assert bench.qtype is QuestionType.KQA
    assert [d.id for d in bench.documents] == ["a0", "a1", "a2"]
    assert bench.documents[1].title == "Norwind Systems reports record quarter"
    q0, q1, q2 = bench.questions
    assert (q0.id, q0.answer, q0.options, q0.doc_id) == ("q0", "Norwind Systems", None, None)
    assert q0.meta["question_type"] == "inference_query"
    assert q0.meta["evidence_titles"] == [
        "Harbor City opens its first tidal power plant",
        "Norwind Systems reports record quarter",
    ]
    assert q0.meta["evidence_doc_ids"] == ["a0", "a1"]
    assert q1.meta["evidence_doc_ids"] == ["a0", "a2"]
    assert q2.answer == "Insufficient information."
    assert q2.meta["null_query"] is True and q2.meta["evidence_doc_ids"] == []
    assert q0.meta["null_query"] is False


def test_multihop_body_paragraphs_become_chunks():
    bench = load_benchmark(FIXTURES / "multihop_small", chunk_tokens=30)
    doc = bench.document_by_id()["a0"]
    assert len(doc.chunk_ids) == 3  # three blank-line paragraphs, none fits beside another
    body = json.loads((FIXTURES / "multihop_small/corpus.json").read_text())[0]["body"]
    assert bench.document_text("a0").split() == body.split()


def test_multihop_missing_file(tmp_path):
    shutil.copy(FIXTURES / "multihop_small/corpus.json", tmp_path)
    with pytest.raises(DataError, match="MultiHopRAG.json is missing"):
        load_benchmark(tmp_path)


def test_multihop_json_error_has_real_line(tmp_path):
    shutil.copy(FIXTURES / "multihop_small/corpus.json", tmp_path)
    (tmp_path / "MultiHopRAG.json").write_text('[\n  {"query": "q",\n   "answer": "a"\n   "question_type": "x"}\n]\n')
    with pytest.raises(DataError, match=r"MultiHopRAG\.json:4: not valid JSON \(Expecting ',' delimiter"):
        load_benchmark(tmp_path)


def test_multihop_missing_field_reports_item(tmp_path):
    shutil.copy(FIXTURES / "multihop_small/corpus.json", tmp_path)
    items = json.loads((FIXTURES / "multihop_small/MultiHopRAG.json").read_text())
    del items[2]["answer"]
    (tmp_path / "MultiHopRAG.json").write_text(json.dumps(items))
    with pytest.raises(DataError, match=r'MultiHopRAG\.json:3: item 3: missing field "answer"'):
        load_benchmark(tmp_path)


# -- QuALITY ------------------------------------------------------------------------


def test_quality_small():
    bench = load_benchmark(FIXTURES / "quality_small")
    check_consistent(bench)
    assert bench.qtype is QuestionType.RMC
    assert [d.id for d in bench.documents] == ["61001", "61002"]  # article on two lines, one doc
    assert bench.documents[0].title == "The Last Keeper"
    assert bench.source_files == [str(FIXTURES / "quality_small/QuALITY.v1.0.1.htmlstripped.dev")]
    by_id = {q.id: q for q in bench.questions}
    assert list(by_id) == ["61001_A_1", "61001_A_2", "61001-3", "61002_A_1"]
    q = by_id["61001_A_1"]
    assert q.answer == "B" and q.options == {
        "A": "She was ill",
        "B": "The oil was running low",
        "C": "The lens was broken",
        "D": "The captain ordered it",
    }
    assert q.doc_id == "61001"
    # speed annotators matching the gold label: 4 -> easy, 2 -> medium, 1 -> hard, 3 -> medium
    assert [q.difficulty for q in bench.questions] == ["easy", "medium", "hard", "medium"]
    assert by_id["61001-3"].meta["hard_subset"] is True


def test_quality_article_text_is_whole():
    bench = load_benchmark(FIXTURES / "quality_small", chunk_tokens=40)
    first = json.loads((FIXTURES / "quality_small/QuALITY.v1.0.1.htmlstripped.dev").read_text().splitlines()[0])
    assert bench.document_text("61001").split() == first["article"].split()
    assert len(bench.document_by_id()["61001"].chunk_ids) > 1


def test_quality_test_split_and_jsonl_name(tmp_path):
    line = json.loads((FIXTURES / "quality_small/QuALITY.v1.0.1.htmlstripped.dev").read_text().splitlines()[0])
    unlabeled = json.loads(json.dumps(line))
    for q in unlabeled["questions"]:
        for key in ("gold_label", "writer_label", "validation", "speed_validation"):
            q.pop(key)
    write_jsonl(tmp_path / "test.jsonl", [unlabeled])
    with pytest.raises(DataError, match="no QuALITY question has a gold_label"):
        load_benchmark(tmp_path)
    no_speed = json.loads(json.dumps(line))
    no_speed["article_id"] = "7"
    for q in no_speed["questions"]:
        q.pop("speed_validation")
    write_jsonl(tmp_path / "dev.jsonl", [no_speed])
    bench = load_benchmark(tmp_path)
    assert {q.doc_id for q in bench.questions} == {"7"}  # the unlabeled questions were skipped
    assert all(q.difficulty is None for q in bench.questions)
    assert {d.id for d in bench.documents} == {"7", "61001"}


def test_quality_duplicate_question_ids(tmp_path):
    line = (FIXTURES / "quality_small/QuALITY.v1.0.1.htmlstripped.dev").read_text().splitlines()[0]
    (tmp_path / "a.jsonl").write_text(line + "\n" + line + "\n")
    with pytest.raises(DataError, match=r'a\.jsonl:2: question 1: duplicate question id "61001_A_1" \(first seen at line 1\)'):
        load_benchmark(tmp_path)


# -- generic ------------------------------------------------------------------------


def test_generic_small():
    bench = load_benchmark(FIXTURES / "generic_small")
    check_consistent(bench)
    assert bench.qtype is QuestionType.KMC
    g1, g2, g3 = bench.questions
    assert (g1.id, g1.answer, g1.options["B"], g1.difficulty, g1.doc_id) == ("g1", "B", "By a waggle dance", "easy", "bees")
    assert g2.answer == "C"  # given as the option's text
    assert g3.answer == "A" and g3.difficulty is None  # given as a lower-case letter
    assert g3.meta == {"source": "handwritten"}
    assert bench.document_by_id()["soil"].title == "soil"  # no title: the doc_id


def copy_generic(tmp_path: Path) -> Path:
    shutil.copy(FIXTURES / "generic_small/corpus.jsonl", tmp_path)
    return tmp_path


def test_generic_kqa_by_default_without_options(tmp_path):
    write_jsonl(copy_generic(tmp_path) / "questions.jsonl", [{"id": 1, "question": "Who dances?", "answer": "worker bees"}])
    bench = load_benchmark(tmp_path)
    assert bench.qtype is QuestionType.KQA
    assert bench.questions[0].id == "1" and bench.questions[0].answer == "worker bees"


def test_generic_declared_rmc(tmp_path):
    copy_generic(tmp_path)
    (tmp_path / "benchmark.json").write_text('{"question_type": "rmc"}')
    shutil.copy(FIXTURES / "generic_small/questions.jsonl", tmp_path)
    bench = load_benchmark(tmp_path)
    assert bench.qtype is QuestionType.RMC
    assert str(tmp_path / "benchmark.json") in bench.source_files
    write_jsonl(tmp_path / "questions.jsonl", [{"id": "x", "question": "?", "options": ["a", "b"], "answer": "A"}])
    with pytest.raises(DataError, match=r'questions\.jsonl:1: missing field "doc_id"'):
        load_benchmark(tmp_path)


@pytest.mark.parametrize(
    "row,message",
    [
        ({"id": "x", "question": "q", "options": ["a", "b"], "answer": "A", "difficulty": "tricky"}, 'difficulty "tricky" is not one of'),
        ({"id": "x", "question": "q", "options": ["a", "b"], "answer": "A", "doc_id": "nope"}, 'doc_id "nope" is not a doc_id'),
        ({"id": "x", "question": "q", "answer": "A"}, 'missing field "options"'),
        ({"id": "x", "question": "q", "options": ["a"], "answer": "A"}, "at least 2 options"),
        ({"id": "x", "question": "q", "options": {"AA": "a", "B": "b"}, "answer": "B"}, 'option key "AA"'),
        ({"id": "x", "question": "", "options": ["a", "b"], "answer": "A"}, 'field "question" is empty'),
        ({"question": "q", "options": ["a", "b"], "answer": "A"}, 'missing field "id"'),
        (["not", "an", "object"], "expected a JSON object"),
    ],
)
def test_generic_question_errors(tmp_path, row, message):
    good = {"id": "ok", "question": "q", "options": ["a", "b"], "answer": "B"}
    write_jsonl(copy_generic(tmp_path) / "questions.jsonl", [good, row])
    with pytest.raises(DataError) as err:
        load_benchmark(tmp_path)
    assert "questions.jsonl:2: " in str(err.value) and message in str(err.value)


def test_generic_bad_settings(tmp_path):
    shutil.copy(FIXTURES / "generic_small/questions.jsonl", copy_generic(tmp_path))
    (tmp_path / "benchmark.json").write_text('{"question_type": "essay"}')
    with pytest.raises(DataError, match=r'benchmark\.json:1: question_type "essay" is not one of kmc, kqa, rmc'):
        load_benchmark(tmp_path)


def test_generic_duplicate_doc_id(tmp_path):
    write_jsonl(tmp_path / "corpus.jsonl", [{"doc_id": "d", "text": "One."}, {"doc_id": "d", "text": "Two."}])
    shutil.copy(FIXTURES / "generic_small/questions.jsonl", tmp_path)
    with pytest.raises(DataError, match=r'corpus\.jsonl:2: duplicate doc_id "d"'):
        load_benchmark(tmp_path)


# -- broken fixtures: every error is a DataError naming file:line -------------------


@pytest.mark.parametrize(
    "folder,where,message",
    [
        ("broken", "questions.jsonl:3", "not valid JSON (Expecting ',' delimiter at column"),
        ("broken_missing_field", "questions.jsonl:2", 'missing field "answer_idx"'),
        ("broken_bad_answer", "questions.jsonl:2", 'answer_idx "E" is not among the options (A, B, C, D)'),
        ("broken_empty", "questions.jsonl:1", "file is empty"),
        ("broken_multihop_evidence", "MultiHopRAG.json:2", 'item 2: evidence 2: title "Grey River trout count falls"'),
        ("broken_quality_gold", "dev.jsonl:2", "question 1: gold_label 5 is not among the options"),
        ("broken_generic_answer", "questions.jsonl:3", 'answer "Earthworms" is neither an option letter'),
        ("broken_duplicate_ids", "questions.jsonl:3", 'duplicate question id "g1" (first seen at line 1)'),
    ],
)
def test_broken_fixtures(folder, where, message):
    with pytest.raises(DataError) as err:
        load_benchmark(FIXTURES / folder)
    text = str(err.value)
    assert f"{folder}/{where}: " in text
    assert message in text
    assert "\n" not in text


def test_invalid_utf8_is_a_data_error(tmp_path):
    shutil.copytree(FIXTURES / "medqa_small", tmp_path / "m")
    (tmp_path / "m/textbooks/bad.txt").write_bytes(b"Fine line.\nBad \xff byte.\n")
    with pytest.raises(DataError, match=r"bad\.txt:2: not valid UTF-8"):
        load_benchmark(tmp_path / "m")


# -- demo data shipped in data/ ------------------------------------------------------

DEMOS = [
    ("medqa-demo", "medqa", QuestionType.KMC),
    ("multihop-demo", "multihop", QuestionType.KQA),
    ("quality-demo", "quality", QuestionType.RMC),
]


@pytest.mark.parametrize("name,fmt,qtype", DEMOS)
def test_demo_data_loads(name, fmt, qtype):
    folder = REPO / "data" / name
    if not folder.is_dir():
        pytest.skip(f"data/{name} has not been written yet")
    bench = load_benchmark(folder)
    check_consistent(bench)
    assert (bench.name, bench.format, bench.qtype) == (name, fmt, qtype)
    assert bench.questions and bench.chunks

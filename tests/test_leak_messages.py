"""The whole feedback messages written by hand (bench/leak_messages.jsonl), as the bench reads
them: each about a batch of the leak corpus, in its group; a bad line named by file and line."""

from __future__ import annotations

import json

import pytest
from leak_table import MessagesError, load_corpus, load_messages


def test_the_shipped_messages_belong_to_the_groups_written_with_them():
    messages = load_messages()
    assert {m.group for m in messages} == {"fresh27", "fresh28", "fresh29", "fresh30", "fresh31", "fresh32", "fresh33", "fresh34", "fresh35", "fresh36", "fresh37", "fresh38", "fresh39", "fresh40", "fresh41", "fresh42", "fresh43", "fresh44", "fresh45", "fresh46", "fresh47", "fresh48", "fresh49", "fresh50", "fresh51", "fresh52", "fresh53", "fresh54", "fresh55", "fresh56", "fresh57", "fresh58", "fresh59", "fresh60", "fresh61", "fresh62", "fresh63", "fresh64", "fresh65", "fresh66", "fresh67", "fresh68", "fresh69", "fresh70", "fresh71", "fresh72", "fresh73", "fresh74", "fresh75", "fresh76", "fresh77", "fresh78", "fresh79", "fresh80", "fresh81", "fresh82", "fresh83", "fresh84", "fresh85", "fresh86", "fresh87", "fresh88", "fresh89", "fresh90", "fresh91", "fresh92", "fresh93", "fresh94", "fresh95", "fresh96", "fresh97", "fresh98", "fresh99", "fresh100", "fresh101", "fresh102", "fresh103", "fresh104", "fresh105", "fresh106", "fresh107", "fresh108", "fresh109", "fresh110", "fresh111", "fresh112", "fresh113", "fresh114", "fresh115", "fresh116", "fresh117", "fresh118", "fresh119", "fresh120", "fresh121", "fresh122", "fresh123", "fresh124", "fresh125", "fresh126", "fresh127", "fresh128", "fresh129", "fresh130", "fresh131", "fresh132", "fresh133", "fresh134", "fresh135", "fresh136", "fresh137", "fresh138", "fresh139", "fresh140"}
    assert (len(messages), sum(m.in_scope for m in messages), sum(m.kind is None for m in messages)) == (3610, 1841, 1476)
    corpus = load_corpus()
    assert all(m.question in {q.id for q in corpus.batches[m.batch]} for m in messages if m.kind)


def line(**d) -> str:
    return json.dumps({"message": "Compare the options on their mechanism before you pick one.", "batch": "o41", "leak": None,
                       "question": None} | d)


def test_a_message_takes_its_batchs_group_and_its_kind(tmp_path):
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join([line(), "", line(batch="o51", leak="described", question="o51a"), line(leak="position", question="o41c")]) + "\n")
    got = [(m.group, m.kind, m.in_scope) for m in load_messages(path)]
    assert got == [("fresh27", None, False), ("fresh28", "described", False), ("fresh27", "position", True)]


@pytest.mark.parametrize("bad, says", [
    ("{not json", "m.jsonl:2: not a message line (JSONDecodeError"),
    (json.dumps({"batch": "o41", "leak": None}), "m.jsonl:2: not a message line (KeyError"),
    (line(batch="zz9"), "m.jsonl:2: batch 'zz9' is not in the corpus"),
    (line(question="o51a"), "m.jsonl:2: question 'o51a' is not in batch 'o41'"),
])
def test_a_bad_line_is_named_by_file_and_line(tmp_path, bad, says):
    path = tmp_path / "m.jsonl"
    path.write_text(line() + "\n" + bad + "\n")
    with pytest.raises(MessagesError) as e:
        load_messages(path)
    assert str(e.value).startswith(f"{path.parent}/{says}")


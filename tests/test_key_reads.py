"""scripts/count_key_reads.py: what counts as a string-key read, and its --max gate."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
try:
    import count_key_reads
finally:
    sys.path.pop(0)


def reads(src: str) -> int:
    return count_key_reads.key_reads(ast.parse(src))


def test_subscript_and_get_with_a_literal_key_count():
    assert reads('x["a"]\nx.get("b")\nx.get("c", 1)\nf(x["d"]["e"])') == 5


def test_writes_deletes_variables_and_type_expressions_do_not_count():
    src = '''
x["a"] = 1
del x["b"]
x[k]
x[0]
x.get(k)
s = "x['a']"  # y["b"]
T = Literal["one"]
def f(a: "Foo", b: dict["k", int]) -> Optional["Bar"]:
    c: list["Baz"] = []
'''
    assert reads(src) == 0


@pytest.mark.slow
def test_max_fails_when_over_and_the_total_is_printed():
    script = str(ROOT / "scripts" / "count_key_reads.py")
    ok = subprocess.run([sys.executable, script, "--top", "3"], capture_output=True, text=True, check=False)
    assert ok.returncode == 0
    total = int(ok.stdout.split(":")[1].split()[0])
    assert total == sum(count_key_reads.count_files().values())
    assert len(ok.stdout.splitlines()) == 4
    over = subprocess.run([sys.executable, script, "--max", str(total - 1)], capture_output=True, text=True, check=False)
    assert over.returncode == 1 and f"{total} > {total - 1}" in over.stdout

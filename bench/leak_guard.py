"""How well the leakage guard tells hints from advice, on leaks it was not written for (issues 24, 33).

The leak corpus of bench/leak_corpus.jsonl: 120 invented questions in batches of three, in
medicine, law, history, science, chemistry, geography, computing, economics, literature and
physics, multiple choice (4-5 options) and phrase answers; leaking suggestions labelled with the
kind of give-away, clean ones beside them, each with its domain (tests/leak_table.py). Groups:
``development`` (the only one the rules and the semantic thresholds were tuned on), ``held_out``
(split from it by question), and three groups written before a session's changes to measure
them once: ``fresh``, ``fresh2``, ``fresh3`` (issue 33: seven subjects besides medicine) and
``fresh4`` to ``fresh15`` (seven more subjects each, written by helpers that read neither the
guard nor the rest of the corpus; each measured one guard once and was then unsealed).
Each suggestion is checked against the three questions of its batch, as a run checks a batch's
suggestions. For each group, for the rules alone and for all layers but the judge (the rules,
the semantic layer on the real MiniLM in fp32, and the learned layer that weighs them, trained by
bench/leak_model.py on the groups its model file names), with Wilson 95% intervals:

* catch: leaking suggestions with at least one finding, overall and **in scope**: every kind but
  those only the judge's check can see (``described``: an answer described without being named;
  tests.leak_table.JUDGE_ONLY_KINDS);
* false alarms: clean suggestions with any finding;
* per kind, and per domain (in-scope catch, described catch, false alarms), and the same two
  figures on issue 33's new domains alone.

Target (issue 33, rules plus the semantic and learned layers, no judge, on the last group written apart): in-scope catch >= 95%,
false alarms <= 5%. The exit status is 1 when a measured group with a target misses it.

``--show-misses`` lists the leaks that slip and the false alarms of the groups measured (single
suggestions, and with ``--messages`` the whole messages, with what flagged a clean one), except
the group that is sealed, if any: a group written apart measures one guard once, by its figures,
and is then unsealed (fresh3 to fresh15 each measured one guard so; fresh15 the shipped guard 10,
whose learned layer is not trained on it). A later change to the guard needs a new group
written the same way before it is measured.
``--groups development,held_out`` measures only those groups (what to iterate on).

``--feedback K`` also measures each group in the shape a run checks: a judge's whole feedback,
not one suggestion. Each in-scope leak is put at a seeded place among K clean suggestions of its
batch, and K+1 clean ones are joined for the false alarms; with and without the learned layer,
which reads a suggestion as a whole (with K = 3 it added no catch: see docs/measurements/leak-guard.md).

``--messages PATH`` (default bench/leak_messages.jsonl) measures the whole feedback messages
written by hand for the groups asked (fresh27 on): each checked against its batch's questions,
in-scope catch and false alarms per group, the leaks caught per kind. A line that cannot be
read is one error naming the file and line (exit 2).

``--judge MODEL`` measures the judge's leak check on its own (the layer ``--leak-check
judge`` adds), on ``--judge-sample`` suggestions of each half drawn with a fixed seed (half
leaking, half clean; 0 = all). The bundled model writes ~30 tokens/s, so sample. MODEL is
any name the registry knows: ``local`` (the bundled SmolLM2), ``openai:gpt-4.1-mini`` (reads
OPENAI_API_KEY), or ``http://HOST:PORT/v1@MODEL`` for any OpenAI-compatible server. A
verdict still unreadable after its retry is counted apart ("check failed"), never as clean.

``--calibrate`` prints the semantic scores' percentiles over the development half's clean
suggestions, from which the thresholds in judgeagent/stages/leak_semantic.py were read (p100,
the development maximum, rounded up).

``--cost N`` (default 5; 0 skips it) ends with the CPU time of one check, with every layer in
fp32 from an empty cache, on N batches: a single suggestion of about 300 characters and a
judge's feedback of about 700 (4-5 suggestions), the first check of a batch and another after
it; with the CPU's flags and the load average (bench/machine.py), since both move it.

Run: .venv/bin/python bench/leak_guard.py [--groups development,held_out] [--show-misses]
     [--judge local --judge-sample 24] [--calibrate] [--cost N]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgeagent.config import LLMConfig  # noqa: E402
from judgeagent.stages.leakage import find_leaks  # noqa: E402
from tests.leak_table import (  # noqa: E402
    FRESH,
    FRESH2,
    FRESH3,
    FRESH4,
    FRESH5,
    FRESH6,
    FRESH7,
    FRESH8,
    FRESH9,
    FRESH10,
    FRESH11,
    FRESH12,
    FRESH13,
    FRESH14,
    FRESH15,
    FRESH16,
    FRESH17,
    FRESH18,
    FRESH19,
    FRESH20,
    FRESH21,
    FRESH22,
    FRESH23,
    FRESH24,
    FRESH25,
    FRESH26,
    FRESH27,
    FRESH28,
    FRESH29,
    FRESH30,
    FRESH31,
    FRESH32,
    FRESH33,
    FRESH34,
    FRESH35,
    FRESH36,
    FRESH37,
    FRESH38,
    FRESH39,
    FRESH40,
    FRESH41,
    FRESH42,
    FRESH43,
    FRESH44,
    FRESH45,
    FRESH46,
    FRESH47,
    FRESH48,
    FRESH49,
    FRESH50,
    FRESH51,
    FRESH52,
    FRESH53,
    FRESH54,
    FRESH55,
    FRESH56,
    FRESH57,
    FRESH58,
    FRESH59,
    FRESH60,
    FRESH61,
    FRESH62,
    FRESH63,
    FRESH64,
    FRESH65,
    FRESH66,
    FRESH67,
    FRESH68,
    FRESH69,
    FRESH70,
    FRESH71,
    FRESH72,
    FRESH73,
    FRESH74,
    FRESH75,
    FRESH76,
    FRESH77,
    FRESH78,
    FRESH79,
    FRESH80,
    FRESH81,
    FRESH82,
    FRESH83,
    FRESH84,
    FRESH85,
    FRESH86,
    FRESH87,
    FRESH88,
    FRESH89,
    FRESH90,
    FRESH91,
    FRESH92,
    FRESH93,
    FRESH94,
    FRESH95,
    FRESH96,
    FRESH97,
    FRESH98,
    FRESH99,
    FRESH100,
    FRESH101,
    FRESH102,
    FRESH103,
    FRESH104,
    FRESH105,
    FRESH106,
    FRESH107,
    FRESH108,
    FRESH109,
    FRESH110,
    FRESH111,
    FRESH112,
    FRESH113,
    FRESH114,
    FRESH115,
    FRESH116,
    FRESH117,
    FRESH118,
    FRESH119,
    FRESH120,
    FRESH121,
    FRESH122,
    FRESH123,
    FRESH124,
    FRESH125,
    FRESH126,
    FRESH127,
    FRESH128,
    FRESH129,
    FRESH130,
    FRESH131,
    FRESH132,
    FRESH133,
    FRESH134,
    FRESH135,
    FRESH136,
    FRESH137,
    FRESH138,
    FRESH139,
    FRESH140,
    GROUPS,
    HALVES,
    JUDGE_ONLY_KINDS,
    MESSAGES,
    MessagesError,
    Suggestion,
    load_corpus,
    load_messages,
)

IN_SCOPE_TARGET, FALSE_ALARM_TARGET = 0.95, 0.05
# The groups whose figures are checked against the target: the held-out half (generalisation)
# and the groups written apart last, which measured the shipped guard (issue 33's acceptance).
TARGET_GROUPS = ("held_out", FRESH135, FRESH136)
# Never printed item by item while sealed: a guard is measured there once, by its figures alone.
SEALED: frozenset[str] = frozenset({FRESH137, FRESH138, FRESH139, FRESH140})  # each pair to measure one later guard once
NOTES = {
    FRESH: "written after the held-out half's first measurement, to measure the changes made after it",
    FRESH2: "written before any change of the next session, to measure that session's guard untouched",
    FRESH3: "issue 33: seven subjects besides medicine, written before any change of that issue; measured it once",
    FRESH4: "issue 33's second session: seven more subjects, written apart from the guard; measured guard 6 once",
    FRESH5: "issue 33's second session: seven more subjects, written after fresh4 was read; measured guard 6 once",
    FRESH6: "issue 33's second session: seven more subjects, written after fresh5 was read; measured guard 6 once",
    FRESH7: "seven more subjects, written after fresh6 was read; measured guard 7 (before its last rule) once",
    FRESH8: "seven more subjects, written after fresh7 was read; measured guard 8 as first trained once",
    FRESH9: "seven more subjects, written after fresh8 was read; measured guard 8 before praise of form once",
    FRESH10: "seven more subjects, written after fresh9 was read; measured guard 8 before its last two rules once",
    FRESH11: "seven more subjects, written after fresh10 was read; measured guard 8 before form advice was left unread, once",
    FRESH12: "seven more subjects, written after fresh11 was read; measured guard 8 as shipped once",
    FRESH13: "seven more subjects, written after fresh12 was read; measured guard 8 as shipped once",
    FRESH14: "seven more subjects, written with fresh13; measured guard 9 once",
    FRESH15: "seven more subjects, written after fresh14 was read; measured guard 10 once",
    FRESH16: "seven more subjects, written after fresh15 was read; measured guard 10 once more",
    FRESH17: "seven more subjects, written after fresh16 was read; measured guard 11 once",
    FRESH18: "seven more subjects, written with fresh17; measured guard 11 once",
    FRESH19: "seven more subjects, written after fresh18 was read; measured guard 12 once",
    FRESH20: "seven more subjects, written with fresh19; measured guard 12 once",
    FRESH21: "seven more subjects, written after fresh20 was read; measured guard 13 once",
    FRESH22: "seven more subjects, written with fresh21; measured guard 13 once",
    FRESH23: "seven more subjects, written after guard 13 shipped; measured it once more",
    FRESH24: "seven more subjects, written with fresh23; measured guard 13 once more",
    FRESH25: "seven more subjects, written after fresh24 was read; measured guard 14 once",
    FRESH26: "seven more subjects, written with fresh25; measured guard 14 once",
    FRESH27: "seven more subjects and whole messages, written after guard 14 shipped; measured guard 14 and guard 15 once",
    FRESH28: "seven more subjects and whole messages, written with fresh27; measured guard 14 and guard 15 once",
    FRESH29: "seven more subjects and whole messages, written while guard 16 was made; measures it once",
    FRESH30: "seven more subjects and whole messages, written with fresh29; measures guard 16 once",
    FRESH31: "seven more subjects and whole messages, written after fresh30 was read; measures guard 17 once",
    FRESH32: "seven more subjects and whole messages, written with fresh31; measures guard 17 once",
    FRESH33: "seven more subjects and whole messages, written after fresh32 was read; measures guard 18 once",
    FRESH34: "seven more subjects and whole messages, written with fresh33; measures guard 18 once",
    FRESH35: "seven more subjects and whole messages, written after fresh34 was read; measures guard 19 once",
    FRESH36: "seven more subjects and whole messages, written with fresh35; measures guard 19 once",
    FRESH37: "seven more subjects and whole messages, written after fresh36 was read; measures guard 20 once",
    FRESH38: "seven more subjects and whole messages, written with fresh37; measures guard 20 once",
    FRESH39: "seven more subjects and whole messages, written with fresh37; measured guard 21 once",
    FRESH40: "seven more subjects and whole messages, written with fresh37; measured guard 21 once",
    FRESH41: "seven more subjects and whole messages, written after fresh38 was read; measured guard 21 once",
    FRESH42: "seven more subjects and whole messages, written with fresh41; measured guard 21 once",
    FRESH43: "seven more subjects and whole messages, written while fresh39 to fresh42 measured guard 21; measured guard 22 once",
    FRESH44: "seven more subjects and whole messages, written with fresh43; measured guard 22 once",
    FRESH45: "seven more subjects and whole messages, written while fresh43 and fresh44 measured guard 22; measured guard 23 once",
    FRESH46: "seven more subjects and whole messages, written with fresh45; measured guard 23 once",
    FRESH47: "seven more subjects and five whole messages per batch, written after fresh46 was read; measured guard 24 once",
    FRESH48: "seven more subjects and five whole messages per batch, written with fresh47; measured guard 24 once",
    FRESH49: "seven more subjects and five whole messages per batch, written while fresh47 and fresh48 measured guard 24; measured guard 25 once",
    FRESH50: "seven more subjects and five whole messages per batch, written with fresh49; measured guard 25 once",
    FRESH51: "seven more subjects and five whole messages per batch, written while fresh49 and fresh50 measured guard 25; measured guard 26 once",
    FRESH52: "seven more subjects and five whole messages per batch, written with fresh51; measured guard 26 once",
    FRESH53: "seven more subjects and five whole messages per batch, written after fresh51 and fresh52 measured guard 26; measured guard 27 once",
    FRESH54: "seven more subjects and five whole messages per batch, written with fresh53; measured guard 27 once",
    FRESH55: "seven more subjects and five whole messages per batch, written after fresh53 and fresh54 measured guard 27; measured guard 28 once",
    FRESH56: "seven more subjects and five whole messages per batch, written with fresh55; measured guard 28 once",
    FRESH57: "seven more subjects and five whole messages per batch, written while fresh55 and fresh56 were sealed; measured guard 29 once",
    FRESH58: "seven more subjects and five whole messages per batch, written with fresh57; measured guard 29 once",
    FRESH59: "seven more subjects and five whole messages per batch, written while fresh57 and fresh58 were sealed; measured guard 30 once",
    FRESH60: "seven more subjects and five whole messages per batch, written with fresh59; measured guard 30 once",
    FRESH61: "seven more subjects and five whole messages per batch, written after fresh59 and fresh60 measured guard 30; measured guard 31 once",
    FRESH62: "seven more subjects and five whole messages per batch, written with fresh61; measured guard 31 once",
    FRESH63: "seven more subjects and five whole messages per batch, written while fresh61 and fresh62 were sealed; measured guard 32 once",
    FRESH64: "seven more subjects and five whole messages per batch, written with fresh63; measured guard 32 once",
    FRESH65: "seven more subjects and five whole messages per batch, written while fresh63 and fresh64 were sealed; measured guard 33 once",
    FRESH66: "seven more subjects and five whole messages per batch, written with fresh65; measured guard 33 once",
    FRESH67: "seven more subjects and five whole messages per batch, written while fresh65 and fresh66 were sealed; measured guard 34 once",
    FRESH68: "seven more subjects and five whole messages per batch, written with fresh67; measured guard 34 once",
    FRESH69: "seven more subjects and five whole messages per batch, written while fresh67 and fresh68 were sealed; measured guard 35 once",
    FRESH70: "seven more subjects and five whole messages per batch, written with fresh69; measured guard 35 once",
    FRESH71: "seven more subjects and five whole messages per batch, written while fresh69 and fresh70 were sealed; measured guard 35 once",
    FRESH72: "seven more subjects and five whole messages per batch, written with fresh71; measured guard 35 once",
    FRESH73: "seven more subjects and five whole messages per batch, written while fresh71 and fresh72 were sealed; measured guards 35 and 36 once",
    FRESH74: "seven more subjects and five whole messages per batch, written with fresh73; measured guards 35 and 36 once",
    FRESH75: "seven more subjects and five whole messages per batch, written while fresh73 and fresh74 were sealed; measured guards 36 and 37 once",
    FRESH76: "seven more subjects and five whole messages per batch, written with fresh75; measured guards 36 and 37 once",
    FRESH77: "seven more subjects and five whole messages per batch, written after fresh75 and fresh76 were read; measured guards 37 and 38 once",
    FRESH78: "seven more subjects and five whole messages per batch, written with fresh77; measured guards 37 and 38 once",
    FRESH79: "seven more subjects and five whole messages per batch, written after fresh77 and fresh78 were read; measured guards 38 and 39 once",
    FRESH80: "seven more subjects and five whole messages per batch, written with fresh79; measured guards 38 and 39 once",
    FRESH81: "seven more subjects and five whole messages per batch, written after fresh79 and fresh80 measured guards 38 and 39; measured guards 38, 39 and 40 once",
    FRESH82: "seven more subjects and five whole messages per batch, written with fresh81; measured guards 38, 39 and 40 once",
    FRESH83: "seven more subjects and five whole messages per batch, written after fresh81 and fresh82 measured guards 38 to 40; measured guards 40 and 41 once",
    FRESH84: "seven more subjects and five whole messages per batch, written with fresh83; measured guards 40 and 41 once",
    FRESH85: "seven more subjects and five whole messages per batch, written while guard 41 was being made; measured guards 41 and 42 once",
    FRESH86: "seven more subjects and five whole messages per batch, written with fresh85; measured guards 41 and 42 once",
    FRESH87: "seven more subjects and five whole messages per batch, written after fresh83 and fresh84 were read, while guard 42 was being made; measured guards 42 and 43 once",
    FRESH88: "seven more subjects and five whole messages per batch, written with fresh87; measured guards 42 and 43 once",
    FRESH89: "seven more subjects and five whole messages per batch, written after fresh83 to fresh86 were read, while guard 43 was being made; measured guards 43 and 44 once",
    FRESH90: "seven more subjects and five whole messages per batch, written with fresh89; measured guards 43 and 44 once",
    FRESH91: "seven more subjects and five whole messages per batch, written after fresh87 and fresh88 were read, while guard 44 was being made; measured guards 44 and 45 once",
    FRESH92: "seven more subjects and five whole messages per batch, written with fresh91; measured guards 44 and 45 once",
    FRESH93: "seven more subjects and five whole messages per batch, written after fresh89 and fresh90 were read, while guard 45 was being made; measured guards 45 and 46 once",
    FRESH94: "seven more subjects and five whole messages per batch, written with fresh93; measured guards 45 and 46 once",
    FRESH95: "seven more subjects and five whole messages per batch, written after fresh91 and fresh92 were read, while guard 46 was being made; measured guards 46 and 47 once",
    FRESH96: "seven more subjects and five whole messages per batch, written with fresh95; measured guards 46 and 47 once",
    FRESH97: "seven more subjects and five whole messages per batch, written after fresh93 and fresh94 were read, while guard 47 was being made; measured guards 48 and 49 once",
    FRESH98: "seven more subjects and five whole messages per batch, written with fresh97; measured guards 48 and 49 once",
    FRESH99: "seven more subjects and five whole messages per batch, written after fresh95 and fresh96 were read, while guard 48 was being made; measured guards 49 and 50 once",
    FRESH100: "seven more subjects and five whole messages per batch, written with fresh99; measured guards 49 and 50 once",
    FRESH101: "seven more subjects and five whole messages per batch, written after fresh97 and fresh98 were read, while guard 50 was being made; measured guards 50 and 51 once",
    FRESH102: "seven more subjects and five whole messages per batch, written with fresh101; measured guards 50 and 51 once",
    FRESH103: "seven more subjects and five whole messages per batch, written after fresh99 and fresh100 were read, while guard 51 was being made; measured guards 51 and 52 once",
    FRESH104: "seven more subjects and five whole messages per batch, written with fresh103; measured guards 51 and 52 once",
    FRESH105: "seven more subjects and five whole messages per batch, written after fresh101 and fresh102 were read, before guard 52 was begun; measured guards 52 and 53 once",
    FRESH106: "seven more subjects and five whole messages per batch, written with fresh105; measured guards 52 and 53 once",
    FRESH107: "seven more subjects and five whole messages per batch, written after fresh101 and fresh102 were read, while guard 52 was being made; measured guards 53 and 54 once",
    FRESH108: "seven more subjects and five whole messages per batch, written with fresh107; measured guards 53 and 54 once",
    FRESH109: "seven more subjects and five whole messages per batch, written after fresh105 and fresh106 were read, once guard 53 was made; measured guards 54 and 55 once",
    FRESH110: "seven more subjects and five whole messages per batch, written with fresh109; measured guards 54 and 55 once",
    FRESH111: "seven more subjects and five whole messages per batch, written after fresh105 and fresh106 were read, while guard 54 was being made; measured guards 55 and 56 once",
    FRESH112: "seven more subjects and five whole messages per batch, written with fresh111; measured guards 55 and 56 once",
    FRESH113: "seven more subjects and five whole messages per batch, written after fresh107 and fresh108 were read, while guard 55 was being made; measured guards 56 and 57 once",
    FRESH114: "seven more subjects and five whole messages per batch, written with fresh113; measured guards 56 and 57 once",
    FRESH115: "seven more subjects and five whole messages per batch, written after fresh109 and fresh110 were read, while guard 56 was being made; measured guards 57 and 58 once",
    FRESH116: "seven more subjects and five whole messages per batch, written with fresh115; measured guards 57 and 58 once",
    FRESH117: "seven more subjects and five whole messages per batch, written after fresh111 and fresh112 were read, while guard 57 was being made; measured guards 58 and 59 once",
    FRESH118: "seven more subjects and five whole messages per batch, written with fresh117; measured guards 58 and 59 once",
    FRESH119: "seven more subjects and five whole messages per batch, written after fresh113 and fresh114 were read, while guard 58 was being made; measured guards 59 and 60 once",
    FRESH120: "seven more subjects and five whole messages per batch, written with fresh119; measured guards 59 and 60 once",
    FRESH121: "seven more subjects and five whole messages per batch, written after fresh115 and fresh116 were read, while guard 59 was being made; measured guards 60 and 61 once",
    FRESH122: "seven more subjects and five whole messages per batch, written with fresh121; measured guards 60 and 61 once",
    FRESH123: "seven more subjects and five whole messages per batch, written after fresh117 and fresh118 were read, while guard 60 was being made; measured guards 61 and 62 once",
    FRESH124: "seven more subjects and five whole messages per batch, written with fresh123; measured guards 61 and 62 once",
    FRESH125: "seven more subjects and five whole messages per batch, written after fresh117 and fresh118 were read, while guard 60 was being made; measured guards 62 and 63 once",
    FRESH126: "seven more subjects and five whole messages per batch, written with fresh125; measured guards 62 and 63 once",
    FRESH127: "seven more subjects and five whole messages per batch, written after fresh121 and fresh122 were read, while guard 62 was being made; measured guards 63 and 64 once",
    FRESH128: "seven more subjects and five whole messages per batch, written with fresh127; measured guards 63 and 64 once",
    FRESH129: "seven more subjects and five whole messages per batch, written after fresh121 and fresh122 were read, while guard 62 was being made; measured guards 64 and 65 once",
    FRESH130: "seven more subjects and five whole messages per batch, written with fresh129; measured guards 64 and 65 once",
    FRESH131: "seven more subjects and five whole messages per batch, written after fresh125 and fresh126 were read, while guard 64 was being made; measured guards 65 and 66 once",
    FRESH132: "seven more subjects and five whole messages per batch, written with fresh131; measured guards 65 and 66 once",
    FRESH133: "seven more subjects and five whole messages per batch, written after fresh127 and fresh128 were read, while guard 65 was being made; measured guards 66 and 67 once",
    FRESH134: "seven more subjects and five whole messages per batch, written with fresh133; measured guards 66 and 67 once",
    FRESH135: "seven more subjects and five whole messages per batch, written after fresh129 and fresh130 were read, while guard 66 was being made; measured guards 67 and 68 once",
    FRESH136: "seven more subjects and five whole messages per batch, written with fresh135; measured guards 67 and 68 once",
    FRESH137: "seven more subjects and five whole messages per batch, written after fresh131 and fresh132 were read, while guard 67 was being made; sealed",
    FRESH138: "seven more subjects and five whole messages per batch, written with fresh137; sealed",
    FRESH139: "seven more subjects and five whole messages per batch, written after fresh133 and fresh134 were read, while guard 68 was being made; sealed",
    FRESH140: "seven more subjects and five whole messages per batch, written with fresh139; sealed",
}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of k successes in n trials."""
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{k:>3}/{n:<3} = {k / n:6.1%} [{lo:5.1%}, {hi:5.1%}]" if n else f"{'-':>13}{'':<20}"


@dataclass
class Tally:
    """Catches and false alarms of one way of flagging, over some suggestions."""

    caught: Counter = field(default_factory=Counter)  # per kind
    total: Counter = field(default_factory=Counter)
    clean: int = 0
    alarms: list[Suggestion] = field(default_factory=list)
    misses: list[Suggestion] = field(default_factory=list)

    def add(self, s: Suggestion, hit: bool) -> None:
        if s.leaks:
            self.total[s.kind] += 1
            self.caught[s.kind] += hit
            if not hit:
                self.misses.append(s)
        else:
            self.clean += 1
            if hit:
                self.alarms.append(s)

    def catch(self, kinds=None) -> tuple[int, int]:
        kinds = self.total if kinds is None else kinds
        return sum(self.caught[k] for k in kinds), sum(self.total[k] for k in kinds)

    def in_scope(self) -> tuple[int, int]:
        return self.catch([k for k in self.total if k not in JUDGE_ONLY_KINDS])

    def judge_only(self) -> tuple[int, int]:
        return self.catch([k for k in self.total if k in JUDGE_ONLY_KINDS])

    def false_alarms(self) -> tuple[int, int]:
        return len(self.alarms), self.clean

    def met(self) -> bool:
        (k, n), (a, c) = self.in_scope(), self.false_alarms()
        return bool(n and c) and k / n >= IN_SCOPE_TARGET and a / c <= FALSE_ALARM_TARGET


def measure(items: list[Suggestion], flagged) -> Tally:
    """The tally of ``flagged(suggestion) -> bool`` over ``items``."""
    tally = Tally()
    for s in items:
        tally.add(s, flagged(s))
    return tally


def subset(flags: dict[int, bool], items: list[Suggestion], keep) -> Tally:
    """The tally of already computed flags (by position in ``items``) over the items ``keep`` accepts."""
    return measure([s for s in items if keep(s)], lambda s: flags[id(s)])


def report_layer(name: str, t: Tally) -> None:
    print(f"  {name:<17} catch {rate(*t.catch())}  in scope {rate(*t.in_scope())}  false alarms {rate(*t.false_alarms())}")


def report_kinds(rules: Tally, both: Tally) -> None:
    """Per kind, the rules alone and with the semantic layer: who answers for which kind."""
    print(f"  {'per kind':<17} {'rules':<39}{'all layers'}")
    for kind in sorted(both.total):
        who = "judge's check" if kind in JUDGE_ONLY_KINDS else "rules"
        print(f"    {kind:<15} {rate(rules.caught[kind], rules.total[kind])}  {rate(both.caught[kind], both.total[kind])}  ({who})")


def report_domains(items: list[Suggestion], flags: dict[int, bool]) -> None:
    """Per domain, with the semantic layer: in-scope catch, described catch, false alarms."""
    print(f"  {'per domain':<17} {'in scope':<34}{'described (judge only)':<34}false alarms")
    for domain in sorted({s.domain for s in items}):
        t = subset(flags, items, lambda s, d=domain: s.domain == d)
        print(f"    {domain:<15} {rate(*t.in_scope())} {rate(*t.judge_only())} {rate(*t.false_alarms())}")


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} cores)"


def sample(items: list[Suggestion], n: int, seed: int = 24) -> list[Suggestion]:
    """Half leaking, half clean, drawn with a fixed seed (all of them when n is 0)."""
    if n <= 0:
        return items
    rng = random.Random(seed)
    leaking = [s for s in items if s.leaks]
    clean = [s for s in items if not s.leaks]
    return rng.sample(leaking, min(len(leaking), n - n // 2)) + rng.sample(clean, min(len(clean), n // 2))


async def judge_flags(model: str, items: list[Suggestion], batches: dict) -> tuple[dict[str, bool], int]:
    """The judge's leak check on each suggestion: {text: leaks}, and how many checks failed
    (a verdict unreadable after its retry), which are left out of the rates."""
    from judgeagent.llm import LLMClient, load_registry
    from judgeagent.stages.leak_judge import judge_leak_check
    from judgeagent.stages.models import Models

    spec = load_registry().resolve(model)
    flags: dict[str, bool] = {}
    failed = 0
    async with LLMClient(None, LLMConfig(no_cache=True)) as client:
        models = Models(client, spec, spec)
        for i, s in enumerate(items, 1):
            verdicts = await judge_leak_check(models, s.text, batches[s.batch])
            if any(v.verdict is None for v in verdicts):
                failed += 1
                continue
            flags[s.text] = any(v.leaks for v in verdicts)
            print(f"\r  judged {i}/{len(items)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return flags, failed


def calibrate(corpus, embedder) -> None:
    import numpy as np

    from judgeagent.stages.leak_semantic import scores

    dev = [s for s in corpus.half("development") if not s.leaks]
    for label, with_options in (("with options", True), ("phrase answers", False)):
        values = []
        for s in dev:
            qs = [q for q in corpus.batches[s.batch] if bool(q.options) == with_options]
            got = [x.score for x in scores(s.text, qs, embedder)]
            if got:
                values.append(max(got))
        qs_ = [0.5, 0.9, 0.95, 0.97, 0.99, 1.0]
        print(f"  semantic score, {label}, development clean (n={len(values)}): "
              + "  ".join(f"p{int(q * 100)} {v:.3f}" for q, v in zip(qs_, np.quantile(values, qs_), strict=True)))


def measure_group(name: str, corpus, embedder, show_misses: bool) -> bool:
    """Print one group's figures; whether it meets the target (True when it has none)."""
    items = corpus.half(name)
    leaking = [s for s in items if s.leaks]
    print(f"\n{name}: {len(leaking)} leaking ({sum(s.in_scope for s in leaking)} in scope), "
          f"{len(items) - len(leaking)} clean; batches {', '.join(corpus.split[name])}")
    if name in NOTES:
        print(f"  ({NOTES[name]})")
    rule_flags = {id(s): bool(find_leaks(s.text, corpus.batches[s.batch])) for s in items}
    flags = {id(s): bool(find_leaks(s.text, corpus.batches[s.batch], embedder=embedder)) for s in items}
    rules, both = subset(rule_flags, items, lambda s: True), subset(flags, items, lambda s: True)
    report_layer("rules", rules)
    report_layer("all layers", both)
    new = subset(flags, items, lambda s: s.new_domain)
    if new.clean:
        report_layer("  new domains", new)
    report_kinds(rules, both)
    report_domains(items, flags)
    if show_misses and name not in SEALED:
        for s in both.misses:
            print(f"    slips ({s.kind}, {s.domain}): {s.text}")
        for s in both.alarms:
            print(f"    false alarm ({s.domain}): {s.text}")
    if name not in TARGET_GROUPS:
        return True
    met = both.met()
    print(f"  target ({name}, all layers but the judge): in-scope catch >= {IN_SCOPE_TARGET:.0%}, false alarms <= "
          f"{FALSE_ALARM_TARGET:.0%}: {'met' if met else 'NOT met'}")
    return met


def measure_feedback(name: str, corpus, embedder, k: int, seed: int = 40) -> None:
    """The group as a judge's whole feedback reads: each in-scope leak placed among ``k`` clean
    suggestions of its batch, and ``k + 1`` clean ones joined (as many composites as half the
    batch's clean suggestions), with and without the learned layer. Places and picks are seeded."""
    rng = random.Random(seed)
    leaky: list[tuple[str, str]] = []  # (text, batch)
    clean: list[tuple[str, str]] = []
    for batch in corpus.split[name]:
        ss = [s for s in corpus.suggestions if s.batch == batch]
        plain = [s.text for s in ss if not s.leaks]
        if len(plain) < k + 1:
            continue
        for s in (s for s in ss if s.in_scope):
            parts = rng.sample(plain, k)
            parts.insert(rng.randrange(k + 1), s.text)
            leaky.append((" ".join(parts), batch))
        clean += [(" ".join(rng.sample(plain, k + 1)), batch) for _ in range(len(plain) // 2)]
    for label, learned in (("all layers", True), ("without learned", False)):
        caught = sum(bool(find_leaks(t, corpus.batches[b], embedder=embedder, learned=learned)) for t, b in leaky)
        alarms = sum(bool(find_leaks(t, corpus.batches[b], embedder=embedder, learned=learned)) for t, b in clean)
        print(f"  as feedback, {label:<16} in scope {rate(caught, len(leaky))}  false alarms {rate(alarms, len(clean))}")


def measure_messages(path: Path, groups: list[str], corpus, embedder, show_misses: bool = False) -> None:
    """The whole feedback messages written by hand (``path``), each checked against its
    batch's questions as a run checks a judge's feedback: per group, in-scope catch and false
    alarms; per kind, the leaks caught; with ``show_misses``, the leaking messages that slip and
    the clean ones flagged, with what flagged them (never a sealed group's)."""
    messages = [m for m in load_messages(path, corpus) if m.group in groups]
    if not messages:
        return
    found = {id(m): find_leaks(m.text, corpus.batches[m.batch], embedder=embedder) for m in messages}
    flagged = {k: bool(v) for k, v in found.items()}
    print(f"\nwhole messages written by hand ({path.name}): {len(messages)}, "
          f"{sum(m.in_scope for m in messages)} with an in-scope leak, {sum(m.kind is None for m in messages)} clean")
    for group in dict.fromkeys(m.group for m in messages):
        mine = [m for m in messages if m.group == group]
        caught = sum(flagged[id(m)] for m in mine if m.in_scope)
        alarms = sum(flagged[id(m)] for m in mine if m.kind is None)
        print(f"  {group:<12} in scope {rate(caught, sum(m.in_scope for m in mine))}  "
              f"false alarms {rate(alarms, sum(m.kind is None for m in mine))}")
    for kind in sorted({m.kind for m in messages if m.kind}):
        mine = [m for m in messages if m.kind == kind]
        note = "  (judge only: out of scope)" if kind in JUDGE_ONLY_KINDS else ""
        print(f"    {kind:<16} caught {rate(sum(flagged[id(m)] for m in mine), len(mine))}{note}")
    if not show_misses:
        return
    for m in messages:
        if m.group in SEALED:
            continue
        if m.in_scope and not flagged[id(m)]:
            print(f"    message slips ({m.group}, {m.kind}, {m.question}): {m.text}")
        elif m.kind is None and flagged[id(m)]:
            print(f"    message flagged ({m.group}): {m.text}")
            for d in found[id(m)]:
                print(f"      - {d.kind} ({d.question_id or 'the batch'}): {d.evidence}")


def _feedback(texts: list[str], rng: random.Random, length: int = 700) -> str:
    """Suggestions of one batch joined until about ``length`` characters, as a judge's feedback."""
    out = ""
    for t in rng.sample(texts, len(texts)):
        if len(out) + len(t) + 1 > length + 100:
            continue
        out = (out + " " + t).strip()
        if len(out) >= length - 50:
            break
    return out


def measure_cost(corpus, n: int, seed: int = 44) -> None:
    """CPU seconds per check with every layer, in fp32 and from an empty cache: a single
    suggestion of 250-350 characters, and a judge's feedback of about 700 characters (4-5
    suggestions of its batch), each against its batch. "first": the first check of a batch
    (its options and answer texts embedded then; the content-free sentences, the same for every
    batch, by a warm-up check before); "again": another
    text on the same batch, as the rewrite's check or the next round's feedback pays."""
    import statistics

    from bench.machine import describe
    from judgeagent.graph.embed import shared_embedder
    from judgeagent.graph.embed_queue import EmbeddingQueue

    print(f"\nCPU per check, all layers, fp32, from an empty cache ({n} batches each, seed {seed}):\n  {describe()}")
    # The model as given (shared_embedder(): find_leaks decides with its fp32 twin), and behind a
    # queue of its own as a run hands it (the groups' queue above has every text cached already).
    for how, embedder in (("MiniLM", shared_embedder()), ("MiniLM queue", EmbeddingQueue(shared_embedder()))):
        rng = random.Random(seed)
        find_leaks("Warm up the model.", corpus.batches[min(corpus.batches)], embedder=embedder)
        batches = sorted(corpus.batches)
        rng.shuffle(batches)
        plain = {b: [s.text for s in corpus.suggestions if s.batch == b] for b in batches}
        singles = [b for b in batches if sum(250 <= len(t) <= 350 for t in plain[b]) >= 2][:n]
        feedbacks = [b for b in batches if b not in singles and len(plain[b]) >= 10][:n]

        def cpu(text: str, batch: str, embedder=embedder) -> float:
            t0 = time.process_time()
            find_leaks(text, corpus.batches[batch], embedder=embedder)
            return time.process_time() - t0

        for label, picked in (("single suggestion", singles), ("feedback", feedbacks)):
            first, again, sizes = [], [], []
            for b in picked:
                if label == "feedback":
                    texts = [_feedback(plain[b], rng) for _ in range(2)]
                else:
                    texts = rng.sample([t for t in plain[b] if 250 <= len(t) <= 350], 2)
                sizes += [len(t) for t in texts]
                first.append(cpu(texts[0], b))
                again.append(cpu(texts[1], b))
            print(f"  {how:<12} {label:<17} {min(sizes)}-{max(sizes)} chars: first check of a batch median "
                  f"{statistics.median(first):.2f} (max {max(first):.2f}) CPU s, again median {statistics.median(again):.2f} "
                  f"(max {max(again):.2f}) CPU s")
    print("  " + load_average())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default=",".join(GROUPS), help=f"comma-separated groups to measure (default: {','.join(GROUPS)})")
    parser.add_argument("--judge", metavar="MODEL", help="also measure the judge's leak check with this model")
    parser.add_argument("--judge-sample", type=int, default=24, help="suggestions per half for the judge (0: all)")
    parser.add_argument("--calibrate", action="store_true", help="print the semantic scores' development percentiles")
    parser.add_argument("--show-misses", action="store_true",
                        help="list the leaks that slip and the false alarms, suggestions and whole messages (never a sealed group's)")
    parser.add_argument("--feedback", type=int, metavar="K", default=0,
                        help="also measure each group as long feedback: every in-scope leak among K clean suggestions of its batch")
    parser.add_argument("--messages", type=Path, metavar="PATH", default=MESSAGES,
                        help=f"whole feedback messages written by hand, measured for the groups asked (default: {MESSAGES.name}; '' skips)")
    parser.add_argument("--cost", type=int, metavar="N", default=5,
                        help="batches to time the checks on (single suggestions and ~700-character feedback; 0: skip)")
    args = parser.parse_args()
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    unknown = sorted(set(groups) - set(GROUPS))
    if unknown:
        parser.error(f"unknown group(s) {', '.join(unknown)}; the groups are {', '.join(GROUPS)}")

    corpus = load_corpus()
    use_messages = str(args.messages) not in ("", ".") and args.messages.exists()
    if use_messages:
        try:
            load_messages(args.messages, corpus)
        except MessagesError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    print(f"Leak corpus: {len(corpus.batches)} batches, {len(corpus.questions())} questions; split seed {corpus.split['seed']}")
    print(load_average() + " at start")
    from judgeagent.graph.embed import shared_embedder
    from judgeagent.graph.embed_queue import EmbeddingQueue
    from judgeagent.graph.fixed_precision import decision_embedder
    from judgeagent.stages.leakage import guard_texts

    t0 = time.perf_counter()
    embedder = EmbeddingQueue(shared_embedder())
    measured = [s for s in corpus.suggestions if s.half in groups]
    texts = [t for s in measured for t in guard_texts(s.text, corpus.batches[s.batch])]
    # One pass, so each check below reads the cache (of the fp32 queue the guard decides with).
    decision_embedder(embedder).encode(list(dict.fromkeys(texts)))
    print(f"MiniLM loaded and {len(set(texts))} texts embedded in {time.perf_counter() - t0:.1f} s")

    ok = True
    for name in groups:
        if corpus.half(name):
            ok = measure_group(name, corpus, embedder, args.show_misses) and ok
            if args.feedback:
                measure_feedback(name, corpus, embedder, args.feedback)
    if use_messages:
        measure_messages(args.messages, groups, corpus, embedder, args.show_misses)
    if args.calibrate:
        print()
        calibrate(corpus, embedder)
    if args.judge:
        print(f"\njudge layer alone ({args.judge}), {args.judge_sample or 'all'} suggestions per half (seed 24):")
        for half in HALVES:
            items = sample(corpus.half(half), args.judge_sample)
            t0 = time.perf_counter()
            flags, failed = asyncio.run(judge_flags(args.judge, items, corpus.batches))
            judged = [s for s in items if s.text in flags]
            m = measure(judged, lambda s, flags=flags: flags[s.text])
            print(f"  {half}: {len(items)} sampled, {failed} leak checks failed (left out), {time.perf_counter() - t0:.0f} s")
            report_layer("judge", m)
            report_kinds(m, m)
    if args.cost:
        measure_cost(corpus, args.cost)
    print("\n" + load_average() + " at end")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

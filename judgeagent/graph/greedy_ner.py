"""spaCy's greedy entity recognizer, its transition loop run on arrays: the same entities, a fraction of the cost.

spaCy's entity recognizer reads a document token by token, choosing one move per token
(begin, inside, last or unit of an entity with its label, or outside) by scoring all moves
from three precomputed features and taking the best one the state allows. spaCy's wheels for
Python 3.11 are compiled with Cython profiling hooks, and its loop runs without the GIL, so
every call to a state's accessors takes the GIL to ask whether a profiler is listening. Choosing
the valid moves of one token makes a few hundred such calls: on real prose that loop was 60% of
the recognizer's time and a third of the whole pipeline's.

Here the loop steps all documents of a batch at once with numpy. It takes everything from the
model (its tok2vec, the precomputed features, the output layer and the move table), adds the
features in spaCy's order, scores with the same gemm (blis), applies spaCy's rules for which
moves are valid, and takes the first best valid move, as spaCy does. The entities come out the
same (``bench/greedy_ner.py`` compares the two on a real corpus). What it cannot read (a beam,
another feature set, entities set before it runs) goes through spaCy's own loop.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from spacy.attrs import ENT_IOB, IS_SPACE, SENT_START
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import minibatch

FACTORY = "judgeagent_greedy_ner"
BEGIN, IN, LAST, UNIT, OUT = range(5)
MOVE_TYPES = {"B": BEGIN, "I": IN, "L": LAST, "U": UNIT}
# The state's features, as spaCy's NER state gives them: the next token, the open entity's
# first token and the token before the next one (both only while an entity is open).
FEATURES = 3


class GreedyNer:
    """A pipeline component equal to the ``EntityRecognizer`` it is made from (:meth:`take`)."""

    def __init__(self) -> None:
        self.ner: Any = None
        self.arrays = False  # whether the array loop decodes this model as spaCy would (:meth:`take`)
        self.move_type = np.zeros(0, dtype=np.int8)
        self.move_label = np.zeros(0, dtype=np.uint64)

    def take(self, ner) -> GreedyNer:
        """Decode for ``ner``: its model and moves are read, nothing is copied."""
        self.ner = ner
        types, labels = [], []
        for name in (ner.moves.get_class_name(i) for i in range(ner.moves.n_moves)):
            kind, _, label = name.partition("-")
            types.append(OUT if name == "O" else MOVE_TYPES.get(kind, -1))
            labels.append(ner.vocab.strings.add(label) if label else 0)
        self.move_type = np.array(types, dtype=np.int8)
        self.move_label = np.array(labels, dtype=np.uint64)
        self.arrays = self._readable()
        return self

    def _readable(self) -> bool:
        ner, model = self.ner, self.ner.model
        if ner.cfg.get("beam_width", 1) != 1 or not model.attrs.get("has_upper") or (self.move_type < 0).any():
            return False
        if model.ops.xp is not np:  # on a GPU spaCy's loop scores on the CPU with other ops
            return False
        lower = model.get_ref("lower")
        return lower.get_dim("nF") == FEATURES and lower.get_dim("nP") >= 2 and model.get_ref("upper").get_dim("nO") == len(self.move_type)

    def __call__(self, doc: Doc) -> Doc:
        self._annotate([doc])
        return doc

    def pipe(self, docs, batch_size: int = 256):
        """As spaCy's recognizer batches: documents sorted by length, in quarters of a batch."""
        for batch in minibatch(docs, size=batch_size):
            batch = list(batch)
            for part in minibatch(sorted(batch, key=len), size=max(batch_size // 4, 2)):
                self._annotate(list(part))
            yield from batch

    def _annotate(self, docs: list[Doc]) -> None:
        if not any(len(doc) for doc in docs):
            return
        if not self.arrays or any(doc.to_array(ENT_IOB).any() for doc in docs):
            self.ner.set_annotations(docs, self.ner.predict(docs))
            return
        for doc, spans in zip(docs, self.decode(docs)):
            doc.set_ents([Span(doc, start, end, label=label) for start, end, label in spans], default="outside")

    def decode(self, docs: list[Doc]) -> list[list[tuple[int, int, int]]]:
        """(start, end, label) of each document's entities, in order."""
        model = self.ner.model
        tok2vec, lower, upper = model.get_ref("tok2vec"), model.get_ref("lower"), model.get_ref("upper")
        # Row 0 is the padding spaCy reads for a missing feature; token t is row t + 1.
        cached = lower.predict(tok2vec.predict(docs))
        rows, width = cached.shape[0], cached.shape[2] * cached.shape[3]
        feats = np.ascontiguousarray(cached.reshape(rows, FEATURES, width))
        bias = lower.get_param("b").reshape(width)
        weights, out_bias = upper.get_param("W"), upper.get_param("b")
        pieces = lower.get_dim("nP")
        unseen = np.array(sorted(model.attrs.get("unseen_classes", ())), dtype=np.int64)

        lengths = np.array([len(doc) for doc in docs], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        # Per token of the batch, what the rules read; a sentinel past the end reads as
        # spaCy's empty token (no sentence start). A document's last token reads the next
        # document's first as "the next token", harmlessly: no entity may begin or go on there.
        starts_sentence = np.concatenate([doc.to_array(SENT_START) == 1 for doc in docs] + [[False]])
        space = np.concatenate([doc.to_array(IS_SPACE).astype(bool) for doc in docs] + [[False]])

        position = np.zeros(len(docs), dtype=np.int64)
        open_start = np.full(len(docs), -1, dtype=np.int64)
        open_label = np.zeros(len(docs), dtype=np.uint64)
        found: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        labelled = self.move_label != 0
        while True:
            live = np.flatnonzero(position < lengths)
            if not live.size:
                break
            token = offsets[live] + position[live]
            is_open = open_start[live] >= 0
            first = np.where(is_open, offsets[live] + open_start[live] + 1, 0)
            before = np.where(is_open, token, 0)  # the token before the next one, as a row
            hidden = feats[token + 1, 0]
            hidden += feats[first, 1]
            hidden += feats[before, 2]
            hidden += bias
            hidden = hidden.reshape(len(live), -1, pieces).max(axis=2)
            # The model's ops (blis on the CPU), as spaCy's loop scores with.
            scores = model.ops.gemm(np.ascontiguousarray(hidden), weights, trans2=True)
            scores += out_bias
            if unseen.size:
                scores[:, unseen] = scores.min()
            valid = self._valid(is_open, open_label[live], position[live] + 1 >= lengths[live], starts_sentence[token + 1], space[token], labelled)
            move = np.argmax(np.where(valid, scores, -np.inf), axis=1)
            kind, label = self.move_type[move], self.move_label[move]
            begins, units, lasts = kind == BEGIN, kind == UNIT, kind == LAST
            if units.any():
                at = live[units]
                found.append((at, position[at], position[at] + 1, label[units]))
            if lasts.any():
                at = live[lasts]
                found.append((at, open_start[at], position[at] + 1, open_label[at]))
                open_start[at] = -1
            open_start[live[begins]] = position[live[begins]]
            open_label[live[begins]] = label[begins]
            position[live] += 1
        spans: list[list[tuple[int, int, int]]] = [[] for _ in docs]
        for at, start, end, label in found:
            for doc_index, s, e, lab in zip(at.tolist(), start.tolist(), end.tolist(), label.tolist()):
                spans[doc_index].append((s, e, lab))
        return [sorted(doc_spans) for doc_spans in spans]

    def _valid(self, is_open, open_label, at_last, next_starts, space, labelled) -> np.ndarray:
        """Which moves each state allows: spaCy's rules for a document without preset entities."""
        kind, label = self.move_type[None, :], self.move_label[None, :]
        is_open, closed = is_open[:, None], ~is_open[:, None]
        at_last, next_starts, space = at_last[:, None], next_starts[:, None], space[:, None]
        same = label == open_label[:, None]
        begin = closed & ~at_last & ~next_starts & ~space
        inside = is_open & ~at_last & ~next_starts & same
        last = is_open & same
        unit = closed & ~space
        return cast(
            np.ndarray,
            ((kind == BEGIN) & begin & labelled)
            | ((kind == IN) & inside & labelled)
            | ((kind == LAST) & last & labelled)
            | ((kind == UNIT) & unit & labelled)
            | ((kind == OUT) & closed),
        )


@Language.factory(FACTORY)
def make_greedy_ner(nlp: Language, name: str) -> GreedyNer:
    return GreedyNer()


def speed_up(nlp: Language, name: str = "ner") -> None:
    """Put a :class:`GreedyNer` in place of ``nlp``'s entity recognizer ``name``, if it has one."""
    if name not in nlp.pipe_names:
        return
    ner = nlp.get_pipe(name)
    if not hasattr(ner, "moves"):
        return
    nlp.replace_pipe(name, FACTORY)
    cast(GreedyNer, nlp.get_pipe(name)).take(ner)

"""What the leakage guard found: one typed finding per way a text gives an answer away."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LeakFinding:
    """One way a piece of advice gives an answer away.

    ``question_id`` is the question whose answer it gives (None: no one question's, such as a
    letter stated that is no correct one, or a whole text the learned layer reads as a
    give-away); ``kind`` the rule or layer that found it (:data:`judgeagent.stages.leakage.LEAK_KINDS`);
    ``evidence`` the words that did it. Frozen, so equal findings are one in a set.
    """

    question_id: str | None
    kind: str
    evidence: str

    def to_dict(self) -> dict:
        """As a run's records hold it (:class:`judgeagent.records.LeakFindingRecord` reads it back)."""
        return {"question_id": self.question_id, "kind": self.kind, "evidence": self.evidence}

    @classmethod
    def from_dict(cls, d: dict) -> LeakFinding:
        return cls(d.get("question_id", ""), str(d.get("kind", "")), str(d.get("evidence", "")))

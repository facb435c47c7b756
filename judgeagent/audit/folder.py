"""The audit folder: what an audit writes and reads back.

    design.json         the audit's id, its source, the sampling design (strata, sizes,
                        inclusion probabilities, the items drawn), the suspects
    items.jsonl         the sampled items then the suspects, each with its provenance
    labels.schema.json  the JSON Schema of a labels file for this audit
    audit.html          the page people label the items on (one file, no network)
    labels/NAME.json    the labels imported from each person (merged, never overwritten)
    model/NAME.json     the model auditor's verdicts (blind answer, judgement of the key)
    journal.sqlite      the model auditor's requests and replies (a rerun costs nothing)
    results.json        the figures (judgeagent/audit/results.py)

Every file is written whole or not at all (judgeagent/files.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from judgeagent.audit.design import Design
from judgeagent.audit.items import AuditItem
from judgeagent.audit.labels import LabelsFile
from judgeagent.errors import JudgeAgentError
from judgeagent.files import write_json_atomic, write_text_atomic

DESIGN_FORMAT = "judgeagent-audit-design"
VERSION = 1


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-").lower()[:60] or "auditor"


class AuditFolder:
    def __init__(self, path: Path):
        self.path = Path(path)

    design_path = property(lambda self: self.path / "design.json")
    items_path = property(lambda self: self.path / "items.jsonl")
    schema_path = property(lambda self: self.path / "labels.schema.json")
    page_path = property(lambda self: self.path / "audit.html")
    results_path = property(lambda self: self.path / "results.json")
    journal_path = property(lambda self: self.path / "journal.sqlite")
    labels_dir = property(lambda self: self.path / "labels")
    model_dir = property(lambda self: self.path / "model")

    @property
    def exists(self) -> bool:
        return self.design_path.exists()

    # ------------------------------------------------------------------ design and items
    def read_design(self) -> dict:
        try:
            data = json.loads(self.design_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise JudgeAgentError(f"{self.path}: not an audit folder (no design.json; `judgeagent audit RUN_DIR` writes one)") from None
        except (OSError, json.JSONDecodeError) as e:
            raise JudgeAgentError(f"{self.design_path}: cannot read it ({e})") from None
        if not isinstance(data, dict) or data.get("format") != DESIGN_FORMAT:
            raise JudgeAgentError(f"{self.design_path}: not an audit design")
        return data

    @property
    def audit_id(self) -> str:
        return str(self.read_design()["audit_id"])

    def design(self) -> Design:
        return Design.from_dict(self.read_design()["design"])

    def write_design(self, data: dict) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.design_path, {"format": DESIGN_FORMAT, "version": VERSION, **data})

    def write_items(self, items: list[AuditItem]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        write_text_atomic(self.items_path, "".join(json.dumps(i.to_dict(), ensure_ascii=False) + "\n" for i in items))

    def read_items(self) -> dict[str, AuditItem]:
        try:
            lines = self.items_path.read_text(encoding="utf-8").splitlines()
        except OSError as e:
            raise JudgeAgentError(f"{self.items_path}: cannot read it ({e})") from None
        out = {}
        for n, line in enumerate(lines, 1):
            try:
                item = AuditItem.from_dict(json.loads(line))
            except (json.JSONDecodeError, TypeError, KeyError) as e:
                raise JudgeAgentError(f"{self.items_path}:{n}: not an audit item ({e})") from None
            out[item.item_id] = item
        return out

    # ------------------------------------------------------------------ labels
    def labels_file(self, auditor: str) -> Path:
        return self.labels_dir / f"{slug(auditor)}.json"

    def read_labels(self, path: Path) -> LabelsFile:
        try:
            return LabelsFile.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise JudgeAgentError(f"{path}: cannot read the imported labels ({e})") from None

    def people(self) -> dict[str, LabelsFile]:
        """Every person's imported labels, by auditor name."""
        if not self.labels_dir.is_dir():
            return {}
        files = [self.read_labels(p) for p in sorted(self.labels_dir.glob("*.json"))]
        return {f.auditor: f for f in files}

    def write_labels(self, labels: LabelsFile) -> Path:
        self.labels_dir.mkdir(parents=True, exist_ok=True)
        return write_text_atomic(self.labels_file(labels.auditor), labels.model_dump_json(indent=2) + "\n")

    # ------------------------------------------------------------------ the model auditor
    def model_file(self, model: str) -> Path:
        return self.model_dir / f"{slug(model)}.json"

    def models(self) -> dict[str, dict]:
        """Each model auditor's verdicts file, by model name."""
        if not self.model_dir.is_dir():
            return {}
        out = {}
        for p in sorted(self.model_dir.glob("*.json")):
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as e:
                raise JudgeAgentError(f"{p}: cannot read the model auditor's verdicts ({e})") from None
            out[str(data.get("model"))] = data
        return out

    def write_model(self, model: str, data: dict) -> Path:
        self.model_dir.mkdir(parents=True, exist_ok=True)
        return write_json_atomic(self.model_file(model), data)

    # ------------------------------------------------------------------ outputs
    def write_json(self, path: Path, data: dict) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        return write_json_atomic(path, data)

    def write_page(self, html: str) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        return write_text_atomic(self.page_path, html)

"""What the run's summary says about its Batch API jobs (metrics.json, llm_usage.batch_api)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from judgeagent.llm.batch.ledger import ANSWERED, GONE, LIVE, SENT, BatchLedger


def batch_report(ledger: BatchLedger, stats: Any, notes: list[str]) -> dict:
    """Every job of the run (all sessions, from the journal): its wave, id, status, request
    counts; the lines by outcome; this session's waves and jobs; the notes."""
    jobs = sorted(ledger.jobs.values(), key=lambda j: j.created)
    lines = Counter(row.state for row in ledger.requests.values())
    mine = set(stats.jobs) if stats is not None else set()
    return {
        "waves": len({j.wave for j in jobs}),
        "jobs": len(jobs),
        "lines": len(ledger.requests),
        "answered": lines[ANSWERED],
        "not_run": lines[GONE],  # expired, cancelled by someone else, missing, or never sent: asked again
        "sent_live_after_deadline": lines[LIVE],
        "in_flight": lines[SENT],
        "deadline_cancelled_jobs": sum(1 for j in jobs if j.deadline_cancelled),
        "this_session": {"waves": stats.waves if stats is not None else 0, "jobs": sum(1 for j in jobs if j.token in mine)},
        "job_list": [
            {"wave": j.wave, "job_id": j.job_id, "model": j.identity.rsplit("|", 1)[-1], "status": j.status,
             "requests": j.n_requests, "counts": j.counts, "deadline_cancelled": j.deadline_cancelled}
            for j in jobs
        ],  # fmt: skip
        "notes": list(notes),
    }

"""Half-price requests through providers' Batch APIs (OpenAI's, and the OpenAI-compatible
ones: DashScope's for Qwen, Groq's, Together's...), resumable across restarts.

- ``lines``   the JSONL files: request lines from the same body the live path sends; output
              and error lines read back into the same Reply / Failure a live call gives
- ``api``     one endpoint's Batch API calls (files, batches), each a typed outcome
- ``ledger``  one run's jobs and lines in its journal, and what this process took from them
- ``jobs``    one job's life: write down, upload, create, poll, cancel at the deadline, collect
- ``waves``   the barrier: requests go out when every running unit waits on the Batch API
- ``hub``     the transport the client asks through; one per event loop (a sweep shares it)
- ``display`` one live line per job in flight under the run's progress bar

The client (``judgeagent.llm.client``) sends a batched model's requests here instead of one
by one; everything above it (re-asks, retries, parameter negotiation, the journal of
answers, usage) is the same for both.
"""

from judgeagent.llm.batch.hub import SEND_LIVE, BatchHub
from judgeagent.llm.batch.jobs import BatchRejected, BatchSettings
from judgeagent.llm.batch.ledger import BatchLedger

__all__ = ["SEND_LIVE", "BatchHub", "BatchLedger", "BatchRejected", "BatchSettings"]

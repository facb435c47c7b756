"""One concurrency limit per model for the whole process, not per client.

Each run opens its own LLMClient over its own journal. A sweep runs several of them at once
in one event loop, all asking the same judge: a semaphore per client would let N runs send
N × ``concurrency`` requests to it. The slot is shared by every client of the loop that asks
the same model (same identity: endpoint and model name).

Semaphores belong to an event loop, so they are kept per loop (runs in other threads, each
with its own loop, keep their own limit, as before), and dropped with it.
"""

from __future__ import annotations

import asyncio
import threading
import weakref

_lock = threading.Lock()
_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = weakref.WeakKeyDictionary()


def model_slots(identity: str, concurrency: int) -> asyncio.Semaphore:
    """The semaphore every client in the running loop shares for the model ``identity``
    (``concurrency`` slots, fixed by whichever client asked first). Outside a loop, a new one."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.Semaphore(max(1, concurrency))
    with _lock:
        slots = _by_loop.setdefault(loop, {})
        sem = slots.get(identity)
        if sem is None:
            sem = slots[identity] = asyncio.Semaphore(max(1, concurrency))
        return sem

"""The openai client every request to an endpoint goes through (chat calls and Batch API calls).

TCP_NODELAY is set: without it, a request written as two segments (headers, then body)
waits for the server's delayed ACK, ~40 ms per request, which dominated latency against
fast servers. Proxies from the environment are ignored for loopback endpoints. The SDK's
own retries are off: the retry policy (retry.py) decides.
"""

from __future__ import annotations

import socket
from urllib.parse import urlparse

import httpx2  # the HTTP library the openai package is built on
import openai


def http_client(trust_env: bool):
    """openai's default HTTP client, with TCP_NODELAY."""
    transport = httpx2.AsyncHTTPTransport(
        trust_env=trust_env,
        limits=httpx2.Limits(max_connections=1000, max_keepalive_connections=100, keepalive_expiry=30.0),
        socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
    )
    return openai.DefaultAsyncHttpxClient(transport=transport, trust_env=trust_env)


def is_loopback(url: str) -> bool:
    host = urlparse(url).hostname or ""
    return host in ("127.0.0.1", "localhost", "::1")


def openai_client(base_url: str, key: str, timeout_s: float) -> openai.AsyncOpenAI:
    http = http_client(trust_env=not is_loopback(base_url))
    return openai.AsyncOpenAI(base_url=base_url, api_key=key, max_retries=0, timeout=timeout_s, http_client=http)

"""A sign-in flood from one client, run as its own process so it shares no GIL with the server.

`python -m tests.support.running.flood URL WORKERS TOTAL SECONDS` sends wrong passwords for ever new
emails from WORKERS concurrent connections until TOTAL attempts or SECONDS have passed,
then prints the count of each status code as JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter

import httpx


async def flood(url: str, workers: int, total: int, seconds: float) -> Counter[str]:
    codes: Counter[str] = Counter()
    deadline = time.monotonic() + seconds
    sent = 0
    limits = httpx.Limits(max_connections=workers, max_keepalive_connections=workers)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as client:

        async def worker() -> None:
            nonlocal sent
            while sent < total and time.monotonic() < deadline:
                sent += 1
                body = {"email": f"flood-{sent}@example.org", "password": "Winter2026!"}
                try:
                    response = await client.post("/api/auth/login", json=body)
                    codes[str(response.status_code)] += 1
                except httpx.HTTPError as e:
                    codes[type(e).__name__] += 1

        await asyncio.gather(*(worker() for _ in range(workers)))
    return codes


def main() -> None:
    url, workers, total, seconds = sys.argv[1:5]
    codes = asyncio.run(flood(url, int(workers), int(total), float(seconds)))
    sys.stdout.write(json.dumps(dict(codes)) + "\n")


if __name__ == "__main__":
    main()

"""The test suite's fake OpenAI-compatible server as a process of its own, for load benchmarks.

Every chat completion streams `--tokens` pieces `--interval-ms` apart. The
base URL is printed on stdout's first line; the server runs until stdin
closes (the benchmark that started it exits) or it is terminated.

    python -m bench.upstream --tokens 50 --interval-ms 20
"""

from __future__ import annotations

import argparse
import sys
from http.server import ThreadingHTTPServer
from itertools import cycle, islice

from tests.fakes.openai import ChatScript, FakeOpenAI

SENTENCE = (
    "The retrieved passages describe a method that first encodes the question, then "
    "ranks candidate documents by similarity and reads the best ones before answering."
)
# socketserver's default backlog of 5 would drop the SYNs of a burst of simultaneous
# connections (the client retries them a second later): hundreds of streams start at once.
BACKLOG = 1024


def script(tokens: int, interval_ms: float) -> ChatScript:
    """`tokens` word pieces, `interval_ms` apart."""
    pieces = tuple(f" {word}" for word in islice(cycle(SENTENCE.split()), tokens))
    return ChatScript(pieces=pieces, delay=interval_ms / 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=50)
    parser.add_argument("--interval-ms", type=float, default=20.0)
    args = parser.parse_args()
    ThreadingHTTPServer.request_queue_size = BACKLOG
    fake = FakeOpenAI()
    fake.default_script = script(args.tokens, args.interval_ms)
    with fake as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()

"""The service's Prometheus metrics, in a registry of their own.

`Metrics()` makes a fresh `CollectorRegistry` and registers every metric in
it, so tests and several apps in one process never collide in the global
registry. The HTTP layer records into it and serves `render(metrics.registry)`
with `CONTENT_TYPE` at `/metrics`. Nothing here knows about a web framework.

Label `route` must be the route's template (`/api/conversations/{id}`), never
the raw path, or every id becomes a new series; requests that match no route
use `UNMATCHED_ROUTE`.

Each process counts its own requests: with several workers a scrape sees the
worker that answered it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import Collector

CONTENT_TYPE: Final = CONTENT_TYPE_LATEST
UNMATCHED_ROUTE: Final = "<unmatched>"

_REQUEST_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_STREAM_BUCKETS: Final = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)
_FIRST_TOKEN_BUCKETS: Final = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0)
_RETRIEVAL_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Metrics:
    """Every metric the service exports, registered in `self.registry`."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.http_requests = Counter(
            "paperchat_http_requests",
            "HTTP requests answered, by method, route template and status code.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.http_request_duration = Histogram(
            "paperchat_http_request_duration_seconds",
            "Time to answer an HTTP request (for streams: until the headers are sent).",
            ["method", "route"],
            buckets=_REQUEST_BUCKETS,
            registry=self.registry,
        )
        self.chat_stream_duration = Histogram(
            "paperchat_chat_stream_duration_seconds",
            "Time from the start of a chat stream to its last event, by how it ended.",
            ["outcome"],
            buckets=_STREAM_BUCKETS,
            registry=self.registry,
        )
        self.time_to_first_token = Histogram(
            "paperchat_time_to_first_token_seconds",
            "Time from the chat request to the first piece of answer text.",
            buckets=_FIRST_TOKEN_BUCKETS,
            registry=self.registry,
        )
        self.retrieval_latency = Histogram(
            "paperchat_retrieval_latency_seconds",
            "Time to retrieve the sources for one question.",
            buckets=_RETRIEVAL_BUCKETS,
            registry=self.registry,
        )
        self.upstream_errors = Counter(
            "paperchat_upstream_errors",
            "Failures of the chat model's server, by error code.",
            ["code"],
            registry=self.registry,
        )
        self.open_streams = Gauge(
            "paperchat_open_streams",
            "Chat streams open right now.",
            registry=self.registry,
        )

    def watch_reranker(self, counts: Callable[[], Mapping[str, int]]) -> None:
        """Export the reranking model's requests by outcome (`ok`, `error`, `timeout`),
        read from `counts` at each scrape: the reranker counts them where they happen."""
        self.registry.register(
            _Counts(
                "paperchat_reranker_requests",
                "Requests to the reranking model's server, by outcome; errors and timeouts "
                "left the fused order.",
                "outcome",
                counts,
            )
        )

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.http_requests.labels(method=method.upper(), route=route, status=str(status)).inc()
        self.http_request_duration.labels(method=method.upper(), route=route).observe(seconds)

    def observe_stream(self, outcome: str, seconds: float) -> None:
        """`outcome`: the finish reason (`stop`, `length`, `cancelled`) or `error`."""
        self.chat_stream_duration.labels(outcome=outcome).observe(seconds)

    def observe_first_token(self, seconds: float) -> None:
        self.time_to_first_token.observe(seconds)

    def observe_retrieval(self, seconds: float) -> None:
        self.retrieval_latency.observe(seconds)

    def count_upstream_error(self, code: str) -> None:
        self.upstream_errors.labels(code=code).inc()

    @contextmanager
    def stream_open(self) -> Iterator[None]:
        """Counts one open stream for as long as the block runs."""
        self.open_streams.inc()
        try:
            yield
        finally:
            self.open_streams.dec()


def render(registry: CollectorRegistry) -> bytes:
    """The registry's metrics in the Prometheus text format (serve with `CONTENT_TYPE`)."""
    return generate_latest(registry)


class _Counts(Collector):
    """A counter whose values something else keeps, by one label."""

    def __init__(
        self, name: str, documentation: str, label: str, counts: Callable[[], Mapping[str, int]]
    ) -> None:
        self._name, self._documentation, self._label, self._counts = (
            name,
            documentation,
            label,
            counts,
        )

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(self._name, self._documentation, labels=[self._label])
        for value, count in sorted(self._counts().items()):
            family.add_metric([value], count)
        yield family

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from chat.service.metrics import CONTENT_TYPE, Metrics, render

pytestmark = pytest.mark.timeout(10)


def _value(metrics: Metrics, name: str, **labels: str) -> float:
    """The value of one sample, read back from the rendered text."""
    text = render(metrics.registry).decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    raise AssertionError(f"no sample {name} {labels} in:\n{text}")


def test_http_requests_are_counted_by_method_route_and_status() -> None:
    metrics = Metrics()

    metrics.observe_request("get", "/api/conversations/{id}", 200, 0.02)
    metrics.observe_request("GET", "/api/conversations/{id}", 200, 0.03)
    metrics.observe_request("POST", "/api/chat", 429, 0.001)

    text = render(metrics.registry).decode()
    route = "/api/conversations/{id}"
    assert f'paperchat_http_requests_total{{method="GET",route="{route}",status="200"}} 2.0' in text
    total = "paperchat_http_requests_total"
    assert _value(metrics, total, method="POST", route="/api/chat", status="429") == 1
    duration = "paperchat_http_request_duration_seconds_sum"
    assert _value(metrics, duration, method="GET", route=route) == pytest.approx(0.05)


def test_durations_land_in_their_histograms() -> None:
    metrics = Metrics()

    metrics.observe_stream("stop", 4.0)
    metrics.observe_first_token(0.3)
    metrics.observe_retrieval(0.04)

    assert _value(metrics, "paperchat_chat_stream_duration_seconds_sum", outcome="stop") == 4.0
    assert _value(metrics, "paperchat_chat_stream_duration_seconds_count", outcome="stop") == 1
    assert _value(metrics, "paperchat_time_to_first_token_seconds_bucket", le="0.5") == 1
    assert _value(metrics, "paperchat_time_to_first_token_seconds_bucket", le="0.25") == 0
    assert _value(metrics, "paperchat_retrieval_latency_seconds_sum") == pytest.approx(0.04)


def test_upstream_errors_are_counted_by_code() -> None:
    metrics = Metrics()

    metrics.count_upstream_error("upstream_timeout")
    metrics.count_upstream_error("upstream_timeout")
    metrics.count_upstream_error("upstream_rate_limited")

    errors = "paperchat_upstream_errors_total"
    assert _value(metrics, errors, code="upstream_timeout") == 2
    assert _value(metrics, errors, code="upstream_rate_limited") == 1


def test_open_streams_gauge_follows_streams_in_progress() -> None:
    metrics = Metrics()

    with metrics.stream_open(), metrics.stream_open():
        during = _value(metrics, "paperchat_open_streams")
    after = _value(metrics, "paperchat_open_streams")

    assert during == 2
    assert after == 0


def test_each_metrics_object_has_its_own_registry() -> None:
    first, second = Metrics(), Metrics()

    first.observe_request("GET", "/api/health", 200, 0.01)

    assert b"paperchat_http_requests_total{" in render(first.registry)
    assert b"paperchat_http_requests_total{" not in render(second.registry)
    assert b"paperchat_" not in render(REGISTRY)


def test_render_is_prometheus_text_with_help_and_type() -> None:
    metrics = Metrics()

    text = render(metrics.registry).decode()

    assert "# TYPE paperchat_http_requests_total counter" in text
    assert "# TYPE paperchat_open_streams gauge" in text
    assert "# HELP paperchat_retrieval_latency_seconds" in text
    assert CONTENT_TYPE.startswith("text/plain")

"""haproxy for the load balancer's tests, or a clear word on why they cannot run.

Only `.ci/run` installs haproxy. Elsewhere a missing binary skips those tests,
naming how to get it; on CI (`CI=true`) it fails them, so a CI machine without
haproxy cannot pass by quietly leaving them out.
"""

from __future__ import annotations

import os

import pytest

from bench.balancer import BalancerError, haproxy_binary

INSTALL_HINT = "apt-get install haproxy, or run .ci/run, which installs it"


def on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def haproxy_or_skip() -> str:
    """The haproxy binary's path; the test skips without one, or fails on CI."""
    try:
        return haproxy_binary()
    except BalancerError:
        if on_ci():
            pytest.fail(f"haproxy is not installed, and CI=true needs its tests: {INSTALL_HINT}")
        pytest.skip(f"haproxy is not installed: {INSTALL_HINT}")

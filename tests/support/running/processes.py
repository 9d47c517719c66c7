"""Child processes the tests and benchmarks start: servers, workers, the balancer."""

from __future__ import annotations

import subprocess


def stop_process(process: subprocess.Popen[bytes], timeout: float = 30) -> None:
    """SIGTERM, then SIGKILL if it has not ended within `timeout` seconds; reaped either way."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# What a worker woken past its lease logs when its late commit is refused: by the lease guard,
# or, when the stop caught it inside its transaction, by the server, which ended that session
# (and its locks) after its idle timeout.
LATE_COMMIT_REFUSED = (
    r"not committed: .*(?:is no longer worker|idle-in-transaction|terminating connection"
    r"|server closed the connection)"
)

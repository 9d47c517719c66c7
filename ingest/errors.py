"""`PaperchatError`, the base of every error paperchat raises on purpose.

A bad input, a missing file, a refused request, a service that cannot be
reached: the message names what went wrong and is meant for the user (the
command line prints it as one line and exits 2; the API maps the types it
knows to a status code). Any other exception is a bug and keeps its traceback.
It lives in `ingest`, which never imports `chat`, so that both can use it.
"""

from __future__ import annotations


class PaperchatError(Exception):
    """A failure paperchat expects and explains; see the module's docstring."""

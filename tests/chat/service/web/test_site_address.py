"""Every absolute link the server writes starts from one function, `site_address`, so that
`PAPERCHAT_PUBLIC_URL` wins over whatever Host header a request carries."""

from __future__ import annotations

import re

from tests.support.data import ROOT

ADDRESS_MODULE = ROOT / "chat" / "service" / "web" / "address.py"
# What reads the address a request was sent to.
_REQUEST_ADDRESS_RE = re.compile(r"request\.base_url|request\.url_for\(|str\(request\.url\)")


def test_only_the_address_module_reads_the_requests_own_address() -> None:
    readers = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "chat").rglob("*.py"))
        if path != ADDRESS_MODULE and _REQUEST_ADDRESS_RE.search(path.read_text(encoding="utf-8"))
    ]

    assert readers == []
    assert _REQUEST_ADDRESS_RE.search(ADDRESS_MODULE.read_text(encoding="utf-8"))

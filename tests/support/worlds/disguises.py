"""Made-up citations in disguise, as a hostile test of the service wrote them: the guard
must drop each one (tests/chat/rag/citations) and the dock must draw no chip for any
(tests/chat/service/web)."""

from __future__ import annotations

# (bracket, the name listed in dropped_citations). Each cites no source (2203.12533 is
# one only in tests/chat/rag), each hides from a plain match.
MADE_UP = [
    ("[arXiv:9999.99999?]", "9999.99999?"),
    ("[arXiv:9999.99999\u200b]", "9999.99999"),
    ("[ar\u200bXiv:9999.99999]", "9999.99999"),
    ("[arX\u200div:9999.99999]", "9999.99999"),
    ("[arXiv:9999.\u00ad99999]", "9999.99999"),
    ("[\u0430rXiv:9999.99999]", "9999.99999"),
    ("[ar\u0425iv:9999.99999]", "9999.99999"),
    ("[arXi\u03bd:9999.99999]", "9999.99999"),
    ("[\uff41\uff52\uff38\uff49\uff56:9999.99999]", "9999.99999"),
    ("\uff3barXiv:9999.99999\uff3d", "9999.99999"),
    ("\uff3barXiv\uff1a\uff19\uff19\uff19\uff19.99999\uff3d", "9999.99999"),
    ("\ufe47arXiv:9999.99999\ufe48", "9999.99999"),
    ("[a\u0301rXiv:9999.99999]", "9999.99999"),
    ("[\u202earXiv:9999.99999\u202c]", "9999.99999"),
    ("[arXiv 9999.99999]", "9999.99999"),
    ("[doc:deadbeef?]", "deadbeef?"),
    ("[arXiv:2203.12533, see also]", "see also"),
    ("[arXiv:" + " " * 70 + "9999.99999]", "9999.99999"),
    ("[arXiv:9999.99999" + " " * 70 + "]", "9999.99999"),
    ("[arXiv:9999.99999" + "\u200b" * 70 + "]", "9999.99999"),
    ("[arXiv:9999.99999" + "\u200b" * 2000 + "]", "9999.99999"),
    ("[arXiv:9999.99999" + " " * 2000 + "]", "9999.99999"),
    ("[arXiv:9999.99999" + "9" * 80 + "]", "9999.99999" + "9" * 47),
]

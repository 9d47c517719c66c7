"""Atom documents checked against RFC 4287's RELAX NG grammar (`data/atom.rng` of the
library tests)."""

from __future__ import annotations

from functools import cache

from lxml import etree

from tests.support.data import ROOT

GRAMMAR = ROOT / "tests" / "chat" / "library" / "data" / "atom.rng"


@cache
def _grammar() -> etree.RelaxNG:
    return etree.RelaxNG(etree.parse(str(GRAMMAR)))


def valid_atom(document: bytes) -> etree._Element:
    """The document's root, once the grammar accepts it; AssertionError naming each error."""
    root = etree.fromstring(document)
    grammar = _grammar()
    assert grammar.validate(root), [str(e) for e in grammar.error_log]
    return root

"""A researcher's co-author network drawn as SVG on the server: the researcher in the middle,
the top co-authors on a circle around, each edge as thick as the papers they share."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from chat.library.researchers import Coauthor

GRAPH_COAUTHORS: Final = 12  # the co-authors drawn; the list beside the graph names more
WIDTH: Final = 600  # the drawing's size in SVG units: room for the labels left and right
HEIGHT: Final = 340
_RING: Final = 130  # the co-authors' circle's radius
_MAX_EDGE: Final = 8.0  # the thickest edge, for the most shared papers
_LABEL_CHARS: Final = 22


@dataclass(frozen=True)
class Node:
    x: float
    y: float
    label: str
    href: str
    shared: int
    anchor: str  # where the label sits: "start", "middle" or "end" of its point


@dataclass(frozen=True)
class Edge:
    x: float
    y: float
    width: float


@dataclass(frozen=True)
class Network:
    width: int
    height: int
    cx: float
    cy: float
    name: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]


def network(name: str, coauthors: Sequence[Coauthor]) -> Network:
    """The drawing of `name` and their first `GRAPH_COAUTHORS` co-authors (most shared first)."""
    drawn = list(coauthors[:GRAPH_COAUTHORS])
    most = max((c.shared for c in drawn), default=1)
    cx, cy = WIDTH / 2, HEIGHT / 2
    nodes, edges = [], []
    for i, coauthor in enumerate(drawn):
        angle = -math.pi / 2 + 2 * math.pi * i / max(len(drawn), 1)
        x = round(cx + 1.2 * _RING * math.cos(angle), 1)
        y = round(cy + _RING * math.sin(angle), 1)
        anchor = "middle" if abs(x - cx) < 20 else ("start" if x > cx else "end")
        label = coauthor.name if len(coauthor.name) <= _LABEL_CHARS else _initialled(coauthor.name)
        href = coauthor.path
        nodes.append(Node(x, y, label, href, coauthor.shared, anchor))
        edges.append(Edge(x, y, round(1 + (_MAX_EDGE - 1) * coauthor.shared / most, 1)))
    return Network(WIDTH, HEIGHT, cx, cy, name, tuple(nodes), tuple(edges))


def _initialled(name: str) -> str:
    """A long name shortened to its given names' initials: "Jean-Pierre Müller" -> "J. Müller"."""
    *given, surname = name.split()
    return " ".join([*(g[0] + "." for g in given), surname])[:_LABEL_CHARS]

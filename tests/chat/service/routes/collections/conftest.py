"""What the collection route tests share: making a collection and filling it over HTTP."""

from __future__ import annotations

import httpx


def make_collection(client: httpx.Client, name: str, *paper_ids: str) -> str:
    """The id of a new collection of the client's user named `name`, holding `paper_ids`."""
    made = client.post("/api/collections", json={"name": name})
    assert made.status_code == 201, made.text
    collection_id: str = made.json()["id"]
    for paper_id in paper_ids:
        added = client.post(f"/api/collections/{collection_id}/papers", json={"paper_id": paper_id})
        assert added.status_code == 201, added.text
    return collection_id

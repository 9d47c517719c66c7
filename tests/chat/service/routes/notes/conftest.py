"""What the note route tests share: making a note and reading a listing's texts over HTTP."""

from __future__ import annotations

from typing import Any

import httpx


def make_note(client: httpx.Client, paper_id: str, text: str, **more: Any) -> dict[str, Any]:
    """The new note of the client's user on `paper_id`, as the API answers it."""
    made = client.post("/api/notes", json={"paper_id": paper_id, "text": text, **more})
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    return body


def texts(response: httpx.Response) -> list[str]:
    """The texts of a listing's notes, in its order."""
    assert response.status_code == 200, response.text
    return [note["text"] for note in response.json()["notes"]]

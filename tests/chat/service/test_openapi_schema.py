"""The OpenAPI document describes what every route really accepts and answers.

Schemathesis reads `/openapi.json` from the running server, sends it
generated requests (valid and invalid ones) signed in with an API key, and
checks every answer against the document: no server errors, only
documented status codes, bodies and content types as described, invalid
input refused. Half of the ids it sends are real (papers, authors, the
fuzzing user's conversations and answers, its email and password), drawn
from dictionaries of the running index and database, and `/v1` is sent
its documented example, so that every operation is fuzzed past its 404
and its refusals.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from chat.service.access.ratelimit import build_rate_limiter
from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.settings import Settings
from tests.support.data import PDFS
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    PASSWORD,
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
    read_events,
)

pytestmark = pytest.mark.timeout(900)
CONFIG = Path(__file__).with_name("schemathesis.toml")
# How often a parameter bound to a dictionary takes one of its real values: the rest of
# the cases stay generated, so unknown ids are fuzzed as well.
REAL_VALUE_PROBABILITY = 0.5
UNLIMITED = build_rate_limiter("100000/minute", None)
QUESTIONS = ("How does Fusion-in-Decoder combine retrieved passages?", "What is attention?")


@dataclass(frozen=True)
class Seeds:
    """Real values for schemathesis to draw: dictionary name -> values."""

    dictionaries: dict[str, list[str]]

    def config(self) -> str:
        """The TOML that defines the dictionaries and binds parameters to them."""
        lines = []
        for name, values in self.dictionaries.items():
            lines += [f"[dictionaries.{name}]", f"values = {json.dumps(values)}", ""]
        lines.append("[parameters]")
        for key, name in GLOBAL_BINDINGS.items():
            lines.append(f"{json.dumps(key)} = {_binding(name)}")
        for path, method, bindings, probability in OPERATION_BINDINGS:
            parameters = ", ".join(
                f"{json.dumps(key)} = {_binding(name, probability)}"
                for key, name in bindings.items()
            )
            lines += [
                "",
                "[[operations]]",
                f"include-path = {json.dumps(path)}",
                f'include-method = "{method}"',
                f"parameters = {{ {parameters} }}",
            ]
        return "\n".join(lines) + "\n"


def _binding(dictionary: str, probability: float = REAL_VALUE_PROBABILITY) -> str:
    return f'{{ dictionary = "{dictionary}", probability = {probability} }}'


# Parameter -> the dictionary of real values it draws from, in every operation.
GLOBAL_BINDINGS = {
    "path.arxiv_id": "papers",
    "path.name": "authors",
    "path.researcher_id": "researchers",
    "path.institution_id": "institutions",
    "query.name": "authors",
    "path.conversation_id": "conversations",
    "path.message_id": "answers",
    "path.collection_id": "collections",
    "path.note_id": "notes",
    "path.upload_id": "uploads",
    "body.file": "pdfs",
    "path.paper_id": "papers",
    "body.paper_id": "papers",
    "body.email": "emails",
    "body.password": "passwords",
    "body.current_password": "passwords",
    "body.new_password": "passwords",
}
# (path, method, {parameter: dictionary}, probability) for one operation. A conversation
# deleted is gone for the operations fuzzed after: deletes get their own. A password
# changes only when both passwords are good (a generated one is mostly too short).
OPERATION_BINDINGS = (
    (
        "/api/conversations/{conversation_id}",
        "DELETE",
        {"path.conversation_id": "doomed"},
        REAL_VALUE_PROBABILITY,
    ),
    (
        "/api/collections/{collection_id}",
        "DELETE",
        {"path.collection_id": "doomed_collections"},
        REAL_VALUE_PROBABILITY,
    ),
    ("/api/notes/{note_id}", "DELETE", {"path.note_id": "doomed_notes"}, REAL_VALUE_PROBABILITY),
    (
        "/api/uploads/{upload_id}",
        "DELETE",
        {"path.upload_id": "doomed_uploads"},
        REAL_VALUE_PROBABILITY,
    ),
    # A new share link replaces the one the shared view is fuzzed with: another collection's.
    *(
        ("/api/collections/{collection_id}/share", method, {"path.collection_id": "reshared"}, 0.5)
        for method in ("POST", "DELETE")
    ),
    # Both tokens for both routes (schemathesis binds `path.token` once for every operation
    # that has it): a shared collection's link, and another user's private feed, which the
    # fuzzed POST and DELETE /api/feeds/private (the fuzzing user's own) leave alone.
    *(
        (path, "GET", {"path.token": "tokens"}, 0.9)
        for path in ("/shared/collections/{token}", "/feeds/private/{token}.atom")
    ),
    (
        "/api/auth/password",
        "POST",
        {"body.current_password": "passwords", "body.new_password": "passwords"},
        0.9,
    ),
    # The coverage phase draws from the global dictionaries alone, where the DELETEs above
    # may take the kept upload and collection: these find an upload, in a collection, that
    # no DELETE is given.
    (
        "/api/collections/{collection_id}/uploads",
        "POST",
        {"path.collection_id": "collecting", "body.upload_id": "collected"},
        REAL_VALUE_PROBABILITY,
    ),
    (
        "/api/collections/{collection_id}/uploads/{upload_id}",
        "DELETE",
        {"path.collection_id": "collecting", "path.upload_id": "collected"},
        REAL_VALUE_PROBABILITY,
    ),
)


def ask(client: httpx.Client, message: str) -> tuple[str, str]:
    """(conversation id, answer's message id) of one answered question."""
    with client.stream("POST", "/api/chat", json={"message": message}) as response:
        assert response.status_code == 200, response.read()
        meta = read_events(response)[0]
    return meta.data["conversation_id"], meta.data["message_id"]


def collection(client: httpx.Client, name: str, papers: list[str]) -> str:
    """The id of a new collection of the user's holding `papers`."""
    made: str = client.post("/api/collections", json={"name": name}).json()["id"]
    for paper in papers:
        added = client.post(f"/api/collections/{made}/papers", json={"paper_id": paper})
        assert added.status_code == 201, added.text
    return made


def upload(client: httpx.Client, content: bytes) -> str:
    """The id of the user's upload of `content`, once read (ready, or failed: kept too)."""
    files = {"file": ("fuzz.pdf", content, "application/pdf")}
    made = client.post("/api/uploads", files=files)
    assert made.status_code == 202, made.text
    upload_id: str = made.json()["id"]
    deadline = time.monotonic() + 300
    while client.get(f"/api/uploads/{upload_id}").json()["status"] == "processing":
        assert time.monotonic() < deadline, "the upload is read within 5 minutes"
        time.sleep(0.2)
    return upload_id


def seed(client: httpx.Client, email: str, feed_token: str, share_token: str) -> Seeds:
    """The user's conversations with an answer each, collections of papers, uploads, and
    papers and authors the index holds; `feed_token` opens another user's private feed and
    `share_token` another user's shared collection."""
    (kept, answer), (doomed, _) = (ask(client, question) for question in QUESTIONS)
    found = client.get("/api/search", params={"q": "retrieval passages"}).json()["results"]
    papers = [hit["id"] for hit in found[:3]]
    authors = [hit["authors"].split(",")[0].strip() for hit in found[:3]]
    assert papers, found
    assert all(client.get(f"/api/authors/{a}").status_code == 200 for a in authors), authors
    matches = (client.get("/api/researchers", params={"name": a}).json() for a in authors)
    researchers = [r["id"] for found in matches for r in found["results"]]
    assert researchers, authors
    institutions = [i["id"] for i in client.get("/api/institutions").json()["results"][:3]]
    assert institutions
    gathered, doomed_collection, reshared = (collection(client, n, papers) for n in "abc")
    kept_note, doomed_note = (
        client.post("/api/notes", json={"paper_id": papers[0], "text": text}).json()["id"]
        for text in ("kept", "doomed")
    )
    # A PDF the index does not hold, read into its own index; and one that is no PDF inside.
    kept_upload = upload(client, (PDFS / "1502.03167v3.pdf").read_bytes())
    doomed_upload = upload(client, b"%PDF-1.7\n% not a document\n")
    # Another, in a collection of its own, for the routes that must find one there.
    collecting = collection(client, "d", papers)
    collected = upload(client, (PDFS / "2023.eacl-main.121.pdf").read_bytes())
    held = client.post(f"/api/collections/{collecting}/uploads", json={"upload_id": collected})
    assert held.status_code == 201, held.text
    return Seeds(
        {
            "papers": papers,
            "authors": authors,
            "researchers": researchers,
            "institutions": institutions,
            "conversations": [kept],
            "answers": [answer],
            "doomed": [doomed],
            "collections": [gathered],
            "doomed_collections": [doomed_collection],
            "reshared": [reshared],
            "notes": [kept_note],
            "doomed_notes": [doomed_note],
            "uploads": [kept_upload],
            "doomed_uploads": [doomed_upload],
            "collecting": [collecting],
            "collected": [collected],
            # A file that starts as a PDF does (which it is not: its upload fails).
            "pdfs": ["%PDF-1.7\n% fuzzed\n"],
            "tokens": [share_token, feed_token],
            "emails": [email],
            "passwords": [PASSWORD],
        }
    )


def operations(document: dict[str, dict[str, dict[str, object]]]) -> list[str]:
    """`METHOD /path` of every operation in the OpenAPI document."""
    methods = {"get", "put", "post", "delete", "patch", "options", "head", "trace"}
    return [
        f"{method.upper()} {path}"
        for path, item in document["paths"].items()
        for method in item
        if method in methods
    ]


def successes(report: Path) -> Counter[str]:
    """Per `METHOD /path`, how many of the run's cases were answered with a 2xx."""
    answered: Counter[str] = Counter()
    for line in report.read_text(encoding="utf-8").splitlines():
        finished = json.loads(line).get("ScenarioFinished")
        if finished is None:
            continue
        recorder = finished["recorder"]
        for case_id, case in recorder.get("cases", {}).items():
            response = recorder["interactions"].get(case_id, {}).get("response")
            if response is not None and 200 <= response["status_code"] < 300:
                answered[f"{case['value']['method']} {case['value']['path']}"] += 1
    return answered


def test_every_route_answers_as_its_schema_says(api: Api, tmp_path: Path) -> None:
    email = api.new_user()
    key = api.key_for(email)
    with api.key_client() as other:
        feed_token = other.post("/api/feeds/private").json()["token"]
        # Another user's shared collection: nothing the fuzzed user does takes its link away.
        shown = collection(other, "shown", ["2007.01282"])
        share_token = other.post(f"/api/collections/{shown}/share").json()["url"].rsplit("/", 1)[-1]
    with api.client(Authorization=f"Bearer {key}") as client:
        seeds = seed(client, email, feed_token, share_token)
        document = client.get("/openapi.json").json()
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG.read_text(encoding="utf-8") + "\n" + seeds.config(), "utf-8")
    report = tmp_path / "events.ndjson"
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(config),
        "run", f"{api.base_url}/openapi.json",
        "--header", f"Authorization: Bearer {key}",
        "--max-examples", "25",
        "--workers", "1",
        "--seed", "1",
        "--no-color",
        "--report", "ndjson", "--report-ndjson-path", str(report),
    ]  # fmt: skip

    # Signing in with the real email and password as often as the fuzz does is no attack.
    original, api.services.login_limiter = api.services.login_limiter, UNLIMITED
    try:
        run = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=840)
    finally:
        api.services.login_limiter = original

    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-5000:]
    answered = successes(report)
    never = [operation for operation in operations(document) if not answered[operation]]
    assert never == [], f"never answered with a 2xx: {never}; 2xx per operation: {answered}"


def test_a_wrong_method_lists_every_method_the_path_allows(api: Api) -> None:
    with api.key_client() as client:
        response = client.put("/api/conversations/some-id")

    assert response.status_code == 405
    assert response.headers["Allow"] == "DELETE, GET, HEAD"
    assert response.json() == {"detail": "method not allowed"}


def test_the_document_states_the_configured_question_length(
    api_settings: Settings, tmp_path: Path
) -> None:
    settings = api_settings.model_copy(
        update={"max_question_chars": 123, "database_url": f"sqlite:///{tmp_path / 'db.sqlite'}"}
    )
    prepare_service(settings)

    document = TestClient(create_app(settings)).get("/openapi.json").json()

    message = document["components"]["schemas"]["ChatRequest"]["properties"]["message"]
    assert message["maxLength"] == 123
    assert "HTTPValidationError" not in document["components"]["schemas"]

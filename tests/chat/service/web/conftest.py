"""The web tests' world: a small index with a hostile title and an old-style id, the app on a
real uvicorn with the fake OpenAI-compatible upstream, a second origin that embeds the dock,
and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Browser, BrowserContext, Dialog, Page, sync_playwright
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from tests.fakes.openai import FakeOpenAI
from tests.support.data import ABSTRACTS, ROOT
from tests.support.running.net import serving, unused_port
from tests.support.running.server import (
    Api,
    fake_llm_fixture,
    fresh_upstream_fixture,
    served_settings,
)

if TYPE_CHECKING:
    from chat.settings import Settings
    from chat.wiring import Wiring

__all__ = ["fake_llm_fixture", "fresh_upstream_fixture"]

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts" / "web"
EXAMPLE_HOST_PAGE = ROOT / "examples" / "host.html"
EXAMPLE_DOCK_SRC = 'src="http://127.0.0.1:8000/dock.js"'
EXAMPLE_PAPER = 'data-paper="2007.01282"'

XSS = "<img src=x onerror=alert(1)>"
XSS_ID = "2401.00001"
OLD_STYLE_ID = "hep-th/9901001"
# A real abstract from the shared data: what the dock is asked about.
PAPER_ID = "1812.06145"
REAL_ABSTRACTS = 30

HAND_MADE = [
    {
        "id": XSS_ID,
        "title": XSS,
        "abstract": f"A paper whose title is markup: {XSS}. It studies escaping of "
        "untrusted metadata in web pages about papers.",
        "authors": "<b>Mallory</b> Example",
        "categories": "cs.CR",
        "update_date": "2024-01-02",
    },
    {
        "id": f"{OLD_STYLE_ID}v2",
        "title": r"Strings on $AdS_5 \times S^5$ and the Schr\"odinger equation",
        "abstract": r"We relate the $\alpha$-expansion on $AdS_5\times S^5$ to a "
        r"Schr\"{o}dinger problem with $N^2$ degrees of freedom, for $\lambda \leq 1$.",
        "authors": "Ada Author, Bo Author",
        "categories": "hep-th",
        "update_date": "1999-01-04",
        "versions": [{"version": "v1", "created": "Mon, 4 Jan 1999 10:00:00 GMT"}],
    },
]


def _abstracts_file(path: Path) -> Path:
    lines = []
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as source:
        for number, line in enumerate(source):
            if number >= REAL_ABSTRACTS:
                break
            lines.append(line)
    lines.extend(json.dumps(record) + "\n" for record in HAND_MADE)
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def web_index(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> Iterator[Wiring]:
    """Thirty real abstracts, one paper titled with markup and one with TeX and an old id."""
    from chat.settings import Settings
    from chat.wiring import Wiring
    from ingest.pipeline import Pipeline
    from ingest.progress import NoProgress
    from ingest.report import IngestReport
    from ingest.sources.units import metadata_items

    root = tmp_path_factory.mktemp("web-index")
    index = Wiring(Settings(data_dir=root / "data", models_cache=models_cache))
    embedder = index.embedder
    pipeline = Pipeline(index.catalog, index.indexer, embedder.embed, NoProgress())
    abstracts = _abstracts_file(root / "abstracts.jsonl")
    pipeline.run(metadata_items(abstracts, embedder.count_tokens), IngestReport())
    yield index
    index.close()


@pytest.fixture(scope="session")
def host_port() -> int:
    return unused_port()


@pytest.fixture(scope="session")
def web_settings(
    web_index: Wiring,
    fake_llm: FakeOpenAI,
    tmp_path_factory: pytest.TempPathFactory,
    host_port: int,
) -> Settings:
    database = tmp_path_factory.mktemp("web-db") / "paperchat.sqlite"
    return served_settings(
        web_index, fake_llm, database, cors_origins=f"http://127.0.0.1:{host_port}"
    )


@pytest.fixture(scope="session")
def web(web_settings: Settings, fake_llm: FakeOpenAI) -> Iterator[Api]:
    """The app, pages and API, on a real uvicorn on 127.0.0.1, answering with the fake."""
    prepare_service(web_settings)
    app = create_app(web_settings)
    with serving(app, unused_port()) as base_url:
        yield Api(base_url, app, fake_llm)


@pytest.fixture(scope="session")
def extractive_web(
    web_settings: Settings, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Api]:
    """The same index served with no model: answers quote the sources."""
    database = tmp_path_factory.mktemp("web-extractive-db") / "paperchat.sqlite"
    settings = web_settings.model_copy(
        update={"llm": "extractive", "database_url": f"sqlite:///{database}"}
    )
    prepare_service(settings)
    app = create_app(settings)
    with serving(app, unused_port()) as base_url:
        yield Api(base_url, app, fake_llm)


def host_page(api_origin: str, api_key: str = "") -> str:
    """The example host page, pointed at `api_origin`, with styles that would leak if they
    could: red buttons and a monospace font on every element."""
    html = EXAMPLE_HOST_PAGE.read_text(encoding="utf-8")
    assert EXAMPLE_DOCK_SRC in html
    assert EXAMPLE_PAPER in html
    key = f' data-api-key="{api_key}"' if api_key else ""
    html = html.replace(EXAMPLE_DOCK_SRC, f'src="{api_origin}/dock.js"{key}')
    html = html.replace(EXAMPLE_PAPER, f'data-paper="{PAPER_ID}"')
    loud = (
        "<style>button { background: rgb(255, 0, 0) !important; }"
        ' * { font-family: "Courier New", monospace !important; }</style>'
    )
    return html.replace("</head>", f"{loud}</head>")


@pytest.fixture(scope="session")
def host_origin(web: Api, host_port: int) -> Iterator[str]:
    """Another origin (another port) serving the example page that embeds the dock;
    `?key=...` embeds it with that API key."""

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(host_page(web.base_url, request.query_params.get("key", "")))

    app = Starlette(routes=[Route("/", page)])
    with serving(app, host_port, lifespan="off") as base_url:
        yield base_url


# Package scope: Playwright's sync API keeps an event loop running while it is open,
# which would stop asyncio tests that run after the browser tests in the same session.
@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: apt-get install chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-background-networking", "--disable-dev-shm-usage"],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh profile for each test: no cookies, no storage."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.set_default_timeout(20_000)
    yield context
    context.close()


@pytest.fixture
def dialogs(context: BrowserContext) -> list[str]:
    """The message of every alert, confirm or prompt any page of the test opened."""
    opened: list[str] = []

    def record(page: Page) -> None:
        def dismiss(dialog: Dialog) -> None:
            opened.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", dismiss)

    context.on("page", record)
    return opened


@pytest.fixture
def page(context: BrowserContext, dialogs: list[str]) -> Page:
    return context.new_page()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go: a folder git ignores."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS

"""Opening a cited passage: from the click on a citation chip to its highlight drawn, in Chromium.

Serves an index with PDFs (`--data-dir`, or a scratch one built from a few of
the shared PDFs) in this process with extractive answers, signs in through
the dock on a paper's page and asks. Then two cases, `--rounds` times each:

- **same page**: the chip cites the paper whose page is open; the reader
  there highlights the passage without a page load (its earlier highlight
  removed and the page scrolled back to the top before each click);
- **other paper**: the chip cites another paper; the browser opens that
  paper's page, which loads, fetches where the passage lies and draws it.

The clock is the page's own (`performance.timeOrigin + now()`, the same on
both pages): the click is dispatched by a script that notes the time, and
the end is the first animation frame in which the highlight has a size.

    python -m bench.speed.reader [--data-dir DIR] [--rounds 15]
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import ElementHandle, Page, sync_playwright
from pydantic import SecretStr

from bench import results
from chat.settings import Settings
from tests.support.running.net import serving, unused_port

ROOT = Path(__file__).resolve().parents[2]
PDFS = ROOT.parent / "shared" / "data" / "pdfs"
SCRATCH_PDFS = ("2304.02623v1.pdf", "2007.01282v2.pdf", "1706.03762v7.pdf")
SAME = ("2304.02623", "What does this paper argue about expository writing?")
OTHER = ("2007.01282", "How does Fusion-in-Decoder combine retrieved passages in the decoder?")
CHROMIUM = "/usr/bin/chromium"
PASSWORD = "bench-password-1234"
GOALS_MS = {"same page": 300, "other paper": 1000}

CLICK = """
(chip) => {
  sessionStorage.setItem("bench.clicked", String(performance.timeOrigin + performance.now()));
  chip.click();
}
"""
DRAWN = """
(chunk) => {
  const mark = document.querySelector(`[data-evidence="${CSS.escape(chunk)}"]`);
  if (!mark || !mark.getBoundingClientRect().height) return null;
  const clicked = Number(sessionStorage.getItem("bench.clicked"));
  return performance.timeOrigin + performance.now() - clicked;
}
"""
RESET = """
() => {
  document.querySelectorAll("[data-evidence]").forEach((mark) => mark.remove());
  window.scrollTo(0, 0);
}
"""


def _build_index(data_dir: Path, models_cache: Path) -> None:
    from chat.wiring import Wiring
    from ingest.pipeline import Pipeline
    from ingest.progress import NoProgress
    from ingest.report import IngestReport
    from ingest.sources.units import pdf_items

    pdfs = data_dir.parent / "pdfs"
    pdfs.mkdir(parents=True, exist_ok=True)
    for name in SCRATCH_PDFS:
        shutil.copy(PDFS / name, pdfs / name)
    index = Wiring(Settings(data_dir=data_dir, models_cache=models_cache))
    pipeline = Pipeline(index.catalog, index.indexer, index.embedder.embed, NoProgress())
    pipeline.run(
        pdf_items([pdfs], index.open_catalog(), index.embedder.count_tokens), IngestReport()
    )
    index.close()


@contextmanager
def _served(data_dir: Path, scratch: Path) -> Iterator[tuple[str, str]]:
    """The app on 127.0.0.1 over `data_dir`, extractive, with one user; (base URL, email)."""
    from chat.service.access.accounts import create_user
    from chat.service.app import create_app
    from chat.service.bootstrap import prepare_service

    settings = Settings(
        data_dir=data_dir,
        models_cache=ROOT / ".cache" / "models",
        database_url=f"sqlite:///{scratch / 'bench.sqlite'}",
        llm="extractive",
        secret_key=SecretStr(secrets.token_urlsafe(32)),
        rate_limit="100000/minute",
    )
    prepare_service(settings)
    app = create_app(settings)
    email = "reader-bench@example.org"
    with app.state.services.sessions() as session:
        create_user(session, email, PASSWORD)
    with serving(app, unused_port()) as base_url:
        yield base_url, email


def _sign_in(page: Page, base_url: str, paper: str, email: str) -> None:
    page.goto(f"{base_url}/papers/{paper}")
    page.get_by_role("button", name="Ask paperchat").click()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.locator("paperchat-dock").get_by_role("button", name="Sign in", exact=True).click()
    page.locator("paperchat-dock .who").get_by_text(email).wait_for()


def _chip(page: Page, question: str, cited: str, scoped: bool) -> tuple[ElementHandle, str]:
    """Ask `question` in the dock; the answer's first chip citing `cited` and its chunk id."""
    if not scoped:
        page.get_by_label("Only this paper", exact=False).uncheck()
    answered = page.locator('paperchat-dock .assistant[aria-busy="false"]').count()
    box = page.get_by_label("Your question")
    box.fill(question)
    box.press("Enter")
    done = page.locator('paperchat-dock .assistant[aria-busy="false"]')
    done.nth(answered).wait_for(timeout=60_000)
    chip = done.nth(answered).locator("a.cite", has_text=cited).first
    href = chip.get_attribute("href") or ""
    [chunk] = parse_qs(urlsplit(href).query)["chunk"]
    return chip.element_handle(), chunk


def _timed(page: Page, chip: ElementHandle, chunk: str) -> float:
    page.evaluate(CLICK, chip)
    handle = page.wait_for_function(DRAWN, arg=chunk, polling="raf", timeout=30_000)
    return float(handle.json_value())


def measure(base_url: str, email: str, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"same page": [], "other paper": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        _sign_in(page, base_url, SAME[0], email)
        chip, chunk = _chip(page, SAME[1], SAME[0], scoped=True)
        _timed(page, chip, chunk)  # the page's images and the passage's first fetch
        for _ in range(rounds):
            page.evaluate(RESET)
            times["same page"].append(_timed(page, chip, chunk))
        for _ in range(rounds):
            page.goto(f"{base_url}/papers/{SAME[0]}")
            chip, chunk = _chip(page, OTHER[1], OTHER[0], scoped=False)
            times["other paper"].append(_timed(page, chip, chunk))
        browser.close()
    return times


def _rows(times: dict[str, list[float]]) -> list[list[results.Cell]]:
    """(case, rounds, p50 ms, p90 ms, goal ms) for each case."""
    rows: list[list[results.Cell]] = []
    for case, values in times.items():
        ordered = sorted(values)
        p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
        rows.append([case, len(values), statistics.median(values), p90, GOALS_MS[case]])
    return rows


def _table(times: dict[str, list[float]]) -> str:
    lines = ["| click to highlight | rounds | p50 ms | p90 ms | goal |", "|---|---|---|---|---|"]
    for case, rounds, p50, p90, goal in _rows(times):
        lines.append(f"| {case} | {rounds} | {p50:.0f} | {p90:.0f} | < {goal} ms |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, default=None, help="An index with PDFs.")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reader-bench-") as tmp:
        scratch = Path(tmp)
        data_dir = args.data_dir
        if data_dir is None:
            data_dir = scratch / "data"
            _build_index(data_dir, ROOT / ".cache" / "models")
        with _served(data_dir, scratch) as (base_url, email):
            times = measure(base_url, email, args.rounds)
    print(f"command: {results.command('reader')}\n")
    print(_table(times))
    columns = ["click to highlight", "rounds", "p50 ms", "p90 ms", "goal ms"]
    table = results.table(
        "click to highlight", columns, _rows(times), {"p50 ms": ".0f", "p90 ms": ".0f"}
    )
    setup = (
        f"Index in {results.shown_path(args.data_dir)}"
        if args.data_dir
        else f"Scratch index of {', '.join(SCRATCH_PDFS)}"
    )
    results.record("reader", [table], about=__doc__, settings=vars(args), setup=setup)


if __name__ == "__main__":
    main()

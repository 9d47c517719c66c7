"""What an answer says that the dock must not take at its word, in Chromium against a
scripted upstream: citations in disguise and links to other sites."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from chat.rag.citations.guard import CITATION_PATTERN
from tests.chat.service.web.conftest import PAPER_ID
from tests.fakes.openai import ChatScript
from tests.support.dock import Dock
from tests.support.running.server import Api
from tests.support.worlds.disguises import MADE_UP

pytestmark = pytest.mark.timeout(240)

CITED = f"[arXiv:{PAPER_ID}]"
# The pattern as dock.js carries it: the JSON string literal the server wrote in.
SERVED_PATTERN = re.compile(r'const CITATION_PATTERN = ("(?:[^"\\]|\\.)*");')
# Strings on which the pattern must mean the same to Chromium's RegExp as to Python's re.
PATTERN_PROBES = [
    CITED,
    "[arXiv:hep-th/9901001]",
    "[arXiv:math.GT/0309136]",
    "[doc:3f2a9c01b4e5d6a7]",
    "[arxiv:1812.06145]",
    "[ARXIV:1812.06145]",
    "[Doc:3f2a]",
    "[arXiv: 1812.06145]",
    "[arXiv:1812.06145 ]",
    "[arXiv:-1812]",
    "[arXiv:]",
    "[doc:]",
    "[arXiv:1812.06145]x",
    "x[arXiv:1812.06145]",
    "[arXiv:1812.06145][arXiv:1812.06145]",
    "[arXiv:1812.06145\n]",
    "[arXiv:\u0661\u0662\u0663]",
    "[arXiv:\uff11\uff18]",
    "\uff3barXiv:1812.06145\uff3d",
    "[arXiv:a_b]",
    "[arXiv:a\\b]",
    "[arXiv:a b]",
    *(bracket for bracket, _ in MADE_UP),
]
IN_CHROMIUM = """
([pattern, probes]) => {
  const whole = new RegExp(`^${pattern}$`);
  return probes.map((probe) => {
    const match = whole.exec(probe);
    return match ? [match[1], match[2]] : null;
  });
}
"""


def _served_pattern(web: Api) -> str:
    with web.client() as client:
        script = client.get("/dock.js").text
    found = SERVED_PATTERN.search(script)
    assert found is not None
    pattern = json.loads(found[1])
    assert isinstance(pattern, str)
    return pattern


def test_dock_recognises_citations_by_the_guards_own_pattern(web: Api, page: Page) -> None:
    python = [
        list(match.groups()) if (match := re.fullmatch(CITATION_PATTERN, probe)) else None
        for probe in PATTERN_PROBES
    ]
    page.goto(f"{web.base_url}/")

    served = _served_pattern(web)
    chromium = page.evaluate(IN_CHROMIUM, [served, PATTERN_PROBES])

    assert served == CITATION_PATTERN
    assert chromium == python
    assert python[:4] == [
        ["arXiv", PAPER_ID],
        ["arXiv", "hep-th/9901001"],
        ["arXiv", "math.GT/0309136"],
        ["doc", "3f2a9c01b4e5d6a7"],
    ]
    matched = [probe for probe, groups in zip(PATTERN_PROBES, python, strict=True) if groups]
    # The long made-up id has the form of a citation: the dock's chip needs its source too.
    assert matched == [*PATTERN_PROBES[:4], "[arXiv:9999.99999" + "9" * 80 + "]"]


def test_made_up_citations_in_disguise_show_no_chip_and_no_text(web: Api, page: Page) -> None:
    pieces = ["Real ", CITED, "."]
    for number, (bracket, _) in enumerate(MADE_UP):
        pieces += [f" Claim {number} ", bracket[:5], bracket[5:], "."]
    web.fake.script_chat(ChatScript(pieces=tuple(pieces)))
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())

    dock.ask("What does this paper cite?")
    answer = dock.wait_answered()

    chips = answer.locator("a.cite")
    expect(chips).to_have_count(1)
    expect(chips).to_have_text(f"arXiv:{PAPER_ID}")
    text = answer.locator(".answer").inner_text()
    assert text.startswith(f"Real arXiv:{PAPER_ID}. Claim 0. Claim 1.")
    assert f"Claim {len(MADE_UP) - 1}." in text
    for hidden in ("9999", "deadbeef", "see also", "[", "\uff3b", "\ufe47"):
        assert hidden not in text
    expect(answer.locator(".status")).to_contain_text("Citations removed")


def test_only_links_to_this_server_and_arxiv_are_links(web: Api, page: Page) -> None:
    links = (
        "See [the abstract](https://arxiv.org/abs/1812.06145), ",
        "[its PDF](http://export.arxiv.org/pdf/1812.06145), ",
        f"[this page](/papers/{PAPER_ID}) and [that one]({web.base_url}/papers/{PAPER_ID}). ",
        "[Sign in again](https://paperchat-login.example/reset) ",
        "[mirror](https://arxiv.org.evil.example/abs/1) ",
        "[user](https://arxiv.org@evil.example/) ",
        "[relative](//evil.example/x) ",
        "[punycode](https://\u0430rxiv.org/abs/1) ",
        "[script](javascript:alert(1)) ",
        "[data](data:text/html,hi) ",
        "[inline](x).",
    )
    web.fake.script_chat(ChatScript(pieces=links))
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())

    dock.ask("Where can I read more?")
    answer = dock.wait_answered()

    anchors = answer.locator(".answer a")
    expect(anchors).to_have_text(["the abstract", "its PDF", "this page", "that one"])
    hrefs = [anchors.nth(index).get_attribute("href") for index in range(4)]
    assert hrefs == [
        "https://arxiv.org/abs/1812.06145",
        "http://export.arxiv.org/pdf/1812.06145",
        f"{web.base_url}/papers/{PAPER_ID}",
        f"{web.base_url}/papers/{PAPER_ID}",
    ]
    text = answer.locator(".answer").inner_text()
    assert "Sign in again (paperchat-login.example)" in text
    assert "mirror (arxiv.org.evil.example)" in text
    assert "user (evil.example)" in text
    assert "relative (evil.example)" in text
    assert "punycode (xn--rxiv-" in text
    assert "[script](javascript:alert(1))" in text
    assert "[data](data:text/html,hi)" in text
    assert "[inline](x)." in text

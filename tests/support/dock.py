"""Driving the dock in a page the way a reader does: by its buttons, labels and keys.

Playwright's locators reach into the dock's open shadow root on their own.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Locator, Page, Request, expect

from tests.support.running.server import PASSWORD

# Generous: the machine running the tests may be slow and busy.
WAIT_MS = 30_000

# The length of the newest answer's text while it is still streaming and longer than the
# length given, else null: `wait_for_function` waits for a truthy value.
LONGER_WHILE_STREAMING = """
(shorter) => {
  const dock = document.querySelector("paperchat-dock");
  const answers = dock ? dock.shadowRoot.querySelectorAll(".assistant") : [];
  const last = answers[answers.length - 1];
  if (!last || last.getAttribute("aria-busy") !== "true") return null;
  const length = last.querySelector(".answer").textContent.length;
  return length > shorter ? length : null;
}
"""


def json_body(request: Request) -> dict[str, Any]:
    """The JSON object a request sent."""
    body = request.post_data_json
    assert isinstance(body, dict)
    return body


class Dock:
    def __init__(self, page: Page) -> None:
        self.page = page

    @property
    def launcher(self) -> Locator:
        return self.page.get_by_role("button", name="Ask paperchat")

    @property
    def panel(self) -> Locator:
        return self.page.locator("paperchat-dock .panel")

    @property
    def question(self) -> Locator:
        return self.page.get_by_label("Your question")

    @property
    def who(self) -> Locator:
        return self.page.locator("paperchat-dock .who")

    @property
    def answers(self) -> Locator:
        return self.page.locator("paperchat-dock .assistant")

    @property
    def last_answer(self) -> Locator:
        return self.answers.last

    def button(self, name: str) -> Locator:
        return self.page.locator("paperchat-dock").get_by_role("button", name=name, exact=True)

    def open(self) -> None:
        """Open the dock as a user would: with its launcher, or on a phone with the page's
        own opener where the page has one (the reader's toolbar)."""
        opener = self.page.locator("[data-paperchat-open]")
        if opener.count() and opener.first.is_visible():
            opener.first.click()
        else:
            self.launcher.click()
        expect(self.panel).to_be_visible(timeout=WAIT_MS)

    def sign_in(self, email: str) -> None:
        """Open the dock and sign in with the test password."""
        if not self.panel.is_visible():
            self.open()
        self.page.get_by_label("Email").fill(email)
        self.page.get_by_label("Password").fill(PASSWORD)
        self.button("Sign in").click()
        expect(self.who).to_have_text(email, timeout=WAIT_MS)

    def ask(self, text: str) -> None:
        self.question.fill(text)
        self.question.press("Enter")
        expect(self.answers).not_to_have_count(0, timeout=WAIT_MS)

    def wait_answered(self, count: int = 1) -> Locator:
        """The last answer, once `count` answers have finished streaming."""
        finished = self.page.locator('paperchat-dock .assistant[aria-busy="false"]')
        expect(finished).to_have_count(count, timeout=WAIT_MS * 2)
        return self.last_answer

    def growing_lengths(self, samples: int) -> list[int]:
        """The streaming answer's length at `samples` moments, each longer than the one before."""
        lengths: list[int] = []
        for _ in range(samples):
            handle = self.page.wait_for_function(
                LONGER_WHILE_STREAMING, arg=lengths[-1] if lengths else 0, timeout=WAIT_MS
            )
            lengths.append(int(handle.json_value()))
        return lengths

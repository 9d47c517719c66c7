/*
 * paperchat reader: skimming. The "Skim" toggle tints, on each page, the sentences that
 * state the paper's goal, its method, its results and its limitations, and lists them
 * beside the reader, by facet and in reading order, each a button that goes to its page.
 *
 * The list comes from `/papers/<id>/skim` when the toggle is first pressed; each page's
 * tints from the annotations citations.js loads for the page (`paperchat:annotations`
 * events). Tints lie under the text (no target, no pointer events): they never cover it.
 * Everything from the server goes into text nodes and style properties, never into HTML.
 */
(() => {
  "use strict";

  const article = document.querySelector("[data-paper-page]");
  const root = document.querySelector("[data-reader]");
  const toggle = root?.querySelector("[data-action='skim']");
  const panel = root?.querySelector("[data-skim-list]");
  if (!article || !root || !toggle || !panel) return;
  const PAPER = article.dataset.paperPage;
  const NAMES = { goal: "Goal", method: "Method", result: "Result", limitation: "Limitation" };
  let listed = false;

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function paperPath(id) {
    return `/papers/${encodeURIComponent(id).replace(/%2F/gi, "/")}`;
  }

  function pageOf(number) {
    return root.querySelector(`.reader-page[data-page="${number}"]`);
  }

  /** The tints of one page's skim sentences, in a layer under the citation targets. */
  function tint(page, marks) {
    page.querySelector(".reader-skim-layer")?.remove();
    if (!marks.length) return;
    const layer = element("div", "reader-skim-layer");
    layer.setAttribute("aria-hidden", "true");
    for (const mark of marks) {
      for (const box of mark.boxes) {
        const span = element("span", `reader-skim reader-skim-${mark.facet}`);
        span.dataset.sentence = mark.text;
        span.style.left = `${box.x0 * 100}%`;
        span.style.top = `${box.y0 * 100}%`;
        span.style.width = `${(box.x1 - box.x0) * 100}%`;
        span.style.height = `${(box.y1 - box.y0) * 100}%`;
        layer.append(span);
      }
    }
    const above = page.querySelector(".reader-cites");
    if (above) above.before(layer);
    else page.append(layer);
  }

  function go(sentence) {
    const page = pageOf(sentence.page);
    if (!page) return;
    page.scrollIntoView({ block: "start" });
    const flash = () => {
      for (const span of page.querySelectorAll(".reader-skim")) {
        if (span.dataset.sentence !== sentence.text) continue;
        span.classList.add("reader-skim-flash");
        setTimeout(() => span.classList.remove("reader-skim-flash"), 1600);
      }
    };
    if (page.querySelector(".reader-skim-layer")) flash();
    else page.addEventListener("paperchat:skim-drawn", flash, { once: true });
  }

  function listOf(sentences) {
    const counts = {};
    for (const s of sentences) counts[s.facet] = (counts[s.facet] || 0) + 1;
    const legend = element("p", "reader-skim-legend");
    for (const facet of Object.keys(NAMES)) {
      const key = element("span", `reader-skim-key reader-skim-${facet}`, `${NAMES[facet]} (${counts[facet] || 0})`);
      legend.append(key, " ");
    }
    const list = element("ol", "reader-skim-sentences");
    for (const sentence of sentences) {
      const item = element("li", "");
      const button = element("button", "reader-skim-item");
      button.type = "button";
      button.append(element("span", `reader-skim-key reader-skim-${sentence.facet}`, NAMES[sentence.facet]), ` p. ${sentence.page} · ${sentence.text}`);
      button.addEventListener("click", () => go(sentence));
      item.append(button);
      list.append(item);
    }
    if (!sentences.length) list.append(element("li", "", "No sentence of this paper states its goal, method, results or limitations in words the skim knows."));
    panel.replaceChildren(element("p", "reader-skim-heading", "Skim: the paper's goal, method, results and limitations"), legend, list);
  }

  async function loadList() {
    listed = true;
    panel.replaceChildren(element("p", "reader-skim-heading", "Reading the paper for its goal, method, results and limitations…"));
    try {
      // A user's upload has its own (`data-base`, `/uploads/<id>`).
      const response = await fetch(`${root.dataset.base || paperPath(PAPER)}/skim`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      listOf((await response.json()).sentences);
    } catch {
      listed = false;
      panel.replaceChildren(element("p", "reader-skim-heading", "The skim could not be read; press Skim again to retry."));
    }
  }

  toggle.addEventListener("click", () => {
    const on = toggle.getAttribute("aria-pressed") !== "true";
    toggle.setAttribute("aria-pressed", String(on));
    root.toggleAttribute("data-skimming", on);
    panel.hidden = !on;
    if (on && !listed) loadList();
  });

  root.addEventListener("paperchat:annotations", (event) => {
    const { page, annotations } = event.detail;
    tint(page, annotations.skim || []);
    page.dispatchEvent(new CustomEvent("paperchat:skim-drawn"));
  });
})();

/*
 * paperchat reader: the in-text citations and defined terms of each PDF page as targets over
 * its text layer.
 *
 * Once a page's text layer is shown, its annotations (`/papers/<id>/pages/<n>/annotations`)
 * give each citation mark's boxes and the references it names, and each use of a term the
 * paper defines. Each mark or use becomes a button over its first box (one over two lines
 * gets a plain target on the second); hovering or focusing it shows a card. A citation's
 * card holds each reference as the paper prints it and, for a paper the library holds, its
 * title, authors, year, a sentence of its abstract and links to its page and its reader; a
 * term's, its definition and a link to the page that defines it. A library paper's card
 * also says whether the reader follows it and whether this browser has opened its page
 * before (a list kept in localStorage only). Escape closes the card.
 * A user's own upload (its reader's `data-base`, `/uploads/<id>`) has its annotations there,
 * and is not remembered among the papers opened.
 * Everything from the server goes into text nodes, attributes and style properties, never
 * into HTML.
 */
(() => {
  "use strict";

  const article = document.querySelector("[data-paper-page]");
  const root = document.querySelector("[data-reader]");
  if (!article || !root) return;
  const PAPER = article.dataset.paperPage;
  // The papers whose page this browser has opened, newest last (kept here only, never sent),
  // and those the signed-in reader follows: a card says so of the paper it names.
  const OPENED_KEY = "paperchat:opened";
  const MAX_OPENED = 500;
  const opened = new Set(readOpened());
  let followed = new Set();
  const BASE = root.dataset.base || "";
  if (!BASE) rememberOpened(PAPER);
  loadFollowed();

  function readOpened() {
    try {
      const ids = JSON.parse(localStorage.getItem(OPENED_KEY) || "[]");
      return Array.isArray(ids) ? ids.filter((id) => typeof id === "string") : [];
    } catch {
      return [];
    }
  }

  function rememberOpened(id) {
    try {
      const ids = readOpened().filter((other) => other !== id);
      ids.push(id);
      localStorage.setItem(OPENED_KEY, JSON.stringify(ids.slice(-MAX_OPENED)));
    } catch {
      /* storage refused (private mode, full): cards just do not say it */
    }
  }

  async function loadFollowed() {
    try {
      const asked = { credentials: "same-origin", cache: "no-store" };
      const session = await (await fetch("/dock/session", asked)).json();
      if (!session.user) return; // signed out: nothing followed
      const response = await fetch("/api/follows", asked);
      if (!response.ok) return;
      const { follows } = await response.json();
      followed = new Set(follows.filter((f) => f.kind === "paper").map((f) => String(f.value)));
    } catch {
      /* no follows shown */
    }
  }
  const card = document.createElement("div");
  card.className = "reader-card";
  card.id = "reader-card";
  card.setAttribute("role", "tooltip");
  card.hidden = true;
  let owner = null;
  let hideTimer = 0;
  let quiet = false; // focus given back by Escape: no card

  function paperPath(id) {
    return `/papers/${encodeURIComponent(id).replace(/%2F/gi, "/")}`;
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function link(href, text) {
    const anchor = element("a", "", text);
    anchor.href = href;
    return anchor;
  }

  function referenceOf(reference) {
    const item = element("div", "reader-card-reference");
    const paper = reference.paper;
    if (paper) {
      const title = element("p", "reader-card-title");
      title.append(link(paper.url, paper.title));
      item.append(title);
      const byline = [paper.authors, paper.year].filter(Boolean).join(" · ");
      if (byline) item.append(element("p", "reader-card-byline", byline));
      if (paper.summary) item.append(element("p", "reader-card-summary", paper.summary));
      const yours = [
        followed.has(String(paper.id)) ? "You follow it" : "",
        opened.has(String(paper.id)) ? "You opened it before" : "",
      ].filter(Boolean);
      if (yours.length) item.append(element("p", "reader-card-yours", `${yours.join(" · ")}.`));
      const links = element("p", "reader-card-links");
      const ask = element("button", "reader-card-ask", "Ask about it");
      ask.type = "button";
      ask.addEventListener("click", () => {
        hide();
        const detail = { text: `What does "${paper.title}" do, and what does it find?`, paper: { id: paper.id, title: paper.title } };
        window.dispatchEvent(new CustomEvent("paperchat:ask", { detail }));
      });
      links.append(link(paper.url, "Its page"), " · ", link(paper.reader_url, "Read it"), " · ", ask);
      item.append(links);
    }
    const number = reference.number ? `[${reference.number}] ` : "";
    // A long reference scrolls within the card: it takes the focus, to scroll by keyboard.
    const printed = element("p", "reader-card-printed", `${number}${reference.printed}`);
    printed.tabIndex = 0;
    item.append(printed);
    return item;
  }

  function definitionOf(term) {
    const item = element("div", "reader-card-reference");
    item.append(element("p", "reader-card-title", term.term));
    item.append(element("p", "reader-card-summary", term.definition));
    const where = link("#reader", `Defined on page ${term.page}`);
    where.addEventListener("click", (event) => {
      const page = root.querySelector(`.reader-page[data-page="${term.page}"]`);
      if (!page) return;
      event.preventDefault();
      hide();
      page.scrollIntoView({ block: "start" });
    });
    const links = element("p", "reader-card-links");
    links.append(where);
    item.append(links);
    return item;
  }

  /** What the library says about this page: other papers' sentences that cite the paper,
   * newest first, in a list after the page (never over its text). */
  function discussionsOf(page, discussions) {
    const aside = element("aside", "reader-discussions");
    aside.dataset.discussionsOf = page.dataset.page;
    const heading = `What the library says about page ${page.dataset.page}`;
    aside.setAttribute("aria-label", heading);
    aside.append(element("p", "reader-discussions-heading", heading));
    const list = element("ul", "");
    for (const said of discussions) {
      const item = element("li", "");
      item.append(element("q", "", said.sentence), " ");
      const source = element("span", "reader-card-byline", "");
      source.append(link(paperPath(said.paper_id), said.title), ` (${said.published.slice(0, 4)}), page ${said.page} · `, link(said.reader_url, "Read it"));
      item.append(source);
      list.append(item);
    }
    aside.append(list);
    return aside;
  }

  function show(target, shown) {
    clearTimeout(hideTimer);
    owner = target;
    card.replaceChildren(...shown.content());
    const page = target.closest(".reader-page");
    page.append(card);
    const box = shown.boxes[0];
    card.style.left = `${Math.min(box.x0, 0.55) * 100}%`;
    card.style.top = `${box.y1 * 100}%`;
    card.hidden = false;
    target.setAttribute("aria-expanded", "true");
  }

  function hide() {
    if (owner) owner.setAttribute("aria-expanded", "false");
    owner = null;
    card.hidden = true;
  }

  function hideSoon() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(() => {
      if (!card.matches(":hover") && !card.contains(document.activeElement)) hide();
    }, 250);
  }

  function place(node, box) {
    node.style.left = `${box.x0 * 100}%`;
    node.style.top = `${box.y0 * 100}%`;
    node.style.width = `${(box.x1 - box.x0) * 100}%`;
    node.style.height = `${(box.y1 - box.y0) * 100}%`;
  }

  /** Targets over `shown.boxes`: a button named `shown.label` over the first. */
  function targetsOf(shown) {
    return shown.boxes.map((box, index) => {
      const target = element(index ? "span" : "button", shown.className);
      place(target, box);
      if (index === 0) {
        target.type = "button";
        target.setAttribute("aria-label", shown.label);
        target.setAttribute("aria-describedby", card.id);
        target.setAttribute("aria-expanded", "false");
        target.addEventListener("focus", () => quiet || show(target, shown));
        target.addEventListener("blur", hideSoon);
        target.addEventListener("click", () => (owner === target ? hide() : show(target, shown)));
      } else {
        target.setAttribute("aria-hidden", "true");
      }
      target.addEventListener("mouseenter", () => show(target, shown));
      target.addEventListener("mouseleave", hideSoon);
      return target;
    });
  }

  async function loadCitations(page) {
    page.dataset.citations = "loading";
    try {
      const response = await fetch(`${BASE || paperPath(PAPER)}/pages/${page.dataset.page}/annotations`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const annotations = await response.json();
      const layer = element("div", "reader-cites");
      for (const mark of annotations.citations) {
        const content = () => mark.references.map(referenceOf);
        layer.append(...targetsOf({ boxes: mark.boxes, label: `Citation ${mark.text}`, className: "reader-cite", content }));
      }
      for (const term of annotations.definitions) {
        const content = () => [definitionOf(term)];
        const label = `Definition of ${term.term}`;
        for (const use of term.uses) {
          layer.append(...targetsOf({ boxes: use.boxes, label, className: "reader-cite reader-term", content }));
        }
      }
      page.append(layer);
      root.querySelector(`[data-discussions-of="${page.dataset.page}"]`)?.remove();
      if (annotations.discussions.length) page.after(discussionsOf(page, annotations.discussions));
      page.dataset.citations = "shown";
      root.dispatchEvent(new CustomEvent("paperchat:annotations", { detail: { page, annotations } }));
    } catch {
      page.dataset.citations = "";
    }
  }

  card.addEventListener("mouseleave", hideSoon);
  card.addEventListener("focusout", hideSoon);
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || card.hidden) return;
    const target = owner;
    hide();
    quiet = true;
    if (target) target.focus({ preventScroll: true });
    quiet = false;
  });

  // "on page N here" of the paper page's "Discussed in the library" goes to that page.
  document.addEventListener("click", (event) => {
    const wanted = event.target.closest("[data-reader-page]");
    const page = wanted && root.querySelector(`.reader-page[data-page="${wanted.dataset.readerPage}"]`);
    if (!page) return;
    event.preventDefault();
    page.scrollIntoView({ block: "start" });
  });

  // A page's citations come once its text layer is shown (reader.js draws it on demand).
  const shown = new MutationObserver((changes) => {
    for (const change of changes) {
      const page = change.target;
      if (page.dataset.text === "shown" && !page.dataset.citations) loadCitations(page);
    }
  });
  for (const page of root.querySelectorAll(".reader-page")) {
    shown.observe(page, { attributes: true, attributeFilter: ["data-text"] });
  }
})();

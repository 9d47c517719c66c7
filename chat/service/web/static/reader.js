/*
 * paperchat reader: the paper's PDF pages as the server renders them, each with a
 * selectable text layer, page navigation and zoom, and the cited passage highlighted.
 *
 * A passage comes from `?chunk=<chunk id>&quote=<words>` in the page's address or from the
 * dock, which sends `paperchat:evidence` (detail: {chunk, quote}) on window when a citation
 * of this paper is clicked. A full-text passage is drawn from the boxes ingest recorded for
 * it (an index without them gets its page outlined), and the words the answer quoted from
 * it (a sentence, a table's cell) are marked over it in a colour of their own; in an
 * abstract passage the quoted words are marked, or the whole passage when not found.
 * A user's own upload is read the same way: its reader names where its pages and passages
 * are (`data-base`, `/uploads/<id>`), in place of the paper's path and `/reader/evidence`.
 * Everything from the server goes into text nodes and style properties, never into HTML.
 */
(() => {
  "use strict";

  const article = document.querySelector("[data-paper-page]");
  if (!article) return;
  const PAPER = article.dataset.paperPage;
  const root = document.querySelector("[data-reader]");
  const note = document.querySelector("[data-reader-note]");
  const abstract = document.querySelector("[data-abstract]");
  const WIDTHS = [480, 720, 960, 1280, 1600, 2000];
  // The longest quote the server looks for in a passage, filled in by it.
  const MAX_QUOTE = Number("__PAPERCHAT_MAX_QUOTE_CHARS__");
  const ZOOMS = [0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3];

  function paperPath(id) {
    return `/papers/${encodeURIComponent(id).replace(/%2F/gi, "/")}`;
  }

  // Where the pages and passages are: the paper's, or an upload's (`data-base`).
  const BASE = (root && root.dataset.base) || paperPath(PAPER);
  const EVIDENCE = root && root.dataset.base ? `${root.dataset.base}/evidence` : "/reader/evidence";

  function say(text) {
    if (!note) return;
    note.textContent = text || "";
    note.hidden = !text;
  }

  /* ---------- pages: images on demand, text layers, navigation, zoom ---------- */

  const pages = root ? [...root.querySelectorAll(".reader-page")] : [];
  const pageBox = root ? root.querySelector(".reader-pages") : null;
  const pageInput = root ? root.querySelector('[data-role="page"]') : null;
  const zoomOutput = root ? root.querySelector('[data-role="zoom"]') : null;
  let zoom = 1;

  for (const page of pages) page.style.aspectRatio = `1 / ${Number(page.dataset.ratio) || 1.4142}`;

  function imageWidth(page) {
    const pixels = page.getBoundingClientRect().width * (window.devicePixelRatio || 1);
    return WIDTHS.find((w) => w >= pixels) || WIDTHS[WIDTHS.length - 1];
  }

  function load(page) {
    const width = imageWidth(page);
    if (Number(page.dataset.width || 0) >= width) return;
    let image = page.querySelector("img");
    if (!image) {
      image = document.createElement("img");
      image.alt = "";
      image.decoding = "async";
      image.draggable = false;
      // A busy renderer (503) or a client over its render limit (429): try again later,
      // a few times, and whenever the page comes into view again.
      image.addEventListener("error", () => {
        page.dataset.width = "";
        const tries = Number(page.dataset.tries || 0);
        if (tries < 3) {
          page.dataset.tries = String(tries + 1);
          setTimeout(() => load(page), 3000 * (tries + 1));
        }
      });
      page.prepend(image);
    }
    image.src = `${BASE}/pages/${page.dataset.page}.webp?width=${width}&v=${root.dataset.version}`;
    page.dataset.width = String(width);
    if (!page.dataset.text) loadText(page);
  }

  async function loadText(page) {
    page.dataset.text = "loading";
    try {
      const response = await fetch(`${BASE}/pages/${page.dataset.page}.json`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const layer = await response.json();
      const box = document.createElement("div");
      box.className = "reader-text";
      const spans = [];
      for (const line of layer.lines) {
        const span = document.createElement("span");
        span.textContent = `${line.text} `;
        span.style.left = `${line.x0 * 100}%`;
        span.style.top = `${line.y0 * 100}%`;
        span.style.setProperty("--h", String(line.y1 - line.y0));
        spans.push([span, line.x1 - line.x0]);
        box.append(span);
      }
      page.append(box);
      // Stretch each line to its printed width; the ratio holds at every zoom.
      const width = page.getBoundingClientRect().width;
      const natural = spans.map(([span]) => span.getBoundingClientRect().width);
      spans.forEach(([span, share], i) => {
        if (natural[i] > 0) span.style.transform = `scaleX(${(share * width) / natural[i]})`;
      });
      page.dataset.text = "shown";
    } catch {
      page.dataset.text = "";
    }
  }

  const nearby = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) if (entry.isIntersecting) load(entry.target);
    },
    { rootMargin: "100% 0px" },
  );
  pages.forEach((page) => nearby.observe(page));

  function currentPage() {
    const line = window.innerHeight / 2;
    const page = pages.find((p) => p.getBoundingClientRect().bottom > line);
    return page ? Number(page.dataset.page) : 1;
  }

  function goTo(number) {
    const page = pages[Math.min(Math.max(1, number), pages.length) - 1];
    if (!page) return;
    page.scrollIntoView({ block: "start" });
    pageInput.value = page.dataset.page;
  }

  let framed = false;
  window.addEventListener(
    "scroll",
    () => {
      if (framed || !pageInput) return;
      framed = true;
      requestAnimationFrame(() => {
        framed = false;
        if (document.activeElement !== pageInput) pageInput.value = String(currentPage());
      });
    },
    { passive: true },
  );

  function setZoom(value) {
    const page = currentPage();
    const before = pages[page - 1].getBoundingClientRect();
    const along = before.height ? -before.top / before.height : 0;
    zoom = value;
    pageBox.style.setProperty("--reader-zoom", String(zoom));
    zoomOutput.textContent = `${Math.round(zoom * 100)}%`;
    const after = pages[page - 1].getBoundingClientRect();
    window.scrollBy(0, after.top + along * after.height);
    for (const p of pages) {
      const box = p.getBoundingClientRect();
      if (box.bottom > -window.innerHeight && box.top < 2 * window.innerHeight) load(p);
    }
  }

  function step(direction) {
    const index = ZOOMS.findIndex((z) => z >= zoom - 1e-6);
    const next = ZOOMS[Math.min(Math.max(0, (index < 0 ? ZOOMS.length - 1 : index) + direction), ZOOMS.length - 1)];
    setZoom(next);
  }

  if (root) {
    root.addEventListener("click", (event) => {
      const action = event.target.closest("[data-action]")?.dataset.action;
      if (action === "previous") goTo(currentPage() - 1);
      else if (action === "next") goTo(currentPage() + 1);
      else if (action === "zoom-in") step(1);
      else if (action === "zoom-out") step(-1);
      else if (action === "fit") setZoom(1);
    });
    pageInput.addEventListener("change", () => goTo(Number(pageInput.value) || 1));
    pageInput.addEventListener("keydown", (event) => {
      if (event.key === "Enter") goTo(Number(pageInput.value) || 1);
    });
  }

  /* ---------- the cited passage ---------- */

  function clearEvidence() {
    for (const mark of document.querySelectorAll("[data-evidence]")) {
      if (mark.tagName === "MARK") {
        const parent = mark.parentNode;
        mark.replaceWith(...mark.childNodes);
        parent.normalize();
      } else mark.remove();
    }
    for (const page of pages) page.classList.remove("reader-cited");
    say("");
  }

  function marksOf(page) {
    let layer = page.querySelector(".reader-marks");
    if (!layer) {
      layer = document.createElement("div");
      layer.className = "reader-marks";
      page.append(layer);
    }
    return layer;
  }

  function markPages(evidence, boxes, className) {
    let first = null;
    for (const box of boxes) {
      const page = pages[box.page - 1];
      if (!page) continue;
      const mark = document.createElement("div");
      mark.className = className;
      mark.dataset.evidence = evidence.chunk_id;
      mark.style.left = `${box.x0 * 100}%`;
      mark.style.top = `${box.y0 * 100}%`;
      mark.style.width = `${(box.x1 - box.x0) * 100}%`;
      mark.style.height = `${(box.y1 - box.y0) * 100}%`;
      marksOf(page).append(mark);
      first = first || mark;
    }
    return first;
  }

  /** Scroll so that the marks on one page are in the middle of the view, or start at its
   * top (below the toolbar) when they are taller than it. */
  function reveal(marks) {
    const boxes = marks.map((mark) => mark.getBoundingClientRect());
    const top = Math.min(...boxes.map((b) => b.top));
    const bottom = Math.max(...boxes.map((b) => b.bottom));
    const bar = root.querySelector(".reader-bar").getBoundingClientRect().height + 16;
    const room = window.innerHeight - bar;
    const target = bottom - top > room ? top - bar : (top + bottom) / 2 - bar - room / 2;
    window.scrollBy(0, target);
  }

  function markAbstract(evidence) {
    const paragraphs = abstract ? [...abstract.querySelectorAll("p")] : [];
    const focused = Array.isArray(evidence.focus_abstract) && evidence.focus_abstract.length;
    const ranges = [...((focused ? evidence.focus_abstract : evidence.abstract) || [])].sort((a, b) => b[0] - a[0] || b[1] - a[1]);
    let first = null;
    for (const [index, start, end] of ranges) {
      const text = paragraphs[index]?.firstChild;
      if (!text || text.nodeType !== Node.TEXT_NODE || end > text.length) continue;
      const range = document.createRange();
      range.setStart(text, start);
      range.setEnd(text, end);
      const mark = document.createElement("mark");
      if (focused) mark.className = "reader-focus";
      mark.dataset.evidence = evidence.chunk_id;
      range.surroundContents(mark);
      first = mark;
    }
    if (first) first.scrollIntoView({ block: "center" });
    else if (abstract) abstract.scrollIntoView({ block: "start" });
  }

  function outlinePage(evidence, why) {
    const page = pages[(evidence.page || 1) - 1];
    if (!page) return;
    page.classList.add("reader-cited");
    page.scrollIntoView({ block: "start" });
    pageInput.value = page.dataset.page;
    say(`${why} It is on page ${page.dataset.page}.`);
  }

  /** The reader's query for a passage and the words quoted from it (`&quote=`, if any). */
  function evidenceQuery(chunkId, quote) {
    const query = new URLSearchParams({ chunk: chunkId });
    if (quote) query.set("quote", quote.slice(0, MAX_QUOTE));
    return query;
  }

  async function showEvidence(chunkId, quote) {
    let evidence;
    const query = evidenceQuery(chunkId, quote);
    try {
      const response = await fetch(`${EVIDENCE}?${query}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      evidence = await response.json();
    } catch {
      say("This passage is no longer in the index.");
      return;
    }
    if (evidence.paper_id !== PAPER) {
      location.assign(`${paperPath(evidence.paper_id)}?${query}#reader`);
      return;
    }
    clearEvidence();
    const address = new URL(location.href);
    address.search = new URLSearchParams([...address.searchParams.entries()].filter(([k]) => k !== "chunk" && k !== "quote").concat([...query.entries()])).toString();
    history.replaceState(history.state, "", address);
    if (evidence.kind === "abstract") {
      markAbstract(evidence);
    } else if (!root) {
      say(`The passage is on page ${evidence.page} of the PDF, which this server does not hold.`);
    } else if (evidence.boxes === null) {
      outlinePage(evidence, "This index did not record where the passage lies on its page.");
    } else {
      const first = markPages(evidence, evidence.boxes, "reader-mark");
      const focus = markPages(evidence, evidence.focus || [], "reader-mark reader-focus");
      if (!first) outlinePage(evidence, "The passage was not found on its page.");
      else {
        const page = (focus || first).closest(".reader-page");
        reveal([...page.querySelectorAll(focus ? ".reader-focus" : ".reader-mark")]);
        load(page);
        pageInput.value = page.dataset.page;
      }
    }
  }

  window.addEventListener("paperchat:evidence", (event) => {
    const chunk = event.detail && event.detail.chunk;
    const quote = event.detail && typeof event.detail.quote === "string" ? event.detail.quote : null;
    if (typeof chunk === "string" && chunk) showEvidence(chunk, quote);
  });

  const params = new URLSearchParams(location.search);
  const asked = params.get("chunk");
  if (asked) showEvidence(asked, params.get("quote"));
})();

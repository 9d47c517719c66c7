/*
 * paperchat dock: a chat panel over the papers of a paperchat server.
 *
 *   <script src="https://HOST/dock.js" data-paper="2007.01282" data-api-key="pc_..."></script>
 *
 * The attributes are optional: `data-paper` scopes questions to one paper, `data-author`
 * (the app's author pages) to one author's papers, until the reader unticks the scope. The panel mounts in a shadow root, so the page's CSS and
 * the dock's never meet, and talks to the server dock.js came from: with the browser
 * session (cookies) or, when given, the API key. Everything shown from the model or from
 * papers is put in text nodes; nothing is parsed as HTML. Citations become chips only in
 * the form the server's citation guard emits and only for the answer's sources; links in
 * answers are links only to this server and arXiv (any other shows its domain, as text).
 * A signed-in reader may drop a PDF on the panel (or pick one with "Add a PDF"): it is
 * uploaded, read by the server, listed under "Your PDFs" with a link to its own reader, and
 * questions may then be asked of it alone; its citations open that reader. `data-upload`
 * (the app's page of an upload) scopes questions to that upload.
 */
(() => {
  "use strict";

  const script = document.currentScript;
  if (!script || !script.src || document.querySelector("paperchat-dock")) return;

  const ORIGIN = new URL(script.src, location.href).origin;
  const PAPER = (script.dataset.paper || "").trim();
  const AUTHOR = PAPER ? "" : (script.dataset.author || "").trim();
  const UPLOAD = (script.dataset.upload || "").trim();
  const API_KEY = (script.dataset.apiKey || "").trim();
  const OPEN_KEY = "paperchat.dock.open";
  const CONVERSATION_KEY = "paperchat.dock.conversation";
  const READING_POLL_MS = 5000;
  const UPLOAD_POLL_MS = 1000;

  const CSS = `
:host { all: initial; }
.root {
  all: initial; display: block;
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --bg: #ffffff; --surface: #f5f6fa; --text: #1b1d23; --muted: #5b6070; --border: #dfe2ea;
  --accent: #2f5bd3; --accent-text: #ffffff; --chip: #e8eefc; --user: #2f5bd3; --user-text: #fff;
  --danger: #b42318; --focus: #f0a500;
  color: var(--text);
}
@media (prefers-color-scheme: dark) {
  .root {
    --bg: #171a20; --surface: #21252e; --text: #e7e9ee; --muted: #a2a8b6; --border: #343a47;
    --accent: #8aa8ff; --accent-text: #10131a; --chip: #2a3350; --user: #3a4f8f; --user-text: #fff;
    --danger: #ff8a80;
  }
}
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
button, input, textarea { font: inherit; color: inherit; margin: 0; }
button { cursor: pointer; }
button:disabled { cursor: default; opacity: 0.55; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.visually-hidden {
  position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}
.launcher {
  position: fixed; right: 20px; bottom: 20px; z-index: 2147483600;
  display: inline-flex; align-items: center; gap: 8px; padding: 12px 20px; border: 0;
  border-radius: 999px; background: var(--accent); color: var(--accent-text); font-weight: 650;
  box-shadow: 0 6px 24px rgba(0, 0, 0, 0.22);
}
.launcher .unread {
  min-width: 1.5em; padding: 1px 6px; border-radius: 999px; background: var(--bg);
  color: var(--accent); font-size: 0.85em; text-align: center;
}
.unread-link { display: block; margin: 8px 16px 0; font-weight: 600; }
.panel {
  position: fixed; top: 0; right: 0; bottom: 0; width: 420px; max-width: 100vw;
  z-index: 2147483601; display: flex; flex-direction: column; background: var(--bg);
  border-left: 1px solid var(--border); box-shadow: -8px 0 32px rgba(0, 0, 0, 0.14);
}
@media (max-width: 640px) {
  .panel { left: 0; width: 100vw; border-left: 0; }
  /* A page with an opener of its own (the reader's toolbar) keeps its text uncovered. */
  :host([data-page-opener]) .launcher { display: none; }
}
.head {
  display: flex; align-items: center; gap: 6px; padding: 10px 12px;
  border-bottom: 1px solid var(--border);
}
.head h2 { flex: 1; margin: 0; font-size: 16px; font-weight: 700; }
.ghost {
  background: transparent; border: 1px solid var(--border); border-radius: 8px; padding: 4px 10px;
  font-size: 13px;
}
.ghost:hover { background: var(--surface); }
.primary {
  background: var(--accent); color: var(--accent-text); border: 1px solid var(--accent);
  border-radius: 8px; padding: 8px 14px; font-weight: 650;
}
.view { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.pad { padding: 16px; overflow: auto; }
.reading { padding: 4px 16px; }
.related { padding: 6px 16px 0; }
.form { display: grid; gap: 10px; }
.form label { display: grid; gap: 4px; font-size: 13px; font-weight: 600; }
.form input, .composer textarea {
  width: 100%; border: 1px solid var(--border); border-radius: 8px; padding: 8px 10px;
  background: var(--bg); font-weight: 400;
}
.row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.note { color: var(--muted); font-size: 13px; margin: 0; }
.alert { color: var(--danger); font-size: 13px; margin: 0; }
.scope {
  display: flex; align-items: center; gap: 8px; padding: 8px 16px; font-size: 13px;
  border-bottom: 1px solid var(--border); background: var(--surface);
}
.log {
  position: relative; flex: 1; min-height: 0; overflow-y: auto; padding: 16px; display: grid; gap: 14px;
  align-content: start;
}
.empty { color: var(--muted); font-size: 14px; margin: 0; }
.msg { display: grid; grid-template-columns: minmax(0, 1fr); gap: 6px; min-width: 0; }
.user { justify-items: end; }
.bubble {
  background: var(--user); color: var(--user-text); border-radius: 14px 14px 4px 14px;
  padding: 8px 12px; max-width: 88%; white-space: pre-wrap; overflow-wrap: anywhere;
}
.answer { overflow-wrap: anywhere; }
.answer > :first-child { margin-top: 0; }
.answer > :last-child { margin-bottom: 0; }
.answer p, .answer ul, .answer ol, .answer pre { margin: 0 0 8px; }
.answer h3, .answer h4, .answer h5, .answer h6 { margin: 10px 0 4px; font-size: 15px; }
.answer pre { background: var(--surface); padding: 8px; border-radius: 6px; overflow-x: auto; }
.answer code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
.pending::after { content: "…"; color: var(--muted); }
.quote-refs { color: var(--muted); font-size: 12px; }
.cite {
  display: inline-block; padding: 0 6px; margin: 0 1px; border-radius: 999px; background: var(--chip);
  font-size: 12px; font-weight: 600; text-decoration: none; vertical-align: 1px; line-height: 1.6;
}
.cite:hover { text-decoration: underline; }
.carried {
  justify-self: start; display: inline-flex; align-items: center; gap: 2px; max-width: 100%;
  padding: 1px 2px 1px 10px; border-radius: 999px; background: var(--chip); font-size: 12px;
}
.carried span { min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.carried button {
  border: 0; background: none; color: inherit; cursor: pointer; font-size: 14px; line-height: 1;
  padding: 2px 6px; border-radius: 999px;
}
.carried button:hover, .carried button:focus-visible { background: var(--border); }
.namesake {
  display: grid; gap: 6px; padding: 8px 10px; border: 1px solid var(--border); border-radius: 8px;
  background: var(--surface); font-size: 13px;
}
.namesake p { margin: 0; }
.namesake ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 4px; }
.namesake li button {
  width: 100%; text-align: left; background: var(--bg); border: 1px solid var(--border);
  border-radius: 6px; padding: 4px 8px; font-size: 13px; line-height: 1.4;
}
.namesake li button:hover { border-color: var(--accent); }
.namesake .more { justify-self: start; }
.tip {
  position: fixed; z-index: 2147483602; width: max-content; max-width: min(320px, 92vw);
  background: var(--bg); border: 1px solid var(--border); border-radius: 8px; padding: 8px 10px;
  box-shadow: 0 8px 24px rgba(0, 0, 0, 0.2); font-size: 13px; pointer-events: none;
}
.tip strong { display: block; }
.tip .where { color: var(--muted); }
.tip .snippet { margin: 4px 0 0; }
.status { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.sources { font-size: 13px; }
.sources summary { cursor: pointer; color: var(--muted); font-weight: 600; }
.sources ol { margin: 6px 0 0; padding-left: 22px; display: grid; gap: 6px; }
.sources .where { display: block; color: var(--muted); font-size: 12px; }
.sources .passages { list-style: none; margin: 2px 0 0; padding: 0 0 0 10px; border-left: 2px solid var(--border); display: grid; gap: 2px; }
.sources .passages li { color: var(--muted); font-size: 12px; }
.save-toggle { font-size: 12px; padding: 2px 8px; margin-top: 2px; }
.save-to { margin-top: 4px; font-size: 12px; }
.save-to input { font: inherit; min-width: 0; flex: 1 1 8em; padding: 3px 6px; }
.scope select { font: inherit; min-width: 0; max-width: 60%; }
.refusal-note { font-weight: 600; margin: 0; }
.composer { border-top: 1px solid var(--border); padding: 10px 12px; display: grid; gap: 8px; }
.composer textarea { resize: vertical; min-height: 64px; max-height: 40vh; }
.form input, .composer textarea { font-size: 16px; } /* phones zoom into smaller fields */
.foot {
  display: flex; align-items: center; gap: 8px; padding: 8px 12px; border-top: 1px solid var(--border);
  font-size: 13px; color: var(--muted);
}
.foot .who { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.history { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; }
.history button {
  width: 100%; text-align: left; background: var(--surface); border: 1px solid var(--border);
  border-radius: 8px; padding: 8px 10px;
}
.history time { display: block; color: var(--muted); font-size: 12px; }
.sessions li { display: flex; gap: 8px; align-items: center; justify-content: space-between; }
.sessions li span { overflow-wrap: anywhere; }
.compare-open { margin-top: 8px; }
.panel.wide { width: min(980px, 100vw); }
/* The table takes the panel's width, its columns narrowing to fit; past that (many aspects,
   a phone) it scrolls sideways, from the keyboard too, with the papers' column kept. */
.compare-wrap {
  overflow-x: auto; max-width: 100%; border: 1px solid var(--border); border-radius: 8px;
  margin: 10px 0; scrollbar-width: thin; scrollbar-color: var(--border) transparent;
}
.compare-wrap:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
table.compare { border-collapse: collapse; font-size: 13px; line-height: 1.45; width: 100%; }
table.compare th, table.compare td {
  padding: 6px 8px; border-bottom: 1px solid var(--border); text-align: left; vertical-align: top;
  min-width: 104px; max-width: 280px; overflow-wrap: anywhere; hyphens: auto;
}
table.compare thead th { position: sticky; top: 0; background: var(--surface); }
table.compare tbody th, table.compare thead th:first-child {
  position: sticky; left: 0; z-index: 1; background: var(--surface); min-width: 120px; font-weight: 600;
}
.compare-progress { font-variant-numeric: tabular-nums; }
table.compare td a { color: inherit; text-decoration: none; border-bottom: 1px dotted var(--accent); }
table.compare td a:hover { border-bottom-style: solid; }
table.compare td .note { font-style: italic; }
.uploads { display: grid; gap: 4px; padding: 8px 16px; border-bottom: 1px solid var(--border); font-size: 13px; }
.uploads .row { gap: 6px 10px; }
.uploads details summary { cursor: pointer; color: var(--muted); font-weight: 600; }
.upload-list { list-style: none; margin: 4px 0 0; padding: 0; display: grid; gap: 6px; max-height: 30vh; overflow-y: auto; }
.upload-list li { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 2px 8px; align-items: center; }
.upload-list .title { font-weight: 600; overflow-wrap: anywhere; }
.upload-list .note { grid-column: 1; }
.upload-list li > button { grid-column: 2; grid-row: 1 / span 2; }
.upload-status:empty { display: none; }
.upload-status button { margin-left: 6px; }
.failed { color: var(--danger); }
.panel.dropping { outline: 3px dashed var(--accent); outline-offset: -6px; }
.panel.dropping::after {
  content: "Drop the PDF to upload it"; position: absolute; inset: 0; display: grid; place-items: center;
  background: color-mix(in srgb, var(--bg) 85%, transparent); color: var(--accent); font-weight: 700;
  font-size: 18px; pointer-events: none;
}
`;

  /* ---------- small helpers ---------- */

  /** An element with properties, attributes and children (strings become text nodes). */
  function h(tag, props, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value == null || value === false) continue;
      if (key === "class") el.className = value;
      else if (key === "text") el.textContent = value;
      else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else if (value === true) el.setAttribute(key, "");
      else el.setAttribute(key, String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child == null || child === false) continue;
      el.append(child instanceof Node ? child : String(child));
    }
    return el;
  }

  function stored(storage, key) {
    try {
      return window[storage].getItem(key);
    } catch {
      return null;
    }
  }

  function store(storage, key, value) {
    try {
      if (value == null) window[storage].removeItem(key);
      else window[storage].setItem(key, value);
    } catch {
      /* storage may be blocked; the dock works without it */
    }
  }

  /** A paper's page: at `path`, the canonical one the API gives (`/papers/<id>-<title-slug>`),
   * else by its id (which the server redirects there). */
  function paperUrl(id, path) {
    if (typeof path === "string" && path.startsWith("/papers/")) return ORIGIN + path;
    return `${ORIGIN}/papers/${encodeURIComponent(id).replace(/%2F/gi, "/")}`;
  }

  /* ---------- related papers (on a paper's page) ---------- */

  /** The line "Related: A · B · C" under the scope; hidden until `loadRelated` fills it. */
  function relatedNote() {
    return h("p", { class: "note related", hidden: true, "data-related": "" });
  }

  /** The paper's related papers (/api/papers/{id}/related), each linked to its page, the
   * reasons in its tooltip; the line stays hidden when there are none or the call fails. */
  async function loadRelated(line) {
    if (!PAPER) return;
    let found;
    try {
      found = (await call(`/api/papers/${encodeURIComponent(PAPER).replace(/%2F/gi, "/")}/related`)).related;
    } catch {
      return;
    }
    const shown = found.slice(0, 3);
    if (!shown.length) return;
    // Papers of one name ("MUSE: ...", "MUSE: ...") would all read "MUSE": then whole titles.
    const short = shown.map((paper) => shortTitle(paper.title));
    const whole = (title) => (title.length <= 44 ? title : `${title.slice(0, 42).trimEnd()}\u2026`);
    const labels = new Set(short).size < short.length ? shown.map((paper) => whole(String(paper.title))) : short;
    const links = shown.flatMap((paper, i) => [
      i ? " · " : "",
      h("a", { href: paperUrl(paper.id, paper.path), title: paper.reasons.join("; "), text: labels[i] }),
    ]);
    line.replaceChildren("Related: ", ...links);
    line.hidden = false;
  }

  /* ---------- the API ---------- */

  const state = {
    user: null,
    csrf: null,
    allowSignup: false,
    conversationId: null,
    controller: null,
    scoped: Boolean(PAPER || AUTHOR),
    // The signed-in user's collections ({id, name}), the oldest first, and the one questions
    // are answered from ("" for none: the page's scope, else every paper).
    collections: [],
    collectionId: "",
    // The signed-in user's uploads (as `GET /api/uploads` lists them), and the one questions
    // are asked of ({id, title, libraryId}; null for none).
    uploads: [],
    upload: null,
  };

  class HttpError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  function request(path, { method = "GET", body, signal, accept } = {}) {
    const headers = {};
    if (accept) headers.Accept = accept;
    const form = body instanceof FormData;
    if (body !== undefined && !form) headers["Content-Type"] = "application/json";
    if (API_KEY) headers.Authorization = `Bearer ${API_KEY}`;
    else if (state.csrf && method !== "GET") headers["X-CSRF-Token"] = state.csrf;
    return fetch(ORIGIN + path, {
      method,
      headers,
      body: body === undefined || form ? body : JSON.stringify(body),
      signal,
      credentials: API_KEY ? "omit" : "include",
      cache: "no-store",
    });
  }

  async function failure(response) {
    let detail = "";
    try {
      detail = (await response.json()).detail;
    } catch {
      /* not JSON */
    }
    const text = typeof detail === "string" && detail ? detail : `HTTP ${response.status}`;
    return new HttpError(response.status, text);
  }

  /**
   * Why a request that never got an answer failed, in words: from a page on another origin
   * that the server does not allow (PAPERCHAT_CORS_ORIGINS), the browser hides the answer
   * and says only "Failed to fetch". A request the browser does not read (no-cors) tells
   * whether the server is there at all.
   */
  async function unreachable(error) {
    if (error instanceof HttpError) return error.message;
    if (location.origin !== ORIGIN) {
      try {
        await fetch(`${ORIGIN}/api/health`, { mode: "no-cors", credentials: "omit", cache: "no-store" });
        return `paperchat at ${ORIGIN} does not allow this site: add ${location.origin} to PAPERCHAT_CORS_ORIGINS on that server.`;
      } catch {
        /* not there either */
      }
    }
    return `Cannot reach paperchat at ${ORIGIN}.`;
  }

  async function call(path, options) {
    const response = await request(path, options);
    if (!response.ok) throw await failure(response);
    return response.status === 204 ? null : response.json();
  }

  /** Calls `onEvent(name, data)` for each event of a `text/event-stream` response body. */
  async function readEvents(response, onEvent) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const boundary = /\r\n\r\n|\n\n|\r\r/;
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let match;
      while ((match = boundary.exec(buffer))) {
        const block = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        let name = "message";
        const data = [];
        for (const line of block.split(/\r\n|\r|\n/)) {
          if (!line || line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const rest = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") name = rest;
          else if (field === "data") data.push(rest);
        }
        if (data.length) onEvent(name, JSON.parse(data.join("\n")));
      }
    }
  }

  /* ---------- markdown, safely: DOM nodes only ---------- */

  // The one form of a citation the server's citation guard emits: `[arXiv:<id>]` or
  // `[doc:<id>]`. The server writes its own pattern here when it serves this file.
  const CITATION_PATTERN = "__PAPERCHAT_CITATION_PATTERN__";
  // The longest question the server takes (PAPERCHAT_MAX_QUESTION_CHARS), filled in by it.
  const MAX_QUESTION_CHARS = "__PAPERCHAT_MAX_QUESTION_CHARS__";
  const CITATION = new RegExp(`^${CITATION_PATTERN}$`);
  const INLINE = new RegExp(
    [
      "(?<ticks>`+)(?<code>[^`]+?)\\k<ticks>",
      "\\*\\*(?<strong>[^*]+?)\\*\\*",
      "__(?<underscored>[^_]+?)__",
      "\\*(?<em>[^*\\s][^*]*?)\\*",
      `(?<cite>${CITATION_PATTERN})`,
      "\\[(?<label>[^\\]]+)\\]\\((?<href>[^\\s)]+)\\)",
    ].join("|"),
    "g",
  );
  // A link target that is a web address (absolute, or a path on this server); any other
  // written link stays as written.
  const LINKABLE = /^(?:https?:\/\/|\/)/i;
  const LIST_ITEM = /^\s*([-*+]|\d+[.)])\s+(.*)$/;
  const FENCE = /^\s*```/;

  /**
   * Inline markdown; `cites` is the answer's sources, the `quotes` of its `done` event (each
   * citation in the order written: the passage it quotes and its words) and how many
   * citations were drawn so far, so the n-th chip opens the passage its words come from.
   */
  function inline(text, cites) {
    const out = [];
    let last = 0;
    for (const m of text.matchAll(INLINE)) {
      const g = m.groups;
      if (m.index > last) out.push(text.slice(last, m.index));
      if (g.ticks) out.push(h("code", { text: g.code }));
      else if (g.strong != null) out.push(h("strong", {}, inline(g.strong, cites)));
      else if (g.underscored != null) out.push(h("strong", {}, inline(g.underscored, cites)));
      else if (g.em != null) out.push(h("em", {}, inline(g.em, cites)));
      else if (g.cite != null) out.push(citation(g.cite, cites));
      else out.push(modelLink(m[0], g.label, g.href));
      last = m.index + m[0].length;
    }
    if (last < text.length) out.push(text.slice(last));
    return out;
  }

  /**
   * A link the answer wrote: live only to this server's pages and arxiv.org. Any other is
   * its text and the site's domain, not clickable, so an abstract that fooled the model
   * cannot plant a link to anywhere else in the panel.
   */
  function modelLink(written, label, href) {
    if (!LINKABLE.test(href)) return written;
    let url;
    try {
      url = new URL(href, ORIGIN);
    } catch {
      return written;
    }
    const arxiv = url.hostname === "arxiv.org" || url.hostname.endsWith(".arxiv.org");
    if (url.origin === ORIGIN || (arxiv && /^https?:$/.test(url.protocol))) {
      return h("a", { href: url.href, target: "_blank", rel: "noopener noreferrer" }, label);
    }
    return h("span", { class: "offsite" }, `${label} (${url.hostname})`);
  }

  function renderMarkdown(text, sources, quotes = []) {
    const cites = { sources, quotes: Array.isArray(quotes) ? quotes : [], drawn: 0 };
    const fragment = document.createDocumentFragment();
    const lines = text.split(/\r\n|\r|\n/);
    let paragraph = [];
    const flush = () => {
      if (paragraph.length) fragment.append(h("p", {}, inline(paragraph.join(" "), cites)));
      paragraph = [];
    };
    for (let i = 0; i < lines.length; ) {
      const line = lines[i];
      if (FENCE.test(line)) {
        flush();
        const code = [];
        for (i += 1; i < lines.length && !FENCE.test(lines[i]); i += 1) code.push(lines[i]);
        fragment.append(h("pre", {}, h("code", { text: code.join("\n") })));
        i += 1;
        continue;
      }
      const heading = /^(#{1,6})\s+(.*)$/.exec(line);
      const item = LIST_ITEM.exec(line);
      if (heading) {
        flush();
        fragment.append(h(`h${Math.min(6, heading[1].length + 2)}`, {}, inline(heading[2], cites)));
        i += 1;
      } else if (item) {
        flush();
        const ordered = /\d/.test(item[1]);
        const list = h(ordered ? "ol" : "ul");
        for (let m; i < lines.length && (m = LIST_ITEM.exec(lines[i])); i += 1) {
          if (/\d/.test(m[1]) !== ordered) break;
          list.append(h("li", {}, inline(m[2], cites)));
        }
        fragment.append(list);
      } else {
        if (line.trim()) paragraph.push(line.trim());
        else flush();
        i += 1;
      }
    }
    flush();
    return fragment;
  }

  /* ---------- citations: chips with the source on hover or focus ---------- */

  let tip = null;
  let pinned = null; // the question the conversation view keeps at its top

  /**
   * A chip for a citation of one of the answer's sources; any other stays text. It opens the
   * passage its quote names (with the quoted words, which the reader marks), else the
   * paper's first source.
   */
  function citation(written, cites) {
    const [, kind, id] = CITATION.exec(written);
    const first = cites.sources.find((s) => String(s.id) === id);
    if (!first) return written;
    const quote = cites.quotes[cites.drawn];
    cites.drawn += 1;
    let source = first;
    if (quote && String(quote.id) === id) {
      const passage = cites.sources.find((s) => String(s.chunk_id) === String(quote.chunk_id)) || first;
      source = { ...passage, quote: String(quote.text || "") };
    }
    const link = h("a", { class: "cite", href: evidenceUrl(source), "aria-describedby": "pc-tip" }, `${kind}:${id}`);
    link.addEventListener("click", (event) => openEvidence(event, source));
    const show = () => showTip(link, source);
    link.addEventListener("mouseenter", show);
    link.addEventListener("focus", show);
    link.addEventListener("mouseleave", hideTip);
    link.addEventListener("blur", hideTip);
    const followed = quote && String(quote.id) === id ? quoteReferences(quote.references) : null;
    return followed ? [link, followed] : link;
  }

  /**
   * The references the quoted words themselves cite ("[26]", "Karpukhin et al., 2020"), as
   * the done event's quote names them: " (cites [26] Dense passage retrieval…)", each linked
   * to its page when the library holds it; null when the words cite none.
   */
  function quoteReferences(references) {
    if (!Array.isArray(references) || !references.length) return null;
    const items = references.flatMap((reference, i) => {
      const label = `${reference.marker} ${shortTitle(String(reference.title || ""))}`;
      const item = reference.resolved_id
        ? h("a", { href: paperUrl(String(reference.resolved_id)), text: label })
        : h("span", { text: label });
      return [i ? "; " : null, item];
    });
    return h("span", { class: "quote-refs", "data-quote-references": "" }, " (cites ", items, ")");
  }

  function where(source) {
    const kind = String(source.kind || "").toLowerCase() === String(source.section || "").toLowerCase() ? null : source.kind;
    return [source.section, source.page ? `page ${source.page}` : null, kind].filter(Boolean).join(" · ");
  }

  function showTip(anchor, source) {
    tip.replaceChildren(
      h("strong", { text: source.title || source.id }),
      h("span", { class: "where", text: where(source) }),
      source.snippet ? h("p", { class: "snippet", text: source.snippet }) : null,
    );
    tip.hidden = false;
    const box = anchor.getBoundingClientRect();
    const width = tip.offsetWidth;
    const height = tip.offsetHeight;
    const left = Math.max(8, Math.min(box.left, window.innerWidth - width - 8));
    const below = box.bottom + 6 + height < window.innerHeight;
    tip.style.left = `${left}px`;
    tip.style.top = `${below ? box.bottom + 6 : Math.max(8, box.top - height - 6)}px`;
  }

  function hideTip() {
    if (tip) tip.hidden = true;
  }

  /** The sources by paper, in the order of each paper's best passage. */
  function byPaper(sources) {
    const papers = new Map();
    for (const source of sources) {
      const id = String(source.id);
      if (!papers.has(id)) papers.set(id, { id, title: source.title, path: source.path, passages: [] });
      papers.get(id).passages.push(source);
    }
    return [...papers.values()];
  }

  /** One entry per paper, its passages (where each is, the start of its text) under it. */
  function sourcesBox(sources) {
    const papers = byPaper(sources);
    const list = h("ol");
    for (const paper of papers) {
      const passages = h("ul", { class: "passages" });
      for (const source of paper.passages) {
        const page = source.page ? `page ${source.page}` : null;
        const place = [source.section, page].filter(Boolean).join(" · ") || (source.kind === "abstract" ? "Abstract" : "Passage");
        const snippet = String(source.snippet || "");
        const start = snippet.length > 90 ? `${snippet.slice(0, 90).trimEnd()}…` : snippet;
        const link = h("a", { href: evidenceUrl(source), onclick: (event) => openEvidence(event, source) }, start ? `${place}: ${start}` : place);
        passages.append(h("li", { "data-chunk": source.chunk_id || null }, link));
      }
      list.append(
        h(
          "li",
          { class: "paper-source", "data-paper": paper.id },
          h("a", { class: "paper-title", href: sourcePage(paper) }, paper.title || paper.id),
          h("span", { class: "where", text: uploadOf(paper.id) ? "Your PDF" : paper.id }),
          passages,
          state.user && !uploadOf(paper.id) ? saveTo(paper) : null,
        ),
      );
    }
    const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
    const label = `Sources: ${count(papers.length, "paper")}, ${count(sources.length, "passage")}`;
    return h("details", { class: "sources", open: true }, h("summary", {}, label), list, compareButton(papers));
  }

  /* ---------- collections: answering from one, saving a source's paper to one ---------- */

  let saveForms = 0;

  /** The user's collections, again from the server: the scope picker's options and the names
   * the Save to fields offer. */
  async function loadCollections() {
    if (!state.user) {
      state.collections = [];
    } else {
      try {
        state.collections = (await call("/api/collections")).collections.map((c) => ({ id: c.id, name: c.name }));
      } catch {
        state.collections = [];
      }
    }
    if (!state.collections.some((c) => c.id === state.collectionId)) state.collectionId = "";
    collectionPick.replaceChildren(
      h("option", { value: "" }, "none: the papers in scope"),
      ...state.collections.map((c) => h("option", { value: c.id, selected: c.id === state.collectionId }, c.name)),
    );
    collectionScope.hidden = !state.collections.length;
    collectionNames.replaceChildren(...state.collections.map((c) => h("option", { value: c.name })));
  }

  /** Save the paper to the collection named `name`, made when the user has none of that name. */
  async function saveToCollection(paperId, name) {
    let found = state.collections.find((c) => c.name === name);
    if (!found) {
      await loadCollections();
      found = state.collections.find((c) => c.name === name);
    }
    const id = found ? found.id : (await call("/api/collections", { method: "POST", body: { name } })).id;
    await call(`/api/collections/${encodeURIComponent(id)}/papers`, { method: "POST", body: { paper_id: paperId } });
    if (!found) await loadCollections();
  }

  /** "Save to…" under a source's paper: a field naming a collection (the user's offered; a new
   * name makes one) and Save. */
  function saveTo(paper) {
    saveForms += 1;
    const id = `pc-save-${saveForms}`;
    const title = paper.title || paper.id;
    const name = h("input", { id, list: "pc-collection-names", maxlength: "200", autocomplete: "off", placeholder: "a collection's name" });
    const status = h("span", { class: "note", role: "status" });
    const form = h(
      "form",
      { class: "save-to row", hidden: true },
      h("label", { for: id }, "Save to", h("span", { class: "visually-hidden", text: ` (${title})` })),
      name,
      h("button", { class: "ghost", type: "submit" }, "Save"),
      status,
    );
    const toggle = h(
      "button",
      { class: "ghost save-toggle", type: "button", "aria-expanded": "false" },
      "Save to…",
      h("span", { class: "visually-hidden", text: ` a collection: “${title}”` }),
    );
    toggle.addEventListener("click", () => {
      form.hidden = !form.hidden;
      toggle.setAttribute("aria-expanded", String(!form.hidden));
      if (!form.hidden) name.focus();
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const wanted = name.value.split(/\s+/).filter(Boolean).join(" ");
      if (!wanted) {
        status.textContent = "Name a collection to save this paper to.";
        return;
      }
      saveToCollection(String(paper.id), wanted).then(
        () => { status.textContent = `Saved to “${wanted}”.`; },
        (error) => { status.textContent = `Not saved: ${error.message}`; },
      );
    });
    return h("div", {}, toggle, form);
  }

  /* ---------- evidence: a citation or a source opens the paper's reader at its passage ---------- */

  // The longest quote the reader looks for in a passage, filled in by the server.
  const MAX_QUOTE = Number("__PAPERCHAT_MAX_QUOTE_CHARS__");

  /** The paper's page with the passage to show: `/papers/ID?chunk=CHUNK&quote=WORDS#reader`;
   * for a paper of the reader's own upload, that upload's reader. */
  function evidenceUrl(source) {
    const page = sourcePage(source);
    if (!source.chunk_id) return page;
    const quote = source.quote ? `&quote=${encodeURIComponent(source.quote.slice(0, MAX_QUOTE))}` : "";
    return `${page}?chunk=${encodeURIComponent(source.chunk_id)}${quote}#reader`;
  }

  /** Where a source's paper is read: its page, or the reader of the upload it is. */
  function sourcePage(source) {
    const upload = uploadOf(source.id);
    return upload ? uploadReader(upload) : paperUrl(source.id, source.path);
  }

  /**
   * On the cited paper's own page (this server's), the reader there shows the passage
   * without a page load; anywhere else the link navigates. On a phone the dock covers the
   * page, so it closes to show the passage (and stays closed on the next page).
   */
  function openEvidence(event, source) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (!source.chunk_id) return;
    const narrow = window.matchMedia("(max-width: 640px)").matches;
    if (narrow) store("localStorage", OPEN_KEY, "0");
    const here = ORIGIN === location.origin ? document.querySelector("[data-paper-page]") : null;
    if (!here || here.dataset.paperPage !== String(source.id)) return;
    event.preventDefault();
    hideTip();
    if (narrow) setOpen(false, { focus: false });
    const detail = { chunk: String(source.chunk_id), quote: source.quote ? source.quote.slice(0, MAX_QUOTE) : null };
    window.dispatchEvent(new CustomEvent("paperchat:evidence", { detail }));
  }

  /* ---------- one answer ---------- */

  class AnswerView {
    constructor() {
      this.text = "";
      this.sources = [];
      this.quotes = [];
      this.answer = h("div", { class: "answer pending" });
      this.status = h("div", { class: "status" });
      this.sourcesSlot = h("div");
      this.scopeSlot = h("div", { class: "msg" });
      this.namesakeSlot = h("div");
      this.root = h(
        "div",
        { class: "msg assistant", "aria-busy": "true" },
        this.scopeSlot,
        this.answer,
        this.namesakeSlot,
        this.status,
        this.sourcesSlot,
      );
      this.frame = 0;
    }

    add(text) {
      this.text += text;
      if (!this.frame) this.frame = requestAnimationFrame(() => this.render());
    }

    render() {
      if (this.frame) cancelAnimationFrame(this.frame);
      this.frame = 0;
      // A chip focused while the answer grows keeps the focus in the new rendering.
      const chips = () => [...this.answer.querySelectorAll("a.cite")];
      const focused = chips().indexOf(shadow.activeElement);
      this.answer.replaceChildren(renderMarkdown(this.text, this.sources, this.quotes));
      if (focused >= 0) chips()[focused]?.focus({ preventScroll: true });
      this.answer.classList.toggle("pending", !this.text && this.root.getAttribute("aria-busy") === "true");
      keepPinned();
    }

    setSources(sources) {
      this.sources = Array.isArray(sources) ? sources : [];
      this.sourcesSlot.replaceChildren(this.sources.length ? sourcesBox(this.sources) : "");
    }

    /**
     * The papers of the previous answer a follow-up was asked about, never silently: a chip
     * "about <title> ×" whose button asks the question again of the whole index.
     */
    setScope(scope, askAgain) {
      if (!scope || !scope.carried || !Array.isArray(scope.paper_ids) || !scope.paper_ids.length) return;
      const titles = scope.paper_ids.map((id, i) => (Array.isArray(scope.titles) && scope.titles[i]) || id);
      const label = `about ${titles.map(shortTitle).join(", ")}`;
      const remove = h(
        "button",
        { type: "button", "aria-label": "Ask again about all papers, not only these", title: "Ask again about all papers" },
        "\u00d7",
      );
      remove.addEventListener("click", askAgain);
      const chip = h("p", { class: "carried", title: `Asked about: ${titles.join("; ")}` }, h("span", { text: label }), remove);
      this.scopeSlot.replaceChildren(chip);
    }

    /** The question asked about one paper, as its reader chose among a name's readings. */
    setPinned(paper) {
      const title = String(paper.title || paper.id);
      const chip = h("p", { class: "carried", title: `Asked about: ${title}` }, h("span", { text: `about \u201c${title}\u201d` }));
      this.scopeSlot.replaceChildren(chip);
    }

    /**
     * The paper the answer took a name to mean (the `done` event's `namesake`) and, as
     * buttons, the other papers of that name: `askAbout(paper)` asks the question again
     * about that one. The first few show; the rest behind "Show N more"; readings the event
     * does not list are counted and left to the search for the name.
     */
    setNamesake(namesake, askAbout) {
      if (!namesake || !Array.isArray(namesake.others) || !namesake.others.length) return;
      const name = String(namesake.name || "");
      const chosen = h("a", { href: paperUrl(String(namesake.paper)) }, String(namesake.title || namesake.paper));
      const heading = h("p", {}, `${name} was read as \u201c`, chosen, `\u201d. Another ${name}? Ask again about:`);
      const buttons = namesake.others.map((paper, i) => {
        const title = String(paper.title || paper.id);
        const button = h(
          "button",
          { type: "button", "data-paper": String(paper.id) },
          h("span", { class: "visually-hidden", text: "Ask again about " }),
          title,
        );
        button.addEventListener("click", () => askAbout({ id: String(paper.id), title }));
        return h("li", { hidden: i >= NAMESAKES_SHOWN }, button);
      });
      const hidden = buttons.filter((item) => item.hidden);
      const more = hidden.length
        ? h("button", { class: "ghost more", type: "button" }, `Show ${hidden.length} more`)
        : null;
      more?.addEventListener("click", () => {
        for (const item of hidden) item.hidden = false;
        more.remove();
        hidden[0].querySelector("button").focus();
      });
      const unlisted = Number(namesake.other_count) - namesake.others.length;
      const search = unlisted > 0
        ? h(
          "p",
          {},
          `${unlisted} more ${unlisted === 1 ? "paper is" : "papers are"} called ${name}: `,
          h("a", { href: `${ORIGIN}/?q=${encodeURIComponent(name)}` }, `search for ${name}`),
          ".",
        )
        : null;
      const group = h(
        "div",
        { class: "namesake", role: "group", "aria-label": `Other papers called ${name}` },
        heading,
        h("ul", {}, buttons),
        more,
        search,
      );
      this.namesakeSlot.replaceChildren(group);
    }

    note(text, className = "note") {
      this.status.append(h("p", { class: className, text }));
    }

    finish(done) {
      this.quotes = Array.isArray(done.quotes) ? done.quotes : [];
      if (isRefusal(done, this.sources)) {
        this.refuse();
        return;
      }
      if (done.mode === "extractive") this.note("Extractive answer: quoted from the sources, no model.");
      if (done.finish_reason === "length") this.note("The answer stopped at the length limit.");
      if (done.finish_reason === "cancelled") this.note("Stopped.");
      if (Array.isArray(done.dropped_citations) && done.dropped_citations.length) {
        this.note(`Citations removed (not among the sources): ${done.dropped_citations.join(", ")}`);
      }
    }

    /** Nothing relevant was found: said plainly, and no sources listed as if they were used. */
    refuse() {
      this.root.setAttribute("data-refused", "true");
      this.setSources([]);
      this.status.replaceChildren(h("p", { class: "refusal-note", text: "Nothing relevant was found in the papers." }));
    }

    fail(message, retry) {
      this.status.append(
        h("p", { class: "alert", role: "alert", text: `Error: ${message}` }),
        retry ? h("button", { class: "ghost", type: "button", onclick: retry }, "Retry") : null,
      );
    }

    end() {
      this.root.setAttribute("aria-busy", "false");
      this.render();
    }
  }

  // The other readings of a name shown at once under an answer; the rest behind a button.
  const NAMESAKES_SHOWN = 3;

  /** A title short enough for a chip: up to its colon, else its first words. */
  function shortTitle(title) {
    const text = String(title);
    const head = text.split(":")[0].trim();
    if (head.length >= 3 && head.length <= 40) return head;
    return text.length <= 40 ? text : `${text.slice(0, 38).trimEnd()}\u2026`;
  }

  /**
   * Whether an answer is a refusal: the server's `refused` when it sends one; otherwise an
   * answer with no sources, or an extractive one that quoted nothing (no citations).
   */
  function isRefusal(done, sources) {
    if (typeof done.refused === "boolean") return done.refused;
    const cited = Array.isArray(done.citations) && done.citations.length > 0;
    return !sources.length || (done.mode === "extractive" && !cited);
  }

  /* ---------- BibTeX of the papers an answer cites ---------- */

  /** Puts a "Copy BibTeX" button under an answer that cites papers: it fetches their BibTeX
   * (`GET /api/conversations/{cid}/messages/{mid}/bibtex`) and copies it to the clipboard. */
  function addBibtexButton(view, conversationId, messageId, cited) {
    // The reader's own PDFs have no BibTeX here: only the library's papers are counted.
    const citations = Array.isArray(cited) ? cited.filter((id) => !uploadOf(id)) : [];
    if (!conversationId || !messageId || !citations.length) return;
    const ids = [conversationId, messageId].map(encodeURIComponent);
    const path = `/api/conversations/${ids[0]}/messages/${ids[1]}/bibtex`;
    const button = h("button", { class: "ghost bibtex", type: "button" }, "Copy BibTeX");
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        const response = await request(path);
        if (!response.ok) throw await failure(response);
        const text = await response.text();
        if (!navigator.clipboard) throw new Error("the clipboard is not available on this page");
        await navigator.clipboard.writeText(text);
        button.textContent = "BibTeX copied";
        announce(`BibTeX of ${citations.length} cited ${citations.length === 1 ? "paper" : "papers"} copied.`);
      } catch (error) {
        view.note(`Cannot copy the BibTeX: ${error.message || "the request failed"}`, "alert");
      } finally {
        button.disabled = false;
      }
    });
    view.status.append(h("div", { class: "row" }, button));
  }

  /**
   * "Keep watch on this question" under a signed-in reader's answer to a question of its own
   * (not a follow-up): the question and the scope it was asked in are saved (`POST
   * /api/watches`), and papers that later answer it anew show in Latest for you.
   */
  function addWatchButton(view, question, asked) {
    if (!state.user) return;
    const button = h("button", { class: "ghost keep-watch", type: "button" }, "Keep watch on this question");
    button.addEventListener("click", async () => {
      button.disabled = true;
      const body = { question };
      for (const key of ["paper_ids", "author", "collection_id"]) if (asked[key] !== undefined) body[key] = asked[key];
      try {
        await call("/api/watches", { method: "POST", body });
        button.textContent = "Keeping watch";
        view.note("New papers that answer this question will show in Latest for you.");
        announce("Keeping watch on this question.");
      } catch (error) {
        button.disabled = false;
        view.note(`Cannot keep watch on it: ${error.message || "the request failed"}`, "alert");
      }
    });
    view.status.append(h("div", { class: "row" }, button));
  }

  function userMessage(text) {
    return h("div", { class: "msg user" }, h("div", { class: "bubble", text }));
  }

  /* ---------- comparing the papers of an answer ---------- */

  // The table being filled: its papers, the aspects its cells named so far (the server's
  // defaults: the dock asks for none), a row per paper, and the stream filling it.
  const compare = { papers: [], aspects: [], rows: new Map(), controller: null, filled: 0, onCell: null };

  /** "Compare these papers" under an answer's sources that name more than one paper. */
  function compareButton(papers) {
    if (papers.length < 2) return null;
    const chosen = papers.map((paper) => ({ id: paper.id, title: paper.title, path: paper.path }));
    return h("button", { class: "ghost compare-open", type: "button", onclick: () => openCompare(chosen) }, "Compare these papers");
  }

  /** The Compare view: the table (papers as rows, aspects as columns) and its downloads. */
  function compareSection() {
    compare.title = h("h3", { text: "Compare papers" });
    compare.status = h("p", { class: "note", role: "status" });
    // While the table fills: how many cells so far and for how long, each second; read by
    // sight only (the status above tells screen readers when the table is done).
    compare.progress = h("p", { class: "note compare-progress", "aria-hidden": "true", hidden: true });
    compare.scrollNote = h("p", { class: "note", hidden: true, text: "Scroll the table sideways for more columns." });
    compare.table = h("table", { class: "compare" });
    compare.wrap = h("div", { class: "compare-wrap", tabindex: "0", role: "group", "aria-label": "Comparison table" }, compare.table);
    const download = (format, label) => h("button", { class: "ghost", type: "button", onclick: () => downloadTable(format) }, label);
    return h(
      "section",
      { class: "view pad", "aria-label": "Compare papers", hidden: true },
      h("div", { class: "row" }, h("button", { class: "ghost", type: "button", onclick: () => showView("chat") }, "← Back")),
      compare.title,
      compare.status,
      compare.progress,
      compare.scrollNote,
      compare.wrap,
      h("div", { class: "row" }, download("csv", "Download CSV"), download("markdown", "Download Markdown")),
    );
  }

  /** Shows or hides the Compare view; leaving it stops the table filling. */
  function showCompare(shown) {
    compareView.hidden = !shown;
    panel.classList.toggle("wide", shown);
    if (!shown && compare.controller) compare.controller.abort();
  }

  /** Opens the Compare view and fills its table from `POST /api/compare`, cell by cell as the
   * server streams them. */
  async function openCompare(papers) {
    if (compare.controller) compare.controller.abort();
    const controller = new AbortController();
    Object.assign(compare, { papers, aspects: [], rows: new Map(), controller });
    compare.head = h("tr", {}, h("th", { scope: "col" }, "Paper"));
    const body = h("tbody");
    for (const paper of papers) {
      const title = h("a", { href: paperUrl(paper.id, paper.path), title: paper.title || paper.id }, shortTitle(paper.title || paper.id));
      const row = h("tr", { "data-paper": paper.id }, h("th", { scope: "row" }, title));
      compare.rows.set(paper.id, row);
      body.append(row);
    }
    compare.table.replaceChildren(h("thead", {}, compare.head), body);
    compare.title.textContent = `Compare ${papers.length} papers`;
    compare.status.textContent = "Filling the table…";
    const progress = tracking(controller);
    showView("compare");
    compareView.querySelector("button").focus();
    let ended = false;
    try {
      const request_ = { method: "POST", body: { paper_ids: papers.map((p) => p.id) }, signal: controller.signal, accept: "text/event-stream" };
      const response = await request("/api/compare", request_);
      if (!response.ok) throw await failure(response);
      await readEvents(response, (name, data) => {
        if (name === "cell") fillCell(data);
        else if (name === "done" || name === "error") {
          ended = true;
          compare.status.textContent = name === "error" ? `Error: ${data.message || "the table failed"}`
            : data.mode === "extractive" ? "Each cell is quoted from its paper (no model); a cell links to its passage."
              : "Each cell is answered from its paper's passages; a cell links to the paper.";
        }
      });
      if (!ended) compare.status.textContent = "The table was cut off.";
      announce(ended ? "Table complete." : "The table failed.");
    } catch (error) {
      if (!controller.signal.aborted) compare.status.textContent = `Error: ${await unreachable(error)}`;
    } finally {
      progress.stop();
      if (compare.controller === controller) compare.controller = null;
    }
  }

  /** The progress line while a table fills: "Reading the papers: 3 cells so far · 12 s",
   * each second and at each cell, until `stop` (or the fill is aborted). */
  function tracking(controller) {
    const started = Date.now();
    compare.filled = 0;
    const show = () => {
      const seconds = Math.round((Date.now() - started) / 1000);
      const cells = compare.filled === 1 ? "1 cell" : `${compare.filled} cells`;
      compare.progress.textContent = `Reading the papers: ${cells} so far · ${seconds} s`;
    };
    show();
    compare.progress.hidden = false;
    compare.onCell = show;
    const timer = setInterval(show, 1000);
    const stop = () => {
      clearInterval(timer);
      compare.progress.hidden = true;
      compare.onCell = null;
    };
    controller.signal.addEventListener("abort", stop);
    return { stop };
  }

  /** Whether the table is wider than the panel: then a note says it scrolls sideways. */
  function noteOverflow() {
    compare.scrollNote.hidden = compare.wrap.scrollWidth <= compare.wrap.clientWidth + 1;
  }

  /** The column of `aspect`, added (with an empty cell in every row) when it is new. */
  function aspectColumn(aspect) {
    const known = compare.aspects.indexOf(aspect);
    if (known >= 0) return known;
    compare.aspects.push(aspect);
    compare.head.append(h("th", { scope: "col", text: aspect }));
    for (const row of compare.rows.values()) row.append(h("td", { class: "pending" }));
    return compare.aspects.length - 1;
  }

  /** One streamed cell: its text, linked to the reader at its passage (a chunk id) or to
   * its paper (`[arXiv:ID]`); "not found in the paper" as a note, unlinked. */
  function fillCell(cell) {
    const row = compare.rows.get(String(cell.paper_id));
    if (!row) return;
    const td = row.children[1 + aspectColumn(String(cell.aspect))];
    const text = String(cell.text || "");
    td.classList.remove("pending");
    compare.filled += 1;
    if (compare.onCell) compare.onCell();
    requestAnimationFrame(noteOverflow);
    if (!cell.citation) {
      td.replaceChildren(h("span", { class: "note", text }));
      return;
    }
    const citation = String(cell.citation);
    const id = String(cell.paper_id);
    const paper = compare.papers.find((p) => p.id === id);
    const source = { id, path: paper && paper.path, chunk_id: citation.startsWith("[") ? null : citation, quote: text };
    td.replaceChildren(h("a", { href: evidenceUrl(source), title: citation, onclick: (event) => openEvidence(event, source) }, text));
  }

  /** Saves the table as the server writes it (`?format=csv` or `markdown`). */
  async function downloadTable(format) {
    if (!compare.papers.length) return;
    try {
      const body = { paper_ids: compare.papers.map((p) => p.id), aspects: compare.aspects };
      const response = await request(`/api/compare?format=${format}`, { method: "POST", body });
      if (!response.ok) throw await failure(response);
      const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
      const url = URL.createObjectURL(await response.blob());
      const link = h("a", { href: url, download: named ? named[1] : `comparison.${format === "csv" ? "csv" : "md"}`, hidden: true });
      shadow.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (error) {
      compare.status.textContent = `Cannot download the table: ${await unreachable(error)}`;
    }
  }

  /* ---------- your PDFs: uploading one, its progress, asking about it ---------- */

  /** The reader's ready upload whose paper is `id` (as sources and citations name it). */
  function uploadOf(id) {
    return state.uploads.find((u) => u.status === "ready" && u.doc_id && String(u.doc_id) === String(id)) || null;
  }

  /** Where an upload is read: its own reader, or the library paper's it is. */
  function uploadReader(upload) {
    if (upload.library_id) return `${paperUrl(String(upload.library_id))}#reader`;
    return `${ORIGIN}/uploads/${encodeURIComponent(upload.id)}/read`;
  }

  /** A link to the upload's reader; on a phone, where the dock covers the page, the dock
   * stays closed on the reader's page. */
  function readLink(upload, text, className) {
    const link = h("a", { class: className, href: uploadReader(upload) }, text);
    link.addEventListener("click", () => {
      if (window.matchMedia("(max-width: 640px)").matches) store("localStorage", OPEN_KEY, "0");
    });
    return link;
  }

  function uploadName(upload) {
    return String(upload.title || upload.filename || "your PDF");
  }

  /** How an upload stands, in words: "20 pages · ready", "being read…", "failed: <reason>". */
  function uploadState(upload) {
    if (upload.status === "processing") return "being read…";
    if (upload.status === "failed") return `not read: ${upload.reason || "the PDF could not be read"}`;
    const pages = upload.pages ? `${upload.pages} page${upload.pages === 1 ? "" : "s"} · ` : "";
    return `${pages}${upload.library_id ? "in the library" : "ready"}`;
  }

  /** The user's uploads again from the server, listed with links to their readers. */
  async function loadUploads() {
    if (!state.user) {
      state.uploads = [];
    } else {
      try {
        state.uploads = (await call("/api/uploads")).uploads;
      } catch {
        return; // the list stays as it was
      }
    }
    showUploads();
    if (UPLOAD && !state.upload) {
      const page = state.uploads.find((u) => u.id === UPLOAD && u.status === "ready");
      if (page) setUploadScope(page);
    }
    for (const upload of state.uploads) if (upload.status === "processing") watchUpload(upload.id);
  }

  function showUploads() {
    uploadCount.textContent = `Your PDFs (${state.uploads.length})`;
    uploadsBox.hidden = !state.uploads.length;
    uploadList.replaceChildren(...state.uploads.map(uploadItem));
  }

  function uploadItem(upload) {
    const name = uploadName(upload);
    const ready = upload.status === "ready";
    const title = ready ? readLink(upload, name, "title") : h("span", { class: "title", text: name });
    const said = h("span", { class: `note${upload.status === "failed" ? " failed" : ""}`, text: uploadState(upload) });
    const ask = ready ? askButton(upload) : null;
    return h("li", { "data-upload": upload.id, "data-status": upload.status }, title, said, ask);
  }

  /** "Ask about it": the next questions are asked of that upload alone. */
  function askButton(upload) {
    return h(
      "button",
      { class: "ghost", type: "button", onclick: () => askAboutUpload(upload) },
      "Ask about it",
      h("span", { class: "visually-hidden", text: ` \u201c${uploadName(upload)}\u201d` }),
    );
  }

  function askAboutUpload(upload) {
    setUploadScope(upload);
    showView("chat");
    question.focus();
  }

  /** Questions asked of `upload` alone (null: as before, the page's scope or every paper). */
  function setUploadScope(upload) {
    state.upload = upload ? { id: upload.id, title: uploadName(upload), libraryId: upload.library_id || null } : null;
    if (!upload) {
      uploadScope.hidden = true;
      uploadScope.replaceChildren();
      question.placeholder = "Ask about the papers\u2026";
      if (log.querySelector(".empty")) showEmpty();
      return;
    }
    const stop = h(
      "button",
      { class: "ghost", type: "button", "aria-label": "Ask about all the papers again, not only your PDF" },
      "\u00d7",
    );
    stop.addEventListener("click", () => {
      setUploadScope(null);
      announce("Questions are asked of the papers again.");
      question.focus();
    });
    uploadScope.replaceChildren(h("span", { text: `Only your PDF \u201c${state.upload.title}\u201d` }), stop);
    question.placeholder = "Ask about your PDF\u2026";
    log.querySelector(".empty")?.replaceWith(h("p", { class: "empty", text: "Ask anything about your PDF." }));
    uploadScope.hidden = false;
    announce(`Questions are now asked of your PDF \u201c${state.upload.title}\u201d.`);
  }

  function sayUpload(...parts) {
    uploadStatus.replaceChildren(...parts);
  }

  /** Upload `file` for the signed-in reader, then follow its reading; signed out, say to sign in. */
  async function uploadPdf(file) {
    if (!file) return;
    if (!state.user) {
      setOpen(true, { focus: false });
      showView("auth");
      authError.textContent = "Sign in to upload a PDF and ask about it.";
      email.focus();
      return;
    }
    setOpen(true, { focus: false });
    showView("chat");
    sayUpload(`Uploading \u201c${file.name}\u201d\u2026`);
    const form = new FormData();
    form.append("file", file, file.name);
    let upload;
    try {
      upload = await call("/api/uploads", { method: "POST", body: form });
    } catch (error) {
      sayUpload(h("span", { class: "failed", text: `\u201c${file.name}\u201d was not uploaded: ${await unreachable(error)}` }));
      return;
    }
    state.uploads = [upload, ...state.uploads.filter((u) => u.id !== upload.id)];
    showUploads();
    watchUpload(upload.id);
  }

  const watched = new Set();

  /** Ask how the upload's reading goes until it is ready or failed, saying so each time. */
  async function watchUpload(id) {
    if (watched.has(id)) return;
    watched.add(id);
    try {
      for (;;) {
        const known = state.uploads.find((u) => u.id === id);
        if (!known || !state.user) return;
        if (known.status !== "processing") {
          uploadDone(known);
          return;
        }
        sayUpload(`Reading \u201c${known.filename}\u201d\u2026`);
        await new Promise((resolve) => setTimeout(resolve, UPLOAD_POLL_MS));
        let now;
        try {
          now = await call(`/api/uploads/${encodeURIComponent(id)}`);
        } catch (error) {
          if (error.status === 404) state.uploads = state.uploads.filter((u) => u.id !== id);
          showUploads();
          if (error.status === 404) return;
          continue;
        }
        state.uploads = state.uploads.map((u) => (u.id === id ? now : u));
        showUploads();
      }
    } finally {
      watched.delete(id);
    }
  }

  function uploadDone(upload) {
    const name = uploadName(upload);
    if (upload.status === "failed") {
      sayUpload(h("span", { class: "failed", text: `\u201c${upload.filename}\u201d could not be read: ${upload.reason || "the PDF could not be read"}` }));
      return;
    }
    const pages = upload.pages ? `: ${upload.pages} page${upload.pages === 1 ? "" : "s"}` : "";
    const where = upload.library_id ? "is in the library" : `is ready${pages}`;
    sayUpload(
      `\u201c${name}\u201d ${where}. `,
      readLink(upload, "Read it"),
      " ",
      askButton(upload),
    );
  }

  /** Whether a drag carries files (a PDF dragged from the desktop). */
  function carriesFiles(event) {
    return Boolean(event.dataTransfer && [...(event.dataTransfer.types || [])].includes("Files"));
  }

  function takeDrops(target) {
    target.addEventListener("dragover", (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
      panel.classList.add("dropping");
    });
    target.addEventListener("dragleave", (event) => {
      if (!target.contains(event.relatedTarget)) panel.classList.remove("dropping");
    });
    target.addEventListener("drop", (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      panel.classList.remove("dropping");
      uploadPdf(event.dataTransfer.files[0]);
    });
  }

  /* ---------- the panel ---------- */

  const host = document.createElement("paperchat-dock");
  const shadow = host.attachShadow({ mode: "open" });
  const root = h("div", { class: "root" });
  if ("adoptedStyleSheets" in shadow && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    shadow.adoptedStyleSheets = [sheet];
  } else {
    shadow.append(h("style", { text: CSS }));
  }
  shadow.append(root);

  const launcher = h("button", { class: "launcher", type: "button", "aria-expanded": "false", "aria-controls": "pc-panel" }, "Ask paperchat");
  const heading = h("h2", { id: "pc-title", text: "paperchat" });
  const newChatButton = h("button", { class: "ghost", type: "button" }, "New chat");
  const historyButton = h("button", { class: "ghost", type: "button" }, "History");
  const closeButton = h("button", { class: "ghost", type: "button", "aria-label": "Close the chat panel" }, "✕");
  const announcer = h("div", { class: "visually-hidden", role: "status", "aria-live": "polite" });

  // Signed out: sign in (and sign up when the server allows it).
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const authError = h("p", { class: "alert", role: "alert" });
  const signupButton = h("button", { class: "ghost", type: "button", hidden: true }, "Create account");
  const authForm = h(
    "form",
    { class: "form" },
    h("p", { class: "note", text: "Sign in to ask questions about the papers." }),
    h("label", {}, "Email", email),
    h("label", {}, "Password", password),
    authError,
    h("div", { class: "row" }, h("button", { class: "primary", type: "submit" }, "Sign in"), signupButton),
  );
  const authView = h("section", { class: "view pad", "aria-label": "Sign in" }, authForm);

  // Signed in: the conversation.
  const scopeBox = h("input", { type: "checkbox", checked: true });
  const scope = h("label", { class: "scope" }, scopeBox, PAPER ? `Only this paper (${PAPER})` : `Only this author's papers (${AUTHOR})`);
  // Signed in with collections: answer only from one of them.
  const collectionPick = h("select", { id: "pc-collection" });
  const collectionScope = h("div", { class: "scope", hidden: true }, h("label", { for: "pc-collection" }, "Only from the collection"), collectionPick);
  const collectionNames = h("datalist", { id: "pc-collection-names" });
  const log = h("div", { class: "log", role: "log", "aria-live": "polite", "aria-label": "Conversation" });
  const question = h("textarea", { rows: "3", id: "pc-question", placeholder: "Ask about the papers…", maxlength: String(MAX_QUESTION_CHARS) });
  const sendButton = h("button", { class: "primary", type: "submit" }, "Send");
  const stopButton = h("button", { class: "ghost", type: "button", hidden: true }, "Stop");
  const composer = h(
    "form",
    { class: "composer" },
    h("label", { class: "visually-hidden", for: "pc-question" }, "Your question"),
    question,
    h("div", { class: "row" }, sendButton, stopButton, h("span", { class: "note", text: "Enter to send, Shift+Enter for a new line" })),
  );
  const who = h("span", { class: "who" });
  const signOutButton = h("button", { class: "ghost", type: "button" }, "Sign out");
  const accountButton = h("button", { class: "ghost", type: "button" }, "Account");
  // The PDF reading (from /api/health): "38 PDFs: 12 read" while it runs, "38 PDFs: 37 read,
  // 1 not read" after it, or "PDF reading stopped: ..." when it ended early.
  const reading = h("p", { class: "note reading", hidden: true });
  const related = relatedNote();
  // The reader's PDFs: "Add a PDF" (or a PDF dropped on the panel), how its reading goes (a
  // live region), the list of them, and the question's scope when asked of one.
  const uploadInput = h("input", { type: "file", accept: "application/pdf,.pdf", hidden: true, tabindex: "-1" });
  const addPdfButton = h("button", { class: "ghost", type: "button" }, "Add a PDF");
  const uploadStatus = h("p", { class: "note upload-status", role: "status", "aria-live": "polite" });
  const uploadCount = h("summary", {}, "Your PDFs");
  const uploadList = h("ul", { class: "upload-list" });
  const uploadsBox = h("details", { hidden: true }, uploadCount, uploadList);
  const uploadScope = h("div", { class: "scope upload-scope", hidden: true });
  const uploadsSection = h(
    "section",
    { class: "uploads", "aria-label": "Your PDFs" },
    h("div", { class: "row" }, addPdfButton, h("span", { class: "note", text: "or drop a PDF on this panel" }), uploadInput),
    uploadStatus,
    uploadsBox,
  );
  const chatView = h(
    "section",
    { class: "view", "aria-label": "Chat" },
    PAPER || AUTHOR ? scope : null,
    collectionScope,
    uploadScope,
    collectionNames,
    related,
    reading,
    uploadsSection,
    log,
    composer,
    h("div", { class: "foot" }, who, API_KEY ? null : accountButton, API_KEY ? null : signOutButton),
  );

  // The account: the browsers signed in to it, and signing out of them.
  const sessionList = h("ul", { class: "history sessions" });
  const accountError = h("p", { class: "alert", role: "alert" });
  const signOutEverywhereButton = h("button", { class: "ghost", type: "button" }, "Sign out everywhere");
  const accountView = h(
    "section",
    { class: "view pad", "aria-label": "Account" },
    h("div", { class: "row" }, h("button", { class: "ghost", type: "button", onclick: () => showView("chat") }, "← Back")),
    h("h3", { text: "Signed-in browsers" }),
    sessionList,
    accountError,
    h("div", { class: "row" }, signOutEverywhereButton),
    h("p", { class: "note", text: "Sign out everywhere ends every session of this account, this one too. API keys keep working." }),
  );

  // A table comparing the papers of an answer.
  const compareView = compareSection();

  // Past conversations.
  const historyList = h("ul", { class: "history" });
  const historyView = h(
    "section",
    { class: "view pad", "aria-label": "Past conversations" },
    h("div", { class: "row" }, h("button", { class: "ghost", type: "button", onclick: () => showView("chat") }, "← Back")),
    h("h3", { text: "Past conversations" }),
    historyList,
  );

  tip = h("div", { class: "tip", id: "pc-tip", role: "tooltip", hidden: true });
  const panel = h(
    "div",
    { class: "panel", id: "pc-panel", role: "dialog", "aria-modal": "false", "aria-labelledby": "pc-title", hidden: true },
    h("div", { class: "head" }, heading, newChatButton, historyButton, closeButton),
    authView,
    chatView,
    historyView,
    accountView,
    compareView,
    announcer,
  );
  root.append(launcher, panel, tip);

  function announce(text) {
    announcer.textContent = text;
  }

  function showView(name) {
    const signedIn = Boolean(state.user);
    const view = signedIn ? name : "auth";
    authView.hidden = view !== "auth";
    chatView.hidden = view !== "chat";
    historyView.hidden = view !== "history";
    accountView.hidden = view !== "account";
    showCompare(view === "compare");
    newChatButton.hidden = !signedIn;
    historyButton.hidden = !signedIn;
    if (view === "history") loadHistory();
    if (view === "account") loadSessions();
  }

  function focusView() {
    if (!state.user) email.focus();
    else if (!chatView.hidden) question.focus();
    else (accountView.hidden ? historyView : accountView).querySelector("button").focus();
  }

  /** The page's own opener when it stands in for the launcher (shown, on a phone). */
  function pageOpener() {
    if (getComputedStyle(launcher).display !== "none") return null;
    return [...document.querySelectorAll("[data-paperchat-open]")].find((b) => b.offsetParent !== null) || null;
  }

  function setOpen(open, { focus = true } = {}) {
    panel.hidden = !open;
    launcher.hidden = open;
    launcher.setAttribute("aria-expanded", String(open));
    document.documentElement.setAttribute("data-paperchat-dock", open ? "open" : "closed");
    store("localStorage", OPEN_KEY, open ? "1" : "0");
    if (!focus) return;
    if (open) focusView();
    else (pageOpener() || launcher).focus();
  }

  function setSignedIn(user, csrf, { forget = true } = {}) {
    state.user = user;
    state.csrf = csrf;
    who.textContent = user ? (API_KEY ? `${user.email} (API key)` : user.email) : "";
    if (!user && forget) newChat();
    if (user) loadRelated(related);
    else related.hidden = true;
    loadCollections();
    if (!user) {
      setUploadScope(null);
      sayUpload();
    }
    loadUploads();
    watchAlerts();
    showView("chat");
  }

  function setBusy(busy) {
    sendButton.hidden = busy;
    stopButton.hidden = !busy;
    question.setAttribute("aria-busy", String(busy));
  }

  /** An empty conversation view; the remembered conversation is left as it is. */
  function showEmpty() {
    const about = state.upload ? "your PDF" : PAPER ? "this paper" : AUTHOR ? "this author's papers" : "the papers";
    log.replaceChildren(h("p", { class: "empty", text: `Ask anything about ${about}.` }));
  }

  /** A new conversation: the open one is no longer remembered. */
  function newChat() {
    if (state.controller) state.controller.abort();
    state.conversationId = null;
    store("sessionStorage", CONVERSATION_KEY, null);
    showEmpty();
  }

  /**
   * Scroll the log so that `element` (a question) starts at its top, and keep it there as
   * its answer grows (until the reader scrolls): the question and the answer's first lines
   * stay in view while the rest streams in below.
   */
  function scrollToTop(element) {
    pinned = element;
    keepPinned();
  }

  function keepPinned() {
    if (pinned && pinned.isConnected) log.scrollTop = Math.max(0, pinned.offsetTop - 8);
  }

  /* ---------- asking ---------- */

  const BUSY_RETRIES = 5;

  /** "The server is busy: retrying in N s", counted down in the answer's place. */
  async function busyWait(view, seconds, signal) {
    const note = h("p", { class: "note", role: "status" });
    view.status.append(note);
    announce(`The server is busy: retrying in ${seconds} s.`);
    try {
      for (let left = seconds; left > 0 && !signal.aborted; left -= 1) {
        note.textContent = `The server is busy: retrying in ${left} s…`;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    } finally {
      note.remove();
    }
    if (signal.aborted) throw new DOMException("stopped", "AbortError");
  }

  /** Asks `text`; `followUp: false` asks it of the whole index even where it leans on the
   * previous answer (the reader removed the scope chip); `paper` ({id, title}) asks it about
   * that paper alone (the reader chose another paper of a name the answer read as one). */
  async function ask(text, { followUp = true, paper = null } = {}) {
    if (state.controller || !text.trim()) return;
    log.querySelector(".empty")?.remove();
    const asked = userMessage(text);
    const view = new AnswerView();
    log.append(asked, view.root);
    scrollToTop(asked);
    const controller = new AbortController();
    state.controller = controller;
    setBusy(true);
    announce("Answering…");
    const retry = () => {
      asked.remove();
      view.root.remove();
      ask(text, { followUp, paper });
    };
    let ended = false;
    let messageId = null;
    let carried = false;
    const body = { message: text, paper_ids: state.scoped && PAPER ? [PAPER] : [] };
    if (state.scoped && AUTHOR) body.author = AUTHOR;
    if (state.collectionId && !paper) {
      // A collection chosen is the question's scope, in place of the page's.
      body.paper_ids = [];
      delete body.author;
      body.collection_id = state.collectionId;
    }
    if (state.upload && !paper) {
      // Asked of the reader's own PDF alone (or, one the library holds, of that paper).
      delete body.author;
      delete body.collection_id;
      if (state.upload.libraryId) body.paper_ids = [state.upload.libraryId];
      else {
        delete body.paper_ids;
        body.upload_ids = [state.upload.id];
      }
      view.setPinned({ id: state.upload.id, title: state.upload.title });
    }
    if (paper) {
      body.paper_ids = [paper.id];
      delete body.author;
      view.setPinned(paper);
    }
    if (state.conversationId) body.conversation_id = state.conversationId;
    if (!followUp) body.follow_up = false;
    try {
      let response = await request("/api/chat", { method: "POST", body, signal: controller.signal });
      // A busy server (503) says when to ask again: the dock says so, then asks again itself.
      for (let tries = 0; response.status === 503 && tries < BUSY_RETRIES; tries += 1) {
        await busyWait(view, Number.parseInt(response.headers.get("Retry-After"), 10) || 5, controller.signal);
        response = await request("/api/chat", { method: "POST", body, signal: controller.signal });
      }
      if (!response.ok) throw await failure(response);
      await readEvents(response, (name, data) => {
        if (name === "meta") {
          state.conversationId = data.conversation_id;
          messageId = data.message_id;
          store("sessionStorage", CONVERSATION_KEY, data.conversation_id);
        } else if (name === "sources") {
          view.setSources(data.sources);
          carried = Boolean(data.scope && data.scope.carried);
          view.setScope(data.scope, () => {
            if (!state.controller) ask(text, { followUp: false });
          });
        }
        else if (name === "delta") view.add(String(data.text || ""));
        else if (name === "done") {
          ended = true;
          view.finish(data);
          view.setNamesake(data.namesake, (other) => {
            if (!state.controller) ask(text, { paper: other });
          });
          addBibtexButton(view, state.conversationId, messageId, data.citations);
          if (!carried && !body.upload_ids) addWatchButton(view, text, body);
        } else if (name === "error") {
          ended = "failed";
          view.fail(data.message || "the answer failed", retry);
        }
      });
      if (!ended) view.fail("the answer was cut off", retry);
      announce(ended === true ? "Answer complete." : "The answer failed.");
    } catch (error) {
      if (controller.signal.aborted) {
        view.note("Stopped.");
        announce("Stopped.");
      } else if (error.status === 401 && !API_KEY) {
        setSignedIn(null, null);
        authError.textContent = "Your session has ended: sign in again.";
        focusView();
      } else if (error.status === 404 && body.conversation_id) {
        // The conversation was deleted meanwhile: a retry starts a new one.
        state.conversationId = null;
        store("sessionStorage", CONVERSATION_KEY, null);
        view.fail("this conversation no longer exists; Retry starts a new one", retry);
        announce("The answer failed.");
      } else {
        view.fail(error instanceof HttpError ? error.message : await unreachable(error), retry);
        announce("The answer failed.");
      }
    } finally {
      state.controller = null;
      view.end();
      setBusy(false);
    }
  }

  function send() {
    const text = question.value.trim();
    if (!text || state.controller) return;
    question.value = "";
    ask(text);
  }

  /* ---------- history ---------- */

  async function loadHistory() {
    historyList.replaceChildren(h("li", { class: "note", text: "Loading…" }));
    try {
      const conversations = await call("/api/conversations");
      historyList.replaceChildren(
        ...conversations.map((c) =>
          h(
            "li",
            {},
            h(
              "button",
              { type: "button", onclick: () => openConversation(c.id) },
              c.title || "Untitled",
              h("time", { datetime: c.updated_at, text: new Date(c.updated_at).toLocaleString() }),
            ),
          ),
        ),
      );
      if (!conversations.length) historyList.replaceChildren(h("li", { class: "note", text: "No conversations yet." }));
    } catch (error) {
      historyList.replaceChildren(h("li", { class: "alert", text: `Error: ${error.message}` }));
    }
  }

  async function openConversation(id) {
    if (state.controller) state.controller.abort();
    try {
      const conversation = await call(`/api/conversations/${encodeURIComponent(id)}`);
      state.conversationId = conversation.id;
      store("sessionStorage", CONVERSATION_KEY, conversation.id);
      log.replaceChildren();
      for (const message of conversation.messages) {
        if (message.role === "user") {
          log.append(userMessage(message.content));
          continue;
        }
        const view = new AnswerView();
        view.setSources(message.sources);
        const previous = log.querySelectorAll(".user");
        const asked = previous.length ? previous[previous.length - 1].textContent : "";
        view.setScope(message.scope, () => {
          if (!state.controller && asked) ask(asked, { followUp: false });
        });
        view.quotes = Array.isArray(message.quotes) ? message.quotes : [];
        view.text = message.content;
        if (message.status === "cancelled") view.note("Stopped.");
        if (message.status === "error") view.note("This answer failed.", "alert");
        if (message.status === "interrupted") view.note("This answer was cut off when the server stopped.", "alert");
        if (message.status === "complete" && isRefusal(message, view.sources)) view.refuse();
        if (message.status === "complete") addBibtexButton(view, conversation.id, message.id, message.citations);
        view.end();
        log.append(view.root);
      }
      showView("chat");
      const questions = log.querySelectorAll(".user");
      if (questions.length) scrollToTop(questions[questions.length - 1]);
      if (!panel.hidden) question.focus({ preventScroll: true });
    } catch (error) {
      if (error.status === 404) store("sessionStorage", CONVERSATION_KEY, null);
      else historyList.replaceChildren(h("li", { class: "alert", text: `Error: ${error.message}` }));
    }
  }

  /* ---------- signing in and out ---------- */

  async function signIn(register) {
    authError.textContent = "";
    const credentials = { email: email.value.trim(), password: password.value };
    try {
      if (register) await call("/api/auth/register", { method: "POST", body: credentials });
      const session = await call("/api/auth/login", { method: "POST", body: credentials });
      password.value = "";
      setSignedIn(session.user, session.csrf_token);
      announce(`Signed in as ${session.user.email}.`);
      focusView();
    } catch (error) {
      authError.textContent = error instanceof HttpError ? error.message : await unreachable(error);
    }
  }

  async function signOut() {
    try {
      await call("/api/auth/logout", { method: "POST" });
    } catch {
      /* signed out locally either way */
    }
    setSignedIn(null, null);
    announce("Signed out.");
    email.focus();
  }

  async function watchReading() {
    let pdfs = null;
    try {
      const response = await fetch(`${ORIGIN}/api/health`, { credentials: "omit", cache: "no-store" });
      if (response.ok) pdfs = (await response.json()).pdfs;
    } catch {
      /* the chat itself says when the server cannot be reached */
    }
    const said = pdfs ? readingText(pdfs) : "";
    reading.hidden = !said;
    reading.textContent = said;
    if (pdfs?.running) setTimeout(watchReading, READING_POLL_MS);
  }

  /** What the dock says of the PDF reading: nothing once every PDF is read, or before any. */
  function readingText(pdfs) {
    if (pdfs.error) return `PDF reading stopped: ${pdfs.error}`;
    if (!pdfs.running && !pdfs.failed) return "";
    const counts = `${pdfs.total ?? "Some"} PDFs: ${pdfs.read} read`;
    return pdfs.failed ? `${counts}, ${pdfs.failed} not read` : counts;
  }

  /* ---------- the account's sessions ---------- */

  async function loadSessions() {
    accountError.textContent = "";
    sessionList.replaceChildren(h("li", { class: "note", text: "Loading…" }));
    try {
      const sessions = await call("/api/auth/sessions");
      sessionList.replaceChildren(...sessions.map(sessionItem));
    } catch (error) {
      sessionList.replaceChildren();
      accountError.textContent = `Cannot list the sessions: ${error.message}`;
    }
  }

  function sessionItem(session) {
    const seen = new Date(session.last_seen_at).toLocaleString();
    const text = `${session.user_agent || "An unnamed browser"}, last seen ${seen}`;
    const item = h("li", {}, h("span", { text: session.current ? `This browser: ${text}` : text }));
    if (session.current) return item;
    const end = h("button", { class: "ghost", type: "button" }, "Sign out");
    end.addEventListener("click", async () => {
      try {
        await call(`/api/auth/sessions/${encodeURIComponent(session.id)}`, { method: "DELETE" });
        item.remove();
        announce("That browser is signed out.");
      } catch (error) {
        accountError.textContent = `Cannot sign that browser out: ${error.message}`;
      }
    });
    item.append(end);
    return item;
  }

  async function signOutEverywhere() {
    try {
      await call("/api/auth/logout-all", { method: "POST" });
    } catch (error) {
      accountError.textContent = `Cannot sign out everywhere: ${error.message}`;
      return;
    }
    setSignedIn(null, null);
    announce("Signed out everywhere.");
    email.focus();
  }

  /* ---------- alerts: the count of papers new to the user's follows ---------- */

  // How often the count is asked for again while the page stays open.
  const ALERTS_POLL_MS = 60000;
  const unreadBadge = h("span", { class: "unread", hidden: true });
  const unreadLink = h("a", { class: "unread-link", href: `${ORIGIN}/latest`, hidden: true });
  launcher.append(unreadBadge);
  related.before(unreadLink);
  let alertsTimer = null;

  /** The unread count on the launcher and, linking to "Latest for you", in the chat view. */
  async function showUnread() {
    let unread = 0;
    if (state.user) {
      try {
        unread = (await call("/api/alerts")).unread;
      } catch {
        return; // the count stays as it was; the next poll tries again
      }
    }
    const words = unread === 1 ? "1 new paper for you" : `${unread} new papers for you`;
    unreadBadge.textContent = String(unread);
    unreadBadge.setAttribute("aria-label", words);
    unreadBadge.hidden = unread === 0;
    unreadLink.textContent = words;
    unreadLink.hidden = unread === 0;
  }

  /** Count now and every ALERTS_POLL_MS while signed in; stop when signed out. */
  function watchAlerts() {
    clearInterval(alertsTimer);
    alertsTimer = state.user ? setInterval(showUnread, ALERTS_POLL_MS) : null;
    showUnread();
  }

  async function start() {
    watchReading();
    try {
      if (API_KEY) {
        setSignedIn(await call("/api/me"), null);
      } else {
        const session = await call("/dock/session");
        state.allowSignup = Boolean(session.allow_signup);
        signupButton.hidden = !state.allowSignup;
        setSignedIn(session.user, session.csrf_token);
      }
    } catch (error) {
      setSignedIn(null, null, { forget: false });
      authError.textContent = API_KEY && error instanceof HttpError
        ? `The API key was refused: ${error.message}`
        : await unreachable(error);
      return;
    }
    const remembered = stored("sessionStorage", CONVERSATION_KEY);
    if (state.user && remembered) {
      await loadUploads(); // its citations of the reader's PDFs link to their readers
      await openConversation(remembered);
    }
  }

  /* ---------- wiring ---------- */

  launcher.addEventListener("click", () => setOpen(true));
  // Another part of the page asks about one paper (a citation card of the reader names a
  // paper of the library): the dock opens and asks it, about that paper alone.
  window.addEventListener("paperchat:ask", (event) => {
    const { text, paper } = event.detail || {};
    if (!text || !paper || !paper.id) return;
    setOpen(true, { focus: false });
    showView("chat");
    ask(String(text), { paper: { id: String(paper.id), title: String(paper.title || paper.id) } });
  });
  // Buttons of the page that open the dock (`data-paperchat-open`): on a phone they stand
  // in for the floating launcher, which would cover the page.
  const openers = [...document.querySelectorAll("[data-paperchat-open]")];
  for (const opener of openers) opener.addEventListener("click", () => setOpen(true));
  if (openers.length) host.setAttribute("data-page-opener", "");
  closeButton.addEventListener("click", () => setOpen(false));
  addPdfButton.addEventListener("click", () => uploadInput.click());
  uploadInput.addEventListener("change", () => {
    const [file] = uploadInput.files;
    uploadInput.value = "";
    uploadPdf(file);
  });
  takeDrops(panel);
  takeDrops(launcher);
  newChatButton.addEventListener("click", () => {
    newChat();
    showView("chat");
    question.focus();
  });
  historyButton.addEventListener("click", () => {
    showView("history");
    historyView.querySelector("button").focus();
  });
  signOutButton.addEventListener("click", signOut);
  accountButton.addEventListener("click", () => {
    showView("account");
    accountView.querySelector("button").focus();
  });
  signOutEverywhereButton.addEventListener("click", signOutEverywhere);
  stopButton.addEventListener("click", () => state.controller?.abort());
  scopeBox.addEventListener("change", () => {
    state.scoped = scopeBox.checked;
  });
  collectionPick.addEventListener("change", () => {
    state.collectionId = collectionPick.value;
  });
  authForm.addEventListener("submit", (event) => {
    event.preventDefault();
    signIn(false);
  });
  signupButton.addEventListener("click", () => {
    if (authForm.reportValidity()) signIn(true);
  });
  composer.addEventListener("submit", (event) => {
    event.preventDefault();
    send();
  });
  question.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  });
  // Escape closes the panel only from inside it (the page keeps its own Escape), and first
  // closes an open citation tip.
  panel.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.isComposing || !panel.contains(shadow.activeElement)) return;
    event.preventDefault();
    if (!tip.hidden) hideTip();
    else setOpen(false);
  });
  log.addEventListener("scroll", hideTip, { passive: true });
  for (const name of ["wheel", "touchstart", "keydown"]) {
    log.addEventListener(name, () => { pinned = null; }, { passive: true });
  }

  showEmpty();
  showView("chat");
  (document.body || document.documentElement).append(host);
  setOpen(stored("localStorage", OPEN_KEY) === "1", { focus: false });
  start();
})();

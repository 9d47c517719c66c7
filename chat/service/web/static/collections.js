// "Save to a collection" on a paper's page: the signed-in user's collections are offered by
// name; a name none of them has makes a new collection. It calls /api/collections with the
// browser session's CSRF token (api.js).
(() => {
  "use strict";

  const bar = document.querySelector("[data-collect-paper]");
  if (!bar) return;
  const input = bar.querySelector(".collect-name");
  const note = bar.querySelector(".collect-note");
  const button = bar.querySelector("[data-collect-action]");
  const names = document.getElementById(input.getAttribute("list"));
  const SIGN_IN = "Sign in (open the chat panel with Ask) to keep papers in collections.";
  const { send } = window.paperchat; // api.js

  // The user's collections by name; none when not signed in.
  async function collections() {
    const response = await fetch("/api/collections", { credentials: "same-origin", cache: "no-store" });
    if (!response.ok) return new Map();
    const listed = (await response.json()).collections;
    names.replaceChildren(...listed.map((c) => Object.assign(document.createElement("option"), { value: c.name })));
    return new Map(listed.map((c) => [c.name, c.id]));
  }

  async function save() {
    const name = input.value.split(/\s+/).filter(Boolean).join(" ");
    if (!name) {
      note.textContent = "Name a collection to save this paper to.";
      return;
    }
    let id = (await collections()).get(name);
    if (id === undefined) id = (await send("POST", "/api/collections", { name })).id;
    await send("POST", `/api/collections/${encodeURIComponent(id)}/papers`, { paper_id: bar.dataset.collectPaper });
    note.textContent = `Saved to “${name}”.`;
    await collections();
  }

  button.addEventListener("click", () => {
    button.disabled = true;
    save()
      .catch((error) => {
        note.textContent = error.status === 401 || error.status === 403 ? SIGN_IN : `Failed: ${error.message}`;
      })
      .finally(() => {
        button.disabled = false;
      });
  });
  collections();
})();

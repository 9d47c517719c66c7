// "Your notes" on a paper's page: the signed-in reader's private notes on the paper (those on
// a passage of its reader say which page and words), each kept, changed or deleted here;
// /api/notes is called with the browser session's CSRF token (api.js). Signed out, it says
// to sign in in the chat panel.
(() => {
  "use strict";

  const box = document.querySelector("[data-notes-paper]");
  if (!box) return;
  const paperId = box.dataset.notesPaper;
  const list = box.querySelector("[data-note-list]");
  const state = box.querySelector("[data-notes-state]");
  const form = box.querySelector("[data-note-form]");
  const text = form.querySelector("textarea");
  const status = form.querySelector(".note-status");
  const { send } = window.paperchat; // api.js
  const SIGN_IN = "Sign in (open the chat panel with Ask) to keep notes on this paper.";

  function failed(error) {
    return error.status === 401 || error.status === 403 ? SIGN_IN : `Failed: ${error.message}`;
  }

  function button(label, name, action) {
    const made = Object.assign(document.createElement("button"), { type: "button", textContent: label });
    made.className = "ghost";
    made.setAttribute("aria-label", name);
    made.addEventListener("click", action);
    return made;
  }

  // One note: its words, where it is (a passage), and its Edit and Delete buttons.
  function item(note, number) {
    const li = Object.assign(document.createElement("li"), { className: "note" });
    li.dataset.noteId = note.id;
    const shown = Object.assign(document.createElement("p"), { className: "note-text", textContent: note.text });
    li.append(shown);
    if (note.anchor) {
      const where = `On page ${note.anchor.page}${note.anchor.anchored === false ? " (its words are no longer found)" : ""}: `;
      const quote = Object.assign(document.createElement("q"), { textContent: note.anchor.quote });
      const place = Object.assign(document.createElement("p"), { className: "note-place" });
      place.append(where, quote);
      li.prepend(place);
    }
    const actions = Object.assign(document.createElement("p"), { className: "note-actions" });
    actions.append(
      button("Edit", `Edit note ${number}`, () => edit(li, note, number)),
      " ",
      button("Delete", `Delete note ${number}`, () => remove(li, note)),
    );
    li.append(actions);
    return li;
  }

  function show(notes) {
    list.replaceChildren(...notes.map((note, index) => item(note, index + 1)));
    state.textContent = notes.length ? "" : "No notes on this paper yet.";
  }

  async function load() {
    const response = await fetch(`/api/notes?paper_id=${encodeURIComponent(paperId)}`, {
      credentials: "same-origin",
      cache: "no-store",
    });
    if (response.status === 401) {
      state.textContent = SIGN_IN;
      return [];
    }
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const notes = (await response.json()).notes;
    show(notes);
    return notes;
  }

  // The note's words become a field of their own, with Save and Cancel; Escape cancels.
  function edit(li, note, number) {
    const id = `note-edit-${note.id}`;
    const label = Object.assign(document.createElement("label"), { htmlFor: id, textContent: `Edit note ${number}` });
    label.className = "visually-hidden";
    const field = Object.assign(document.createElement("textarea"), { id, value: note.text, rows: 3 });
    const editStatus = Object.assign(document.createElement("span"), { className: "follow-note" });
    editStatus.setAttribute("role", "status");
    const back = () => {
      const again = item(note, number);
      li.replaceWith(again);
      again.querySelector("button").focus();
    };
    const save = button("Save", `Save note ${number}`, () => {
      send("PATCH", `/api/notes/${encodeURIComponent(note.id)}`, { text: field.value })
        .then((changed) => {
          Object.assign(note, changed);
          back();
          status.textContent = "Note saved.";
        })
        .catch((error) => {
          editStatus.textContent = failed(error);
        });
    });
    const cancel = button("Cancel", `Cancel editing note ${number}`, back);
    field.addEventListener("keydown", (event) => {
      if (event.key === "Escape") back();
    });
    const actions = Object.assign(document.createElement("p"), { className: "note-actions" });
    actions.append(save, " ", cancel, " ", editStatus);
    li.replaceChildren(label, field, actions);
    field.focus();
  }

  async function remove(li, note) {
    try {
      await send("DELETE", `/api/notes/${encodeURIComponent(note.id)}`);
    } catch (error) {
      status.textContent = failed(error);
      return;
    }
    show(await load());
    status.textContent = "Note deleted.";
    text.focus();
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const submit = form.querySelector("button[type=submit]");
    submit.disabled = true;
    send("POST", "/api/notes", { paper_id: paperId, text: text.value })
      .then(() => load())
      .then(() => {
        text.value = "";
        status.textContent = "Note added.";
      })
      .catch((error) => {
        status.textContent = failed(error);
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  load().catch((error) => {
    state.textContent = `Your notes could not be loaded: ${error.message}`;
  });
})();

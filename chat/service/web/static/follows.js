// The buttons of "Latest for you" and "What you follow": mark alerts read, unfollow, make or
// revoke the private feed's address; and "Follow" on the pages of what can be followed (a
// researcher, a paper). They call the API with the browser session's CSRF token (api.js).
(() => {
  "use strict";

  const { send } = window.paperchat; // api.js

  const actions = {
    read: () => send("POST", "/api/alerts/read").then(() => location.reload()),
    unfollow: (button) =>
      send("DELETE", `/api/follows/${encodeURIComponent(button.dataset.follow)}`).then(() =>
        button.closest("li").remove(),
      ),
    "new-feed": async () => {
      const made = await send("POST", "/api/feeds/private");
      const shown = document.querySelector(".feed-address");
      shown.querySelector(".feed-url").value = made.url;
      shown.hidden = false;
    },
    digest: async (button) => {
      const frequency = document.querySelector(".digest-frequency").value;
      await send("PUT", "/api/digest", { frequency });
      button.after(" Saved.");
    },
    "revoke-feed": () => send("DELETE", "/api/feeds/private").then(() => location.reload()),
    follow: async (button) => {
      const note = button.parentElement.querySelector(".follow-note");
      try {
        await send("POST", "/api/follows", { kind: button.dataset.kind, value: button.dataset.value });
      } catch (error) {
        if (error.status !== 401 && error.status !== 403) throw error;
        note.textContent = "Sign in (open the chat panel with Ask) to follow: new papers then come to “Latest for you”.";
        return;
      }
      button.textContent = `Following${button.dataset.kind === "category" ? ` ${button.dataset.value}` : ""}`;
      button.setAttribute("aria-pressed", "true");
      const latest = Object.assign(document.createElement("a"), { href: "/latest", textContent: "Latest for you" });
      note.replaceChildren("New papers come to ", latest, ".");
    },
  };

  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-follows-action]");
    if (!button) return;
    button.disabled = true;
    actions[button.dataset.followsAction](button)
      .catch((error) => {
        button.after(` Failed: ${error.message}`);
      })
      .finally(() => {
        button.disabled = false;
      });
  });
})();

// How the site's pages call the API as the reader signed in with this browser: with the
// session's cookie and its CSRF token, asked of /dock/session at each call (signing in in the
// chat panel changes it). follows.js, collections.js and notes.js send through it.
(() => {
  "use strict";

  async function csrf() {
    const response = await fetch("/dock/session", { credentials: "same-origin", cache: "no-store" });
    return (await response.json()).csrf_token;
  }

  // The answer's JSON (null for a 204); an Error with the status and the API's detail else.
  async function send(method, path, body) {
    const headers = { "X-CSRF-Token": await csrf() };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) {
      const detail = await response.json().then((answer) => answer.detail, () => undefined);
      const message = typeof detail === "string" ? detail : `HTTP ${response.status}`;
      throw Object.assign(new Error(message), { status: response.status });
    }
    return response.status === 204 ? null : response.json();
  }

  window.paperchat = Object.assign(window.paperchat || {}, { send });
})();

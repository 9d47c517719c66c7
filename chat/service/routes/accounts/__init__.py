"""The routes of an account: sign-up, sign-in and sign-out, its browser sessions (list, end)
and its API keys (create, list, revoke)."""

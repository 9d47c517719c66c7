"""Who is asking, and how much they may ask: accounts, sign-in sessions and API keys,

the limits on requests, password checks and streams, trusted proxies and allowed origins.
"""

"""The HTTP routes, one module per noun, a folder per family (accounts, people, following); no
route imports another: what they share is in `deps` (dependencies, request fields) and `errors`."""

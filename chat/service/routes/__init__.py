"""The HTTP routes, one module per noun; what they share (dependencies, request fields,
`deps`; error answers, `errors`) is not a route, and no route imports another."""

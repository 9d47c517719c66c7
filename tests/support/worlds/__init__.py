"""What the tests run against: small real indexes and libraries, broken and hostile
inputs, hand-made sources and vectors."""

"""The vector store: one Chroma collection of every chunk, the one process that holds
it, the server it is reached through, and the check that it is whole."""

"""Decks: a lecture prepared as a file (decks/<name>.toml) and run with a remote. format reads, checks and writes a
deck; run steps through it on the lesson pages; follow shares the projector's step with the presenter view; draft
builds a deck from the setups a lecturer saves while rehearsing."""

"""Class rooms: a whole class answers a question on phones; the store and the questions (numbers only)."""

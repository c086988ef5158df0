"""The concept quiz a class takes before and after a lecture: its items (items.py) and how they run in a class room
and turn into the class's normalized gain (room.py; the numbers in rnnviz.rooms.quiz)."""

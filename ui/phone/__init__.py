"""The class room's phone page (room.html, room.js), served as files by rnnviz/rooms/live.py: no Python here."""

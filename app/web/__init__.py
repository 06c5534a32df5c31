"""The web edge: the HTTP routes and pages, the game socket's endpoint and its transport,
the limits and headers every request meets. Below it: the rooms, the database, the engine."""

"""Persistence: finished games (and live-room snapshots) through SQLAlchemy 2 and Alembic.

Synchronous on purpose: the server calls it through `asyncio.to_thread`.
"""

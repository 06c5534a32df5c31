"""Perudo: a self-hostable, real-time server for the dice game Perudo."""

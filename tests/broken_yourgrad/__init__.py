"""Deliberately wrong copies of the reference yourgrad, and harmless rewrites of it (copies.py)."""

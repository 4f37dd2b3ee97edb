"""Pure game engines: deterministic from a seed, no I/O, no clock (see rules/engine.py)."""

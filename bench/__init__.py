"""Benchmarks that print figures (`python -m bench` runs them all); never timed assertions in tests."""

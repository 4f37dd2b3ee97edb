"""Benchmarks and simulations that print figures; nothing here asserts on timing."""

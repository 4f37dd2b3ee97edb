"""The asyncio hub: lobby, connections, authoritative rooms, per-audience deltas, bots, arbitration."""

"""The edge: everything that faces a client.

The Starlette app and its lifespan (`app`), the lobby's HTTP API (`lobby`), one WebSocket
connection with its hello, decoding, limits and bounded send queue (`connection`), decoding the
wire's frames (`codec`) and the direct writer that puts a frame straight into uvicorn's protocol
(`direct`). It imports the tables (a room's errors, the judging of round trips) and reaches rooms
only through the store interface (hub/stores/base.py), whichever store runs.
"""

"""The tables: one authoritative actor per room, and everything that runs a table in memory.

The room and its seats (`room`), this process's rooms and the lobby's rules for making them
(`rooms`), audiences with their views and delta histories (`audience`), RFC 6902 diffs (`delta`),
decision clocks and banks (`clock`), fastest-hand contests and their arbitration (`contests`,
`arbitration`), replays (`replay`), frames encoded once per audience (`frames`) and what a table
needs of a connection (`peer`). The tables import `rules` and the hub's shared modules only; a store
plugs in through the room's `Journal`, a connection through `Peer`.
"""

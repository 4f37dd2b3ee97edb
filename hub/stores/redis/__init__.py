"""The Redis store: any number of hub processes serve the same rooms.

`store` is the interface's implementation; `server` holds the keys, scripts and clients of one Redis
(or cluster) and the one writer through which every command leaves; `link` is the callback-driven
connection that writer and the pub/sub reader use; `pubsub` reads the channels; `ownership` holds
and renews leases and takes rooms over; `owner` is the journal of a room this process owns (every
change logged before anyone sees it), `replica` the relay of a room owned elsewhere, and
`edge_contests` judges grabs where the socket is.
"""

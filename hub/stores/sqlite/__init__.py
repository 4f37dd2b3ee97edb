"""The SQLite store, the embedded default: one process, every change in a database file first.

`store` is the interface's implementation, `journal` the per-room journal and the `Gate` through which
connections reach a room, `database` the file's schema and its commits on the loop, `lock` the guard
that keeps a second process off the same file.
"""

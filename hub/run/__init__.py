"""Starting and supervising hub processes: the command line, the worker supervisor, the open-file
budget and the garbage collector's policy. Nothing below the edge imports this package."""

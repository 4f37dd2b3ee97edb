"""The collector policy (hub/gcpolicy.py): full collections freeze what they keep, cycles still go."""
from __future__ import annotations

import gc
import weakref

from hub.gcpolicy import GcPolicy


class Node:
    me: Node


def test_survivors_are_frozen_and_a_cycle_among_them_is_reclaimed_at_the_periodic_full_walk() -> None:
    policy = GcPolicy(full_every_s=3600)
    policy.install()
    try:
        node = Node()
        node.me = node
        gone = weakref.ref(node)
        gc.collect()
        assert gc.get_freeze_count() > 0 and policy.frozen_runs == 1
        del node
        gc.collect()
        assert gone() is not None, "a cycle that was frozen waits for the periodic walk"
        policy.last_full -= 3600
        gc.collect()  # lifts the freeze
        gc.collect()  # walks everything
        assert gone() is None
    finally:
        policy.uninstall()
    assert gc.get_freeze_count() == 0


def test_zero_leaves_python_alone() -> None:
    policy = GcPolicy(full_every_s=0)
    policy.install()
    assert policy._on_gc not in gc.callbacks and gc.get_freeze_count() == 0  # noqa: SLF001
    policy.uninstall()

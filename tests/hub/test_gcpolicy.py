"""The collector policy (hub/run/gcpolicy.py): walks on a clock freeze what they keep, cycles still go."""
from __future__ import annotations

import asyncio
import gc
import weakref

from prometheus_client import CollectorRegistry, Histogram

from hub.run.gcpolicy import NEVER, WALK_EVERY_S, GcPolicy


class Node:
    me: Node


def cycle() -> weakref.ref[Node]:
    node = Node()
    node.me = node
    return weakref.ref(node)


def test_walks_freeze_survivors_and_a_frozen_cycle_waits_for_the_whole_walk() -> None:
    async def main() -> None:
        pauses = Histogram("p", "p", ["kind"], registry=CollectorRegistry())
        policy = GcPolicy(full_every_s=3600, pauses=pauses)
        policy.install()
        try:
            assert gc.get_threshold()[1:] == (NEVER, NEVER), "the older generations are the policy's"
            young = cycle()  # garbage before any walk: the next walk takes it
            await asyncio.sleep(WALK_EVERY_S * 4)
            assert policy.walks >= 2 and young() is None
            kept = Node()
            kept.me = kept
            gone = weakref.ref(kept)
            policy.walk()
            assert gc.get_freeze_count() > 0
            del kept
            policy.walk()
            assert gone() is not None, "a cycle that was frozen waits for the whole walk"
            policy.last_full -= 3600
            policy.walk()
            assert gone() is None
            assert pauses.labels(kind="whole")._sum.get() > 0  # noqa: SLF001
            assert 0 < policy.longest_s < 1
        finally:
            policy.uninstall()
        assert gc.get_freeze_count() == 0 and gc.get_threshold()[1] != NEVER
        walks = policy.walks
        await asyncio.sleep(WALK_EVERY_S * 3)
        assert policy.walks == walks, "uninstall stops the clock"

    asyncio.run(main())


def test_zero_leaves_python_alone() -> None:
    async def main() -> None:
        before = gc.get_threshold()
        policy = GcPolicy(full_every_s=0)
        policy.install()
        assert gc.get_threshold() == before and gc.get_freeze_count() == 0
        await asyncio.sleep(WALK_EVERY_S * 3)
        assert policy.walks == 0
        policy.uninstall()
        assert gc.get_threshold() == before

    asyncio.run(main())

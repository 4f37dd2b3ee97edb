"""Waterfall Park (Repos Production, 2023): negotiate locations and attractions over four rounds.

`GAME` is the engine the hub serves under the id `waterfall_park`; importing this package
registers it. The parts: `data` (components), `income` (the exact best split of attractions),
`trade` (offers), `game` (phases and views), `bot` (a player that reads only its own view).
"""
from __future__ import annotations

from rules.registry import register
from rules.waterfall_park.game import WaterfallPark

GAME = WaterfallPark()
register(GAME)

__all__ = ["GAME", "WaterfallPark"]

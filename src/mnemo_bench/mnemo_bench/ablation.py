"""Which parts of memory a benchmark method lets the planner use."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Ablation:
    """Which parts of memory the planner may use (MessyMem's table: SG, SG+IA, SG+KF, SG+IA+KF;
    STAR's TR+S is use_scene_graph=False)."""

    use_memory: bool = True
    use_scene_graph: bool = True
    use_interaction_analysis: bool = True
    use_keyframes: bool = False

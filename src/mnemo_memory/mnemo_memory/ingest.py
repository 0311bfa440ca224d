"""From observations to memory records: rate limiting, captioning, batched embedding."""
from __future__ import annotations

import math
import threading
from typing import Optional, Sequence

from mnemo_common.embedding import Embedder
from mnemo_common.types import MemoryRecord, Observation, Pose2D

from mnemo_memory.caption import Captioner, OfflineCaptioner
from mnemo_memory.records import new_record_id


def _angle_diff(a: float, b: float) -> float:
    return abs(math.atan2(math.sin(a - b), math.cos(a - b)))


class RateLimiter:
    """Admit an observation when ``min_interval`` seconds passed since the last admitted one, or the
    robot moved more than ``min_translation`` metres or turned more than ``min_rotation`` radians
    since then, so a robot standing still does not fill the store. Thread-safe."""

    def __init__(self, min_interval: float = 2.0, min_translation: float = 0.5, min_rotation: float = 0.5):
        self.min_interval, self.min_translation, self.min_rotation = min_interval, min_translation, min_rotation
        self._last: Optional[tuple[float, Pose2D]] = None
        self._lock = threading.Lock()

    def admit(self, stamp: float, pose: Pose2D) -> bool:
        with self._lock:
            if self._last is not None:
                last_stamp, last_pose = self._last
                moved = last_pose.distance_to(pose.x, pose.y) > self.min_translation
                turned = _angle_diff(pose.yaw, last_pose.yaw) > self.min_rotation
                # a clock jumping backwards (bag replay, sim reset) starts afresh
                waited = stamp - last_stamp >= self.min_interval or stamp < last_stamp
                if not (moved or turned or waited):
                    return False
            self._last = (stamp, pose)
            return True


def record_from_observation(obs: Observation, caption: str) -> MemoryRecord:
    return MemoryRecord(id=new_record_id(), stamp=obs.stamp, robot_pose=obs.robot_pose, camera_pose=obs.camera_pose,
                        caption=caption, room=obs.room, labels=sorted({s.label for s in obs.sightings}),
                        sightings=list(obs.sightings), raw_ref=obs.image_ref)


class RecordBuilder:
    """Observations -> records: rate-limited, captioned, embedded in one batch."""

    def __init__(self, embedder: Embedder, captioner: Optional[Captioner] = None,
                 rate_limiter: Optional[RateLimiter] = None):
        self.embedder = embedder
        self.captioner = captioner or OfflineCaptioner()
        self.rate_limiter = rate_limiter

    def admit(self, obs: Observation) -> bool:
        return self.rate_limiter is None or self.rate_limiter.admit(obs.stamp, obs.robot_pose)

    def build(self, observations: Sequence[Observation], limited: bool = True) -> list[MemoryRecord]:
        """Records for the admitted observations (all of them when ``limited`` is False)."""
        kept = [o for o in observations if not limited or self.admit(o)]
        records = [record_from_observation(o, self.captioner.caption(o)) for o in kept]
        if records:
            for r, e in zip(records, self.embedder.embed([r.caption for r in records])):
                r.embedding = e
        return records

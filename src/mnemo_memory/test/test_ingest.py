"""Captioning, rate limiting and record building."""
from __future__ import annotations

import json

from mnemo_common.fake_openai import FakeOpenAI
from mnemo_common.llm import ChatClient, LlmConfig
from mnemo_common.types import Observation, Pose2D, Pose3D, Sighting
from mnemo_memory.caption import OfflineCaptioner, VlmCaptioner, caption_from_sightings
from mnemo_memory.ingest import RateLimiter, RecordBuilder
from mnemo_memory.testing import WordEmbedder


def obs(stamp, x=0.0, yaw=0.0, caption="", image_ref="", sightings=None):
    return Observation(stamp=stamp, robot_pose=Pose2D(x, 0.0, yaw), camera_pose=Pose3D((x, 0.0, 1.2)),
                       room="kitchen", caption=caption, image_ref=image_ref,
                       sightings=sightings if sightings is not None else [
                           Sighting("mug", (1, 0, 0.8), {"color": "red"}, support="dining_table", relation="on"),
                           Sighting("dining_table", (1, 0, 0.4), kind="fixture")])


def test_caption_from_sightings_is_deterministic_and_descriptive():
    text = caption_from_sightings(obs(0.0))
    assert text == "In the kitchen: a red mug on the dining table, a dining table."
    assert caption_from_sightings(obs(0.0, sightings=[])) == "In the kitchen: nothing recognisable."
    assert OfflineCaptioner().caption(obs(0.0, caption="oracle says hi")) == "oracle says hi"


def test_rate_limiter_still_robot_moving_robot_turning():
    rl = RateLimiter(min_interval=2.0, min_translation=0.5, min_rotation=0.5)
    still = [rl.admit(t * 0.1, Pose2D(0, 0, 0)) for t in range(100)]  # 10 s standing still at 10 Hz
    assert sum(still) == 5
    moving = [rl.admit(10.0 + t * 0.1, Pose2D(0.1 * t, 0, 0)) for t in range(1, 51)]  # 5 m at 1 m/s
    assert 9 <= sum(moving) <= 11
    assert rl.admit(15.05, Pose2D(5.0, 0, 1.0))  # turned 1 rad in place
    assert rl.admit(1.0, Pose2D(5.0, 0, 1.0))  # clock went backwards: a new run


def test_builder_batches_embeddings_and_skips_still_frames():
    calls = []

    class Counting(WordEmbedder):
        def embed(self, texts):
            calls.append(len(texts))
            return super().embed(texts)

    builder = RecordBuilder(Counting(), rate_limiter=RateLimiter(2.0, 0.5, 0.5))
    records = builder.build([obs(t * 0.5, x=0.0) for t in range(20)])  # 10 s still
    assert len(records) == 5 and calls == [5]
    r = records[0]
    assert r.labels == ["dining_table", "mug"] and r.room == "kitchen" and r.embedding.shape == (64,)
    assert r.caption.startswith("In the kitchen: a red mug")
    assert len(builder.build([obs(100.0 + t, x=0.0) for t in range(3)], limited=False)) == 3


def test_vlm_captioner_sends_image_and_falls_back(tmp_path):
    image = tmp_path / "frame.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    with FakeOpenAI() as fake:
        fake.push("A red mug on a wooden dining table in a kitchen.", 500)
        captioner = VlmCaptioner(ChatClient(LlmConfig(fake.base_url, "vlm")), image_root=tmp_path)
        assert captioner.caption(obs(0.0, image_ref="frame.png")) == "A red mug on a wooden dining table in a kitchen."
        body = json.dumps(fake.requests[-1])
        assert "data:image/png;base64," in body and "caption" in body.lower()
        # endpoint error -> offline caption; no image -> offline caption without a request
        assert captioner.caption(obs(0.0, image_ref="frame.png")).startswith("In the kitchen")
        n = len(fake.requests)
        assert captioner.caption(obs(0.0, image_ref="missing.png")).startswith("In the kitchen")
        assert len(fake.requests) == n

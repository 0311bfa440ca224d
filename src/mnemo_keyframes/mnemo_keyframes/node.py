"""The keyframe node: saves keyframes linked to the scene graph and serves them.

Subscribes: colour images and the robot pose (ring buffer), observations (labels and nodes in
view), scene-graph events (new/updated node keyframes), interaction events (the action window).
Publishes every new keyframe on ``/mnemo/keyframes``. Serves query, task-relevant retrieval and
tagging (the interaction analyzer's labels).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Optional

from geometry_msgs.msg import PoseStamped
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node
from sensor_msgs.msg import Image

from mnemo_common import names
from mnemo_common.embedding import get_embedder
from mnemo_common.llm import ChatClient, LlmConfig
from mnemo_common.ros import (
    declare_config, guarded, interaction_from_msg, observation_from_msg, rgb_from_msg, robot_pose_from_msg, run_node,
    sensor_qos, time_from_msg,
)
from mnemo_common.types import KeyframeMeta, invalid
from mnemo_interfaces.msg import GraphEvent, InteractionEvent, Keyframe, Observation
from mnemo_interfaces.srv import QueryKeyframes, RetrieveKeyframes, TagKeyframes

from mnemo_keyframes.conversions import keyframe_to_msg
from mnemo_keyframes.filters import FilterConfig, KeyframeFilter
from mnemo_keyframes.policy import KeyframeRecorder, RecorderConfig
from mnemo_keyframes.retrieve import KeyframeRetriever, RetrievalConfig
from mnemo_keyframes.ring import FrameRing
from mnemo_keyframes.store import KeyframeStore

NODE_NAME = names.KEYFRAMES_NODE


@dataclass(frozen=True)
class KeyframesConfig:
    data_dir: str = "data"
    run_id: str = ""
    camera: str = "head"
    image_format: str = "jpg"
    thumbnail_width: int = 160
    thumbnail_height: int = 120
    ring_size: int = 30
    frame_tolerance: float = 0.5
    reliable_images: bool = False
    blank_std: float = 4.0
    blur_ratio: float = 0.02
    dup_hash_bits: int = 6
    dup_thumb_diff: float = 6.0
    cap_linked: int = 24
    cap_labels: int = 16
    cap_recent: int = 8
    label_similarity: float = 0.6
    shortlist: int = 12
    default_k: int = 4
    llm_base_url: str = ""
    llm_model: str = ""
    embedding_base_url: str = ""
    embedding_model: str = ""


CONFIG_TYPE = KeyframesConfig

DESCRIPTIONS = {
    "data_dir": "directory holding keyframes/ (images, thumbnails, keyframes.db)",
    "run_id": "run or session id written into every keyframe",
    "camera": "camera name written into keyframes from the colour stream",
    "image_format": "full-resolution image format: jpg (fast) or png (lossless)",
    "thumbnail_width": "thumbnail width in pixels", "thumbnail_height": "thumbnail height in pixels",
    "ring_size": "recent frames kept in the ring buffer",
    "frame_tolerance": "seconds between an event and the frame it is matched to",
    "reliable_images": "subscribe to images with RELIABLE instead of BEST_EFFORT",
    "blank_std": "grey standard deviation below which a perception frame is blank",
    "blur_ratio": "Laplacian variance over grey variance below which a perception frame is blurry",
    "dup_hash_bits": "dHash Hamming distance at or below which frames are near-duplicates",
    "dup_thumb_diff": "mean grey thumbnail difference at or below which frames are near-duplicates",
    "cap_linked": "retrieval pool: most keyframes from nodes linked to the task",
    "cap_labels": "retrieval pool: most keyframes whose labels match the task",
    "cap_recent": "retrieval pool: most recent interaction keyframes",
    "label_similarity": "embedding cosine above which a stored label matches the task",
    "shortlist": "most frames the VLM text stage passes to the image stage",
    "default_k": "keyframes returned when a request asks for k <= 0",
    "llm_base_url": "OpenAI-compatible endpoint for two-stage VLM selection; empty = text-embedding ranking",
    "llm_model": "chat model name at llm_base_url",
    "embedding_base_url": "OpenAI-compatible embeddings endpoint; empty = a local model (embedding_model)",
    "embedding_model": "the model name at embedding_base_url; without one, a locally installed sentence-transformers "
                       "model (its directory, or a name in the local Hugging Face cache; never downloaded); "
                       "empty = the bundled MiniLM",
}


class KeyframesNode(Node):
    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.config: KeyframesConfig = declare_config(self, CONFIG_TYPE, DESCRIPTIONS)
        c = self.config
        self.store = KeyframeStore(c.data_dir, (c.thumbnail_width, c.thumbnail_height), c.image_format, c.run_id)
        if any(self.store.recovered.values()):
            self.get_logger().warn(f"keyframe store recovered from an interrupted write: {self.store.recovered}")
        self.ring = FrameRing(c.ring_size)
        self.recorder = KeyframeRecorder(
            self.store, self.ring,
            KeyframeFilter(FilterConfig(c.blank_std, c.blur_ratio, c.dup_hash_bits, c.dup_thumb_diff)),
            RecorderConfig(c.frame_tolerance, c.camera))
        llm = LlmConfig.from_values(c.llm_base_url, c.llm_model)
        self.retriever = KeyframeRetriever(
            self.store, None, ChatClient(llm) if llm else None,
            RetrievalConfig(c.cap_linked, c.cap_labels, c.cap_recent, c.label_similarity, c.shortlist),
            lambda: get_embedder(c.embedding_base_url, c.embedding_model))
        # Load the embedding model off the service path: the first retrieval should not wait ~15 s.
        threading.Thread(target=self._load_embedder, daemon=True).start()

        inputs = MutuallyExclusiveCallbackGroup()  # events in arrival order
        services = ReentrantCallbackGroup()
        self.keyframes_pub = self.create_publisher(Keyframe, names.KEYFRAMES, 50)
        self.create_subscription(Image, names.COLOR_IMAGE, self.on_image, sensor_qos(c.reliable_images),
                                 callback_group=inputs)
        self.create_subscription(PoseStamped, names.ROBOT_POSE, self.on_pose, 10, callback_group=inputs)
        self.create_subscription(Observation, names.OBSERVATIONS, self.on_observation, 50, callback_group=inputs)
        self.create_subscription(GraphEvent, names.SCENE_GRAPH_EVENTS, self.on_graph_event, 200, callback_group=inputs)
        self.create_subscription(InteractionEvent, names.INTERACTIONS, self.on_interaction, 20, callback_group=inputs)
        self.create_service(QueryKeyframes, names.KEYFRAMES_QUERY, guarded(self, self.handle_query),
                            callback_group=services)
        self.create_service(RetrieveKeyframes, names.KEYFRAMES_RETRIEVE, guarded(self, self.handle_retrieve),
                            callback_group=services)
        self.create_service(TagKeyframes, names.KEYFRAMES_TAG, guarded(self, self.handle_tag), callback_group=services)
        self.get_logger().info(f"keyframe store at {self.store.root} holds {self.store.count()} keyframes")

    def _load_embedder(self) -> None:
        try:
            self.retriever.embedder  # noqa: B018 - touching it loads the model
        except Exception as exc:  # noqa: BLE001 - retrieval reports it when it needs the model
            self.get_logger().warn(f"embedding model not loaded yet: {exc}")

    def _publish(self, metas: list[KeyframeMeta]) -> None:
        for m in metas:
            self.keyframes_pub.publish(keyframe_to_msg(m))

    # -- inputs ----------------------------------------------------------------------
    def on_image(self, msg: Image) -> None:
        try:
            rgb = rgb_from_msg(msg)
        except ValueError as exc:
            self.get_logger().warn(f"dropped image: {exc}", throttle_duration_sec=10.0)
            return
        saved = self.recorder.on_frame(time_from_msg(msg.header.stamp), rgb, self.config.camera)
        if saved is not None:
            self._publish([saved])

    def on_pose(self, msg: PoseStamped) -> None:
        self.ring.set_pose(robot_pose_from_msg(msg)[1])

    def on_observation(self, msg: Observation) -> None:
        try:
            obs = observation_from_msg(msg)
        except Exception as exc:  # noqa: BLE001 - one malformed message must not stop the node
            self.get_logger().warning(f"dropping an unreadable observation: {type(exc).__name__}: {exc}")
            return
        self.recorder.on_observation(obs)

    def on_graph_event(self, msg: GraphEvent) -> None:
        try:
            saved = self.recorder.on_graph_event(msg.kind, msg.node_id, time_from_msg(msg.stamp))
        except Exception as exc:  # noqa: BLE001 - one bad event must not stop the subscription
            self.get_logger().error(f"graph event {msg.kind} {msg.node_id}: {exc}")
            return
        if saved is not None:
            self._publish([saved])

    def on_interaction(self, msg: InteractionEvent) -> None:
        saved, problems = self.recorder.on_interaction(interaction_from_msg(msg))
        for p in problems:
            self.get_logger().warn(f"interaction {msg.id}: frame not kept: {p}")
        self._publish(saved)

    # -- services ----------------------------------------------------------------------
    def handle_query(self, request, response):
        since = until = None
        if request.use_time_range:
            since, until = time_from_msg(request.since), time_from_msg(request.until)
        metas = self.store.query(request.node_id, request.label, request.trigger, since, until, request.limit)
        response.keyframes = [keyframe_to_msg(m) for m in metas]
        return response

    def handle_retrieve(self, request, response):
        k = request.k if request.k > 0 else self.config.default_k
        if not request.task.strip() and not request.node_ids:
            raise invalid("retrieve needs a task or node ids")
        found = self.retriever.retrieve(request.task, list(request.node_ids), k)
        response.keyframes = [keyframe_to_msg(c.meta) for c in found]
        return response

    def handle_tag(self, request, response):
        response.updated = self.store.tag(list(request.keyframe_ids), list(request.tags), request.caption,
                                          request.key_frame_id)
        return response

    def close(self) -> None:
        self.store.close()


def main(args: Optional[list[str]] = None) -> None:
    run_node(KeyframesNode, args)


if __name__ == "__main__":
    main()

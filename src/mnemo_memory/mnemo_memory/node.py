"""The memory node: observations in, records on disk, semantic/temporal/spatial queries served.

Thin ROS wrapper over MemoryService + RecordBuilder. Observations are queued by the subscription
callback and written in batches by one worker thread (captioning and embedding never run in a
callback); queries run in a reentrant group, answered one at a time by default (lowest latency)
or concurrently with ``executor_threads`` > 1.
"""
from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from pathlib import Path

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy

from mnemo_common import names
from mnemo_common.embedding import get_embedder
from mnemo_common.files import require_free_space
from mnemo_common.llm import ChatClient, LlmConfig
from mnemo_common.ros import declare_config, guarded, memory_filter_from_msg, observation_from_msg, run_node
from mnemo_common.types import MnemoError, invalid
from mnemo_interfaces.msg import Observation as ObservationMsg
from mnemo_interfaces.srv import (
    AddMemoryRecord, GetMemoryRecord, SearchMemoryByPosition, SearchMemoryByText, SearchMemoryByTime,
)

from mnemo_memory.caption import OfflineCaptioner, VlmCaptioner
from mnemo_memory.compaction import CompactionConfig
from mnemo_common.ros import memory_record_to_msg
from mnemo_memory.conversions import RecordMsgCache, time_query_from_request
from mnemo_memory.ingest import RateLimiter, RecordBuilder
from mnemo_memory.service import MemoryService

NODE_NAME = names.MEMORY_NODE


@dataclass(frozen=True)
class MemoryNodeConfig:
    data_dir: str = "data"
    qdrant_url: str = ""
    collection: str = "mnemo_memory"
    embedding_base_url: str = ""
    embedding_model: str = ""
    llm_base_url: str = ""
    llm_model: str = ""
    min_interval: float = 2.0
    min_translation: float = 0.5
    min_rotation: float = 0.5
    batch_size: int = 32
    flush_period: float = 0.5
    queue_size: int = 10000
    subscription_depth: int = 10000
    executor_threads: int = 1
    compaction: bool = True
    place_radius: float = 0.5
    place_yaw: float = 0.5
    min_free_mb: float = 256.0


CONFIG_TYPE = MemoryNodeConfig

DESCRIPTIONS = {
    "data_dir": "directory holding memory/<collection>/ (embedded store) and relative raw image paths",
    "qdrant_url": "Qdrant server or cluster URL; empty uses the embedded engine under data_dir",
    "collection": "collection name (a sub-directory for the embedded engine)",
    "embedding_base_url": "OpenAI-compatible embeddings endpoint; empty: a local model (embedding_model)",
    "embedding_model": "the model name at embedding_base_url; without one, a locally installed sentence-transformers "
                       "model (its directory, or a name in the local Hugging Face cache; never downloaded); "
                       "empty: the bundled MiniLM. A store opens only with the model that built it",
    "llm_base_url": "OpenAI-compatible VLM endpoint for captions; empty captions from detections",
    "llm_model": "VLM model name",
    "min_interval": "store at most one observation per this many seconds while the robot stands still",
    "min_translation": "...unless it moved more than this many metres",
    "min_rotation": "...or turned more than this many radians",
    "batch_size": "observations captioned, embedded and written together",
    "flush_period": "seconds a partial batch waits before it is written",
    "queue_size": "observations buffered before the oldest are dropped",
    "min_free_mb": "the embedded store writes nothing (UNAVAILABLE) while the disk under data_dir has less free: "
                   "its engine maps files, and a write that lands on a full disk kills the process; an index "
                   "build (a copy of the store) starts only if it leaves this much free",
    "subscription_depth": "observations DDS holds for this node while it is busy (a simulated patrol "
                          "publishes days of them at once; the simulator's publisher keeps 10000)",
    "executor_threads": "1: queries answered one at a time, lowest latency (100k records, 10 nearest over DDS: "
                        "p50 3.4-3.9 ms vs 4.6-5.8 ms with 4); more: slow queries do not hold up others",
    "compaction": "merge an observation that repeats its place's unchanged state into that place's record "
                  "(first/last seen, count) instead of storing it again",
    "place_radius": "compaction: metres between robot positions of one place",
    "place_yaw": "compaction: radians between headings of one place",
}


def raw_path(raw_ref: str, data_dir: str) -> str:
    """Absolute path of a raw observation when raw_ref names an existing file, else ''."""
    if not raw_ref:
        return ""
    for candidate in (Path(raw_ref), Path(data_dir) / raw_ref):
        if candidate.is_file():
            return str(candidate.resolve())
    return ""


class MemoryNode(Node):
    def __init__(self):
        super().__init__(NODE_NAME)
        self.config = cfg = declare_config(self, CONFIG_TYPE, DESCRIPTIONS)
        self.executor_threads = max(1, cfg.executor_threads)  # read by run_node
        compaction = CompactionConfig(cfg.place_radius, cfg.place_yaw) if cfg.compaction else None
        try:  # a missing model or a store built by another one: said in the log, and no serving
            embedder = get_embedder(cfg.embedding_base_url, cfg.embedding_model)
            self.memory = MemoryService.open(embedder, cfg.data_dir, url=cfg.qdrant_url, collection=cfg.collection,
                                             compaction=compaction, on_event=self.get_logger().info,
                                             reserve_bytes=int(cfg.min_free_mb * 2**20))
        except MnemoError as exc:
            self.get_logger().fatal(f"memory not started: {exc.message}")
            raise
        llm = LlmConfig.from_values(cfg.llm_base_url, cfg.llm_model)
        captioner = VlmCaptioner(ChatClient(llm), image_root=cfg.data_dir) if llm else OfflineCaptioner()
        self.builder = RecordBuilder(embedder, captioner,
                                     RateLimiter(cfg.min_interval, cfg.min_translation, cfg.min_rotation))
        # converted records kept for repeated answers; only when this process is the sole writer
        self._msgs = None if cfg.qdrant_url else RecordMsgCache()
        self._queue: queue.Queue = queue.Queue(maxsize=cfg.queue_size)
        self._stop = threading.Event()
        self._worker = threading.Thread(target=self._write_loop, name="memory-writer", daemon=True)
        self._worker.start()
        threading.Thread(target=self._report_positions, name="memory-positions-report", daemon=True).start()

        self.create_subscription(ObservationMsg, names.OBSERVATIONS, self._on_observation,
                                 QoSProfile(depth=max(1, cfg.subscription_depth), reliability=ReliabilityPolicy.RELIABLE),
                                 callback_group=MutuallyExclusiveCallbackGroup())
        group = ReentrantCallbackGroup()
        for srv_type, name, handler in (
                (SearchMemoryByText, names.MEMORY_SEARCH_TEXT, self._search_text),
                (SearchMemoryByTime, names.MEMORY_SEARCH_TIME, self._search_time),
                (SearchMemoryByPosition, names.MEMORY_SEARCH_POSITION, self._search_position),
                (GetMemoryRecord, names.MEMORY_GET_RECORD, self._get_record),
                (AddMemoryRecord, names.MEMORY_ADD_RECORD, self._add_record)):
            self.create_service(srv_type, name, guarded(self, handler), callback_group=group)
        self.get_logger().info(f"memory ready: {self.memory.count()} records, model {embedder.name}, "
                               f"{'Qdrant at ' + cfg.qdrant_url if cfg.qdrant_url else 'embedded store in ' + cfg.data_dir}")

    def _report_positions(self) -> None:
        store = self.memory.store
        if not hasattr(store, "positions_ready"):
            return
        while not self._stop.is_set():
            if not getattr(store, "positions_in_ram", True):  # (at the open, or outgrown while read back)
                self.get_logger().info(f"positions not held in RAM (over {store.tuning.positions_in_ram_max} records): "
                                       f"position queries use the engine's indices")
                return
            if getattr(store, "positions_error", ""):
                self.get_logger().warning(f"positions could not be read back ({store.positions_error}): "
                                          f"position queries keep using the engine's indices")
                return
            if store.positions_ready(timeout=0.5):
                seconds = getattr(store, "positions_load_seconds", 0.0)
                self.get_logger().info(f"positions in RAM: plain position queries skip the engine scan"
                                       f"{f' (read back in {seconds:.1f} s)' if seconds else ''}")
                return

    # -- ingest ----------------------------------------------------------------------------
    def _on_observation(self, msg) -> None:
        try:
            obs = observation_from_msg(msg)
        except Exception as exc:  # noqa: BLE001 - one malformed message must not stop the node
            self.get_logger().warning(f"dropping an unreadable observation: {type(exc).__name__}: {exc}")
            return
        if not (obs.robot_pose.is_finite() and obs.camera_pose.is_finite()):
            self.get_logger().warning(f"dropping observation {obs.seq}: pose is not finite")
            return
        try:
            self._queue.put_nowait(obs)
        except queue.Full:
            self.get_logger().warning("observation queue full: dropping the oldest")
            try:
                self._queue.get_nowait()
            except queue.Empty:
                pass
            self._queue.put_nowait(obs)

    def _write_loop(self) -> None:
        cfg = self.config
        while not self._stop.is_set():
            try:
                batch = [self._queue.get(timeout=cfg.flush_period)]
            except queue.Empty:
                continue
            while len(batch) < cfg.batch_size:
                try:
                    batch.append(self._queue.get(timeout=cfg.flush_period))
                except queue.Empty:
                    break
            try:
                records = self.builder.build(batch)
                if records:
                    self._store(records)
            except Exception as exc:  # noqa: BLE001 - keep ingesting; the batch is lost, say so
                self.get_logger().error(f"writing {len(batch)} observations failed: {type(exc).__name__}: {exc}")

    def _store(self, records) -> list[str]:
        if not self.config.qdrant_url:
            require_free_space(self.config.data_dir, int(self.config.min_free_mb * 2**20), "the memory store")
        ids = self.memory.add(records)
        if self._msgs is not None:
            self._msgs.discard(ids)
        return ids

    def _to_msgs(self, records) -> list:
        if self._msgs is None:
            return [memory_record_to_msg(r) for r in records]
        return [self._msgs.to_msg(r) for r in records]

    # -- services --------------------------------------------------------------------------
    def _search_text(self, req, res):
        search = self.memory.search_objects if req.objects else self.memory.search_text
        records = search(req.text, req.k, memory_filter_from_msg(req.filter))
        res.records = self._to_msgs(records)
        return res

    def _search_time(self, req, res):
        records = self.memory.search_time(k=req.k, text=req.text, filter=memory_filter_from_msg(req.filter),
                                          **time_query_from_request(req))
        res.records = self._to_msgs(records)
        return res

    def _search_position(self, req, res):
        records = self.memory.search_position(req.x, req.y, req.radius, req.k, req.text,
                                              memory_filter_from_msg(req.filter))
        res.records = self._to_msgs(records)
        return res

    def _get_record(self, req, res):
        record = self.memory.get(req.id)
        res.record = self._to_msgs([record])[0]
        res.raw_path = raw_path(record.raw_ref, self.config.data_dir)
        return res

    def _add_record(self, req, res):
        obs = observation_from_msg(req.observation)
        if not (obs.robot_pose.is_finite() and obs.camera_pose.is_finite()):
            raise invalid("observation pose must be finite")
        records = self.builder.build([obs])
        res.stored = bool(records)
        if records:
            res.id = self._store(records)[0]
        return res

    def close(self) -> None:
        self._stop.set()
        self._worker.join(timeout=10.0)
        remaining = []
        while True:
            try:
                remaining.append(self._queue.get_nowait())
            except queue.Empty:
                break
        if remaining:
            try:
                self._store(self.builder.build(remaining))
            except Exception as exc:  # noqa: BLE001
                self.get_logger().error(f"writing the last {len(remaining)} observations failed: {exc}")
        self.memory.close()


def main(args=None) -> None:
    run_node(MemoryNode, args)


if __name__ == "__main__":
    main()

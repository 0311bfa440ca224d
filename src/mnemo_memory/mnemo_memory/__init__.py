"""mnemo_memory: the long-term memory of STAR (section IV-B): each observation stored as a record
m_t = (t, x_t, embed(o_t), o_t), searchable by meaning, time and place, on disk, fast.

In-process API (no ROS)::

    from mnemo_common.embedding import get_embedder
    from mnemo_memory.service import MemoryService
    memory = MemoryService.open(get_embedder(), data_dir="data")      # or url="http://qdrant:6333"
    ids = memory.add([MemoryRecord(...)])                 # embeds captions; durable on return
    memory.search_text("red mug", k=10, filter=MemoryFilter(since=..., room="kitchen", labels=["mug"]))
    memory.search_objects("red mug", k=10)   # one per object instance: its best sighting's record
    # text search answers records with ``matched_sighting``: the index of the sighting that matched
    memory.search_time(since=t0, until=t1, k=10, text="")  # or around=t; text ranks inside the window
    memory.search_position(x, y, radius=2.0, k=10, text="")  # radius <= 0: the k nearest
    memory.get(record_id) -> MemoryRecord (with embedding); memory.count(); memory.close()

Indexing and speed (embedded engine, ``tuning.EdgeTuning``): HNSW (m 16, ef_construct 64,
search ef 64) over int8 scalar-quantized vectors kept in RAM, rescored with the float vectors;
built one segment (~13k records) at a time as the store fills: when ``store.optimize_due()``,
``MemoryService`` builds it in a child process on a copy of the shards and switches to the copy
once it has caught up (``index_build``, ``background_index``): qdrant-edge's ``optimize()`` holds
the GIL for its whole run, so in process no query would be answered meanwhile. Bulk loaders may
pass ``auto_optimize=False`` and call ``optimize()`` (in process) once.
Time queries walk the stamp index from the range's end (``start_from``); spatial queries read
positions only and fetch the k winners' payloads; the node reuses converted record messages.
Numbers: ``python src/mnemo_memory/bench/bench_memory.py``.

Errors are ``MnemoError`` (INVALID_ARGUMENT for bad input, NOT_FOUND for unknown ids,
UNAVAILABLE when another process holds the store, FAILED for an embedding-model mismatch (a store
opens only with the model that built it) or a store an interrupted copy left unfinished, ``model_record``).

Modules: ``store`` (MemoryStore protocol, open_store), ``store_base`` (the writes both backends
share), ``query_plans`` (their query plans), ``conditions`` (filters neutral to the backend), ``edge_store`` (default,
qdrant-edge in-process), ``client_store`` (qdrant-client: server/cluster or local mode),
``service`` (MemoryService), ``index_build`` + ``background_index`` + ``shard_copy`` (index builds off
the serving process), ``caption`` + ``ingest`` (Observation -> MemoryRecord: captioner,
rate limiter, RecordBuilder), ``bag`` (rosbag2 MCAP reading), ``conversions`` (msg <-> core),
``model_record`` (a store's record: the model it was built with, an unfinished copy), ``reembed``
(a copy with another model's vectors), ``store_dir`` (the embedded store's lock and record),
``node`` (ROS node ``memory``),
``cli`` (``mnemo memory query|ingest|compact|reembed``).

ROS API (names in mnemo_common.names): subscribes OBSERVATIONS; serves MEMORY_SEARCH_TEXT
(SearchMemoryByText), MEMORY_SEARCH_TIME (SearchMemoryByTime), MEMORY_SEARCH_POSITION
(SearchMemoryByPosition), MEMORY_GET_RECORD (GetMemoryRecord, raw_path = absolute path of the
raw image when it exists), MEMORY_ADD_RECORD (AddMemoryRecord, answered once durable).
"""

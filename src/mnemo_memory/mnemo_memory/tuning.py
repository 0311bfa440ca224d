"""Index and search settings of the memory store, shared by both backends: the embedded engine's
shard config (``EdgeStore``) and, translated, a server collection's (``ClientStore``)."""
from __future__ import annotations

from dataclasses import dataclass

import qdrant_edge as qe

from mnemo_memory.sightings import DENSE, SPARSE


@dataclass(frozen=True)
class EdgeTuning:
    """Index and search settings of a new embedded store (measured in bench/bench_memory.py).

    Sizes are in KiB of float vectors, as qdrant's optimizer counts them (a 384-d vector is 1.5 KiB).
    """

    hnsw_m: int = 16                     # graph degree
    hnsw_ef_construct: int = 64          # build beam: 64 keeps recall@10 ~0.97 at a third of the build time of 100
    # search beam (raised to the limit for larger k) and rescored candidates per result: 48 and 1.5
    # gave recall@10 1.000 at 100k, as 64 and 2.0 did, at p50 1.2-1.7 ms instead of 1.8-2.1
    hnsw_ef: int = 48
    full_scan_threshold_kb: int = 4_000  # a filter matching fewer vectors than this is scored exactly
    quantization: bool = True            # int8 scalar quantization, float rescoring (quantized_in_ram below)
    oversampling: float = 1.5
    indexing_threshold_kb: int = 20_000  # segments above this get an HNSW index (~13k 384-d vectors)
    # merges stop here (~130k 384-d vectors): a search visits every segment, so at 1M records the
    # segment count sets the latency (60,000 KB leaves ~25); a larger bound makes rarer, longer passes
    max_segment_size_kb: int = 200_000
    segments: int = 8                    # target segment count before small segments are merged
    # Float vectors memory-mapped, read on demand: only the few rescored per query are touched, and
    # a reopen does not read every vector into RAM (100k: 0.80 s instead of 1.07 s in the same bench run).
    vectors_cold: bool = True

    # int8 vectors read into RAM at open. Memory-mapped instead, a 100k reopen took 793-1018 ms
    # instead of 905-1400 (six alternating pairs), but the first query after it 238 ms instead of
    # 12-14: the reading only moved to the first answer.
    quantized_in_ram: bool = True
    # x, y, room and labels indices memory-mapped (stamp then in RAM): 100k reopen 674-811 ms
    # instead of 863-1038 (five alternating pairs), first query and filtered queries alike
    secondary_indexes_on_disk: bool = True
    # the stamp index (the principal one, which time queries filter and order by) memory-mapped as
    # well: a load, which holds the GIL (every index build's switch), no longer builds it in RAM
    # point by point, and queries read its pages from the page cache (a store keeps the setting it
    # was created with)
    stamp_index_on_disk: bool = True
    # payload memory-mapped and read on demand: Cached read every payload into RAM at open; a query
    # reads ten, and plain position queries use the grid in RAM up to positions_in_ram_max records
    # (whose read-back at open is slower)
    payload_cold: bool = True
    # Plain position queries are answered from a grid of positions in RAM (spatial.PositionGrid) up to
    # this many records. Past it the engine's x/y indices answer (1M records: p50 3.0 ms within 2 m,
    # 1.8 ms unbounded, against 0.7 from the grid), and the memory saved is that of the grid (about
    # 0.27 KB per record) and of every payload page its read-back at a reopen maps (about 0.5 KB).
    positions_in_ram_max: int = 200_000

    def config(self, dim: int, objects: bool = False) -> "qe.EdgeConfig":
        """The view shard's config; ``objects``: the sighting shard's (a dense and a sparse named vector)."""
        quant = (qe.ScalarQuantizationConfig(qe.ScalarType.Int8, quantile=0.99, always_ram=self.quantized_in_ram)
                 if self.quantization else None)
        dense = qe.EdgeVectorParams(size=dim, distance=qe.Distance.Dot,
                                    memory=qe.Memory.Cold if self.vectors_cold else None)
        return qe.EdgeConfig(
            vectors={DENSE: dense} if objects else dense,
            # inverse document frequency: a word in every sighting ("the") weighs nothing
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)} if objects else None,
            payload_memory=qe.Memory.Cold if self.payload_cold else qe.Memory.Cached,
            hnsw_config=qe.HnswIndexConfig(m=self.hnsw_m, ef_construct=self.hnsw_ef_construct,
                                           full_scan_threshold=self.full_scan_threshold_kb),
            quantization_config=quant,
            optimizers=qe.EdgeOptimizersConfig(default_segment_number=self.segments,
                                               max_segment_size=self.max_segment_size_kb,
                                               indexing_threshold=self.indexing_threshold_kb))

    def search_params(self, limit: int, rescore: bool = True) -> "qe.SearchParams":
        """``rescore`` False: the int8 ranking as it is, for a pool only ranks are taken from (no float
        vector read from disk: a pool of 80 sightings rescored 120 per segment)."""
        quant = (qe.QuantizationSearchParams(rescore=rescore, oversampling=self.oversampling if rescore else None)
                 if self.quantization else None)
        return qe.SearchParams(hnsw_ef=max(self.hnsw_ef, limit), quantization=quant)

    def index_points(self, dim: int) -> int:
        """Unindexed records that make an optimize pass worth it: about one segment's worth."""
        return max(1, self.indexing_threshold_kb * 1024 // (4 * dim))

"""How much memory `reverie migrate-to` gives the one HNSW build at the end of the copy."""

from __future__ import annotations

from memory.transfer import hnsw_build_mb


def test_hnsw_build_memory_holds_every_vector_so_a_large_copy_never_spills() -> None:
    vectors_mb = 1_000_000 * 384 * 4 / 1024**2  # 1M MiniLM vectors, float32: ~1.5 GB before the graph
    assert hnsw_build_mb(1_000_000, 384, ram_mb=24_000) > vectors_mb * 1.5
    assert hnsw_build_mb(100_000, 768, ram_mb=24_000) > 100_000 * 768 * 4 / 1024**2


def test_hnsw_build_memory_is_never_more_than_a_quarter_of_the_machine() -> None:
    assert hnsw_build_mb(1_000_000, 384, ram_mb=2_048) == 512  # the 2 GB box: on disk, slower, not killed
    assert hnsw_build_mb(1_000_000, 384, ram_mb=8_192) == 2_048


def test_hnsw_build_memory_has_a_floor_for_small_installations() -> None:
    assert hnsw_build_mb(0, 384) == hnsw_build_mb(1_000, 384, ram_mb=24_000) == 512

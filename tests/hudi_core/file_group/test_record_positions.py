"""RECORD_POSITIONS headers: 64-bit Roaring bitmaps in their portable serialization."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from hudi_core.errors import FileFormatError
from hudi_core.file_group.log_file.positions import decode_record_positions, encode_record_positions

# Headers Apache Hudi 1.2 wrote for updates of base rows {0, 1} and {1}.
WRITTEN_BY_APACHE_HUDI = {
    "AQAAAAAAAAAAAAAAOjAAAAEAAAAAAAEAEAAAAAAAAQA=": [0, 1],
    "AQAAAAAAAAAAAAAAOjAAAAEAAAAAAAAAEAAAAAEA": [1],
}


@pytest.mark.parametrize(("header", "positions"), WRITTEN_BY_APACHE_HUDI.items())
def test_headers_apache_hudi_wrote_decode(header: str, positions: list[int]) -> None:
    assert decode_record_positions(header).tolist() == positions


@pytest.mark.parametrize(
    "positions",
    [
        [],
        [5],
        list(range(10_000)),  # a bitmap container
        list(range(0, 200_000, 3)),  # several array containers
        [*range(100), *range(5_000, 9_000), 70_000, 2**33 + 5],  # several buckets
    ],
)
@pytest.mark.parametrize("run_containers", [False, True])
def test_every_container_kind_decodes(positions: list[int], run_containers: bool) -> None:
    roaring = pytest.importorskip("pyroaring")
    bitmap = roaring.BitMap64(positions)
    if run_containers:
        bitmap.run_optimize()
    header = base64.b64encode(bitmap.serialize()).decode()
    assert decode_record_positions(header).tolist() == sorted(positions)


@pytest.mark.parametrize("header", ["not base64!", base64.b64encode(b"\x01\x00").decode(), "AQAAAAAAAAAAAAAAOTAAAA=="])
def test_a_malformed_header_is_a_file_format_error(header: str) -> None:
    with pytest.raises(FileFormatError, match="RECORD_POSITIONS"):
        decode_record_positions(header)


@pytest.mark.parametrize(("header", "positions"), WRITTEN_BY_APACHE_HUDI.items())
def test_we_encode_positions_as_apache_hudi_does(header: str, positions: list[int]) -> None:
    assert encode_record_positions(np.array(positions, dtype=np.int64)) == header


@pytest.mark.parametrize(
    "positions",
    [[], [5], list(range(10_000)), list(range(0, 200_000, 3)), [*range(100), *range(5_000, 9_000), 2**33 + 5]],
)
def test_encoded_positions_are_a_portable_roaring_bitmap(positions: list[int]) -> None:
    roaring = pytest.importorskip("pyroaring")
    header = encode_record_positions(np.array(positions, dtype=np.int64))
    assert list(roaring.BitMap64.deserialize(base64.b64decode(header))) == positions
    assert decode_record_positions(header).tolist() == positions


@pytest.mark.parametrize("positions", [[2, 1], [1, 1], [-1]])
def test_positions_out_of_order_are_refused(positions: list[int]) -> None:
    with pytest.raises(ValueError, match="ascending"):
        encode_record_positions(np.array(positions, dtype=np.int64))

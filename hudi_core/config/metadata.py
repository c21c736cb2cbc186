"""Metadata-table options (`HoodieMetadataConfig`)."""

from __future__ import annotations

from hudi_core.config import option, parse_bool


class HudiMetadataConfig:
    ENABLE = option(
        "hoodie.metadata.enable",
        parse_bool,
        False,
        "Use and maintain the metadata table under .hoodie/metadata. Readers list the file system "
        "until the metadata-table reader lands (default false here; Hudi 1.0.2 defaults to true).",
    )

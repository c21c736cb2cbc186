"""Hudi log files: framing, blocks, scanning (spec notes §4)."""

"""Merging records that share a key: within a batch, across log blocks, and with base files."""

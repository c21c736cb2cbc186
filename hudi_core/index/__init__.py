"""Indexes: finding the file group that holds a record key."""

"""An independent model of a Hudi table's logical content, for checking what writers produce.

The model knows Hudi's write semantics in plain Python (dicts, no Arrow compute): upserts keep the
record with the greater ordering value under event-time ordering, and so do upserted rows marked
`_hoodie_is_deleted = true`, which delete; the delete operation deletes by key whatever ordering
value its rows hold (Hudi's delete records carry none); untouched records keep their commit time, and
every commit is kept so time travel and incremental reads can be checked too. Records are identified
by (partition path, record key).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

Row = dict[str, Any]

IS_DELETED = "_hoodie_is_deleted"

# The small trips schema most write tests use: record key `id`, ordering `ts`, partition `city`.
TRIPS_SCHEMA = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("city", pa.string()), ("fare", pa.float64())])


@dataclass
class Commit:
    instant: str
    completion: str | None
    state: dict[tuple[str, str], Row]
    is_service: bool = False
    replaced: frozenset[str] = frozenset()  # partitions whose file groups the commit replaced


@dataclass
class TableModel:
    """Expected content of one table.

    Args:
        key_field: the record key column.
        partition_of: maps a row to its partition path ("" when non-partitioned).
        ordering_field: the ordering column under event-time ordering, else None.
        global_keys: a key is unique across partitions (global index): an upsert moving it to another
            partition removes it from the old one.
    """

    key_field: str
    partition_of: Any
    ordering_field: str | None = None
    global_keys: bool = False
    commits: list[Commit] = field(default_factory=list)

    @property
    def current(self) -> dict[tuple[str, str], Row]:
        return self.commits[-1].state if self.commits else {}

    def _location(self, row: Row) -> tuple[str, str]:
        return (self.partition_of(row), str(row[self.key_field]))

    def _wins(self, incoming: Row, stored: Row) -> bool:
        if self.ordering_field is None:
            return True
        return bool(incoming[self.ordering_field] >= stored[self.ordering_field])

    def _dedup(self, rows: list[Row]) -> dict[tuple[str, str], Row]:
        chosen: dict[tuple[str, str], Row] = {}
        for row in rows:
            where = self._location(row)
            if where not in chosen or self._wins(row, chosen[where]):
                chosen[where] = row
        return chosen

    def _commit(
        self,
        instant: str,
        completion: str | None,
        state: dict[tuple[str, str], Row],
        replaced: frozenset[str] = frozenset(),
    ) -> None:
        self.commits.append(Commit(instant, completion, state, replaced=replaced))

    def upsert(self, rows: list[Row], instant: str, completion: str | None) -> None:
        """Upserts; a row with `_hoodie_is_deleted = true` deletes the stored record it wins over."""
        state = copy.deepcopy(self.current)
        for where, row in self._dedup(rows).items():
            if self.global_keys:
                for moved in [w for w in state if w[1] == where[1] and w != where]:
                    del state[moved]
            stored = state.get(where)
            if stored is not None and not self._wins(row, stored):
                continue
            if row.get(IS_DELETED):
                state.pop(where, None)
            else:
                state[where] = {**row, "_commit": instant}
        self._commit(instant, completion, state)

    def insert_new(self, rows: list[Row], instant: str, completion: str | None) -> None:
        """insert / bulk_insert of keys the table does not hold yet."""
        state = copy.deepcopy(self.current)
        for row in rows:
            where = self._location(row)
            assert where not in state, f"model: insert_new of stored key {where}"
            state[where] = {**row, "_commit": instant}
        self._commit(instant, completion, state)

    def delete(self, rows: list[Row], instant: str, completion: str | None) -> None:
        """The delete operation: deletes by key, whatever ordering values the rows hold."""
        state = copy.deepcopy(self.current)
        for row in rows:
            state.pop(self._location(row), None)
        self._commit(instant, completion, state)

    def insert_overwrite(self, rows: list[Row], instant: str, completion: str | None, whole_table: bool) -> None:
        written = {self.partition_of(r) for r in rows}
        replaced = {k[0] for k in self.current} if whole_table else written
        state = {} if whole_table else copy.deepcopy(self.current)
        for partition in written:
            state = {k: v for k, v in state.items() if k[0] != partition}
        for row in rows:
            state[self._location(row)] = {**row, "_commit": instant}
        self._commit(instant, completion, state, frozenset(replaced))

    def delete_partitions(self, partitions: list[str], instant: str, completion: str | None) -> None:
        state = {k: v for k, v in self.current.items() if k[0] not in partitions}
        self._commit(instant, completion, state, frozenset(partitions))

    def rollback(self, instant: str) -> None:
        """Rolling back the latest commit: the table returns to the state before it."""
        assert self.commits and self.commits[-1].instant == instant, f"model: {instant} is not the latest commit"
        self.commits.pop()

    def restore(self, savepoint: str) -> None:
        """Restoring a savepoint: every commit after it is gone."""
        assert any(c.instant == savepoint for c in self.commits), f"model: no commit {savepoint}"
        self.commits = [c for c in self.commits if c.instant <= savepoint]

    def service(self, instant: str, completion: str | None) -> None:
        """A table service (compaction, clustering): same content, a new instant."""
        self.commits.append(Commit(instant, completion, copy.deepcopy(self.current), is_service=True))

    # ---- expected reads -----------------------------------------------------------------------

    def snapshot(self, columns: list[str]) -> list[Row]:
        return [{c: row.get(c) for c in columns} for row in self.current.values()]

    def as_of(self, instant: str, columns: list[str]) -> list[Row]:
        """Time travel: the state after the last commit requested at or before `instant`."""
        state: dict[tuple[str, str], Row] = {}
        for commit in self.commits:
            if commit.instant <= instant:
                state = commit.state
        return [{c: row.get(c) for c in columns} for row in state.values()]

    def incremental(self, start: str | None, end: str | None, columns: list[str]) -> list[Row]:
        """Records written by non-service commits that completed in (start, end], as of end."""

        def key(c: Commit) -> str:
            return c.completion or c.instant

        selected = {
            c.instant
            for c in self.commits
            if not c.is_service and (start is None or key(c) > start) and (end is None or key(c) <= end)
        }
        state: dict[tuple[str, str], Row] = {}
        for commit in self.commits:
            if end is None or key(commit) <= end:
                state = commit.state
        return [{c: row.get(c) for c in columns} for row in state.values() if row["_commit"] in selected]

    def changes(self, start: str | None, end: str | None, columns: list[str]) -> list[Row]:
        """CDC rows of the non-service commits completed in (start, end]: op, ts_ms, before, after.

        A commit's changes compare the state before it with the state after it: a record only
        after is inserted, only before deleted, in both and rewritten by the commit updated (a key
        moved to another partition is a delete and an insert). A replacing commit deletes every
        record of the partitions it replaced and inserts every record it wrote. As Apache Hudi reads
        them; sorted by completion, then key, then delete before update before insert, then partition.
        """

        def key(c: Commit) -> str:
            return c.completion or c.instant

        def image(row: Row | None) -> Row | None:
            return None if row is None else {c: row.get(c) for c in columns}

        out: list[Row] = []
        previous: dict[tuple[str, str], Row] = {}
        for commit in self.commits:
            before, after = previous, commit.state
            previous = commit.state
            if commit.is_service or (start is not None and key(commit) <= start):
                continue
            if end is not None and key(commit) > end:
                break
            rows: list[tuple[str, str, str, Row | None, Row | None]] = []
            rank = {"d": 0, "u": 1, "i": 2}
            if commit.replaced:  # the replaced file groups' rows deleted, the written rows inserted
                for where in sorted(before.keys() | after.keys(), key=lambda w: (w[1], w[0])):
                    if where[0] in commit.replaced and where in before:
                        rows.append((where[1], where[0], "d", before[where], None))
                    if where in after and after[where]["_commit"] == commit.instant:
                        rows.append((where[1], where[0], "i", None, after[where]))
            else:
                for where in sorted(before.keys() | after.keys(), key=lambda w: (w[1], w[0])):
                    old, new = before.get(where), after.get(where)
                    if old is None and new is not None:
                        rows.append((where[1], where[0], "i", None, new))
                    elif new is None and old is not None:
                        rows.append((where[1], where[0], "d", old, None))
                    elif old is not None and new is not None and new["_commit"] == commit.instant:
                        rows.append((where[1], where[0], "u", old, new))
            rows.sort(key=lambda r: (r[0], rank[r[2]], r[1]))
            out.extend(
                {"op": op, "ts_ms": commit.instant, "before": image(old), "after": image(new)}
                for _, _, op, old, new in rows
            )
        return out


def table_rows(table: pa.Table, columns: list[str]) -> list[Row]:
    return [{c: row[c] for c in columns} for row in table.select(columns).to_pylist()]


def canonical(rows: list[Row]) -> list[tuple[Any, ...]]:
    """Rows as sorted tuples of sorted items, comparable as multisets."""
    return sorted(tuple(sorted((k, repr(v)) for k, v in row.items())) for row in rows)

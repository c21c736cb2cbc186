"""`python -m bench`: our operations next to delta-rs, pyiceberg, hudi-rs and raw pyarrow, side by side.

Modules, in the order a run uses them:

* :mod:`bench.suite.workspace` -- where a scale's inputs, loaded tables and scratch copies live;
* :mod:`bench.suite.inputs` -- the seeded trips base and its update/delete batches;
* :mod:`bench.suite.fixtures` -- the tables loaded once per scale (setup caching);
* :mod:`bench.suite.peers` -- how delta-rs, pyiceberg, hudi-rs and raw pyarrow do each operation;
* :mod:`bench.suite.operations` -- the registry of timed operations (ours and the peers');
* :mod:`bench.suite.measure` -- one operation run in a child process: baseline, peak RSS, wall time;
* :mod:`bench.suite.runner` -- the parent: one subprocess per operation run, repetitions round-robin;
* :mod:`bench.suite.report` -- medians, ratios, targets met/missed, RESULTS.md.
"""

"""Writing tables: the planner (`decisions`: what a write does, for every engine; `planner`:
routing and file sizing), batch preparation, the file-group writes (`handles`), and the write
client's commit protocol (`client`)."""

package dev.zklock.cli.bench;

/**
 * One line of the bench report's table of floors and baselines: one figure of the same work done without a lock
 * library, measured in the same run beside a scenario of the main table. A floor is ZooKeeper work with no lock code
 * around it (a raw create and delete, a bare queue of nodes and watches): the least any lock on this server can cost.
 * A baseline is the JDK's fair {@code ReentrantLock} among the same threads, with no ZooKeeper: the most a local
 * hand-off could reach. No counterpart, no ratio and no target of its own; a target of the main table may be set
 * against it ({@link Target#floorAtMost}). Immutable, and safe for use by any thread.
 *
 * @param floor what was measured, e.g. "raw floor (one create + one delete, raw ZooKeeper handle)"
 * @param scenario the scenario it ran beside, or what it did there, e.g. "uncontended"
 * @param metric e.g. "create p50 (ms)", shown as the main table shows a figure of that metric
 * @param value the figure, NaN if not measured
 */
record FloorRow(String floor, String scenario, String metric, double value) {}

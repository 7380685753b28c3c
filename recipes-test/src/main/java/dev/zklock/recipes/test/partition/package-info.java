/**
 * The partition rig: a real ZooKeeper ensemble of three server JVMs, client JVMs and an observer, each in a Linux
 * network namespace of its own on a bridge in a namespace of its own ({@link PartitionRig}), and a seeded {@link
 * Nemesis} that cuts, partitions, kills and pauses them for real and writes each fault to a history file. Needs root
 * and iproute2's {@code ip}; everything the rig makes is torn down on close, on failure and on Ctrl-C.
 *
 * <p>The JVMs that are not servers: {@link PartitionClient}, one client JVM whose threads drive every lock kind of
 * zklock and Curator on paths of their own and write what they see to a history, and {@link PartitionObserver}, the
 * outside observer that sees sessions end on the server and, on command, deletes lock nodes as a stranger would.
 * {@link RigProbe} is a trivial client process for the rig's own tests. The history's line format and the shared
 * stores are in {@code dev.zklock.recipes.test.history}; its checkers read what these JVMs write.
 *
 * <p>{@link PartitionRun} is a whole run as one call, for a test ({@code PartitionsIT}) or {@code zklock torture
 * --partitions}: rig, JVMs, nemesis, teardown, and the histories judged ({@link PartitionResult}).
 *
 * <p>No method accepts {@code null}. Unless a type says otherwise, instances are safe for use by multiple threads.
 */
package dev.zklock.recipes.test.partition;

/**
 * The partition rig: a real ZooKeeper ensemble of three server JVMs, client JVMs and an observer, each in a Linux
 * network namespace of its own on a bridge in a namespace of its own ({@link PartitionRig}), and a seeded {@link
 * Nemesis} that cuts, partitions, kills and pauses them for real and writes each fault to a history file. Needs root
 * and iproute2's {@code ip}; everything the rig makes is torn down on close, on failure and on Ctrl-C. {@link
 * RigProbe} is a trivial client process for the rig's own tests.
 *
 * <p>No method accepts {@code null}. Unless a type says otherwise, instances are safe for use by multiple threads.
 */
package dev.zklock.recipes.test.partition;

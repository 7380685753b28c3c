/**
 * The JVMs of the partition rig that are not ZooKeeper servers: {@link dev.zklock.recipes.test.partition.PartitionClient},
 * one client JVM whose threads drive every lock kind of zklock and Curator on paths of their own and write what they
 * see to a history, and {@link dev.zklock.recipes.test.partition.PartitionObserver}, the outside observer that sees
 * sessions end on the server and, on command, deletes lock nodes as a stranger would. The history's line format and the
 * shared stores are in {@code dev.zklock.recipes.test.history}; the checkers read what these JVMs write.
 *
 * <p>No method accepts {@code null}. Unless a type says otherwise, instances are confined to the thread that made them.
 */
package dev.zklock.recipes.test.partition;

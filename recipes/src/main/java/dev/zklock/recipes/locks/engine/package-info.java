/**
 * zklock's acquisition engine: not API. The algorithm of one acquisition ({@link
 * dev.zklock.recipes.locks.engine.Acquisition}, with its {@link dev.zklock.recipes.locks.engine.Event}s and {@link
 * dev.zklock.recipes.locks.engine.Command}s), its two runners, the requests they send, the nodes they hold, and the
 * per-client context that owns every piece of state that outlives one acquisition. Its types are public only so that
 * the locks of {@code dev.zklock.recipes.locks} can use them; they are left out of the javadoc and may change in any
 * release.
 *
 * <p>There is no {@code module-info} to keep this package unexported: ZooKeeper 3.9's two jars split two packages
 * ({@code org.apache.zookeeper.server.persistence} and {@code org.apache.zookeeper.server.quorum} are in both
 * {@code zookeeper} and {@code zookeeper-jute}), so javac refuses any named module that reads ZooKeeper ("module
 * zookeeper reads package org.apache.zookeeper.server.quorum from both zookeeper and zookeeper.jute"), and Curator ships
 * none either. The jar names its automatic module {@code dev.zklock.recipes}.
 *
 * <p>Null policy and thread safety as in {@code dev.zklock.recipes.locks}; each type says what it guards.
 */
package dev.zklock.recipes.locks.engine;

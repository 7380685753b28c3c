/**
 * A test kit for code that uses zklock, and for zklock itself: {@link dev.zklock.recipes.test.ZooKeeperExtension}, a
 * JUnit 5 extension that runs a real embedded ZooKeeper server and checks after every test that nothing leaked;
 * {@link dev.zklock.recipes.test.LockActor}, a thread that runs lock calls on command; and
 * {@link dev.zklock.recipes.test.LockDriverContract}, the contract suite every {@code LockDriver} must pass.
 *
 * <p>No method accepts {@code null}. Unless a type says otherwise, instances are confined to the test that made them.
 */
package dev.zklock.recipes.test;

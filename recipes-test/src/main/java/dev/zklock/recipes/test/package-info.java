/**
 * A test kit for code that uses zklock, and for zklock itself.
 *
 * <ul>
 *   <li>{@link dev.zklock.recipes.test.ZooKeeperExtension}: a JUnit 5 extension that runs a real embedded ZooKeeper
 *       server, or an ensemble of several ({@link dev.zklock.recipes.test.EmbeddedZooKeeper}), and checks after every
 *       test that nothing leaked;
 *   <li>{@link dev.zklock.recipes.test.Faults}: real faults (session expiry, dropped connections, connections silenced
 *       through a client's own {@linkplain dev.zklock.recipes.test.ClientProxies proxies}, lock nodes deleted by a
 *       stranger, clients closed), and server stops, restarts and leader kills through the extension;
 *   <li>{@link dev.zklock.recipes.test.SafetyMonitor}: records holds and waits and reports overlaps, token
 *       regressions, leaked nodes and stuck waiters;
 *   <li>{@link dev.zklock.recipes.test.Chaos}: the chaos workload over pluggable
 *       {@linkplain dev.zklock.recipes.test.LockKind lock kinds}, seeded and reproducible, which the chaos suites and
 *       {@code zklock torture} run;
 *   <li>{@link dev.zklock.recipes.test.LockActor}, a thread that runs lock calls on command, and
 *       {@link dev.zklock.recipes.test.LockDriverContract}, the contract suite every {@code LockDriver} must pass.
 * </ul>
 *
 * <p>No method accepts {@code null}. Unless a type says otherwise, instances are confined to the test that made them.
 */
package dev.zklock.recipes.test;

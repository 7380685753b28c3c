/**
 * Spring Integration's {@code LockRegistry} and leader initiator over zklock, and their Spring Boot auto-configuration.
 *
 * <p>{@link dev.zklock.spring.ZkSpringLockRegistry} is a drop-in for Spring's {@code ZookeeperLockRegistry} (same
 * paths, same root, same node layout, so the two exclude each other on one key), with the time to live of Spring's
 * {@code RenewableLockRegistry}; its locks are {@link dev.zklock.spring.ZkSpringLock}s. {@link
 * dev.zklock.spring.ZkLockAutoConfiguration} makes a registry bean from a {@code CuratorFramework} bean or from
 * {@code zklock.connect-string} ({@link dev.zklock.spring.ZkLockProperties}, {@link
 * dev.zklock.spring.ZkLockCuratorCustomizer}, {@link dev.zklock.spring.ZkLockKeyToPath}); auto-configurations of their
 * own, each on its own dependency, add a health indicator ({@link dev.zklock.spring.ZkLockHealthIndicator}) with
 * Actuator, a Micrometer {@code MeterBinder} ({@link dev.zklock.spring.ZkLockMicrometerBinding}) and observations
 * ({@link dev.zklock.spring.ZkLockObservationBinding}). {@link dev.zklock.spring.ZkLeaderInitiator} runs a Spring
 * Integration {@code Candidate} on zklock's leader selector, on Spring's ZooKeeper initiator's paths and nodes,
 * calling {@code onRevoked} before its node is deleted; {@link dev.zklock.spring.ZkLeaderAutoConfiguration} makes one
 * for a single {@code Candidate} bean ({@link dev.zklock.spring.ZkLeaderProperties}). The starter
 * {@code zklock-spring-boot-starter} brings this module with Curator and Spring Boot.
 *
 * <p><b>Null policy.</b> No method of this package accepts {@code null}; a {@code null} argument is rejected with a
 * {@link java.lang.NullPointerException} that names the parameter.
 *
 * <p><b>Thread safety.</b> The registry, its locks, the leader initiator, the health indicator and the bindings are safe for use by multiple
 * threads; builders and the properties object are not.
 */
package dev.zklock.spring;

package dev.zklock.spring;

import io.micrometer.observation.ObservationRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * Spring Boot's auto-configuration of zklock's observations: a {@link ZkLockObservationBinding} that reports every
 * acquisition and hold of the application's single {@code CuratorFramework}'s locks (its own, or the one {@link
 * ZkLockAutoConfiguration} starts) to the application's {@code ObservationRegistry}, so traces show where a request
 * waited for a lock. Needs Micrometer's Observation API on the class path and an {@code ObservationRegistry} bean (Spring
 * Boot's observation support makes one); an application bean of the binding's type replaces it.
 *
 * <p>Ordered after {@link ZkLockAutoConfiguration} and after Spring Boot's observation auto-configuration. Costs no
 * ZooKeeper call.
 *
 * @since 0.1.0
 */
@AutoConfiguration(
        after = ZkLockAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass({CuratorFramework.class, ObservationRegistry.class})
@ConditionalOnSingleCandidate(CuratorFramework.class)
@ConditionalOnBean(ObservationRegistry.class)
public final class ZkLockObservationAutoConfiguration {
    /** Made by Spring. */
    public ZkLockObservationAutoConfiguration() {}

    /**
     * The observations of the client's locks.
     *
     * @param client the application's client, or the one zklock started
     * @param observationRegistry where to report
     * @return a binding that stops reporting when the context closes
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public ZkLockObservationBinding zkLockObservationBinding(
            CuratorFramework client, ObservationRegistry observationRegistry) {
        return new ZkLockObservationBinding(client, observationRegistry);
    }
}

package dev.zklock.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * Spring Boot's auto-configuration of zklock's Micrometer meters: a {@link ZkLockMicrometerBinding} bean, a
 * {@link MeterBinder} that Spring Boot binds to the application's meter registries, for every lock of the
 * application's single {@code CuratorFramework} (its own, or the one {@link ZkLockAutoConfiguration} starts). Needs
 * Micrometer on the class path and a {@code MeterRegistry} bean; an application bean of the binding's type replaces it.
 *
 * <p>Ordered after {@link ZkLockAutoConfiguration}, so the client that one defines from {@code zklock.connect-string}
 * is seen, and after Spring Boot's metrics auto-configuration, so its registry is. The meters cost no ZooKeeper call.
 *
 * @since 0.1.0
 */
@AutoConfiguration(
        after = ZkLockAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass({CuratorFramework.class, MeterRegistry.class})
@ConditionalOnSingleCandidate(CuratorFramework.class)
@ConditionalOnBean(MeterRegistry.class)
public final class ZkLockMetricsAutoConfiguration {
    /** Made by Spring. */
    public ZkLockMetricsAutoConfiguration() {}

    /**
     * The meter binder of the client's locks.
     *
     * @param client the application's client, or the one zklock started
     * @return a binder that Spring Boot binds to each meter registry, and that stops reporting when the context closes
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public ZkLockMicrometerBinding zkLockMicrometerBinding(CuratorFramework client) {
        return new ZkLockMicrometerBinding(client);
    }
}

package dev.zklock.spring;

import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Spring Boot's auto-configuration of zklock's health indicator: a {@link ZkLockHealthIndicator} on the application's
 * single {@code CuratorFramework} (its own, or the one {@link ZkLockAutoConfiguration} starts), contributed to
 * Actuator's health as {@code zklock}, and turned off by {@code management.health.zklock.enabled=false}. Needs Spring
 * Boot's health support ({@code spring-boot-health}, which Actuator brings) on the class path; an application without
 * it never reads this class's health-specific annotations. An application bean named {@code zklockHealthIndicator}
 * replaces the indicator.
 *
 * <p>Ordered after {@link ZkLockAutoConfiguration}, so the client that one defines from {@code zklock.connect-string}
 * is seen. The indicator costs no ZooKeeper call.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnClass({CuratorFramework.class, HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnSingleCandidate(CuratorFramework.class)
public final class ZkLockHealthContributorAutoConfiguration {
    /** Made by Spring. */
    public ZkLockHealthContributorAutoConfiguration() {}

    /**
     * The indicator, named so that Actuator calls its contributor {@code zklock}, the name of its property.
     *
     * @param client the application's client, or the one zklock started
     * @return an indicator that stops watching when the context closes
     */
    // On the method, not the class: a class's conditions are loaded together, and a class loader that sees this
    // annotation but not its condition class (one that hides spring-boot-health from the context) would fail on it
    // even where the class condition above already said no.
    @Bean(destroyMethod = "close")
    @ConditionalOnEnabledHealthIndicator("zklock")
    @ConditionalOnMissingBean(name = "zklockHealthIndicator")
    public ZkLockHealthIndicator zklockHealthIndicator(CuratorFramework client) {
        return new ZkLockHealthIndicator(client);
    }
}

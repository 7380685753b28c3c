package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@link ZkLockHealthContributorAutoConfiguration} with Spring Boot's health registry, against a real server, in both
 * {@link ClientMode}s: the contributor {@code zklock}, its reports, its property, and an application without the health
 * module.
 */
@Timeout(60)
final class ZkLockHealthContributorAutoConfigurationTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static ApplicationContextRunner withHealth(ClientMode mode) {
        return mode.runner(zk)
                .withConfiguration(AutoConfigurations.of(HealthContributorRegistryAutoConfiguration.class));
    }

    /**
     * With zklock's own client the indicator used to be missing: the nested configuration's single-candidate condition
     * on the client was decided before the outer class defined the client.
     */
    @ParameterizedTest
    @EnumSource(ClientMode.class)
    void health_inEachClientMode_isContributedAsZklockAndUp(ClientMode mode) {
        withHealth(mode).run(context -> {
            HealthContributorRegistry registry = context.getBean(HealthContributorRegistry.class);
            assertThat(registry.getContributor("zkLock")).isNull();
            assertThat(registry.getContributor("zklock")).isInstanceOf(ZkLockHealthIndicator.class);
            HealthIndicator indicator = (HealthIndicator) registry.getContributor("zklock");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> indicator.health().getStatus().equals(Status.UP));
            assertThat(indicator.health().getDetails())
                    .containsEntry("client", CuratorFrameworkState.STARTED)
                    .containsEntry("holdsInDoubt", 0)
                    .containsEntry("holdsLost", 0L);
        });
    }

    @Test
    void health_withTheApplicationsClient_reportsTheHoldsLost() {
        CuratorFramework client = zk.newClient();
        new ApplicationContextRunner()
                .withConfiguration(ClientMode.ZKLOCK)
                .withBean(CuratorFramework.class, () -> client, definition -> definition.setDestroyMethodName(""))
                .withPropertyValues("zklock.registry.root=" + zk.path("locks"))
                .run(context -> {
                    HealthIndicator indicator = context.getBean(ZkLockHealthIndicator.class);
                    ZkSpringLock lock =
                            context.getBean(ZkSpringLockRegistry.class).obtain("key");
                    lock.lock();
                    zk.killSession(client);
                    await().atMost(Duration.ofSeconds(10)).until(() -> indicator
                            .health()
                            .getDetails()
                            .get("holdsLost")
                            .equals(1L));
                    assertThatThrownBy(lock::unlock) // the unlock of a lost hold clears it and says so
                            .isInstanceOf(ConcurrentModificationException.class);
                });
    }

    @Test
    void health_withAClientNotStarted_isDown() {
        CuratorFramework client = zk.newUnstartedClient();
        new ApplicationContextRunner()
                .withConfiguration(ClientMode.ZKLOCK)
                .withBean(CuratorFramework.class, () -> client, definition -> definition.setDestroyMethodName(""))
                .run(context -> {
                    Health health = context.getBean(ZkLockHealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.getDetails()).containsEntry("client", CuratorFrameworkState.LATENT);
                });
    }

    /**
     * A context whose class loader lacks the health module, while the loader of zklock's classes has it (a filtering
     * loader, as here, or any split of loaders), used to fail to start: "Could not find class
     * [...OnEnabledHealthIndicatorCondition]", because the health condition sat beside the class condition that
     * would have said no. {@code BootWithoutActuatorTest} runs an application on a class path without the module.
     */
    @ParameterizedTest
    @EnumSource(ClientMode.class)
    void health_withoutTheHealthModule_addsNoIndicatorAndTheRegistryWorks(ClientMode mode) {
        mode.runner(zk)
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
                .run(context -> {
                    assertThat(context)
                            .hasNotFailed()
                            .hasSingleBean(ZkSpringLockRegistry.class)
                            .doesNotHaveBean(ZkLockHealthIndicator.class);
                    context.getBean(ZkSpringLockRegistry.class).executeLocked("key", () -> {});
                });
    }

    @ParameterizedTest
    @EnumSource(ClientMode.class)
    void health_turnedOffByProperty_addsNoIndicator(ClientMode mode) {
        withHealth(mode)
                .withPropertyValues("management.health.zklock.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockHealthIndicator.class);
                    assertThat(context.getBean(HealthContributorRegistry.class).getContributor("zklock"))
                            .isNull();
                });
    }

    @Test
    void health_withTheApplicationsBeanNamedZklockHealthIndicator_backsOff() {
        HealthIndicator own = () -> Health.up().withDetail("own", true).build();
        withHealth(ClientMode.APPLICATION_CLIENT)
                .withBean("zklockHealthIndicator", HealthIndicator.class, () -> own)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(ZkLockHealthIndicator.class);
                    assertThat(context.getBean(HealthContributorRegistry.class).getContributor("zklock"))
                            .isSameAs(own);
                });
    }
}

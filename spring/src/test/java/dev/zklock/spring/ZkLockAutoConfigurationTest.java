package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ZooKeeperExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Every branch of {@link ZkLockAutoConfiguration}, with Spring Boot's {@link ApplicationContextRunner} against a real
 * server: the application's client or one of its own, back-off on the application's beans, the properties, Micrometer
 * present or not, Actuator's health support present or not.
 */
@Timeout(60)
final class ZkLockAutoConfigurationTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ZkLockAutoConfiguration.class));

    /** The application's client as a bean that the context does not close (the extension closes it). */
    private ApplicationContextRunner withClient(CuratorFramework client) {
        return runner.withBean(CuratorFramework.class, () -> client, definition -> definition.setDestroyMethodName(""))
                .withPropertyValues("zklock.registry.root=" + zk.path("locks"));
    }

    @Test
    void registry_withTheApplicationsClient_usesItAndLeavesItOpen() {
        CuratorFramework client = zk.newClient();
        withClient(client).run(context -> {
            assertThat(context).hasSingleBean(ZkSpringLockRegistry.class).hasSingleBean(CuratorFramework.class);
            assertThat(context.getBean(CuratorFramework.class)).isSameAs(client);
            ZkSpringLockRegistry registry = context.getBean(ZkSpringLockRegistry.class);
            registry.executeLocked("key", () -> assertThat(client.getChildren().forPath(zk.path("locks/key")))
                    .hasSize(1));
        });
        assertThat(client.getState()).isEqualTo(CuratorFrameworkState.STARTED);
    }

    @Test
    void registry_withAConnectStringAndNoClient_startsItsOwnAndClosesItWithTheContext() {
        AtomicReference<CuratorFramework> started = new AtomicReference<>();
        runner.withPropertyValues(
                        "zklock.connect-string=" + zk.connectString(),
                        "zklock.session-timeout=5s",
                        "zklock.registry.root=" + zk.path("locks"))
                .run(context -> {
                    assertThat(context).hasSingleBean(CuratorFramework.class).hasSingleBean(ZkSpringLockRegistry.class);
                    CuratorFramework client = context.getBean(CuratorFramework.class);
                    started.set(client);
                    assertThat(client.getState()).isEqualTo(CuratorFrameworkState.STARTED);
                    ZkSpringLock lock =
                            context.getBean(ZkSpringLockRegistry.class).obtain("key");
                    assertThat(lock.tryLock(Duration.ofSeconds(10), Duration.ofMinutes(1)))
                            .isTrue();
                    lock.unlock();
                });
        assertThat(started.get().getState()).isEqualTo(CuratorFrameworkState.STOPPED);
    }

    @Test
    void registry_withNeitherClientNorConnectString_isNotMade() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkSpringLockRegistry.class));
    }

    @Test
    void registry_withTheApplicationsLockRegistry_backsOff() {
        withClient(zk.newClient())
                .withBean(LockRegistry.class, DefaultLockRegistry::new)
                .run(context -> assertThat(context)
                        .doesNotHaveBean(ZkSpringLockRegistry.class)
                        .hasSingleBean(LockRegistry.class));
    }

    @Test
    void registry_withProperties_takesTheRootLocalHandOffAndKeepIdle() {
        CuratorFramework client = zk.newClient();
        withClient(client)
                .withPropertyValues("zklock.registry.root=/services/locks", "zklock.registry.local-hand-off=false")
                .run(context -> {
                    ZkSpringLockRegistry registry = context.getBean(ZkSpringLockRegistry.class);
                    assertThat(registry.root()).isEqualTo("/services/locks");
                    assertThat(registry.isLocalHandOff()).isFalse();
                    assertThat(registry.obtain("k").path()).isEqualTo("/services/locks/k");
                });
        withClient(client)
                .withPropertyValues("zklock.registry.root=" + ZkSpringLockRegistry.DEFAULT_ROOT)
                .withPropertyValues("zklock.registry.keep-idle=250ms")
                .run(context -> {
                    ZkSpringLockRegistry registry = context.getBean(ZkSpringLockRegistry.class);
                    assertThat(registry.root()).isEqualTo(ZkSpringLockRegistry.DEFAULT_ROOT);
                    assertThat(registry.isLocalHandOff()).isTrue();
                    assertThat(registry.keepIdle()).isEqualTo(Duration.ofMillis(250));
                });
    }

    @Test
    void properties_configurationMetadata_describesEveryProperty() throws IOException {
        String metadata;
        try (InputStream in =
                getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(metadata)
                .contains(
                        "\"zklock.connect-string\"",
                        "\"zklock.session-timeout\"",
                        "\"zklock.connection-timeout\"",
                        "\"zklock.registry.root\"",
                        "\"zklock.registry.local-hand-off\"",
                        "\"zklock.registry.keep-idle\"");
    }

    @Test
    void micrometer_withAMeterRegistry_bindsTheLockMeters() {
        withClient(zk.newClient())
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> {
                    assertThat(context).hasSingleBean(ZkLockMicrometerBinding.class);
                    context.getBean(ZkSpringLockRegistry.class).executeLocked("key", () -> {});
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    await().atMost(Duration.ofSeconds(5))
                            .until(() -> meters.find("zklock.lock.acquisitions").counter() != null);
                    assertThat(meters.get("zklock.lock.acquisitions").counter().count())
                            .isEqualTo(1.0);
                });
    }

    @Test
    void micrometer_withoutMicrometer_bindsNothingAndTheRegistryWorks() {
        withClient(zk.newClient())
                .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockMicrometerBinding.class);
                    context.getBean(ZkSpringLockRegistry.class).executeLocked("key", () -> {});
                });
    }

    @Test
    void micrometer_withoutAMeterRegistryBean_bindsNothing() {
        withClient(zk.newClient()).run(context -> assertThat(context).doesNotHaveBean(ZkLockMicrometerBinding.class));
    }

    @Test
    void health_withActuator_reportsTheConnectionAndTheHoldsLost() {
        CuratorFramework client = zk.newClient();
        withClient(client).run(context -> {
            assertThat(context).hasBean("zkLockHealthIndicator");
            HealthIndicator indicator = context.getBean(ZkLockHealthIndicator.class);
            Health up = indicator.health();
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsEntry("holdsInDoubt", 0).containsEntry("holdsLost", 0L);

            ZkSpringLock lock = context.getBean(ZkSpringLockRegistry.class).obtain("key");
            lock.lock();
            try {
                zk.killSession(client);
                await().atMost(Duration.ofSeconds(10))
                        .until(() ->
                                indicator.health().getDetails().get("holdsLost").equals(1L));
            } finally {
                lock.unlock();
            }
        });
    }

    @Test
    void health_withAClientNotStarted_isDown() {
        withClient(zk.newUnstartedClient()).run(context -> {
            Health health = context.getBean(ZkLockHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsEntry("client", CuratorFrameworkState.LATENT);
        });
    }

    @Test
    void health_withoutActuator_addsNoIndicatorAndTheRegistryWorks() {
        withClient(zk.newClient())
                .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(ZkSpringLockRegistry.class)
                        .doesNotHaveBean(ZkLockHealthIndicator.class));
    }

    @Test
    void health_turnedOffByProperty_addsNoIndicator() {
        withClient(zk.newClient())
                .withPropertyValues("management.health.zklock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ZkLockHealthIndicator.class));
    }
}

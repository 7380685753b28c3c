package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.AuthInfo;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.Order;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The client and registry branches of {@link ZkLockAutoConfiguration}, with Spring Boot's {@link
 * ApplicationContextRunner} against a real server: the application's client or one of its own, back-off on the
 * application's beans, the properties and their metadata, the client customizers and the key-to-path bean. Health,
 * meters and observations have tests of their own.
 */
@Timeout(60)
final class ZkLockAutoConfigurationTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(ClientMode.ZKLOCK);

    /** The application's client as a bean that the context does not close (the extension closes it). */
    private ApplicationContextRunner withClient(CuratorFramework client) {
        return runner.withBean(CuratorFramework.class, () -> client, definition -> definition.setDestroyMethodName(""))
                .withPropertyValues("zklock.registry.root=" + zk.path("locks"));
    }

    private ApplicationContextRunner withConnectString() {
        return runner.withPropertyValues(
                "zklock.connect-string=" + zk.connectString(), "zklock.registry.root=" + zk.path("locks"));
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
        withConnectString().withPropertyValues("zklock.session-timeout=5s").run(context -> {
            assertThat(context).hasSingleBean(CuratorFramework.class).hasSingleBean(ZkSpringLockRegistry.class);
            CuratorFramework client = context.getBean(CuratorFramework.class);
            started.set(client);
            assertThat(client.getState()).isEqualTo(CuratorFrameworkState.STARTED);
            ZkSpringLock lock = context.getBean(ZkSpringLockRegistry.class).obtain("key");
            assertThat(lock.tryLock(Duration.ofSeconds(10), Duration.ofMinutes(1)))
                    .isTrue();
            lock.unlock();
        });
        assertThat(started.get().getState()).isEqualTo(CuratorFrameworkState.STOPPED);
    }

    @Test
    void registry_withNeitherClientNorConnectString_isNotMadeNorAnythingElse() {
        runner.run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(ZkSpringLockRegistry.class)
                .doesNotHaveBean(ZkLockHealthIndicator.class)
                .doesNotHaveBean(ZkLockMicrometerBinding.class)
                .doesNotHaveBean(ZkLockObservationBinding.class));
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
        runner.withBean(CuratorFramework.class, () -> client, definition -> definition.setDestroyMethodName(""))
                .withPropertyValues("zklock.registry.keep-idle=250ms")
                .run(context -> {
                    ZkSpringLockRegistry registry = context.getBean(ZkSpringLockRegistry.class);
                    assertThat(registry.root()).isEqualTo(ZkSpringLockRegistry.DEFAULT_ROOT);
                    assertThat(registry.isLocalHandOff()).isTrue();
                    assertThat(registry.keepIdle()).isEqualTo(Duration.ofMillis(250));
                    assertThat(registry.isQueueView()).isFalse();
                });
        runner.withBean(CuratorFramework.class, () -> client, definition -> definition.setDestroyMethodName(""))
                .withPropertyValues("zklock.registry.queue-view=true")
                .run(context -> assertThat(
                                context.getBean(ZkSpringLockRegistry.class).isQueueView())
                        .isTrue());
    }

    @Test
    void registry_withAKeyToPathBean_makesEveryLockPathWithIt() {
        CuratorFramework client = zk.newClient();
        String base = zk.path("tenants");
        withClient(client)
                .withBean(ZkLockKeyToPath.class, () -> key -> base + "/" + key.replace(':', '/'))
                .run(context -> {
                    ZkSpringLockRegistry registry = context.getBean(ZkSpringLockRegistry.class);
                    assertThat(registry.obtain("acme:orders").path()).isEqualTo(base + "/acme/orders");
                    registry.executeLocked(
                            "acme:orders", () -> assertThat(client.getChildren().forPath(base + "/acme/orders"))
                                    .hasSize(1));
                    assertThatThrownBy(() -> registry.obtain("bad:"))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("'bad:'")
                            .hasMessageContaining("'" + base + "/bad/'");
                });
    }

    @Test
    void client_withProperties_takesRetryNamespaceAndTimeoutsThenTheCustomizersInOrder() {
        List<String> seen = new ArrayList<>();
        withConnectString()
                .withPropertyValues(
                        "zklock.namespace=app",
                        "zklock.session-timeout=7s",
                        "zklock.connection-timeout=3s",
                        "zklock.retry.base-sleep=250ms",
                        "zklock.retry.max-retries=5")
                .withBean("second", ZkLockCuratorCustomizer.class, () -> new Second(seen))
                .withBean("first", ZkLockCuratorCustomizer.class, () -> new First(seen))
                .run(context -> {
                    assertThat(seen).containsExactly("first: app 7000 3000 250 5", "second: app 7000 2500 250 5");
                    CuratorFramework client = context.getBean(CuratorFramework.class);
                    assertThat(client.getNamespace()).isEqualTo("app");
                    assertThat(client.getZookeeperClient().getConnectionTimeoutMs())
                            .isEqualTo(2500);

                    context.getBean(ZkSpringLockRegistry.class).executeLocked("key", () -> assertThat(
                                    zk.newClient().getChildren().forPath("/app" + zk.path("locks/key")))
                            .hasSize(1));
                });
    }

    @Test
    void client_withTheApplicationsClient_callsNoCustomizer() {
        List<String> seen = new ArrayList<>();
        withClient(zk.newClient())
                .withBean(ZkLockCuratorCustomizer.class, () -> new First(seen))
                .run(context -> {
                    assertThat(context).hasSingleBean(ZkSpringLockRegistry.class);
                    assertThat(seen).isEmpty();
                });
    }

    @Test
    void client_withDigestAuth_makesNodesThatOnlyItsCredentialsRead() {
        withConnectString()
                .withPropertyValues("zklock.auth.scheme=digest", "zklock.auth.credentials=app:secret")
                .run(context -> {
                    CuratorFramework client = context.getBean(CuratorFramework.class);
                    String path = zk.path("private");
                    client.create()
                            .withMode(CreateMode.PERSISTENT)
                            .withACL(ZooDefs.Ids.CREATOR_ALL_ACL)
                            .forPath(path, new byte[] {1});
                    try {
                        assertThat(client.getData().forPath(path)).containsExactly(1);
                        assertThatThrownBy(() -> zk.newClient().getData().forPath(path))
                                .isInstanceOf(KeeperException.NoAuthException.class);
                        CuratorFramework sameCredentials = zk.newClient(builder -> builder.authorization(
                                List.of(new AuthInfo("digest", "app:secret".getBytes(StandardCharsets.UTF_8)))));
                        assertThat(sameCredentials.getData().forPath(path)).containsExactly(1);
                    } finally {
                        client.delete().forPath(path);
                    }
                });
    }

    @Test
    void client_withAnAuthSchemeAndNoCredentials_failsNamingBothProperties() {
        withConnectString().withPropertyValues("zklock.auth.scheme=digest").run(context -> assertThat(context)
                .getFailure()
                .rootCause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("zklock.auth.scheme")
                .hasMessageContaining("zklock.auth.credentials")
                .hasMessageContaining("'digest'"));
    }

    /** The registry Boot makes takes the idle time, the default time to live and the capacity from the properties. */
    @Test
    void properties_registryIdleTimeDefaultTtlAndCacheCapacity_areTheRegistrys() {
        withClient(zk.newClient())
                .withPropertyValues(
                        "zklock.registry.idle-time=10m",
                        "zklock.registry.default-ttl=30s",
                        "zklock.registry.cache-capacity=500")
                .run(context -> {
                    ZkSpringLockRegistry registry = context.getBean(ZkSpringLockRegistry.class);
                    assertThat(registry.idleTime()).isEqualTo(Duration.ofMinutes(10));
                    assertThat(registry.cacheCapacity()).isEqualTo(500);
                    assertThat(registry.defaultTtl()).contains(Duration.ofSeconds(30));
                });
        withClient(zk.newClient()).run(context -> {
            ZkSpringLockRegistry registry = context.getBean(ZkSpringLockRegistry.class);
            assertThat(registry.idleTime())
                    .as("unset: the registry's own default")
                    .isEqualTo(Duration.ofMinutes(1));
            assertThat(registry.defaultTtl()).isEmpty();
            assertThat(registry.cacheCapacity()).isEqualTo(ZkSpringLockRegistry.DEFAULT_CACHE_CAPACITY);
        });
    }

    @Test
    void properties_defaultRoot_isTheRegistrysDefaultRoot() {
        assertThat(new ZkLockProperties().getRegistry().getRoot()).isEqualTo(ZkSpringLockRegistry.DEFAULT_ROOT);
    }

    @Test
    void properties_configurationMetadata_describesEveryPropertyWithItsDefault() throws IOException {
        Map<String, JsonNode> properties = new HashMap<>();
        for (JsonNode property : new ObjectMapper()
                .readTree(resource("META-INF/spring-configuration-metadata.json"))
                .get("properties")) {
            properties.put(property.get("name").asText(), property);
        }
        assertThat(properties)
                .containsKeys(
                        "zklock.connect-string",
                        "zklock.namespace",
                        "zklock.session-timeout",
                        "zklock.connection-timeout",
                        "zklock.retry.base-sleep",
                        "zklock.retry.max-retries",
                        "zklock.auth.scheme",
                        "zklock.auth.credentials",
                        "zklock.registry.root",
                        "zklock.registry.local-hand-off",
                        "zklock.registry.keep-idle",
                        "zklock.registry.queue-view",
                        "zklock.registry.idle-time",
                        "zklock.registry.default-ttl",
                        "zklock.registry.cache-capacity",
                        "management.health.zklock.enabled");
        assertThat(properties.values())
                .allSatisfy(fields -> assertThat(fields.path("description").asText())
                        .as("description of %s", fields.get("name"))
                        .isNotBlank());
        Map<String, String> defaults = new HashMap<>();
        properties.forEach(
                (name, fields) -> defaults.put(name, fields.path("defaultValue").asText()));
        assertThat(defaults)
                .containsEntry("zklock.registry.cache-capacity", "30000")
                .containsEntry("zklock.session-timeout", "60s")
                .containsEntry("zklock.connection-timeout", "15s")
                .containsEntry("zklock.retry.base-sleep", "1s")
                .containsEntry("zklock.retry.max-retries", "3")
                .containsEntry("zklock.registry.root", ZkSpringLockRegistry.DEFAULT_ROOT)
                .containsEntry("zklock.registry.local-hand-off", "true")
                .containsEntry("zklock.registry.keep-idle", "0")
                .containsEntry("management.health.zklock.enabled", "true");
    }

    @Test
    void autoConfigurationImports_listEveryZklockAutoConfiguration() throws IOException {
        String imports = resource("META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports");
        assertThat(imports.lines().map(String::strip).filter(line -> !line.isEmpty()))
                .containsExactlyInAnyOrder(
                        ZkLockAutoConfiguration.class.getName(),
                        ZkLockHealthContributorAutoConfiguration.class.getName(),
                        ZkLockMetricsAutoConfiguration.class.getName(),
                        ZkLockObservationAutoConfiguration.class.getName(),
                        ZkLeaderAutoConfiguration.class.getName());
    }

    private String resource(String name) throws IOException {
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String describe(CuratorFrameworkFactory.Builder builder) {
        ExponentialBackoffRetry retry = (ExponentialBackoffRetry) builder.getRetryPolicy();
        return builder.getNamespace() + " " + builder.getSessionTimeoutMs() + " " + builder.getConnectionTimeoutMs()
                + " " + retry.getBaseSleepTimeMs() + " " + retry.getN();
    }

    /** Runs first: records what the properties made of the builder. */
    @Order(1)
    private record First(List<String> seen) implements ZkLockCuratorCustomizer {
        @Override
        public void customize(CuratorFrameworkFactory.Builder builder) {
            seen.add("first: " + describe(builder));
            builder.connectionTimeoutMs(2500);
        }
    }

    /** Runs second, though registered first: sees the first one's change. */
    @Order(2)
    private record Second(List<String> seen) implements ZkLockCuratorCustomizer {
        @Override
        public void customize(CuratorFrameworkFactory.Builder builder) {
            seen.add("second: " + describe(builder));
        }
    }
}

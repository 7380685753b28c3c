package dev.zklock.starter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.ZooKeeperExtension;
import dev.zklock.spring.ZkSpringLockRegistry;
import java.util.concurrent.locks.Lock;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * What the starter promises: a Spring Boot application whose only zklock dependency is the starter, with no Actuator,
 * starts from {@code zklock.connect-string} alone, finds zklock's auto-configurations the way Boot finds any (its
 * imports file, not a test's list), and gets a registry whose locks work, on a client it closes with the context.
 */
@Timeout(60)
final class StarterTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /** An application as a user writes one: auto-configuration and nothing of its own. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {}

    @Test
    void application_withTheStarterAlone_startsAndLocks() {
        CuratorFramework client;
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "zklock.connect-string=" + zk.connectString(),
                        "zklock.registry.root=" + zk.path("locks"),
                        "spring.main.banner-mode=off")
                .run()) {
            LockRegistry<?> registry = context.getBean(LockRegistry.class);
            assertThat(registry).isInstanceOf(ZkSpringLockRegistry.class);
            Lock lock = registry.obtain("orders-42");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
            client = context.getBean(CuratorFramework.class);
            assertThat(client.getZookeeperClient().isConnected()).isTrue();
        }
        assertThat(client.getState().name()).as("closed with the context").isEqualTo("STOPPED");
    }
}

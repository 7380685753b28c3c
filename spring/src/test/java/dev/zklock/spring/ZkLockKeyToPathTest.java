package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

/**
 * A registry built with {@link ZkSpringLockRegistry.Builder#keyToPath(ZkLockKeyToPath)} puts each key's lock where the
 * function says, and excludes Spring's {@code ZookeeperLockRegistry} built with the same function as its {@code
 * KeyToPathStrategy}.
 *
 * <table>
 *   <caption>Outcomes</caption>
 *   <tr><th>actors</th><th>acceptable</th><th>forbidden</th></tr>
 *   <tr><td>Spring's registry holds a key through its strategy; ours, with the same function, tries</td><td>the try
 *       fails until Spring's unlocks, then succeeds</td><td>both hold</td></tr>
 * </table>
 */
@Timeout(60)
final class ZkLockKeyToPathTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static String pathFor(String key) {
        return zk.path("tenants") + "/" + key.replace(':', '/');
    }

    @Test
    void obtain_withAKeyToPathFunction_locksThePathItMakesAndIgnoresTheRoot() {
        try (ZkSpringLockRegistry registry = ZkSpringLockRegistry.builder(zk.newClient())
                .root(zk.path("unused"))
                .keyToPath(ZkLockKeyToPathTest::pathFor)
                .build()) {
            assertThat(registry.pathOf("acme:orders")).isEqualTo(zk.path("tenants") + "/acme/orders");
            assertThat(registry.obtain("acme:orders").path()).isEqualTo(zk.path("tenants") + "/acme/orders");
            assertThat(registry.obtain("acme:orders")).isSameAs(registry.obtain("acme:orders"));
        }
    }

    @Test
    void obtain_whenTheFunctionMakesAnInvalidPath_throwsNamingTheKeyAndThePath() {
        try (ZkSpringLockRegistry registry = ZkSpringLockRegistry.builder(zk.newClient())
                .keyToPath(key -> "no-slash/" + key)
                .build()) {
            assertThatThrownBy(() -> registry.obtain("k"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'k'")
                    .hasMessageContaining("'no-slash/k'");
        }
    }

    @Test
    void keyToPath_null_throwsNamingTheParameter() {
        assertThatThrownBy(() -> ZkSpringLockRegistry.builder(zk.newClient()).keyToPath(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("keyToPath");
    }

    @Test
    void tryLock_springsHoldsTheKeyThroughTheSameStrategy_oursWaitsUntilItUnlocks() throws Exception {
        ZookeeperLockRegistry springs = new ZookeeperLockRegistry(zk.newClient(), ZkLockKeyToPathTest::pathFor);
        try (ZkSpringLockRegistry ours = ZkSpringLockRegistry.builder(zk.newClient())
                        .keyToPath(ZkLockKeyToPathTest::pathFor)
                        .build();
                LockActor springsHolder = LockActor.start("springs")) {
            Lock theirs = springs.obtain("acme:orders");
            assertThat(springsHolder
                            .submit(() -> theirs.tryLock(5, TimeUnit.SECONDS))
                            .get())
                    .isTrue();

            ZkSpringLock lock = ours.obtain("acme:orders");
            assertThat(lock.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
            CompletableFuture<Void> unlocked = springsHolder.run(theirs::unlock);
            assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
            unlocked.get();
            lock.unlock();
        } finally {
            springs.destroy();
        }
    }
}

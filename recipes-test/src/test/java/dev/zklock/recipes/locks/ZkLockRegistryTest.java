package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(60)
final class ZkLockRegistryTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void obtain_sameKey_returnsTheSameInstanceAndOtherKeysOthers() {
        ZkLockRegistry registry = new ZkLockRegistry(zk.newClient(), zk.path("orders"));

        assertThat(registry.obtain("42")).isSameAs(registry.obtain("42"));
        assertThat(registry.obtain("42")).isNotSameAs(registry.obtain("43"));
        assertThat(registry.obtain("42").path()).isEqualTo(zk.path("orders") + "/42");
        assertThat(registry.size()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"a/b", ".", "..", "zookeeper", "naïve key", "100%", "tab\tnewline\n", "_c_x-lock-0000000001"})
    void obtain_anyKey_isEncodedIntoOneLegalNodeNameAndLocks(String key) throws Exception {
        ZkLockRegistry registry = new ZkLockRegistry(zk.newClient(), zk.path("keys"));
        ZkLockRegistry other = new ZkLockRegistry(zk.newClient(), zk.path("keys"));
        ZkReentrantLock lock = registry.obtain(key);

        lock.acquire();

        String name = lock.path().substring(zk.path("keys").length() + 1);
        assertThat(name).matches("[A-Za-z0-9._%-]+").isNotIn(".", "..").doesNotContain("/");
        assertThat(other.obtain(key).acquire(Duration.ZERO)).isFalse();
        lock.release();
    }

    @Test
    void encode_differentKeys_neverShareANode() {
        assertThat(ZkLockRegistry.encode("a/b")).isNotEqualTo(ZkLockRegistry.encode("a%2Fb"));
        assertThat(ZkLockRegistry.encode("a%2Fb")).isEqualTo("a%252Fb");
        assertThat(ZkLockRegistry.encode(".")).isEqualTo("%2E");
        assertThat(ZkLockRegistry.encode("a.b")).isEqualTo("a.b");
    }

    @Test
    void obtain_badKeys_throwNamingTheProblem() {
        ZkLockRegistry registry = new ZkLockRegistry(zk.newClient(), zk.path("keys"));

        assertThatThrownBy(() -> registry.obtain(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("key");
        assertThatThrownBy(() -> registry.obtain(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> registry.obtain("k".repeat(513)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("513 characters");
        assertThatThrownBy(() -> new ZkLockRegistry(zk.newClient(), "relative"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'relative'");
        assertThatThrownBy(() -> new ZkLockRegistry(zk.newClient(), "/a", Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-1S");
    }

    @Test
    void forgetIdle_neverForgetsAHeldOrAcquiringLock() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkLockRegistry registry = new ZkLockRegistry(client, zk.path("orders"), Duration.ZERO);
        ZkReentrantLock held = registry.obtain("held");
        ZkReentrantLock waited = registry.obtain("waited");
        ZkReentrantLock blocker = new ZkReentrantLock(zk.newClient(), waited.path());
        registry.obtain("idle");
        held.acquire();
        blocker.acquire();
        try (LockActor waiter = LockActor.start("waiter")) {
            CompletableFuture<Boolean> acquired = waiter.submit(() -> waited.acquire(30, TimeUnit.SECONDS));
            org.awaitility.Awaitility.await()
                    .until(() -> blocker.participantNodes().size() == 2);

            registry.forgetIdle(); // the client's timer may have forgotten the idle lock already
            assertThat(registry.size()).isEqualTo(2);

            assertThat(registry.obtain("held")).isSameAs(held);
            assertThat(registry.obtain("waited")).isSameAs(waited);
            blocker.release();
            assertThat(acquired.get()).isTrue();
            waiter.run(waited::release).join();
        }
        held.release();
        registry.forgetIdle();
        assertThat(registry.size()).isZero();
        assertThat(registry.obtain("held")).isNotSameAs(held);
    }

    @Test
    void obtain_manyKeysUsedOnce_forgottenOnTheClientsTimerWithNoFurtherCall() throws Exception {
        ZkLockRegistry registry = new ZkLockRegistry(zk.newClient(), zk.path("entities"), Duration.ofMillis(50));

        for (int i = 0; i < 300; i++) {
            ZkReentrantLock lock = registry.obtain("entity-" + i);
            lock.acquire();
            lock.release();
        }

        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> registry.size() == 0);
    }
}

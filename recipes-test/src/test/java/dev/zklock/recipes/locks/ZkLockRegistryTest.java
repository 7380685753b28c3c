package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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
        ZkReentrantLock blocker = new ZkReentrantLock(zk.newClient(), registry.pathOf("waited"));
        blocker.acquire();
        // With no idle time, the client's timer (every 100 ms) lets go of a lock not yet in use; the instances stay the
        // keys' while the test refers to them.
        ZkReentrantLock held = registry.obtain("held");
        held.acquire();
        registry.obtain("idle");
        try (LockActor waiter = LockActor.start("waiter")) {
            CompletableFuture<ZkReentrantLock> obtained = new CompletableFuture<>();
            CompletableFuture<Boolean> acquired = waiter.submit(() -> {
                ZkReentrantLock lock = registry.obtain("waited");
                obtained.complete(lock);
                return lock.acquire(30, TimeUnit.SECONDS);
            });
            ZkReentrantLock waited = obtained.get(10, TimeUnit.SECONDS);
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
        assertThat(registry.obtain("held"))
                .as("still the key's: the test refers to it")
                .isSameAs(held);
    }

    /**
     * A sweep between a caller's {@code obtain} and its first acquire, with no idle time: the instance is not in use
     * yet, and nothing in the registry says the caller still has it.
     *
     * <p>Actors: the caller (the test thread), the sweep ({@code forgetIdle}, as the client's timer runs it every
     * 100 ms; the timer may sweep too, at any point, with the same effect). Interleaving forced: obtain, sweep, acquire,
     * obtain again, re-enter. Allowed: the second obtain returns the instance the caller holds, and the re-entry holds
     * at once. Forbidden: a new instance for the key while the caller holds the first (its acquire queues behind the
     * caller's own node: with no deadline, a hang; here, with none, a refusal).
     */
    @Test
    void obtain_afterASweepBetweenObtainAndAcquire_returnsTheInstanceItsCallerHolds() throws Exception {
        ZkLockRegistry registry = new ZkLockRegistry(zk.newClient(), zk.path("orders"), Duration.ZERO);
        ZkReentrantLock lock = registry.obtain("42");
        registry.forgetIdle();
        assertThat(registry.size()).as("let go of: idle, not in use").isZero();
        lock.acquire();
        try {
            ZkReentrantLock again = registry.obtain("42");

            assertThat(again).isSameAs(lock);
            assertThat(again.acquire(Duration.ZERO)).as("re-entry").isTrue();
            again.release();
        } finally {
            lock.release();
        }
    }

    /**
     * A lock used and let go of is forgotten once nothing refers to it: the registry's weak reference keeps it from
     * nothing, and the sweep then drops the key.
     */
    @Test
    void forgetIdle_aLockNoLongerReferenced_isForgottenOnceCollected() throws Exception {
        ZkLockRegistry registry = new ZkLockRegistry(zk.newClient(), zk.path("orders"), Duration.ZERO);
        WeakReference<ZkReentrantLock> used = useOnce(registry, "42");
        registry.forgetIdle();
        assertThat(registry.size()).isZero();

        org.awaitility.Awaitility.await().until(() -> {
            System.gc();
            return used.get() == null;
        });

        registry.forgetIdle();
        assertThat(registry.keys()).isZero();
        assertThat(registry.obtain("42").acquire(Duration.ZERO)).isTrue();
        registry.obtain("42").release();
    }

    private static WeakReference<ZkReentrantLock> useOnce(ZkLockRegistry registry, String key) throws Exception {
        ZkReentrantLock lock = registry.obtain(key);
        lock.acquire();
        lock.release();
        return new WeakReference<>(lock);
    }

    /**
     * The moment a thread's first hold is granted and not yet recorded as its own: the instance is still in use there.
     * Actors: the acquiring thread (stopped at that moment by a hook) and the test, which sweeps. Allowed: the sweep
     * keeps the instance, and the holder's next obtain and re-entry find it. Forbidden: the instance forgotten, so that
     * the holder's next obtain makes a new instance, whose acquire would queue behind the holder's own node.
     */
    @Test
    void forgetIdle_betweenAGrantAndItsRecord_keepsTheInstance() throws Exception {
        ZkLockRegistry registry = new ZkLockRegistry(zk.newClient(), zk.path("orders"), Duration.ZERO);
        CountDownLatch granted = new CountDownLatch(1);
        CountDownLatch swept = new CountDownLatch(1);
        QueueHooks stopAtTheGrant = new QueueHooks() {
            @Override
            public void granted(String lockPath, String ourNode) {
                granted.countDown();
                await(swept);
            }
        };
        try (LockActor holder = LockActor.start("holder")) {
            CompletableFuture<ZkReentrantLock> acquired = holder.submit(() -> {
                ZkReentrantLock lock = registry.obtain("42"); // in use from its acquire on, with no idle time
                lock.setHooks(stopAtTheGrant);
                assertThat(lock.acquire(10, TimeUnit.SECONDS)).isTrue();
                return lock;
            });
            assertThat(granted.await(10, TimeUnit.SECONDS)).isTrue();

            registry.forgetIdle(); // the client's timer sweeps too, every 100 ms: neither may forget the lock now
            swept.countDown();

            ZkReentrantLock lock = acquired.get();
            assertThat(holder.submit(() -> registry.obtain("42").acquire(Duration.ZERO))
                            .get())
                    .isTrue();
            assertThat(holder.submit(lock::getHoldCount).get()).isEqualTo(2);
            holder.run(lock::release).join();
            holder.run(lock::release).join();
        }
        assertThat(registry.forgetIdle()).isOne();
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
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

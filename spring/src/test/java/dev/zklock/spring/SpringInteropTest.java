package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

/**
 * Spring's {@code ZookeeperLockRegistry} and ours on one root and key exclude each other, both ways, so a fleet can
 * move one service at a time.
 *
 * <table>
 *   <caption>Outcomes</caption>
 *   <tr><th>actors</th><th>acceptable</th><th>forbidden</th></tr>
 *   <tr><td>one registry holds the key; the other tries</td><td>the try fails until the holder unlocks, then
 *       succeeds</td><td>both hold</td></tr>
 *   <tr><td>threads of two services on each registry lock one key in turn</td><td>every lock taken, an overlap
 *       count of 0, no node left</td><td>two holders at once (the counter inside the lock goes above 1)</td></tr>
 * </table>
 */
@Timeout(60)
final class SpringInteropTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static List<String> childrenOf(String path) throws Exception {
        try {
            return zk.newClient().getChildren().forPath(path);
        } catch (KeeperException.NoNodeException reaped) {
            return List.of(); // an empty container parent, reaped by the server
        }
    }

    @Test
    void tryLock_springsHoldsTheKeyOnTheDefaultRoot_oursWaitsUntilItUnlocks() throws Exception {
        String key = "zklock-interop-" + UUID.randomUUID();
        ZookeeperLockRegistry springs = new ZookeeperLockRegistry(zk.newClient());
        try (ZkSpringLockRegistry ours = new ZkSpringLockRegistry(zk.newClient());
                LockActor springsHolder = LockActor.start("springs")) {
            Lock theirs = springs.obtain(key);
            assertThat(springsHolder
                            .submit(() -> theirs.tryLock(5, TimeUnit.SECONDS))
                            .get())
                    .isTrue();

            ZkSpringLock lock = ours.obtain(key);
            assertThat(lock.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
            CompletableFuture<Void> unlocked = springsHolder.run(theirs::unlock);
            assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
            unlocked.get();
            lock.unlock();
        } finally {
            springs.destroy();
        }
    }

    @Test
    void tryLock_oursHoldsTheKeyOnTheDefaultRoot_springsWaitsUntilItUnlocks() throws Exception {
        String key = "zklock-interop-" + UUID.randomUUID();
        ZookeeperLockRegistry springs = new ZookeeperLockRegistry(zk.newClient());
        try (ZkSpringLockRegistry ours = new ZkSpringLockRegistry(zk.newClient());
                LockActor springsWaiter = LockActor.start("springs")) {
            ZkSpringLock lock = ours.obtain(key);
            lock.lock();
            Lock theirs = springs.obtain(key);

            assertThat(springsWaiter
                            .submit(() -> theirs.tryLock(200, TimeUnit.MILLISECONDS))
                            .get())
                    .isFalse();
            CompletableFuture<Boolean> waited = springsWaiter.submit(() -> theirs.tryLock(10, TimeUnit.SECONDS));
            lock.unlock();
            assertThat(waited.get()).isTrue();
            springsWaiter.run(theirs::unlock).get();
        } finally {
            springs.destroy();
        }
    }

    @Test
    void lock_threadsOfServicesOnBothRegistriesInTurn_neverOverlap() throws Exception {
        int rounds = 15;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger taken = new AtomicInteger();
        List<ZookeeperLockRegistry> springs = List.of(
                new ZookeeperLockRegistry(zk.newClient(), zk.path("locks")),
                new ZookeeperLockRegistry(zk.newClient(), zk.path("locks")));
        List<ZkSpringLockRegistry> ours = List.of(
                ZkSpringLockRegistry.builder(zk.newClient())
                        .root(zk.path("locks"))
                        .build(),
                ZkSpringLockRegistry.builder(zk.newClient()) // its queues read from a queue view
                        .root(zk.path("locks"))
                        .queueView(true)
                        .build());
        List<Lock> locks = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            locks.add(springs.get(i).obtain("key"));
            locks.add(ours.get(i).obtain("key"));
        }
        List<LockActor> actors = new ArrayList<>();
        try {
            List<CompletableFuture<Void>> runs = new ArrayList<>();
            for (int i = 0; i < locks.size() * 2; i++) { // two threads per service
                Lock lock = locks.get(i % locks.size());
                LockActor actor = LockActor.start("service-" + (i % locks.size()) + "-thread-" + i / locks.size());
                actors.add(actor);
                runs.add(actor.run(() -> {
                    for (int round = 0; round < rounds; round++) {
                        assertThat(lock.tryLock(20, TimeUnit.SECONDS)).isTrue();
                        try {
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            taken.incrementAndGet();
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                }));
            }
            CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(50, TimeUnit.SECONDS);

            System.out.printf("mixed run: %d locks taken, %d overlaps%n", taken.get(), overlaps.get());
            assertThat(overlaps).hasValue(0);
            assertThat(taken).hasValue(locks.size() * 2 * rounds);
            assertThat(childrenOf(zk.path("locks/key"))).isEmpty();
        } finally {
            for (LockActor actor : actors) {
                actor.close();
            }
            springs.forEach(ZookeeperLockRegistry::destroy);
            ours.forEach(ZkSpringLockRegistry::close);
        }
    }
}

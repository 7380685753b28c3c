package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * zklock's semaphores and Curator's on one path, each side on clients of its own: {@link ZkSemaphore} and
 * {@code InterProcessSemaphoreV2} share one lease count, and {@code new ZkExclusiveLock} and
 * {@code InterProcessSemaphoreMutex} exclude each other, both ways (the mixed fleet and the other layout's refusal:
 * {@link ExclusiveLayoutTest}).
 */
@Timeout(120)
final class SemaphoreInteropTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private CuratorFramework observer;

    @BeforeEach
    void observe() {
        observer = zk.newClient();
    }

    @Test
    void acquire_leasesTakenOnBothSides_countAgainstOneLimit() throws Exception {
        ZkSemaphore zklock = new ZkSemaphore(zk.newClient(), zk.path("sem"), 3);
        InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(zk.newClient(), zk.path("sem"), 3);

        Collection<Lease> ours = zklock.acquire(2);
        Lease theirs = curator.acquire(5, TimeUnit.SECONDS);
        assertThat(theirs).isNotNull();

        assertThat(zklock.acquire(200, TimeUnit.MILLISECONDS)).isNull();
        assertThat(curator.acquire(200, TimeUnit.MILLISECONDS)).isNull();
        assertThat(curator.getParticipantNodes()).hasSize(3);

        curator.returnLease(theirs);
        ZkLease third = zklock.acquire(5, TimeUnit.SECONDS);
        assertThat(third).isNotNull();
        assertThat(curator.acquire(100, TimeUnit.MILLISECONDS)).isNull();

        zklock.returnLease(third);
        zklock.returnAll(ours);
        Collection<Lease> all = curator.acquire(3, 5, TimeUnit.SECONDS);
        assertThat(all).hasSize(3);
        assertThat(zklock.acquire(100, TimeUnit.MILLISECONDS)).isNull();
        curator.returnAll(all);
        assertThat(zklock.getParticipantNodes()).isEmpty();
    }

    @Test
    void acquire_curatorWaitingForALease_getsTheOneAZklockHolderReturns() throws Exception {
        ZkSemaphore zklock = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(zk.newClient(), zk.path("sem"), 1);
        ZkLease held = zklock.acquire();
        try (LockActor waiter = LockActor.start("curator")) {
            CompletableFuture<Lease> waiting = waiter.submit(() -> curator.acquire(30, TimeUnit.SECONDS));
            await().until(() ->
                    children("sem/locks").size() == 1 && children("sem/leases").size() == 2);

            held.close();

            Lease taken = waiting.get();
            assertThat(taken).isNotNull();
            assertThat(zklock.acquire(0, TimeUnit.SECONDS)).isNull();
            curator.returnLease(taken);
        }
    }

    @Test
    void acquire_zklockWaitingForALease_getsTheOneACuratorHolderReturns() throws Exception {
        ZkSemaphore zklock = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(zk.newClient(), zk.path("sem"), 1);
        Lease held = curator.acquire();
        try (LockActor waiter = LockActor.start("zklock")) {
            CompletableFuture<ZkLease> waiting = waiter.submit(() -> zklock.acquire(30, TimeUnit.SECONDS));
            await().until(() ->
                    children("sem/locks").size() == 1 && children("sem/leases").size() == 2);

            curator.returnLease(held);

            ZkLease taken = waiting.get();
            assertThat(taken).isNotNull();
            assertThat(curator.acquire(0, TimeUnit.SECONDS)).isNull();
            taken.close();
        }
    }

    @Test
    void lease_whenTheSessionOfAHolderOnEitherSideExpires_isFreedForTheOther() throws Exception {
        CuratorFramework curatorClient = zk.newClient();
        CuratorFramework zklockClient = zk.newClient();
        InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(curatorClient, zk.path("sem"), 1);
        ZkSemaphore zklock = new ZkSemaphore(zklockClient, zk.path("sem"), 1);

        Lease theirs = curator.acquire();
        zk.expireSession(curatorClient);
        ZkLease ours = zklock.acquire(10, TimeUnit.SECONDS);
        assertThat(ours).isNotNull();

        zk.expireSession(zklockClient);
        await().until(() -> ours.state() == LockState.LOST);
        Lease again = curator.acquire(10, TimeUnit.SECONDS);
        assertThat(again).isNotNull();
        curator.returnLease(again);
        curator.returnLease(theirs); // gone with its session: Curator logs it
        ours.close(); // lost: nothing to delete, nothing thrown
    }

    @Test
    void acquire_zklockAndCuratorSemaphoresContending_neverExceedTheLeaseCountAndAllProgress() throws Exception {
        List<InterProcessLock> locks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            locks.add(SemaphoreRequestCountTest.SemaphoreLocks.of(new ZkSemaphore(zk.newClient(), zk.path("sem"), 3)));
            locks.add(SemaphoreRequestCountTest.SemaphoreLocks.of(
                    new InterProcessSemaphoreV2(zk.newClient(), zk.path("sem"), 3)));
        }

        Contention result = contend(locks, 20);

        assertThat(result.maxInside()).isBetween(1, 3);
        assertThat(result.perLock()).allSatisfy(count -> assertThat(count).isEqualTo(20));
    }

    @Test
    void acquire_semaphoreMutexOfEitherLibrary_excludesTheOtherBothWays() throws Exception {
        ZkExclusiveLock zklock = ZkExclusiveLock.semaphoreMutex(zk.newClient(), zk.path("mutex"));
        InterProcessSemaphoreMutex curator = new InterProcessSemaphoreMutex(zk.newClient(), zk.path("mutex"));

        assertThat(zklock.acquire(5, TimeUnit.SECONDS)).isTrue();
        assertThat(curator.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        zklock.release();
        assertThat(curator.acquire(5, TimeUnit.SECONDS)).isTrue();
        assertThat(zklock.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(zklock.participantNodes()).hasSize(1);
        curator.release();
        assertThat(zklock.acquire(0, TimeUnit.SECONDS)).isTrue();
        zklock.release();
        assertThat(children("mutex/leases")).isEmpty();
    }

    @Test
    void acquire_semaphoreMutexesOfBothLibrariesContending_neverOverlapAndAllProgress() throws Exception {
        List<InterProcessLock> locks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            locks.add(new ZkExclusiveLock(zk.newClient(), zk.path("mutex")));
            locks.add(new InterProcessSemaphoreMutex(zk.newClient(), zk.path("mutex")));
        }

        Contention result = contend(locks, 25);

        assertThat(result.maxInside()).isEqualTo(1);
        assertThat(result.perLock()).allSatisfy(count -> assertThat(count).isEqualTo(25));
    }

    private List<String> children(String name) throws Exception {
        try {
            return observer.getChildren().forPath(zk.path(name));
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** Runs every lock on its own actor, looping, started together; counts the most holders at once. */
    private static Contention contend(List<InterProcessLock> locks, int rounds) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<LockActor> actors = new ArrayList<>();
        List<CompletableFuture<Integer>> done = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            InterProcessLock lock = locks.get(i);
            LockActor actor = LockActor.start("contender-" + i);
            actors.add(actor);
            done.add(actor.submit(() -> {
                start.await();
                int count = 0;
                for (int r = 0; r < rounds; r++) {
                    lock.acquire();
                    most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    Thread.yield();
                    inside.decrementAndGet();
                    lock.release();
                    count++;
                }
                return count;
            }));
        }
        start.countDown();
        List<Integer> perLock = new ArrayList<>();
        for (CompletableFuture<Integer> future : done) {
            perLock.add(future.get());
        }
        for (LockActor actor : actors) {
            actor.close();
        }
        return new Contention(most.get(), perLock);
    }

    private record Contention(int maxInside, List<Integer> perLock) {}
}

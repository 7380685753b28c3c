package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link ZkSemaphore} on a real server: leases, waits, timeouts, interrupts, cancels, quantities, a shared count. */
@Timeout(60)
final class ZkSemaphoreTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private CuratorFramework observer;

    @BeforeEach
    void observe() {
        observer = zk.newClient();
    }

    @Test
    void acquire_whenFree_givesALeaseThatCloseReturns() throws Exception {
        ZkSemaphore semaphore = new ZkSemaphore(zk.newClient(), zk.path("sem"), 2);

        ZkLease lease = semaphore.acquire();

        assertThat(lease.state()).isEqualTo(LockState.HELD);
        assertThat(lease.getNodeName()).startsWith("_c_").contains("-lease-");
        assertThat(semaphore.getParticipantNodes()).containsExactly(lease.getNodeName());
        await().untilAsserted(() -> assertThat(mutexNodes()).isEmpty()); // its delete's reply is not waited for
        lease.close();
        lease.close(); // again: nothing
        assertThat(lease.isReturned()).isTrue();
        assertThat(semaphore.getParticipantNodes()).isEmpty();
    }

    @Test
    void acquire_whenEveryLeaseIsOut_timesOutWithNullAndLeavesNothing() throws Exception {
        ZkSemaphore semaphore = new ZkSemaphore(zk.newClient(), zk.path("sem"), 2);
        ZkLease first = semaphore.acquire();
        ZkLease second = semaphore.acquire(1, TimeUnit.SECONDS);

        assertThat(semaphore.acquire(200, TimeUnit.MILLISECONDS)).isNull();
        assertThat(semaphore.acquire(0, TimeUnit.MILLISECONDS)).isNull();
        assertThat(semaphore.acquire(Duration.ofMillis(-5))).isEmpty();
        assertThat(semaphore.acquire(1, 100, TimeUnit.MILLISECONDS)).isNull();

        assertThat(semaphore.getParticipantNodes())
                .containsExactlyInAnyOrder(first.getNodeName(), second.getNodeName());
        await().untilAsserted(() -> assertThat(mutexNodes()).isEmpty());
        semaphore.returnAll(List.of(first, second));
        assertThat(semaphore.getParticipantNodes()).isEmpty();
    }

    @Test
    void acquire_whenALeaseIsReturned_wakesTheWaiter() throws Exception {
        ZkSemaphore holderSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        ZkSemaphore waiterSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        ZkLease held = holderSide.acquire();
        try (LockActor waiter = LockActor.start("waiter")) {
            CompletableFuture<ZkLease> waiting = waiter.submit(() -> waiterSide.acquire(30, TimeUnit.SECONDS));
            await().until(() -> mutexNodes().size() == 1); // the waiter holds the mutex and watches the leases

            holderSide.returnLease(held);

            try (ZkLease taken = waiting.get()) {
                assertThat(taken.state()).isEqualTo(LockState.HELD);
                // The mutex is let go without waiting for its delete's reply: it is gone soon after the grant.
                await().untilAsserted(() -> assertThat(mutexNodes()).isEmpty());
            }
        }
    }

    @Test
    void acquire_quantity_takesEveryLeaseAtOnceOrNone() throws Exception {
        ZkSemaphore semaphore = new ZkSemaphore(zk.newClient(), zk.path("sem"), 3);
        ZkLease one = semaphore.acquire();

        Collection<Lease> two = semaphore.acquire(2);
        assertThat(two).hasSize(2).allSatisfy(lease -> assertThat(lease).isInstanceOf(ZkLease.class));
        assertThat(semaphore.getParticipantNodes()).hasSize(3);

        semaphore.returnLease(one);
        assertThat(semaphore.acquire(2, 100, TimeUnit.MILLISECONDS)).isNull(); // one free, two asked: none taken
        assertThat(semaphore.getParticipantNodes()).hasSize(2);
        semaphore.returnAll(two);
        assertThat(semaphore.acquire(3, Duration.ofSeconds(5))).hasValueSatisfying(all -> {
            assertThat(all).hasSize(3);
            semaphore.returnAll(all);
        });
        assertThat(semaphore.getParticipantNodes()).isEmpty();
    }

    @Test
    void acquire_interruptedWhileWaiting_throwsAndLeavesNothing() throws Exception {
        ZkSemaphore holderSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        ZkSemaphore waiterSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        ZkLease held = holderSide.acquire();
        try (LockActor waiter = LockActor.start("waiter")) {
            CompletableFuture<ZkLease> waiting = waiter.submit(waiterSide::acquire);
            await().until(() -> mutexNodes().size() == 1);

            waiter.interrupt();

            assertThatThrownBy(waiting::get).hasCauseInstanceOf(InterruptedException.class);
            await().until(() ->
                    mutexNodes().isEmpty() && holderSide.getParticipantNodes().size() == 1);
        }
        held.close();
    }

    @Test
    void acquireAsync_whenFree_completesAndCancelWhileWaitingWithdraws() throws Exception {
        ZkSemaphore semaphore = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        ZkLease held = semaphore.acquireAsync(Duration.ofSeconds(5)).get();

        CompletableFuture<ZkLease> waiting = semaphore.acquireAsync();
        await().until(() -> mutexNodes().size() == 1);
        waiting.cancel(false);

        assertThatThrownBy(waiting::get).isInstanceOf(CancellationException.class);
        await().until(() ->
                mutexNodes().isEmpty() && semaphore.getParticipantNodes().size() == 1);
        CompletableFuture<Collection<Lease>> late = semaphore.acquireAsync(1, Duration.ofMillis(100));
        assertThatThrownBy(late::get)
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LockTimeoutException.class)
                .hasMessageContaining(zk.path("sem"));
        held.close();
        assertThat(semaphore.getParticipantNodes()).isEmpty();
    }

    @Test
    void acquire_manyClientsLooping_neverExceedTheLeaseCount() throws Exception {
        int max = 3;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<LockActor> actors = new ArrayList<>();
        List<CompletableFuture<Integer>> loops = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ZkSemaphore semaphore = new ZkSemaphore(zk.newClient(), zk.path("sem"), max);
            LockActor actor = LockActor.start("client-" + i);
            actors.add(actor);
            loops.add(actor.submit(() -> {
                for (int round = 0; round < 20; round++) {
                    try (ZkLease lease = semaphore.acquire()) {
                        most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        Thread.yield();
                        inside.decrementAndGet();
                    }
                }
                return 20;
            }));
        }
        int done = 0;
        for (CompletableFuture<Integer> loop : loops) {
            done += loop.get();
        }
        for (LockActor actor : actors) {
            actor.close();
        }
        assertThat(done).isEqualTo(160);
        assertThat(most.get()).isBetween(1, max);
    }

    @Test
    void acquire_withASharedCount_waitsForTheCountToGrow() throws Exception {
        CuratorFramework client = zk.newClient();
        try (SharedCount count = new SharedCount(client, zk.path("count"), 1)) {
            count.start();
            ZkSemaphore semaphore = new ZkSemaphore(client, zk.path("sem"), count);
            ZkLease first = semaphore.acquire();
            try (LockActor waiter = LockActor.start("waiter")) {
                CompletableFuture<ZkLease> waiting = waiter.submit(() -> semaphore.acquire(30, TimeUnit.SECONDS));
                await().until(() -> mutexNodes().size() == 1);

                count.setCount(2);

                ZkLease second = waiting.get();
                assertThat(semaphore.getParticipantNodes()).hasSize(2);
                second.close();
            }
            first.close();
        }
    }

    @Test
    void lease_whenItsSessionExpires_isLostAndFreesItsLease() throws Exception {
        CuratorFramework holderClient = zk.newClient();
        ZkSemaphore holderSide = new ZkSemaphore(holderClient, zk.path("sem"), 1);
        ZkSemaphore waiterSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        ZkLease held = holderSide.acquire();

        zk.expireSession(holderClient);

        await().until(() -> held.state() == LockState.LOST);
        ZkLease taken = waiterSide.acquire(10, TimeUnit.SECONDS);
        assertThat(taken).isNotNull();
        held.close(); // a lost lease: nothing left to delete, no exception
        taken.close();
    }

    @Test
    void acquire_whenTheWaitersSessionExpires_startsAgainAndLeavesNothingOfTheOldSession() throws Exception {
        ZkSemaphore holderSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        CuratorFramework waiterClient = zk.newClient();
        ZkSemaphore waiterSide = new ZkSemaphore(waiterClient, zk.path("sem"), 1);
        ZkLease held = holderSide.acquire();
        try (LockActor waiter = LockActor.start("waiter")) {
            CompletableFuture<ZkLease> waiting = waiter.submit(() -> waiterSide.acquire(30, TimeUnit.SECONDS));
            await().until(() -> mutexNodes().size() == 1);

            zk.expireSession(waiterClient);
            await().until(() -> mutexNodes().size() == 1
                    && holderSide.getParticipantNodes().size() == 2
                    && !waiting.isDone()); // waiting again, on the new session
            held.close();

            ZkLease taken = waiting.get();
            assertThat(taken.state()).isEqualTo(LockState.HELD);
            taken.close();
        }
    }

    @Test
    void acquire_whenTheWaitersConnectionDrops_goesOnWithTheSameSession() throws Exception {
        ZkSemaphore holderSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        CuratorFramework waiterClient = zk.newClient();
        ZkSemaphore waiterSide = new ZkSemaphore(waiterClient, zk.path("sem"), 1);
        ZkLease held = holderSide.acquire();
        try (LockActor waiter = LockActor.start("waiter")) {
            CompletableFuture<ZkLease> waiting = waiter.submit(() -> waiterSide.acquire(30, TimeUnit.SECONDS));
            await().until(() ->
                    mutexNodes().size() == 1 && holderSide.getParticipantNodes().size() == 2);
            long session = waiterClient.getZookeeperClient().getZooKeeper().getSessionId();

            zk.dropConnection(waiterClient);
            await().until(() -> waiterClient.getZookeeperClient().isConnected());
            held.close();

            ZkLease taken = waiting.get();
            assertThat(waiterClient.getZookeeperClient().getZooKeeper().getSessionId())
                    .isEqualTo(session);
            assertThat(taken.state()).isEqualTo(LockState.HELD);
            taken.close();
        }
    }

    @Test
    void acquire_timingOutWhileTheServerIsDown_leavesNothingOnceItIsBack() throws Exception {
        ZkSemaphore holderSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        ZkSemaphore waiterSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        ZkLease held = holderSide.acquire();
        try (LockActor waiter = LockActor.start("waiter")) {
            CompletableFuture<ZkLease> waiting = waiter.submit(() -> waiterSide.acquire(2, TimeUnit.SECONDS));
            await().until(() ->
                    mutexNodes().size() == 1 && holderSide.getParticipantNodes().size() == 2);

            zk.stopServer();
            assertThat(waiting.get()).isNull(); // in time, with no server to answer
            zk.restartServer();

            await().until(() ->
                    mutexNodes().isEmpty() && holderSide.getParticipantNodes().size() == 1);
            held.close();
        }
    }

    @Test
    void newSemaphore_badInput_throwsNamingTheValueAndCreatesNothing() throws Exception {
        CuratorFramework client = zk.newClient();
        String path = zk.path("sem");

        assertThatThrownBy(() -> new ZkSemaphore(client, path, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxLeases")
                .hasMessageContaining("not 0")
                .hasMessageContaining(path);
        assertThatThrownBy(() -> new ZkSemaphore(client, path, -3)).hasMessageContaining("not -3");
        assertThatThrownBy(() -> new ZkSemaphore(client, path, (SharedCount) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("count");
        ZkSemaphore semaphore = new ZkSemaphore(client, path, 2);
        assertThatThrownBy(() -> semaphore.acquire(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("qty")
                .hasMessageContaining("not 0")
                .hasMessageContaining(path);
        assertThatThrownBy(() -> semaphore.acquire(3, 1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most its 2 leases, not 3");
        assertThatThrownBy(() -> semaphore.acquireAsync(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.acquire(1, (TimeUnit) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("unit");
        assertThatThrownBy(() -> semaphore.acquire((Duration) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("timeout");
        assertThatThrownBy(() -> semaphore.returnLease(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("lease");
        assertThatThrownBy(() -> semaphore.returnAll(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("leases");
        assertThat(client.checkExists().forPath(path)).isNull();
    }

    /**
     * Only the mutex's holder makes a lease and waits (LeaseAcquisition, note 2): with one lease out, two waiters queue,
     * the first holds the mutex with its one lease node waiting and the second waits for the mutex with none; the
     * leases then go in mutex order.
     */
    @Test
    void acquire_twoWaiters_onlyTheMutexHolderMakesALeaseAndLeasesGoInMutexOrder() throws Exception {
        ZkSemaphore holderSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        ZkSemaphore firstSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        ZkSemaphore secondSide = new ZkSemaphore(zk.newClient(), zk.path("sem"), 1);
        ZkLease held = holderSide.acquire();
        try (LockActor first = LockActor.start("first");
                LockActor second = LockActor.start("second")) {
            CompletableFuture<ZkLease> firstWaits = first.submit(() -> firstSide.acquire(30, TimeUnit.SECONDS));
            await().until(() -> leaseNodes().size() == 2); // the first holds the mutex, its lease node waiting
            CompletableFuture<ZkLease> secondWaits = second.submit(() -> secondSide.acquire(30, TimeUnit.SECONDS));
            await().until(() -> mutexNodes().size() == 2);

            assertThat(leaseNodes())
                    .as("the second made no lease node while it waits for the mutex")
                    .hasSize(2);
            holderSide.returnLease(held);
            ZkLease firstLease = firstWaits.get();
            assertThat(secondWaits).isNotDone();
            await().until(() -> leaseNodes().size() == 2); // the second holds the mutex now, its lease node waiting
            first.run(firstLease::close).join();
            secondWaits.get().close();
        }
        assertThat(leaseNodes()).isEmpty();
    }

    /**
     * Two {@code acquire(2)} on a semaphore of 2 leases never wait on each other: each makes its two leases in one
     * transaction under one mutex hold (LeaseAcquisition, note 2). Curator's take the mutex once per lease, so each can
     * get one lease and wait for the other's.
     */
    @Test
    void acquireTwo_twoClientsOnTwoLeasesAtOnce_neverWaitOnEachOther() throws Exception {
        List<ZkSemaphore> semaphores = List.of(
                new ZkSemaphore(zk.newClient(), zk.path("sem"), 2), new ZkSemaphore(zk.newClient(), zk.path("sem"), 2));
        AtomicInteger timeouts = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        List<LockActor> actors = new ArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        try {
            for (ZkSemaphore semaphore : semaphores) {
                LockActor actor = LockActor.start("client-" + actors.size());
                actors.add(actor);
                done.add(actor.run(() -> {
                    for (int round = 0; round < 20; round++) {
                        Collection<Lease> leases = semaphore.acquire(2, 5, TimeUnit.SECONDS);
                        if (leases == null) {
                            timeouts.incrementAndGet();
                            continue;
                        }
                        assertThat(inside.incrementAndGet())
                                .as("holders of both leases at once")
                                .isEqualTo(1);
                        inside.decrementAndGet();
                        semaphore.returnAll(leases);
                    }
                }));
            }
            for (CompletableFuture<Void> future : done) {
                future.get();
            }
        } finally {
            for (LockActor actor : actors) {
                actor.close();
            }
        }
        assertThat(timeouts).hasValue(0);
        assertThat(leaseNodes()).isEmpty();
    }

    /** The nodes of the semaphore's internal mutex. */
    private List<String> mutexNodes() throws Exception {
        try {
            return observer.getChildren().forPath(zk.path("sem") + "/locks");
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** The lease nodes of the semaphore. */
    private List<String> leaseNodes() throws Exception {
        try {
            return observer.getChildren().forPath(zk.path("sem") + "/leases");
        } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
            return List.of();
        }
    }
}

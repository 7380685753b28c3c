package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ServerCounters;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.ArrayList;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ZooKeeper requests of the semaphores, counted by the server ({@code mntr} packets) for zklock and for Curator on the
 * same server in the same test: an uncontended cycle, and a contended acquisition. A lease is a hold, and a watch on
 * its node vouches for it while it is held ({@code StrangerDeleteTest}): one read, not waited for, and its event at the
 * lease's own delete; so zklock costs what Curator costs, and at most that read and that event more (before the
 * voucher, one request fewer and no more events).
 * The paths {@code locks} and {@code leases} are made persistent first, so that the server's container reaper does not
 * add requests of its own.
 */
@Timeout(120)
final class SemaphoreRequestCountTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static final int CYCLES = 100;

    @Test
    void cycle_uncontendedSemaphoreMutex_costsAsManyRequestsAsCurators() throws Exception {
        CuratorFramework client = clientWithPersistentPaths("zklock", "curator");
        double zklock = perCycle(ZkExclusiveLock.semaphoreMutex(client, zk.path("zklock")));
        double curator = perCycle(new InterProcessSemaphoreMutex(client, zk.path("curator")));

        report("uncontended semaphore-mutex cycle", zklock, curator);
        assertThat(curator).isBetween(7.0, 7.1);
        assertThat(zklock).isBetween(7.0, 7.1); // the mutex, the lease and its voucher's read, the lease's delete
    }

    @Test
    void cycle_uncontendedSemaphore_costsAsManyRequestsAsCurators() throws Exception {
        CuratorFramework client = clientWithPersistentPaths("zklock", "curator");
        ZkSemaphore zklock = new ZkSemaphore(client, zk.path("zklock"), 3);
        InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(client, zk.path("curator"), 3);
        zklock.acquire().close();
        curator.returnLease(curator.acquire());

        ServerCounters before = zk.counters();
        for (int i = 0; i < CYCLES; i++) {
            zklock.acquire().close();
        }
        ServerCounters middle = zk.counters();
        for (int i = 0; i < CYCLES; i++) {
            curator.returnLease(curator.acquire());
        }
        ServerCounters after = zk.counters();

        double ours = middle.requestsSince(before) / (double) CYCLES;
        double theirs = after.requestsSince(middle) / (double) CYCLES;
        report("uncontended semaphore cycle", ours, theirs);
        assertThat(ours).isBetween(7.0, 7.1).isLessThanOrEqualTo(theirs);
        assertThat(middle.watchEventsSince(before)).isEqualTo(CYCLES); // the voucher, fired by the lease's delete
    }

    @Test
    void acquire_eightClientsThreeLeases_costAtMostCuratorsAndTheVoucher() throws Exception {
        clientWithPersistentPaths("zklock", "curator");
        List<InterProcessLock> zklock = new ArrayList<>();
        List<InterProcessLock> curator = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            zklock.add(SemaphoreLocks.of(new ZkSemaphore(zk.newClient(), zk.path("zklock"), 3)));
            curator.add(SemaphoreLocks.of(new InterProcessSemaphoreV2(zk.newClient(), zk.path("curator"), 3)));
        }

        Measured ours = contend(zklock, 3, 25);
        Measured theirs = contend(curator, 3, 25);

        report("8 clients, 3 leases, per acquisition", ours.requestsPerAcquisition(), theirs.requestsPerAcquisition());
        report("8 clients, 3 leases, watch events", ours.eventsPerAcquisition(), theirs.eventsPerAcquisition());
        assertThat(ours.requestsPerAcquisition()).isLessThanOrEqualTo(theirs.requestsPerAcquisition() + 1);
        // the voucher's event, once per lease; the mutex queue's wakes vary by a hundredth with the interleaving
        assertThat(ours.eventsPerAcquisition()).isLessThanOrEqualTo(theirs.eventsPerAcquisition() + 1.05);
    }

    @Test
    void acquire_eightClientsSemaphoreMutex_costAtMostCuratorsAndTheVoucher() throws Exception {
        clientWithPersistentPaths("zklock", "curator");
        List<InterProcessLock> zklock = new ArrayList<>();
        List<InterProcessLock> curator = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            zklock.add(ZkExclusiveLock.semaphoreMutex(zk.newClient(), zk.path("zklock")));
            curator.add(new InterProcessSemaphoreMutex(zk.newClient(), zk.path("curator")));
        }

        Measured ours = contend(zklock, 1, 25);
        Measured theirs = contend(curator, 1, 25);

        report(
                "8 clients, semaphore mutex, per acquisition",
                ours.requestsPerAcquisition(),
                theirs.requestsPerAcquisition());
        report("8 clients, semaphore mutex, watch events", ours.eventsPerAcquisition(), theirs.eventsPerAcquisition());
        assertThat(ours.requestsPerAcquisition()).isLessThanOrEqualTo(theirs.requestsPerAcquisition() + 1);
    }

    private static double perCycle(InterProcessLock lock) throws Exception {
        lock.acquire();
        lock.release();
        ServerCounters before = zk.counters();
        for (int i = 0; i < CYCLES; i++) {
            lock.acquire();
            lock.release();
        }
        return zk.counters().requestsSince(before) / (double) CYCLES;
    }

    /** Runs every lock on its own actor, looping; checks that at most {@code max} hold at once. */
    private static Measured contend(List<InterProcessLock> locks, int max, int rounds) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger inside = new AtomicInteger();
        List<LockActor> actors = new ArrayList<>();
        List<CompletableFuture<Integer>> done = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            InterProcessLock lock = locks.get(i);
            LockActor actor = LockActor.start("contender-" + i);
            actors.add(actor);
            done.add(actor.submit(() -> {
                start.await();
                for (int r = 0; r < rounds; r++) {
                    lock.acquire();
                    assertThat(inside.incrementAndGet()).as("holders at once").isLessThanOrEqualTo(max);
                    inside.decrementAndGet();
                    lock.release();
                }
                return rounds;
            }));
        }
        ServerCounters before = zk.counters();
        start.countDown();
        int acquisitions = 0;
        for (CompletableFuture<Integer> future : done) {
            acquisitions += future.get();
        }
        ServerCounters after = zk.counters();
        for (LockActor actor : actors) {
            actor.close();
        }
        return new Measured(after.requestsSince(before), after.watchEventsSince(before), acquisitions);
    }

    private static CuratorFramework clientWithPersistentPaths(String... names) throws Exception {
        CuratorFramework client = zk.newClient();
        for (String name : names) {
            client.create().creatingParentsIfNeeded().forPath(zk.path(name) + "/locks");
            client.create().creatingParentsIfNeeded().forPath(zk.path(name) + "/leases");
        }
        return client;
    }

    private static void report(String scenario, double zklock, double curator) {
        System.out.printf("[requests] %s: zklock %.2f, Curator %.2f%n", scenario, zklock, curator);
    }

    private record Measured(long requests, long events, int acquisitions) {
        double requestsPerAcquisition() {
            return requests / (double) acquisitions;
        }

        double eventsPerAcquisition() {
            return events / (double) acquisitions;
        }
    }

    /** One lease of a semaphore as an {@link InterProcessLock}, so both libraries loop the same way. */
    static final class SemaphoreLocks {
        private SemaphoreLocks() {}

        static InterProcessLock of(ZkSemaphore semaphore) {
            return new InterProcessLock() {
                private volatile Lease lease;

                @Override
                public void acquire() throws Exception {
                    lease = semaphore.acquire();
                }

                @Override
                public boolean acquire(long time, TimeUnit unit) throws Exception {
                    lease = semaphore.acquire(time, unit);
                    return lease != null;
                }

                @Override
                public void release() {
                    semaphore.returnLease(lease);
                }

                @Override
                public boolean isAcquiredInThisProcess() {
                    return lease != null;
                }
            };
        }

        static InterProcessLock of(InterProcessSemaphoreV2 semaphore) {
            return new InterProcessLock() {
                private volatile Lease lease;

                @Override
                public void acquire() throws Exception {
                    lease = semaphore.acquire();
                }

                @Override
                public boolean acquire(long time, TimeUnit unit) throws Exception {
                    lease = semaphore.acquire(time, unit);
                    return lease != null;
                }

                @Override
                public void release() {
                    semaphore.returnLease(lease);
                }

                @Override
                public boolean isAcquiredInThisProcess() {
                    return lease != null;
                }
            };
        }
    }
}

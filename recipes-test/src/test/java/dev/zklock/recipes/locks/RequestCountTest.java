package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ServerCounters;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ZooKeeper requests per acquisition, counted by the server ({@code mntr} packets), never guessed; and round trips,
 * counted at a TCP proxy. Curator's figures, measured beside zklock's in one run, are in BENCHMARKS.md
 * ({@code ./zklock bench}).
 */
@Timeout(120)
final class RequestCountTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /**
     * Returns a client whose lock path is a persistent node: the test server reaps empty containers every 100 ms, and a
     * reaped lock path costs a failed create and a new container, which is not what these counts measure.
     */
    static CuratorFramework clientWithPersistentPath(ZooKeeperExtension zk, String path) throws Exception {
        CuratorFramework client = zk.newClient();
        client.create().creatingParentsIfNeeded().forPath(path);
        return client;
    }

    /**
     * An uncontended cycle: the create and the listing (pipelined: one round trip), the read that sets the watch on our
     * own node which vouches for the hold while it is held (not waited for), and the delete, which fires that watch.
     * Without the voucher a stranger's delete went unheard ({@code StrangerDeleteTest}): 3 requests and no event.
     */
    @Test
    void acquireAndRelease_uncontended_costFourRequestsAndTheVouchersEvent() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(clientWithPersistentPath(zk, zk.path("lock")), zk.path("lock"));
        cycle(lock); // makes the container parents

        int cycles = 200;
        Measured measured = cycles(zk, lock, cycles);

        double perCycle = measured.requestsPerAcquisition();
        report("uncontended acquire+release", perCycle, measured.events(), cycles);
        assertThat(perCycle).isBetween(4.0, 4.05); // create + listing (pipelined) + voucher's read + delete; a ping
        assertThat(measured.events()).isEqualTo(cycles); // the voucher, fired by our own delete
    }

    @ParameterizedTest(name = "{0} threads")
    @ValueSource(ints = {2, 8, 32})
    void acquire_threadsSharingOneLockObject_costAtMostFiveRequestsEach(int threads) throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(clientWithPersistentPath(zk, zk.path("lock")), zk.path("lock"));
        cycle(lock);
        List<ZkReentrantLock> locks = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            locks.add(lock);
        }

        Measured measured = contend(locks, 320 / threads + 5);

        report(
                threads + " threads, one client, one lock object",
                measured.requestsPerAcquisition(),
                measured.events(),
                measured.acquisitions());
        assertThat(measured.requestsPerAcquisition()).isLessThanOrEqualTo(5.0);
        assertThat(measured.eventsPerAcquisition()).isLessThanOrEqualTo(1.0);
    }

    /**
     * Separate clients: create, listing, the watch on our own node and the watch ahead, delete; one watch event wakes
     * the one waiter a release lets in, and one tells the releaser that its own node, which that watch vouched for
     * while it waited and held, is gone.
     */
    @ParameterizedTest(name = "{0} clients")
    @ValueSource(ints = {2, 8})
    void acquire_separateClients_costAtMostFiveRequestsAndTwoWatchEventsEach(int clients) throws Exception {
        List<ZkReentrantLock> locks = new ArrayList<>();
        locks.add(new ZkReentrantLock(clientWithPersistentPath(zk, zk.path("lock")), zk.path("lock")));
        for (int i = 1; i < clients; i++) {
            locks.add(new ZkReentrantLock(zk.newClient(), zk.path("lock")));
        }
        cycle(locks.get(0));

        Measured measured = contend(locks, 160 / clients + 5);

        report(clients + " clients", measured.requestsPerAcquisition(), measured.events(), measured.acquisitions());
        assertThat(measured.requestsPerAcquisition()).isLessThanOrEqualTo(5.0);
        assertThat(measured.eventsPerAcquisition()).isLessThanOrEqualTo(2.0);
    }

    @Test
    void handOff_whenTheOnlyNodeAheadReleases_takesTheLockWithoutAListing() throws Exception {
        CuratorFramework holderClient = clientWithPersistentPath(zk, zk.path("lock"));
        ZkReentrantLock holder = new ZkReentrantLock(holderClient, zk.path("lock"));
        ZkReentrantLock waiter = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        holder.acquire();
        CountDownLatch watching = new CountDownLatch(1);
        waiter.setHooks(new QueueHooks() {
            @Override
            public void watchSet(String lockPath, String ourNode, String watchedNode) {
                watching.countDown();
            }
        });
        try (LockActor actor = LockActor.start("waiter")) {
            CompletableFuture<Boolean> acquired =
                    actor.submit(() -> waiter.acquire(30, java.util.concurrent.TimeUnit.SECONDS));
            watching.await();

            ServerCounters before = zk.counters();
            holder.release();
            assertThat(acquired.get()).isTrue();
            ServerCounters after = zk.counters();

            // the holder's delete, and nothing else: the waiter needed no listing, and its watch on its own node,
            // set while it waited, vouches for its hold; the events: the waiter's watch on the holder's node, and the
            // holder's own voucher
            assertThat(after.requestsSince(before)).isEqualTo(1);
            assertThat(after.watchEventsSince(before)).isEqualTo(2);
            actor.run(waiter::release).join();
        }
    }

    /**
     * A semaphore's uncontended acquire takes two round trips, the mutex's create with its listing and then the lease's
     * create with its listing, each pair sent back to back (LeaseAcquisition, note 4), and a third burst lets the mutex
     * go without waiting for the reply, with the read that sets the lease's voucher (or just before it, as a burst of its
     * own). Sent one after the other, the lease's create and listing would take one more round trip.
     * Counted at a TCP proxy between the client and the server.
     */
    @Test
    void semaphoreAcquire_uncontended_sendsTheLeaseCreateAndItsListingInOneRoundTrip() throws Exception {
        CuratorFramework observer = zk.newClient();
        try (TcpProxy proxy = zk.newProxy()) {
            CuratorFramework client = zk.newClient(builder -> builder.connectString(proxy.connectString()));
            ZkSemaphore semaphore = new ZkSemaphore(client, zk.path("sem"), 3);
            client.create().creatingParentsIfNeeded().forPath(zk.path("sem") + "/locks");
            client.create().creatingParentsIfNeeded().forPath(zk.path("sem") + "/leases");
            semaphore.acquire().close(); // the paths and the client's caches are warm
            await().until(() ->
                    observer.getChildren().forPath(zk.path("sem") + "/locks").isEmpty());

            long before = proxy.requestBursts();
            ZkLease lease = semaphore.acquire();
            await().until(() ->
                    observer.getChildren().forPath(zk.path("sem") + "/locks").isEmpty());
            long bursts = proxy.requestBursts() - before;

            // the lease's voucher read and the mutex's delete are sent back to back, neither waited for: one burst
            // or two, as the socket writes them; the waits are the first two only
            assertThat(bursts)
                    .as("mutex create + listing, lease create + listing, lease voucher read and mutex delete")
                    .isBetween(3L, 4L);
            lease.close();
        }
    }

    /** Runs {@code count} acquire/release cycles of {@code lock} on this thread; counts {@code zk}'s server requests. */
    static Measured cycles(ZooKeeperExtension zk, ZkReentrantLock lock, int count) throws InterruptedException {
        ServerCounters before = zk.counters();
        for (int i = 0; i < count; i++) {
            cycle(lock);
        }
        ServerCounters after = zk.counters();
        return new Measured(after.requestsSince(before), after.watchEventsSince(before), count);
    }

    private static void cycle(ZkReentrantLock lock) throws InterruptedException {
        lock.acquire();
        lock.release();
    }

    /** Runs every lock on its own actor, each looping acquire/release, started together; counts server requests. */
    private static Measured contend(List<ZkReentrantLock> locks, int rounds) throws Exception {
        return contend(zk, locks, rounds);
    }

    /** As above, on {@code zk}'s server (for {@code QueueViewTest}). */
    static Measured contend(ZooKeeperExtension zk, List<ZkReentrantLock> locks, int rounds) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger inside = new AtomicInteger();
        List<LockActor> actors = new ArrayList<>();
        List<CompletableFuture<Integer>> done = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            ZkReentrantLock lock = locks.get(i);
            LockActor actor = LockActor.start("contender-" + i);
            actors.add(actor);
            done.add(actor.submit(() -> {
                start.await();
                for (int r = 0; r < rounds; r++) {
                    lock.acquire();
                    assertThat(inside.incrementAndGet()).as("holders at once").isEqualTo(1);
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

    private static void report(String scenario, double requests, long events, int acquisitions) {
        System.out.printf(
                "[requests] %s: %.2f requests per acquisition, %d watch events over %d acquisitions%n",
                scenario, requests, events, acquisitions);
    }

    record Measured(long requests, long events, int acquisitions) {
        double requestsPerAcquisition() {
            return requests / (double) acquisitions;
        }

        double eventsPerAcquisition() {
            return events / (double) acquisitions;
        }
    }
}

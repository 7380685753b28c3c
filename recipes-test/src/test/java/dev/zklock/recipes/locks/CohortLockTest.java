package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.Cohort;
import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.FencedResource;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ServerCounters;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cohort locks against a real server: the threads of one lock object pass the lock locally (FIFO, no request), within
 * the pass and time bounds once another waiter is queued, cache an idle node until another waiter shows, and keep
 * every other behaviour of a lock (timeouts, interrupts, session loss, downgrade, async, {@code Lock}, Curator on the
 * same path, fencing).
 *
 * <p>Outcome table of the bounds (actors a, b, d local to one cohort, c on another client, forced in order by latches):
 * with maxPasses 2, a holds and b, d wait locally, c queues and the cohort learns of it; a, b, d release in turn. Allowed:
 * b, d, c, then a (two passes, then the node goes). Forbidden: c before b (no pass bound at all), or c after a third pass
 * (bound ignored), or two holders at once.
 */
@Timeout(90)
final class CohortLockTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void localHandOff_threadsOfOneLockObject_passWithNoRequestAndExcludeEachOther() throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .localHandOff()
                .build();
        lock.acquire(); // the lock path exists before counting
        lock.release();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        int threads = 8;
        int rounds = 50;

        ServerCounters before = zk.counters();
        List<LockActor> actors = new ArrayList<>();
        List<CompletableFuture<Void>> loops = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1); // all loops start together: one looping alone takes a node a round
        for (int i = 0; i < threads; i++) {
            LockActor actor = LockActor.start("local-" + i);
            actors.add(actor);
            loops.add(actor.run(() -> {
                go.await();
                for (int round = 0; round < rounds; round++) {
                    lock.acquire();
                    maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    inside.decrementAndGet();
                    lock.release();
                }
            }));
        }
        go.countDown();
        for (CompletableFuture<Void> loop : loops) {
            loop.get(60, TimeUnit.SECONDS);
        }
        ServerCounters after = zk.counters();
        for (LockActor actor : actors) {
            actor.close();
        }

        double perAcquisition = after.requestsSince(before) / (double) (threads * rounds);
        assertThat(maxInside.get()).isEqualTo(1);
        assertThat(perAcquisition).as("requests per acquisition").isLessThan(0.3);
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void release_withAWaiterOfAnotherClientKnown_passesAtMostMaxPassesThenLetsItIn() throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .localHandOff(2, Duration.ofHours(1))
                .build();
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        List<String> order = new CopyOnWriteArrayList<>();
        try (LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b");
                LockActor d = LockActor.start("d");
                LockActor c = LockActor.start("c")) {
            a.run(lock::acquire).join();
            CompletableFuture<Void> bHolds = b.run(() -> holdAndNote(lock, order, "b"));
            await().until(() -> cohortOf(lock).waitingCount() == 1);
            CompletableFuture<Void> dHolds = d.run(() -> holdAndNote(lock, order, "d"));
            await().until(() -> cohortOf(lock).waitingCount() == 2);
            CompletableFuture<Void> cHolds = c.run(() -> holdAndNote(other, order, "c"));
            await().until(() -> cohortOf(lock).knowsOtherWaiter());

            a.run(lock::release).join();
            bHolds.get(10, TimeUnit.SECONDS);
            CompletableFuture<Void> aHoldsAgain = a.run(() -> holdAndNote(lock, order, "a"));
            await().until(() -> cohortOf(lock).waitingCount() == 2);
            b.run(lock::release).join();
            dHolds.get(10, TimeUnit.SECONDS);
            d.run(lock::release).join();
            cHolds.get(10, TimeUnit.SECONDS);
            c.run(other::release).join();
            aHoldsAgain.get(10, TimeUnit.SECONDS);
            a.run(lock::release).join();
        }

        assertThat(order).containsExactly("b", "d", "c", "a");
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void release_afterMaxTimeWithAWaiterOfAnotherClientKnown_letsItInBeforeTheNextLocalWaiter() throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .localHandOff(1000, Duration.ofNanos(1))
                .build();
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        List<String> order = new CopyOnWriteArrayList<>();
        try (LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b");
                LockActor c = LockActor.start("c")) {
            a.run(lock::acquire).join();
            CompletableFuture<Void> bHolds = b.run(() -> holdAndNote(lock, order, "b"));
            await().until(() -> cohortOf(lock).waitingCount() == 1);
            CompletableFuture<Void> cHolds = c.run(() -> holdAndNote(other, order, "c"));
            await().until(() -> cohortOf(lock).knowsOtherWaiter());

            a.run(lock::release).join();
            cHolds.get(10, TimeUnit.SECONDS);
            assertThat(bHolds).isNotDone();
            c.run(other::release).join();
            bHolds.get(10, TimeUnit.SECONDS);
            b.run(lock::release).join();
        }

        assertThat(order).containsExactly("c", "b");
    }

    @Test
    void keepIdle_oneThreadLooping_costsNoRequestAfterTheFirstAndEndsWhenAnotherClientQueues() throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .keepIdle(Duration.ofMinutes(10))
                .build();
        lock.acquire();
        lock.release();
        lock.acquire();
        lock.release();
        await().until(() -> lock.participantNodes().size() == 1); // the node stays, cached

        ServerCounters before = zk.counters();
        for (int i = 0; i < 100; i++) {
            lock.acquire();
            lock.release();
        }
        ServerCounters after = zk.counters();
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        boolean otherAcquired = other.acquire(10, TimeUnit.SECONDS);

        assertThat(after.requestsSince(before)).as("requests for 100 cycles").isZero();
        assertThat(otherAcquired).isTrue();
        assertThat(lock.participantNodes()).hasSize(1); // the other client's node alone
        other.release();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void keepIdle_timeRunsOut_releasesTheNodeOnTheClientsTimer() throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .keepIdle(Duration.ofMillis(50))
                .build();

        lock.acquire();
        lock.release();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> lock.participantNodes().isEmpty());
        assertThat(lock.acquire(10, TimeUnit.SECONDS)).isTrue();
        lock.release();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> lock.participantNodes().isEmpty());
    }

    @Test
    void acquire_localWaiterTimesOutOrIsInterrupted_leavesNothingBehind() throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .localHandOff()
                .build();
        try (LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b")) {
            a.run(lock::acquire).join();

            boolean timed =
                    b.submit(() -> lock.acquire(100, TimeUnit.MILLISECONDS)).join();
            CompletableFuture<Void> interrupted = b.run(lock::acquire);
            await().until(() -> cohortOf(lock).waitingCount() == 1);
            b.interrupt();

            assertThat(timed).isFalse();
            assertThatThrownBy(() -> interrupted.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(cohortOf(lock).waitingCount()).isZero();
            assertThat(lock.participantNodes()).hasSize(1);
            a.run(lock::release).join();
        }
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void acquire_leaderGivesUpWhileLocalThreadsWait_theNextLeadsThemToTheLock() throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .localHandOff()
                .build();
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        other.acquire();
        try (LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b")) {
            CompletableFuture<Boolean> leader = a.submit(() -> lock.acquire(300, TimeUnit.MILLISECONDS));
            await().until(() -> lock.participantNodes().size() == 2);
            CompletableFuture<Boolean> follower = b.submit(() -> lock.acquire(30, TimeUnit.SECONDS));
            await().until(() -> cohortOf(lock).waitingCount() == 2);

            assertThat(leader.get(10, TimeUnit.SECONDS)).isFalse();
            await().until(() -> lock.participantNodes().size() == 2); // the follower's own node now
            other.release();

            assertThat(follower.get(10, TimeUnit.SECONDS)).isTrue();
            b.run(lock::release).join();
        }
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void sessionExpires_whileALocalHolderHolds_itsHoldIsLostAndLocalWaitersEnterAgain() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock =
                ZkReentrantLock.builder(client, zk.path("lock")).localHandOff().build();
        try (LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b")) {
            a.run(lock::acquire).join();
            CompletableFuture<Void> bHolds = b.run(lock::acquire);
            await().until(() -> cohortOf(lock).waitingCount() == 1);

            zk.expireSession(client);

            await().until(() -> a.submit(lock::holdState).join().orElseThrow() == LockState.LOST);
            bHolds.get(30, TimeUnit.SECONDS);
            assertThat(b.submit(lock::holdState).join()).contains(LockState.HELD);
            a.run(lock::release).join(); // the lost hold: cleared, and the new node untouched
            assertThat(lock.participantNodes()).hasSize(1);
            b.run(lock::release).join();
        }
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void sessionExpires_whileTheNodeIsCached_theNextAcquireTakesANewNode() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = ZkReentrantLock.builder(client, zk.path("lock"))
                .keepIdle(Duration.ofMillis(300))
                .build();
        lock.acquire();
        long lostToken = lock.fencingToken();
        lock.release();

        zk.expireSession(client);
        await().until(() -> !cohortOf(lock).isActive());

        assertThat(lock.acquire(30, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.holdState()).contains(LockState.HELD);
        assertThat(lock.fencingToken()).isGreaterThan(lostToken);
        lock.release();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> lock.participantNodes().isEmpty());
    }

    @Test
    void fencing_localPassesGrowTheTokenAndEarlierHoldersAndLostHoldersCannotWriteLate() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock =
                ZkReentrantLock.builder(client, zk.path("lock")).localHandOff().build();
        FencedResource<String> store = new FencedResource<>();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        try (LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b")) {
            a.run(lock::acquire).join();
            CompletableFuture<Void> bWrites = b.run(() -> {
                lock.acquire();
                tokens.add(lock.fencingToken());
                store.write(lock.fencingToken(), "b");
            });
            await().until(() -> cohortOf(lock).waitingCount() == 1);
            a.run(() -> {
                        tokens.add(lock.fencingToken());
                        store.write(lock.fencingToken(), "a");
                        lock.release();
                    })
                    .join();
            bWrites.get(10, TimeUnit.SECONDS);
            // a's write issued under its hold and delayed past b's: the store tells them apart
            CompletableFuture<Void> delayedWrite = a.run(() -> store.write(tokens.get(0), "a, delayed"));
            assertThatThrownBy(() -> delayedWrite.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(Long.toString(tokens.get(0)));

            zk.expireSession(client);
            await().until(() -> b.submit(lock::holdState).join().orElseThrow() == LockState.LOST);
            ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
            other.acquire();
            store.write(other.fencingToken(), "other");
            CompletableFuture<Void> lostWrite = b.run(() -> store.write(tokens.get(1), "b again"));

            assertThat(tokens).hasSize(2);
            assertThat(tokens.get(1)).isEqualTo(tokens.get(0) + 1); // a local pass: the same node, the next pass
            assertThat(FencingToken.creationZxid(tokens.get(1))).isEqualTo(FencingToken.creationZxid(tokens.get(0)));
            assertThat(other.fencingToken()).isGreaterThan(tokens.get(1));
            assertThatThrownBy(() -> lostWrite.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(Long.toString(tokens.get(1)));
            assertThat(store.read()).contains("other");
            other.release();
            b.run(lock::release).join();
        }
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void readLock_localReadersShareOneNodeUntilAWriterQueuesThenNewReadersWait() throws Exception {
        ZkReadWriteLock readWrite = ZkReadWriteLock.builder(zk.newClient(), zk.path("rw"))
                .localHandOff()
                .build();
        ZkReadWriteLock writerSide = new ZkReadWriteLock(zk.newClient(), zk.path("rw"));
        List<LockActor> readers = new ArrayList<>();
        try (LockActor writer = LockActor.start("writer");
                LockActor late = LockActor.start("late-reader")) {
            for (int i = 0; i < 4; i++) {
                LockActor reader = LockActor.start("reader-" + i);
                readers.add(reader);
                reader.run(readWrite.readLock()::acquire).join();
            }
            assertThat(readWrite.participantNodes()).hasSize(1); // one read node for four readers

            CompletableFuture<Void> writes = writer.run(writerSide.writeLock()::acquire);
            await().until(() -> cohortOf(readWrite.readLock()).knowsOtherWaiter());
            CompletableFuture<Void> lateReads = late.run(readWrite.readLock()::acquire);
            await().until(() -> cohortOf(readWrite.readLock()).waitingCount() == 1);
            for (LockActor reader : readers) {
                reader.run(readWrite.readLock()::release).join();
            }
            writes.get(10, TimeUnit.SECONDS);
            assertThat(lateReads).isNotDone();
            writer.run(writerSide.writeLock()::release).join();
            lateReads.get(10, TimeUnit.SECONDS);
            late.run(readWrite.readLock()::release).join();
        } finally {
            for (LockActor reader : readers) {
                reader.close();
            }
        }
        assertThat(readWrite.participantNodes()).isEmpty();
    }

    /**
     * The child watch is a cohort's only way to learn of a waiter behind its node, and a listing can be lost with the
     * connection while the session lives. Actors r1 and r2 are readers of one cohort on a client behind a proxy, w a
     * writer of another client. The proxy holds r1's requests from its acquisition's first listing on, so the cohort's
     * listing with its watch is sent and then lost when the connection drops; r1's hold goes IN_DOUBT and comes back
     * HELD. Then w queues behind the read node. Allowed: the cohort learns of w (it sets its watch again once its hold is
     * back), r2 queues behind w, w holds after r1 releases, then r2. Forbidden: the cohort never learns of w, so every
     * local reader that comes joins the read node while w waits (w starves while local readers overlap).
     */
    @Test
    void readLock_childWatchLostWithTheConnection_isSetAgainWhenTheHoldIsBackAndAWriterStopsNewReaders()
            throws Exception {
        TcpProxy proxy = zk.newProxy();
        try {
            CuratorFramework proxied = zk.newClient(builder -> builder.connectString(proxy.connectString()));
            ZkReadWriteLock readWrite = ZkReadWriteLock.builder(proxied, zk.path("rw"))
                    .localHandOff()
                    .build();
            ZkReadWriteLock.ReadLock read = readWrite.readLock();
            ZkReadWriteLock.WriteLock write = new ZkReadWriteLock(zk.newClient(), zk.path("rw")).writeLock();
            AtomicBoolean held = new AtomicBoolean();
            read.setHooks(new QueueHooks() {
                @Override
                public void entered(String lockPath, String ourNode, List<String> children) {
                    if (held.compareAndSet(false, true)) {
                        proxy.holdRequests(); // what the cohort sends next, its listing with the watch, stays here
                    }
                }
            });
            List<LockState> states = new CopyOnWriteArrayList<>();
            read.addStateListener(event -> states.add(event.state()));
            try (LockActor r1 = LockActor.start("r1");
                    LockActor r2 = LockActor.start("r2");
                    LockActor w = LockActor.start("w")) {
                r1.run(read::acquire).join(); // the cohort's listing was sent before acquire returned
                proxy.dropConnections(); // and fails with the connection; the session lives
                proxy.resume();
                await().until(() ->
                        states.contains(LockState.IN_DOUBT) && states.get(states.size() - 1) == LockState.HELD);

                CompletableFuture<Void> writes = w.run(write::acquire);
                await().until(() -> readWrite.participantNodes().size() == 2);
                await().until(() -> cohortOf(read).knowsOtherWaiter());
                CompletableFuture<Void> lateReads = r2.run(read::acquire);
                await().until(() -> cohortOf(read).waitingCount() == 1);
                r1.run(read::release).join();
                writes.get(10, TimeUnit.SECONDS);
                assertThat(lateReads).isNotDone();
                w.run(write::release).join();
                lateReads.get(10, TimeUnit.SECONDS);
                r2.run(read::release).join();
            }
            assertThat(held).isTrue();
            assertThat(readWrite.participantNodes()).isEmpty();
        } finally {
            proxy.close();
        }
    }

    /**
     * A change of the lock path's children closes the read node to new local readers until the listing that follows
     * answers. Actors r1 and r2 are readers of one cohort on a client behind a proxy, o a reader of another client. r1
     * holds and the cohort's first listing has answered; the proxy then holds the cohort's requests, and o's read node
     * fires the child watch, so the cohort's next listing waits in the proxy; r2 comes. Allowed: r2 waits locally until
     * the proxy lets the listing through, then holds the same node as r1 (o is a reader, no writer). Forbidden: r2 joins
     * before the listing answers, r2 takes a node of its own, or r2 is never woken.
     */
    @Test
    void readLock_childrenChange_newReadersWaitForTheListingThenShareTheNode() throws Exception {
        TcpProxy proxy = zk.newProxy();
        try {
            CuratorFramework proxied = zk.newClient(builder -> builder.connectString(proxy.connectString()));
            ZkReadWriteLock.ReadLock read = ZkReadWriteLock.builder(proxied, zk.path("rw"))
                    .localHandOff()
                    .build()
                    .readLock();
            ZkReadWriteLock.ReadLock otherRead = new ZkReadWriteLock(zk.newClient(), zk.path("rw")).readLock();
            try (LockActor r1 = LockActor.start("r1");
                    LockActor r2 = LockActor.start("r2");
                    LockActor o = LockActor.start("o")) {
                long token = acquireForToken(r1, read).join();
                await().until(() -> cohortOf(read).admitsJoins());
                proxy.holdRequests();
                o.run(otherRead::acquire).join();
                await().until(() -> !cohortOf(read).admitsJoins());
                CompletableFuture<Long> lateReads = acquireForToken(r2, read);
                await().until(() -> cohortOf(read).waitingCount() == 1);
                assertThat(lateReads).isNotDone();

                proxy.resume();
                assertThat(FencingToken.creationZxid(lateReads.get(10, TimeUnit.SECONDS)))
                        .isEqualTo(FencingToken.creationZxid(token)); // the same node
                assertThat(read.participantNodes()).hasSize(2); // the cohort's one read node, and o's
                r1.run(read::release).join();
                r2.run(read::release).join();
                o.run(otherRead::release).join();
            }
            assertThat(read.participantNodes()).isEmpty();
        } finally {
            proxy.close();
        }
    }

    /**
     * Readers that keep joining beside other holders check for a writer once per maxTime. Actors r1 and r2 are readers
     * of one cohort on a client behind a proxy, with a maxTime of 1 ns. r1 holds and the cohort's first listing has
     * answered; the proxy then holds the cohort's requests and r2 comes. Allowed: r2 waits locally for the listing that
     * its arrival sent, then holds the same node as r1. Forbidden: r2 joins with no listing past maxTime, r2 takes a
     * node of its own, or r2 is never woken.
     */
    @Test
    void readLock_joinedForMaxTime_newReadersWaitForOneListingThenShareTheNode() throws Exception {
        TcpProxy proxy = zk.newProxy();
        try {
            CuratorFramework proxied = zk.newClient(builder -> builder.connectString(proxy.connectString()));
            ZkReadWriteLock.ReadLock read = ZkReadWriteLock.builder(proxied, zk.path("rw"))
                    .localHandOff(64, Duration.ofNanos(1))
                    .build()
                    .readLock();
            try (LockActor r1 = LockActor.start("r1");
                    LockActor r2 = LockActor.start("r2")) {
                long token = acquireForToken(r1, read).join();
                await().until(() -> cohortOf(read).admitsJoins());
                proxy.holdRequests();
                CompletableFuture<Long> lateReads = acquireForToken(r2, read);
                await().until(() -> cohortOf(read).waitingCount() == 1);
                assertThat(lateReads).isNotDone();

                proxy.resume();
                assertThat(FencingToken.creationZxid(lateReads.get(10, TimeUnit.SECONDS)))
                        .isEqualTo(FencingToken.creationZxid(token)); // the same node
                assertThat(read.participantNodes()).hasSize(1);
                r1.run(read::release).join();
                r2.run(read::release).join();
            }
            assertThat(read.participantNodes()).isEmpty();
        } finally {
            proxy.close();
        }
    }

    /**
     * A writer queues while the cohort's listing is on its way and the last local holder leaves meanwhile. Actors r1
     * and r2 are readers of one cohort on a client behind a proxy, w a writer of another client. r1 holds; the proxy
     * holds the cohort's requests; w queues, which fires the child watch, and the cohort's listing waits in the proxy;
     * r2 comes and waits; r1 releases, which keeps the node for the listing's answer. Allowed: once the proxy lets the
     * listing through, the idle node is deleted from its callback, w holds, and r2 holds after w releases, on a new
     * node. Forbidden: r2 joins the read node before w (w starves behind the cohort), r2 is never woken, or a node is
     * left behind.
     */
    @Test
    void readLock_writerQueuesWhileTheListingIsOnItsWay_theIdleNodeGoesAndNewReadersQueueBehindTheWriter()
            throws Exception {
        TcpProxy proxy = zk.newProxy();
        try {
            CuratorFramework proxied = zk.newClient(builder -> builder.connectString(proxy.connectString()));
            ZkReadWriteLock.ReadLock read = ZkReadWriteLock.builder(proxied, zk.path("rw"))
                    .localHandOff()
                    .build()
                    .readLock();
            ZkReadWriteLock writerSide = new ZkReadWriteLock(zk.newClient(), zk.path("rw"));
            ZkReadWriteLock.WriteLock write = writerSide.writeLock();
            try (LockActor r1 = LockActor.start("r1");
                    LockActor r2 = LockActor.start("r2");
                    LockActor w = LockActor.start("w")) {
                r1.run(read::acquire).join();
                await().until(() -> cohortOf(read).admitsJoins());
                proxy.holdRequests();
                CompletableFuture<Void> writes = w.run(write::acquire);
                await().until(() -> writerSide.participantNodes().size() == 2
                        && !cohortOf(read).admitsJoins());
                CompletableFuture<Void> lateReads = r2.run(read::acquire);
                await().until(() -> cohortOf(read).waitingCount() == 1);
                r1.run(read::release).join();
                assertThat(lateReads).isNotDone();
                assertThat(writes).isNotDone();

                proxy.resume();
                writes.get(10, TimeUnit.SECONDS);
                assertThat(lateReads).isNotDone();
                w.run(write::release).join();
                lateReads.get(10, TimeUnit.SECONDS);
                r2.run(read::release).join();
            }
            assertThat(writerSide.participantNodes()).isEmpty();
        } finally {
            proxy.close();
        }
    }

    @Test
    void downgrade_onACohortReadWriteLock_letsNoLocalWriterInWhileTheReadHolds() throws Exception {
        ZkReadWriteLock readWrite = ZkReadWriteLock.builder(zk.newClient(), zk.path("rw"))
                .localHandOff()
                .build();
        try (LockActor downgrader = LockActor.start("downgrader");
                LockActor writer = LockActor.start("writer")) {
            downgrader
                    .run(() -> {
                        readWrite.writeLock().acquire();
                        readWrite.readLock().acquire();
                        readWrite.writeLock().release();
                    })
                    .join();

            boolean writerGot = writer.submit(() -> readWrite.writeLock().acquire(300, TimeUnit.MILLISECONDS))
                    .join();
            downgrader.run(readWrite.readLock()::release).join();
            boolean writerGotAfter = writer.submit(() -> readWrite.writeLock().acquire(10, TimeUnit.SECONDS))
                    .join();

            assertThat(writerGot).isFalse();
            assertThat(writerGotAfter).isTrue();
            writer.run(readWrite.writeLock()::release).join();
        }
        assertThat(readWrite.participantNodes()).isEmpty();
    }

    @Test
    void acquire_cohortLockAndCuratorMutexesOnOnePath_excludeEachOtherAndAllProgress() throws Exception {
        ZkReentrantLock cohort = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .localHandOff(4, Duration.ofMillis(2))
                .build();
        List<InterProcessLock> locks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            locks.add(cohort);
        }
        locks.add(new InterProcessMutex(zk.newClient(), zk.path("lock")));
        locks.add(new InterProcessMutex(zk.newClient(), zk.path("lock")));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        List<LockActor> actors = new ArrayList<>();
        List<CompletableFuture<Void>> loops = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            InterProcessLock lock = locks.get(i);
            LockActor actor = LockActor.start("contender-" + i);
            actors.add(actor);
            loops.add(actor.run(() -> {
                for (int round = 0; round < 20; round++) {
                    lock.acquire();
                    maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    inside.decrementAndGet();
                    lock.release();
                }
            }));
        }
        for (CompletableFuture<Void> loop : loops) {
            loop.get(60, TimeUnit.SECONDS);
        }
        for (LockActor actor : actors) {
            actor.close();
        }

        assertThat(maxInside.get()).isEqualTo(1);
        assertThat(cohort.participantNodes()).isEmpty();
    }

    @Test
    void writeLock_curatorWriterQueuedOnTheSamePath_getsItsTurnWithinThePassBound() throws Exception {
        ZkReadWriteLock readWrite = ZkReadWriteLock.builder(zk.newClient(), zk.path("rw"))
                .localHandOff(1, Duration.ofHours(1))
                .build();
        InterProcessReadWriteLock curator = new InterProcessReadWriteLock(zk.newClient(), zk.path("rw"));
        List<String> order = new CopyOnWriteArrayList<>();
        try (LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b");
                LockActor d = LockActor.start("d");
                LockActor c = LockActor.start("curator")) {
            a.run(readWrite.writeLock()::acquire).join();
            CompletableFuture<Void> bHolds = b.run(() -> holdAndNote(readWrite.writeLock(), order, "b"));
            await().until(() -> cohortOf(readWrite.writeLock()).waitingCount() == 1);
            CompletableFuture<Void> dHolds = d.run(() -> holdAndNote(readWrite.writeLock(), order, "d"));
            await().until(() -> cohortOf(readWrite.writeLock()).waitingCount() == 2);
            CompletableFuture<Void> cHolds = c.run(() -> holdAndNote(curator.writeLock(), order, "curator"));
            await().until(() -> cohortOf(readWrite.writeLock()).knowsOtherWaiter());

            a.run(readWrite.writeLock()::release).join();
            bHolds.get(10, TimeUnit.SECONDS);
            b.run(readWrite.writeLock()::release).join();
            cHolds.get(10, TimeUnit.SECONDS);
            assertThat(dHolds).isNotDone();
            c.run(curator.writeLock()::release).join();
            dHolds.get(10, TimeUnit.SECONDS);
            d.run(readWrite.writeLock()::release).join();
        }

        assertThat(order).containsExactly("b", "curator", "d");
        assertThat(readWrite.participantNodes()).isEmpty();
    }

    @Test
    void acquireAsyncAndAsLock_onACohortLock_workAsOnAnyLock() throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .localHandOff()
                .build();
        lock.acquire();
        CompletableFuture<LockHold> async = lock.acquireAsync(Duration.ofSeconds(30));
        await().until(() -> lock.participantNodes().size() == 2); // its own node, behind the cohort's
        lock.release();
        try (LockHold hold = async.get(10, TimeUnit.SECONDS)) {
            assertThat(hold.state()).isEqualTo(LockState.HELD);
        }

        Lock jdk = lock.asLock();
        jdk.lock();
        try (LockActor other = LockActor.start("other")) {
            assertThat(other.submit(jdk::tryLock).join()).isFalse();
            jdk.unlock();
            assertThat(other.submit(() -> jdk.tryLock(10, TimeUnit.SECONDS)).join())
                    .isTrue();
            other.run(jdk::unlock).join();
        }
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void registryBuilder_locksOfTheRegistryPassLocally() throws Exception {
        ZkLockRegistry registry = ZkLockRegistry.builder(zk.newClient(), zk.path("orders"))
                .localHandOff()
                .idleTime(Duration.ofMinutes(1))
                .build();
        ZkReentrantLock lock = registry.obtain("order-1");

        assertThat(cohortOf(lock)).isNotNull();
        assertThat(registry.obtain("order-1")).isSameAs(lock);
        lock.acquire();
        assertThat(registry.forgetIdle()).isZero();
        lock.release();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void builders_badArguments_areRefusedNamingTheValue() {
        CuratorFramework client = zk.newClient();

        assertThatThrownBy(() -> ZkReentrantLock.builder(client, "/a").localHandOff(0, Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxPasses")
                .hasMessageContaining("0");
        assertThatThrownBy(() -> ZkReentrantLock.builder(client, "/a").localHandOff(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0S");
        assertThatThrownBy(() -> ZkReadWriteLock.builder(client, "/a").keepIdle(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-1S");
        assertThatThrownBy(() -> ZkReentrantLock.builder(client, "/a").localHandOff(1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("maxTime");
        assertThatThrownBy(() -> ZkLockRegistry.builder(client, "/a").keepIdle(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("keepIdle");
        assertThatThrownBy(() -> ZkReentrantLock.builder(client, "relative"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'relative'");
        assertThatThrownBy(() -> ZkReentrantLock.builder(null, "/a"))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("client");
    }

    private static void holdAndNote(InterProcessLock lock, List<String> order, String name) throws Exception {
        lock.acquire();
        order.add(name);
    }

    private static Cohort cohortOf(ZkReentrantLock lock) {
        return lock.core.cohort();
    }

    private static Cohort cohortOf(ZkReadWriteLock.ReadLock lock) {
        return lock.core.cohort();
    }

    private static Cohort cohortOf(ZkReadWriteLock.WriteLock lock) {
        return lock.core.cohort();
    }

    /** Has {@code actor} take {@code read}; the future answers the hold's fencing token. */
    private static CompletableFuture<Long> acquireForToken(LockActor actor, ZkReadWriteLock.ReadLock read) {
        return actor.submit(() -> {
            read.acquire();
            return read.fencingToken();
        });
    }
}

package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.Admission;
import dev.zklock.recipes.locks.engine.ClientContext;
import dev.zklock.recipes.locks.engine.Cohort;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The one admission rule against a real server, for the ways a thread gets a hold that a plain acquire does not have:
 * a kept idle node, a local pass, a read join. A hold is granted only while the client is started, the connection is
 * up and the node is ours and HELD; the cohort stops passing a node once it is known gone or asked to let go; an
 * upgrade is refused before any local queueing. Each test failed on the cohort as it stood before the engine took it
 * in (commit f5141dc), where it is a bug there.
 */
@Timeout(90)
final class AdmissionTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /**
     * A grant tracked after its session ended and the client connected on a new one: the thread that got the reply was
     * held up across Curator's LOST and the reconnect, so the LOST moved nothing of it. Allowed: the node is tracked
     * LOST and admission says LOST (the acquire enters again with a new node). Forbidden: HELD, a hold on a node that
     * went with its session (the simulator found this in the tracker; it failed before the tracker compared sessions).
     */
    @Test
    void track_aNodeOfAnEndedSession_whileConnectedOnANewOne_isLost() throws Exception {
        CuratorFramework client = zk.newClient();
        String path = zk.path("lock");
        String made = client.create()
                .creatingParentsIfNeeded()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(path + "/lock-");
        long ended = client.getZookeeperClient().getZooKeeper().getSessionId();
        zk.expireSession(client);
        await().until(() -> client.getZookeeperClient().isConnected()
                && client.getZookeeperClient().getZooKeeper().getSessionId() != ended);
        LockNode node = new LockNode(
                new LockPath(client, path, "lock-", LockDriver.exclusive(), null),
                made.substring(path.length() + 1),
                1,
                ended);

        ClientContext.of(client).tracker().track(node);

        assertThat(node.trackedState()).isEqualTo(LockState.LOST);
        assertThat(Admission.of(node)).isEqualTo(Admission.Verdict.LOST);
        ClientContext.of(client).tracker().untrack(node);
    }

    /**
     * A kept idle node while the connection is suspended. Allowed: a new {@code acquire(500 ms)} waits for the
     * connection and returns false; once the node is HELD again, an acquire takes it with no new node. Forbidden: the
     * idle node granted while the connection is down (between the server's expiry of the session and Curator's LOST,
     * another process may hold the lock).
     */
    @Test
    void keepIdle_whileTheConnectionIsSuspended_aNewAcquireWaitsAndGivesUpAtItsTimeout() throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .keepIdle(Duration.ofMinutes(10))
                .build();
        lock.acquire();
        long cachedToken = lock.fencingToken();
        lock.release();
        LockNode cached = cohortOf(lock).node();

        zk.stopServer();
        await().until(() -> cached.trackedState() == LockState.IN_DOUBT);
        boolean acquiredWhileDown = lock.acquire(500, TimeUnit.MILLISECONDS);
        zk.restartServer();
        await().until(() -> cached.trackedState() == LockState.HELD);
        boolean acquiredOnceBack = lock.acquire(10, TimeUnit.SECONDS);
        long token = lock.fencingToken();
        lock.release();

        assertThat(acquiredWhileDown).isFalse();
        assertThat(acquiredOnceBack).isTrue();
        assertThat(FencingToken.creationZxid(token)).isEqualTo(FencingToken.creationZxid(cachedToken));
        endCaching();
    }

    /**
     * A local pass while the connection is suspended. Actors a (holds) and b (waits locally, 2 s) of one cohort.
     * Allowed: a's release grants the node to b, which waits for the connection and gives up at its timeout, giving
     * the node back (its delete waits for the connection). Forbidden: b holds while the connection is down.
     */
    @Test
    void localHandOff_whileTheConnectionIsSuspended_aReleaseGrantsTheWaiterNothingUntilTheNodeIsBack()
            throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .localHandOff()
                .build();
        try (LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b")) {
            a.run(lock::acquire).join();
            CompletableFuture<Boolean> bAcquired = b.submit(() -> lock.acquire(2, TimeUnit.SECONDS));
            await().until(() -> cohortOf(lock).waitingCount() == 1);

            zk.stopServer();
            await().until(() -> a.submit(lock::holdState).join().orElseThrow() == LockState.IN_DOUBT);
            a.run(lock::release).join();
            boolean acquiredWhileDown = bAcquired.get(30, TimeUnit.SECONDS);
            zk.restartServer();

            assertThat(acquiredWhileDown).isFalse();
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> lock.participantNodes().isEmpty());
    }

    /**
     * A client closed while local threads wait behind a local holder. Allowed: every waiter's acquire ends at once
     * with IllegalStateException, the holder's hold is LOST, its release only clears it, and an acquire on the closed
     * client is refused. Forbidden: a waiter that waits for ever, or one granted the node of a closed session.
     */
    @Test
    void closedClient_localWaitersEndWithIllegalStateExceptionAndTheHolderIsLost() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock =
                ZkReentrantLock.builder(client, zk.path("lock")).localHandOff().build();
        try (LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b");
                LockActor c = LockActor.start("c")) {
            a.run(lock::acquire).join();
            CompletableFuture<Void> bWaits = b.run(lock::acquire);
            CompletableFuture<Boolean> cWaits = c.submit(() -> lock.acquire(1, TimeUnit.HOURS));
            await().until(() -> cohortOf(lock).waitingCount() == 2);

            client.close();

            assertThatThrownBy(() -> bWaits.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(lock.path());
            assertThatThrownBy(() -> cWaits.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(lock.path());
            assertThat(a.submit(lock::holdState).join()).contains(LockState.LOST);
            a.run(lock::release).join();
            assertThatThrownBy(() -> b.run(lock::acquire).get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class);
        }
        assertThat(new ZkReentrantLock(zk.newClient(), zk.path("lock")).participantNodes())
                .isEmpty(); // the closed session's node went with it
    }

    /** How the cohort's node goes under its holder. */
    enum NodeEnd {
        /** Another client deletes it: the cohort hears of it through the node's own watch. */
        STRANGER_DELETES,
        /** {@code expire(node)} ends the hold, as a time to live does: LOST first, then the delete. */
        EXPIRED
    }

    /**
     * The cohort's node goes (a stranger deletes it, or the hold is expired) while a local thread waits and another
     * session waits behind it, under bounds that would let the node pass (1000 passes, an hour). Allowed: the other
     * session gets the lock; the cohort learns its node is gone (its holder's hold is LOST) and the local waiter queues
     * again behind that session; the lost holder's release passes nothing. Forbidden: the local waiter holds while the
     * other session does.
     */
    @ParameterizedTest
    @EnumSource(NodeEnd.class)
    void strangerDeletesTheCohortsNode_theLocalWaiterNeverHoldsBesideTheSessionThatGotIt(NodeEnd end) throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .localHandOff(1000, Duration.ofHours(1))
                .build();
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        CuratorFramework stranger = zk.newClient();
        AtomicBoolean otherHolds = new AtomicBoolean();
        AtomicBoolean overlap = new AtomicBoolean();
        try (LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b");
                LockActor c = LockActor.start("c")) {
            a.run(lock::acquire).join();
            CompletableFuture<Void> bHolds = b.run(() -> {
                lock.acquire();
                overlap.compareAndSet(false, otherHolds.get());
            });
            await().until(() -> cohortOf(lock).waitingCount() == 1);
            CompletableFuture<Void> cHolds = c.run(() -> {
                other.acquire();
                otherHolds.set(true);
            });
            await().until(() -> cohortOf(lock).knowsOtherWaiter());

            String node = a.submit(lock::getLockPath).join();
            if (end == NodeEnd.STRANGER_DELETES) {
                stranger.delete().forPath(node);
            } else {
                assertThat(lock.expire(node)).isTrue();
            }
            cHolds.get(10, TimeUnit.SECONDS);
            await().until(() -> a.submit(lock::holdState).join().orElseThrow() == LockState.LOST);
            a.run(lock::release).join();
            await().until(() -> lock.participantNodes().size() == 2); // c's, and b's new node behind it
            assertThat(bHolds).isNotDone();
            c.run(() -> {
                        otherHolds.set(false);
                        other.release();
                    })
                    .join();
            bHolds.get(10, TimeUnit.SECONDS);
            b.run(lock::release).join();
        }
        assertThat(overlap).isFalse();
        assertThat(lock.participantNodes()).isEmpty();
    }

    /**
     * A reader that asks for the write lock while a writer of its own process leads the write cohort (its write node
     * waits for the reader's read node). Allowed: IllegalStateException at once, naming the lock. Forbidden: the
     * reader queued behind the writer, which waits for the reader: a wait for ever, or to the timeout.
     */
    @Test
    void upgrade_whileAWriterOfTheProcessLeadsTheWriteCohort_isRefusedAtOnce() throws Exception {
        ZkReadWriteLock readWrite = ZkReadWriteLock.builder(zk.newClient(), zk.path("rw"))
                .localHandOff()
                .build();
        try (LockActor r = LockActor.start("r");
                LockActor w = LockActor.start("w")) {
            r.run(readWrite.readLock()::acquire).join();
            CompletableFuture<Boolean> writer =
                    w.submit(() -> readWrite.writeLock().acquire(30, TimeUnit.SECONDS));
            await().until(() -> readWrite.participantNodes().size() == 2);

            CompletableFuture<Void> upgrade = r.run(readWrite.writeLock()::acquire);

            assertThatThrownBy(() -> upgrade.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(readWrite.path());
            r.run(readWrite.readLock()::release).join();
            assertThat(writer.get(10, TimeUnit.SECONDS)).isTrue();
            w.run(readWrite.writeLock()::release).join();
        }
        assertThat(readWrite.participantNodes()).isEmpty();
    }

    /**
     * A revocation request under a cohort, with bounds that would let the node pass (1000 passes, an hour). Actors a
     * (holds) and b (waits locally) of one cohort, c of another client waits and asks a to let go. Allowed: the
     * listener runs; a's release passes nothing, so c holds before b. Forbidden: b before c (local passing went on
     * after the request).
     */
    @Test
    void revocation_underACohort_endsLocalPassingSoTheRequesterGoesFirst() throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"))
                .localHandOff(1000, Duration.ofHours(1))
                .build();
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        CountDownLatch asked = new CountDownLatch(1);
        lock.makeRevocable(revoked -> asked.countDown());
        List<String> order = new CopyOnWriteArrayList<>();
        try (LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b");
                LockActor c = LockActor.start("c")) {
            a.run(lock::acquire).join();
            CompletableFuture<Void> bHolds = b.run(() -> {
                lock.acquire();
                order.add("b");
            });
            await().until(() -> cohortOf(lock).waitingCount() == 1);
            CompletableFuture<Void> cHolds = c.run(() -> {
                other.acquire();
                order.add("c");
            });
            await().until(() -> lock.participantNodes().size() == 2);

            assertThat(other.requestRevocation()).isEqualTo(1);
            assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();
            await().until(() -> !cohortOf(lock).admitsPasses());
            a.run(lock::release).join();
            cHolds.get(10, TimeUnit.SECONDS);
            c.run(other::release).join();
            bHolds.get(10, TimeUnit.SECONDS);
            b.run(lock::release).join();
        }
        assertThat(order).containsExactly("c", "b");
        assertThat(lock.participantNodes()).isEmpty();
    }

    /** Ends the caching of any idle node on the test's lock path: another client's acquire makes it go. */
    private static void endCaching() throws Exception {
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        assertThat(other.acquire(30, TimeUnit.SECONDS)).isTrue();
        other.release();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> other.participantNodes().isEmpty());
    }

    private static Cohort cohortOf(ZkReentrantLock lock) {
        return lock.core.cohort();
    }
}

package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A waiter whose node another client deletes (an operator's cleanup, a reaper, a client with an open ACL) while it waits
 * behind the holder: the waiter must not take the lock on the holder's release alone, for a session that queued after
 * the delete takes it too. Curator's waiter lists the queue on every wake-up, misses its node and enters again; zklock's
 * takes the lock with no listing when the one node ahead goes, so its own node's watch must vouch (Acquisition's note
 * 7, {@code OwnNodeWatch}). Before that watch, each kind of waiter held beside the third session in every round.
 */
@Timeout(60)
final class StrangerDeleteTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /** How the waiter whose node goes waits. */
    enum Waiter {
        /** {@code acquire()} on a platform thread: the blocking runner. */
        BLOCKING,
        /** {@code acquireAsync()}: the callback runner. */
        ASYNC,
        /** The leader of a cohort lock (local hand-off), which waits in the queue for the process. */
        COHORT
    }

    /**
     * Actors: holder H (client 1), waiter W (client 2, the kind under test) right behind H, a stranger (client 3), and
     * a third session T (client 4). Interleaving: H holds; W queues and watches H's node; the stranger deletes W's
     * node; T queues (its node on the server); H releases. Allowed: W enters the queue again when its node goes, and W
     * and T then hold one after the other, each with a node of its own in the queue while the other holds. Forbidden:
     * W and T inside at once (W granted on H's delete with no node of its own).
     */
    @ParameterizedTest
    @EnumSource(Waiter.class)
    void waiterWhoseNodeIsDeleted_neverHoldsBesideTheSessionThatQueuedAfter(Waiter kind) throws Exception {
        String path = zk.path("lock");
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), path);
        ZkReentrantLock waiter = waiterLock(kind, path);
        CuratorFramework stranger = zk.newClient();
        CuratorFramework thirdClient = zk.newClient();
        ZkReentrantLock third = new ZkReentrantLock(thirdClient, path);
        Inside inside = new Inside();
        try (LockActor h = LockActor.start("h");
                LockActor w = LockActor.start("w");
                LockActor t = LockActor.start("t")) {
            h.run(holder::acquire).join();
            CompletableFuture<Void> wDone = holdUntilTold(kind, w, waiter, inside.w, inside);
            await().until(() -> holder.participantNodes().size() == 2);
            String waitersNode = holder.participantNodes().get(1);

            stranger.delete().forPath(waitersNode);
            CompletableFuture<Void> tDone = t.run(() -> {
                third.acquire();
                inside.enter(inside.t);
                inside.t.await();
                inside.leave(inside.t);
                third.release();
            });
            await().until(() -> !thirdClient
                    .getZookeeperClient()
                    .getZooKeeper()
                    .getEphemerals(path)
                    .isEmpty());
            h.run(holder::release).join();

            // One of W and T holds; the other waits behind it with a node of its own.
            await().until(() -> inside.count() == 2
                    || (inside.count() == 1 && holder.participantNodes().size() == 2));
            assertThat(inside.overlaps()).as("W and T inside at once").isZero();
            Holder first = inside.holder();
            first.release.countDown();
            await().until(() -> inside.count() == 1 && inside.holder() != first);
            inside.holder().release.countDown();
            wDone.get(10, TimeUnit.SECONDS);
            tDone.get(10, TimeUnit.SECONDS);
        }
        assertThat(inside.overlaps()).isZero();
        assertThat(holder.participantNodes()).isEmpty();
    }

    /**
     * A hold that waited for its turn keeps the watch on its own node that vouched for it. Actors: holder H, waiter W on
     * another client, a stranger. H holds, W waits, H releases and W holds; the stranger deletes W's node. Allowed: W's
     * hold turns LOST (its listeners are told), and its release throws nothing and leaves nothing. Forbidden: W's hold
     * still HELD on a node that no longer stands.
     */
    @ParameterizedTest
    @EnumSource(
            value = Waiter.class,
            names = {"BLOCKING", "COHORT"})
    void holdThatWaited_whoseNodeAnotherClientDeletes_turnsLost(Waiter kind) throws Exception {
        String path = zk.path("lock");
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), path);
        ZkReentrantLock waiter = waiterLock(kind, path);
        CuratorFramework stranger = zk.newClient();
        try (LockActor h = LockActor.start("h");
                LockActor w = LockActor.start("w")) {
            h.run(holder::acquire).join();
            CompletableFuture<Void> wHolds = w.run(waiter::acquire);
            await().until(() -> holder.participantNodes().size() == 2);
            h.run(holder::release).join();
            wHolds.get(10, TimeUnit.SECONDS);
            assertThat(w.submit(waiter::holdState).join()).contains(LockState.HELD);

            stranger.delete().forPath(w.submit(waiter::getLockPath).join());

            await().until(() -> w.submit(waiter::holdState).join().orElseThrow() == LockState.LOST);
            w.run(waiter::release).join();
        }
        assertThat(holder.participantNodes()).isEmpty();
    }

    /**
     * A hold granted at once, with no one ahead and no one behind, has a voucher too. Actors: holder H alone on the
     * lock, a stranger, and O, another client. The stranger deletes H's node; then O acquires. Allowed: H's hold turns
     * LOST (its listeners told) no later than O's grant, and H's release throws nothing and leaves nothing. Forbidden:
     * H still HELD while O holds: two threads inside at once, as a user sees it.
     */
    @ParameterizedTest
    @EnumSource(
            value = Waiter.class,
            names = {"BLOCKING", "ASYNC", "COHORT"})
    void holdGrantedAtOnce_whoseNodeAnotherClientDeletes_turnsLostBeforeAnotherSessionHolds(Waiter kind)
            throws Exception {
        String path = zk.path("lock");
        ZkReentrantLock holder = waiterLock(kind, path);
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), path);
        CuratorFramework stranger = zk.newClient();
        java.util.concurrent.atomic.AtomicLong lostAt = new java.util.concurrent.atomic.AtomicLong();
        holder.addStateListener(event -> {
            if (event.state() == LockState.LOST) {
                lostAt.compareAndSet(0, System.nanoTime());
            }
        });
        try (LockActor h = LockActor.start("h");
                LockActor o = LockActor.start("o")) {
            LockHold asyncHold = null;
            if (kind == Waiter.ASYNC) {
                asyncHold = holder.acquireAsync().get(10, TimeUnit.SECONDS);
            } else {
                h.run(holder::acquire).join();
            }
            String node = holder.participantNodes().get(0);

            stranger.delete().forPath(node);
            assertThat(o.submit(() -> other.acquire(10, TimeUnit.SECONDS)).join())
                    .isTrue();
            long otherHolds = System.nanoTime();

            assertThat(lostAt.get()).as("H told LOST before O held").isNotZero().isLessThanOrEqualTo(otherHolds);
            if (asyncHold != null) {
                assertThat(asyncHold.state()).isEqualTo(LockState.LOST);
                asyncHold.close();
            } else {
                assertThat(h.submit(holder::holdState).join()).contains(LockState.LOST);
                h.run(holder::release).join();
            }
            o.run(other::release).join();
        }
        assertThat(other.participantNodes()).isEmpty();
    }

    /** The waiter's lock on a client of its own: a cohort lock (local hand-off) for the cohort kind. */
    private static ZkReentrantLock waiterLock(Waiter kind, String path) {
        return kind == Waiter.COHORT
                ? ZkReentrantLock.builder(zk.newClient(), path)
                        .localHandOff(1000, Duration.ofHours(1))
                        .build()
                : new ZkReentrantLock(zk.newClient(), path);
    }

    private static CompletableFuture<Void> holdUntilTold(
            Waiter kind, LockActor actor, ZkReentrantLock lock, Holder me, Inside inside) {
        if (kind == Waiter.ASYNC) {
            AtomicReference<LockHold> hold = new AtomicReference<>();
            return lock.acquireAsync()
                    .thenAcceptAsync(granted -> {
                        hold.set(granted);
                        inside.enter(me);
                    })
                    .thenRun(() -> awaitQuietly(me))
                    .thenRun(() -> {
                        inside.leave(me);
                        hold.get().close();
                    });
        }
        return actor.run(() -> {
            lock.acquire();
            inside.enter(me);
            me.await();
            inside.leave(me);
            lock.release();
        });
    }

    private static void awaitQuietly(Holder me) {
        try {
            me.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** One of the two contenders: told to release by a latch. */
    private static final class Holder {
        final CountDownLatch release = new CountDownLatch(1);

        void await() throws InterruptedException {
            assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** Who is inside the critical section, as the contenders say when they enter and leave it. */
    private static final class Inside {
        final Holder w = new Holder();
        final Holder t = new Holder();
        private final List<Holder> now = new ArrayList<>();
        private int overlaps; // guarded by this

        synchronized void enter(Holder holder) {
            if (!now.isEmpty()) {
                overlaps++;
            }
            now.add(holder);
        }

        synchronized void leave(Holder holder) {
            now.remove(holder);
        }

        synchronized int overlaps() {
            return overlaps;
        }

        synchronized int count() {
            return now.size();
        }

        synchronized Holder holder() {
            return now.get(0);
        }
    }
}

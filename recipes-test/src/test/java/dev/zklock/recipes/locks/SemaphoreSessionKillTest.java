package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.Faults;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.WatchersDebug;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A holder's session killed while another contender waits, round after round, with short sessions: the waiter gets the
 * lock every time, within the killed session's timeout (issue 18, item 3: a semaphore-mutex waiter parked for ever in 2
 * of 80 such rounds). The subjects: the semaphore mutex, a semaphore of several leases, and a plain
 * {@link ZkReentrantLock} as the control.
 *
 * <p>Each round: the holder, on a client of {@value #HOLDER_SESSION_MS} ms sessions, takes the lock; the waiter asks
 * for it; the holder's session is killed, once the waiter is seen waiting in ZooKeeper (its node is in the queue) or at
 * a seeded random moment while it enters; the holder lets go of its lost hold only after the waiter holds. The round's
 * number chooses the case:
 *
 * <table>
 *   <caption>Outcomes, T the holder's session timeout, R one request timeout (2T/3)</caption>
 *   <tr><th>kill</th><th>waiter</th><th>acceptable</th><th>forbidden</th></tr>
 *   <tr><td>client side (ZooKeeper's testable hook, as Curator's {@code KillSession}: the server learns nothing and
 *       expires the session at most T plus one tick after its last ping)</td><td>on another client, waiting</td>
 *       <td>holds within T + R of the kill</td>
 *       <td>never woken, or later than T + R; holds while a node of the killed session stands in its queue</td></tr>
 *   <tr><td>server side (a twin handle closed: the server deletes the session's nodes at once)</td>
 *       <td>on another client, waiting</td><td>holds at once, within T + R</td><td>as above</td></tr>
 *   <tr><td>client side</td><td>a second thread of the holder's client, waiting; its place goes with the session</td>
 *       <td>hears of the session's end, enters again on the new session, holds once the server has expired the old
 *       one: within T + R</td><td>as above; waits on a watch set on the dead handle</td></tr>
 *   <tr><td>server side</td><td>a second thread of the holder's client, waiting</td><td>hears of the end once its
 *       client has been told, which ZooKeeper's client learns only as it connects again (after waiting up to 2 s:
 *       1 s at random, 1 s more once it has tried the one address), enters again: within T + R + 2 s of the kill</td>
 *       <td>as above</td></tr>
 *   <tr><td>client side, server side</td><td>a second thread of the holder's client, entering: its requests (a
 *       listing that sets a watch, a create) in flight as the session is killed</td><td>as the two rows above (a
 *       request sent as the connection drops waits in ZooKeeper's client until it connects again, up to the same
 *       2 s)</td><td>as above; a watch registered on the dead handle after its Expired event, waited on for ever; a
 *       listing on the new session that finds the leases' path reaped read as a failure</td></tr>
 *   <tr><td>every round</td><td></td><td>nothing left after it</td><td>a lock node, a lease, or a watch left</td></tr>
 * </table>
 *
 * <p>{@value #LANES} lanes run side by side, each with clients and a path of its own. {@code -Dzklock.rounds=1000} runs
 * 1,000 rounds per subject (the default, 18, about 50 in all, keeps the build short), and {@code -Dzklock.seed}
 * replays the kill moments of a run; each subject prints its figures. A waiter that does not hold within three times
 * its bound is a hang: the test prints a thread dump of that moment. A round later than its bound by no more than a
 * pause of the whole JVM seen during it (this shared machine stalls for a second at times) is not counted late, but
 * reported.
 */
@Timeout(3600) // every wait below is bounded; the class bound only has to cover -Dzklock.rounds=1000
final class SemaphoreSessionKillTest {
    private static final int HOLDER_SESSION_MS = 600;
    private static final int LANES = 4;
    private static final int ROUNDS = Integer.getInteger("zklock.rounds", 18);
    private static final long SEED = Long.getLong("zklock.seed", System.nanoTime());
    /** The kill moments while the waiter enters: up to this many spins after its acquire is handed to its thread. */
    private static final int MAX_SPINS = 300_000;
    /**
     * ZooKeeper's client, having lost its connection, waits up to 1 s before it tries again and, with one server, up to
     * 1 s more once it has tried every address: a client learns of a server-side kill only after both.
     */
    private static final Duration ZOOKEEPER_RECONNECT_DELAYS = Duration.ofSeconds(2);
    /** A waiter's own deadline: far past every bound, so that a hang ends and is counted rather than stop the run. */
    private static final Duration WAITER_TIMEOUT = Duration.ofSeconds(20);

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.serverWithTick(Duration.ofMillis(50));

    private static final Pauses pauses = new Pauses();

    @BeforeAll
    static void startPauseMeter() {
        pauses.start();
    }

    @AfterAll
    static void stopPauseMeter() throws InterruptedException {
        pauses.stop();
    }

    @Test
    void acquire_semaphoreMutexWhenTheHoldersSessionIsKilled_waiterHoldsWithinTheSessionTimeout() throws Exception {
        runRounds(new Subject("semaphoreMutex", "/leases", 0, 2) {
            @Override
            Object newLock(CuratorFramework client, String path) {
                return ZkExclusiveLock.semaphoreMutex(client, path);
            }

            @Override
            Runnable take(Object lock, Duration timeout) throws InterruptedException {
                ZkExclusiveLock mutex = (ZkExclusiveLock) lock;
                return mutex.acquire(timeout) ? mutex::release : null;
            }
        });
    }

    @Test
    void acquire_semaphoreOfSeveralLeasesWhenTheHoldersSessionIsKilled_waiterHoldsWithinTheSessionTimeout()
            throws Exception {
        // Three leases: the holder takes two, a client that is never killed keeps one, the waiter asks for two.
        runRounds(new Subject("semaphore", "/leases", 1, 4) {
            @Override
            Object newLock(CuratorFramework client, String path) {
                return new ZkSemaphore(client, path, 3);
            }

            @Override
            Runnable take(Object lock, Duration timeout) throws InterruptedException {
                ZkSemaphore semaphore = (ZkSemaphore) lock;
                Optional<Collection<Lease>> leases = semaphore.acquire(2, timeout);
                return leases.<Runnable>map(taken -> () -> semaphore.returnAll(taken))
                        .orElse(null);
            }

            @Override
            Runnable keep(Object lock) throws InterruptedException {
                ZkLease lease = ((ZkSemaphore) lock).acquire();
                return lease::close;
            }
        });
    }

    @Test
    void acquire_reentrantLockWhenTheHoldersSessionIsKilled_waiterHoldsWithinTheSessionTimeout() throws Exception {
        runRounds(new Subject("reentrantLock", "", 0, 2) {
            @Override
            Object newLock(CuratorFramework client, String path) {
                return new ZkReentrantLock(client, path);
            }

            @Override
            Runnable take(Object lock, Duration timeout) throws InterruptedException {
                ZkReentrantLock reentrant = (ZkReentrantLock) lock;
                return reentrant.acquire(timeout) ? reentrant::release : null;
            }
        });
    }

    /**
     * The mechanism suspected for item 3, forced: a waiter whose watch ZooKeeper will never fire, on a session then
     * killed on the client's side. ZooKeeper's client tells a handle's watches of its Expired event once, as it queues
     * the event; a watch that a reply in flight registers after that is never told anything. Here the test removes
     * the waiting semaphore mutex's child watch on the leases (the waiter hears nothing of it), then kills the session
     * that the waiter and the holder share.
     *
     * <table>
     *   <caption>Outcomes</caption>
     *   <tr><th>acceptable</th><th>forbidden</th></tr>
     *   <tr><td>the waiter hears of the end from its client's LOST, enters again on the new session, and holds once
     *       the server has expired the old one: within T + R of the kill</td>
     *       <td>it waits on the silent watch until its deadline (what it did before 3698bc5)</td></tr>
     * </table>
     */
    @Test
    void acquire_semaphoreMutexWaiterWhoseWatchNeverFires_holdsSoonAfterItsSessionIsKilled() throws Exception {
        awaitTheKillOfAWaiterWithASilentWatch(
                (client, path) -> ZkExclusiveLock.semaphoreMutex(client, path), Watcher.WatcherType.Children);
    }

    /**
     * As {@link #acquire_semaphoreMutexWaiterWhoseWatchNeverFires_holdsSoonAfterItsSessionIsKilled}, for the data watches
     * of a {@link ZkReentrantLock} waiter on the node ahead and on its own node.
     */
    @Test
    void acquire_reentrantLockWaiterWhoseWatchNeverFires_holdsSoonAfterItsSessionIsKilled() throws Exception {
        awaitTheKillOfAWaiterWithASilentWatch(ZkReentrantLock::new, Watcher.WatcherType.Data);
    }

    private void awaitTheKillOfAWaiterWithASilentWatch(
            BiFunction<CuratorFramework, String, TimedLock> newLock, Watcher.WatcherType watchType) throws Exception {
        CuratorFramework client = zk.newClient(builder -> builder.sessionTimeoutMs(HOLDER_SESSION_MS));
        TimedLock holderLock = newLock.apply(client, zk.path("lock"));
        TimedLock waiterLock = newLock.apply(client, zk.path("lock"));
        try (LockActor holder = LockActor.start("holder");
                LockActor waiter = LockActor.start("waiter")) {
            assertThat(holder.submit(() -> holderLock.acquire(Duration.ofSeconds(20)))
                            .get(30, TimeUnit.SECONDS))
                    .isTrue();
            CompletableFuture<Long> grantedAt = waiter.submit(() -> {
                boolean held = waiterLock.acquire(WAITER_TIMEOUT);
                long at = System.nanoTime();
                if (held) {
                    waiterLock.release();
                }
                return held ? at : null;
            });
            ZooKeeper handle = client.getZookeeperClient().getZooKeeper();
            // A lock's waiter watches the node ahead and its own node (which vouches for a grant with no listing); a
            // semaphore mutex's waiter watches the leases. Every one of them is silenced.
            int watches = watchType == Watcher.WatcherType.Data ? 2 : 1;
            await().until(() -> watchesOfTheTest(handle, watchType).size() == watches);
            for (String watched : watchesOfTheTest(handle, watchType)) {
                handle.removeAllWatches(watched, watchType, true);
            }
            assertThat(watchesOfTheTest(handle, watchType)).isEmpty();
            long bound = TimeUnit.MILLISECONDS.toNanos(handle.getSessionTimeout() * 5L / 3);

            long killedAt = System.nanoTime();
            Faults.killSession(client);

            Long at = grantedAt.get(WAITER_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
            assertThat(at).as("the waiter held before its own deadline").isNotNull();
            long pause = pauses.longestBetween(killedAt, at);
            assertThat(at - killedAt - pause)
                    .as("nanoseconds from the kill to the lock (a JVM pause of %d ms aside)", millis(pause))
                    .isLessThanOrEqualTo(bound);
            holder.run(holderLock::release).get(30, TimeUnit.SECONDS);
        }
    }

    private static List<String> watchesOfTheTest(ZooKeeper handle, Watcher.WatcherType type) {
        List<String> watches = type == Watcher.WatcherType.Children
                ? WatchersDebug.getChildWatches(handle)
                : WatchersDebug.getDataWatches(handle);
        return watches.stream().filter(path -> path.startsWith(zk.basePath())).toList();
    }

    /** One kind of lock under test. */
    private abstract static class Subject {
        final String name;
        final String queue; // the queue the waiter waits in, under the lock's path
        final int kept; // nodes in that queue held for a whole lane by a client that is never killed
        final int waiting; // the holder's and the waiter's nodes in that queue once the waiter waits

        Subject(String name, String queue, int kept, int waiting) {
            this.name = name;
            this.queue = queue;
            this.kept = kept;
            this.waiting = waiting;
        }

        abstract Object newLock(CuratorFramework client, String path);

        /** Takes the lock within {@code timeout} on the calling thread; returns its release, or null if not taken. */
        abstract Runnable take(Object lock, Duration timeout) throws Exception;

        /** Takes what a client that is never killed keeps for the whole lane; returns its release. */
        Runnable keep(Object lock) throws Exception {
            throw new AssertionError(name + " keeps nothing");
        }
    }

    /** One case of a round: which side kills, where the waiter is, and when the kill comes. */
    private record Case(String name, boolean clientSide, boolean besideHolder, boolean whileEntering) {
        static final List<Case> ALL = List.of(
                new Case("client-side kill, waiter on another client", true, false, false),
                new Case("server-side kill, waiter on another client", false, false, false),
                new Case("client-side kill, waiter on the holder's client", true, true, false),
                new Case("server-side kill, waiter on the holder's client", false, true, false),
                new Case("client-side kill, waiter on the holder's client entering", true, true, true),
                new Case("server-side kill, waiter on the holder's client entering", false, true, true));
    }

    /**
     * The rounds' figures, per case: rounds, hangs, rounds later than their bound, the time from the kill to the lock
     * and, for a waiter on the holder's client, from the moment that client learned of the end.
     */
    private static final class Figures {
        final int cases = Case.ALL.size();
        final AtomicLongArray rounds = new AtomicLongArray(cases);
        final AtomicLongArray hangs = new AtomicLongArray(cases);
        final AtomicLongArray late = new AtomicLongArray(cases);
        final AtomicLongArray lateInAPause = new AtomicLongArray(cases);
        final AtomicLongArray maxFromKill = new AtomicLongArray(cases);
        final AtomicLongArray totalFromKill = new AtomicLongArray(cases);
        final AtomicLongArray maxEndKnown = new AtomicLongArray(cases);
        final AtomicLong endedBeforeTheKill = new AtomicLong();

        /** Counts a round whose waiter held; tells whether it was later than {@code bound}, a JVM pause aside. */
        boolean held(int kase, long fromKill, long endKnown, long bound, long pause) {
            rounds.incrementAndGet(kase);
            totalFromKill.addAndGet(kase, fromKill);
            maxFromKill.accumulateAndGet(kase, fromKill, Math::max);
            maxEndKnown.accumulateAndGet(kase, endKnown, Math::max);
            if (fromKill <= bound) {
                return false;
            }
            (fromKill - pause <= bound ? lateInAPause : late).incrementAndGet(kase);
            return true;
        }

        void hung(int kase) {
            rounds.incrementAndGet(kase);
            hangs.incrementAndGet(kase);
        }

        String report(String subject, int sessionMs) {
            StringBuilder out = new StringBuilder(String.format(
                    "%s: %d rounds (seed %d), holder's session timeout %d ms, bound from the kill %d ms (%d ms for a"
                            + " server-side kill and a waiter on the holder's client); %d sessions ended on their own"
                            + " before a server-side kill%n",
                    subject,
                    total(rounds),
                    SEED,
                    sessionMs,
                    sessionMs + sessionMs * 2 / 3,
                    sessionMs + sessionMs * 2 / 3 + ZOOKEEPER_RECONNECT_DELAYS.toMillis(),
                    endedBeforeTheKill.get()));
            for (int i = 0; i < cases; i++) {
                long held = rounds.get(i) - hangs.get(i);
                out.append(String.format(
                        "  %-57s %4d rounds, %d hangs, %d late (%d more within a JVM pause); kill to lock max %d ms,"
                                + " mean %d ms",
                        Case.ALL.get(i).name(),
                        rounds.get(i),
                        hangs.get(i),
                        late.get(i),
                        lateInAPause.get(i),
                        millis(maxFromKill.get(i)),
                        held == 0 ? 0 : millis(totalFromKill.get(i) / held)));
                if (Case.ALL.get(i).besideHolder()) {
                    out.append(String.format(
                            "; its client learned of the end after max %d ms", millis(maxEndKnown.get(i))));
                }
                out.append(System.lineSeparator());
            }
            return out.toString();
        }

        static long total(AtomicLongArray counts) {
            long sum = 0;
            for (int i = 0; i < counts.length(); i++) {
                sum += counts.get(i);
            }
            return sum;
        }
    }

    private void runRounds(Subject subject) throws Exception {
        Figures figures = new Figures();
        ExecutorService lanes = Executors.newFixedThreadPool(LANES);
        AtomicInteger sessionMs = new AtomicInteger();
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int lane = 0; lane < LANES; lane++) {
                Lane one = new Lane(subject, zk.path(subject.name + "-" + lane), figures, SEED + lane);
                int first = lane;
                running.add(lanes.submit(() -> {
                    sessionMs.set(one.run(first));
                    return null;
                }));
            }
            for (Future<?> lane : running) {
                lane.get();
            }
        } finally {
            lanes.shutdownNow();
            assertThat(lanes.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        String report = figures.report(subject.name, sessionMs.get());
        System.out.print(report);
        assertThat(Figures.total(figures.rounds)).isEqualTo(ROUNDS);
        assertThat(Figures.total(figures.hangs)).as(report).isZero();
        assertThat(Figures.total(figures.late)).as(report).isZero();
    }

    /** One lane: a holder client, a waiter client, a path, and every {@value #LANES}th round, run one after another. */
    private static final class Lane {
        private final Subject subject;
        private final String path;
        private final Figures figures;
        private final SplittableRandom random;
        private final CuratorFramework holderClient =
                zk.newClient(builder -> builder.sessionTimeoutMs(HOLDER_SESSION_MS));
        private final CuratorFramework waiterClient = zk.newClient();
        private final CuratorFramework observer = zk.newClient();
        private final AtomicLong lostAt = new AtomicLong(); // when the holder's client last reported LOST

        Lane(Subject subject, String path, Figures figures, long seed) {
            this.subject = subject;
            this.path = path;
            this.figures = figures;
            this.random = new SplittableRandom(seed);
            holderClient.getConnectionStateListenable().addListener((c, state) -> {
                if (state == ConnectionState.LOST) {
                    lostAt.set(System.nanoTime());
                }
            });
        }

        /** Runs rounds {@code first}, {@code first + LANES}, ...; returns the holder's negotiated session timeout. */
        int run(int first) throws Exception {
            Object holderLock = subject.newLock(holderClient, path);
            Object waiterElsewhere = subject.newLock(waiterClient, path);
            Object waiterBesideHolder = subject.newLock(holderClient, path);
            Runnable kept = null;
            int sessionMs = negotiatedSessionMs();
            try (LockActor holder = LockActor.start("holder-" + path);
                    LockActor waiter = LockActor.start("waiter-" + path)) {
                if (subject.kept > 0) {
                    kept = subject.keep(subject.newLock(waiterClient, path));
                }
                for (int round = first; round < ROUNDS; round += LANES) {
                    int kase = round % Case.ALL.size();
                    Object waiterLock = Case.ALL.get(kase).besideHolder() ? waiterBesideHolder : waiterElsewhere;
                    round(holder, waiter, holderLock, waiterLock, kase);
                }
            } finally {
                if (kept != null) {
                    kept.run();
                }
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> queue().isEmpty());
            return sessionMs;
        }

        private void round(LockActor holder, LockActor waiter, Object holderLock, Object waiterLock, int kase)
                throws Exception {
            Case what = Case.ALL.get(kase);
            awaitConnectedOnANewSession(0);
            Runnable holderRelease = holder.submit(() -> subject.take(holderLock, Duration.ofSeconds(20)))
                    .get(30, TimeUnit.SECONDS);
            assertThat(holderRelease).as("the holder takes the free lock").isNotNull();
            long killed = sessionOf(holderClient);
            int timeoutMs = negotiatedSessionMs();
            long bound = TimeUnit.MILLISECONDS.toNanos(timeoutMs + timeoutMs * 2L / 3)
                    + (what.besideHolder() && !what.clientSide() ? ZOOKEEPER_RECONNECT_DELAYS.toNanos() : 0);
            lostAt.set(0);
            CompletableFuture<Long> grantedAt = waiter.submit(() -> take(waiterLock, killed));
            if (what.whileEntering()) {
                for (int spins = random.nextInt(MAX_SPINS); spins > 0; spins--) {
                    Thread.onSpinWait();
                }
            } else {
                await().atMost(Duration.ofSeconds(20)).until(() -> queue().size() == subject.kept + subject.waiting);
            }
            long killedAt = System.nanoTime();
            if (what.clientSide()) {
                Faults.killSession(holderClient);
            } else {
                try {
                    zk.expireSession(holderClient);
                } catch (IllegalStateException endedAlready) {
                    // A stall of this shared machine outlasted the short session: it ended before the kill, which
                    // only makes the bound from the kill looser. The round goes on.
                    figures.endedBeforeTheKill.incrementAndGet();
                }
            }
            Long at = awaitWaiter(grantedAt, 3 * bound, kase);
            if (at != null) {
                long endKnown = what.besideHolder() && lostAt.get() != 0 ? Math.max(0, lostAt.get() - killedAt) : 0;
                long fromKill = Math.max(0, at - killedAt);
                long pause = pauses.longestBetween(killedAt, at);
                if (figures.held(kase, fromKill, endKnown, bound, pause)) {
                    System.out.printf(
                            "%s %s: %s held %d ms after the kill, the end known after %d ms, the JVM paused %d ms%n",
                            subject.name, path, what.name(), millis(fromKill), millis(endKnown), millis(pause));
                }
            }
            holder.run(holderRelease::run).get(30, TimeUnit.SECONDS); // a lost hold: clears it, deletes nothing live
            await().atMost(Duration.ofSeconds(20))
                    .until(() ->
                            queue().size() == subject.kept && ownedBy(killed).isEmpty());
            awaitConnectedOnANewSession(killed);
        }

        /** The waiter's action: takes the lock, checks the queue as it holds, lets go; returns when it held or null. */
        private Long take(Object waiterLock, long killed) throws Exception {
            Runnable release = subject.take(waiterLock, WAITER_TIMEOUT);
            long at = System.nanoTime();
            if (release == null) {
                return null;
            }
            try {
                // The grant read a listing without the killed holder's nodes, and nothing makes them again.
                assertThat(ownedBy(killed))
                        .as("nodes of the killed session as the waiter holds")
                        .isEmpty();
            } finally {
                release.run();
            }
            return at;
        }

        /**
         * Waits for the waiter's grant; a waiter that has not held by {@code hangAfter} is counted as a hang (with a
         * thread dump of that moment), and then waited for until its own deadline ends the acquire.
         *
         * @return when it held, or null for a hang
         */
        private Long awaitWaiter(CompletableFuture<Long> grantedAt, long hangAfter, int kase) throws Exception {
            Long at;
            try {
                at = grantedAt.get(hangAfter, TimeUnit.NANOSECONDS);
            } catch (TimeoutException stillWaiting) {
                System.out.printf(
                        "%s %s: %s: the waiter does not hold after %d ms%n%s%n",
                        subject.name, path, Case.ALL.get(kase).name(), millis(hangAfter), threadDump());
                figures.hung(kase);
                grantedAt.get(WAITER_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS);
                return null;
            }
            if (at == null) {
                figures.hung(kase);
            }
            return at;
        }

        private void awaitConnectedOnANewSession(long killed) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> holderClient.getZookeeperClient().isConnected()
                            && sessionOf(holderClient) != killed
                            && sessionOf(holderClient) != 0);
        }

        private int negotiatedSessionMs() throws Exception {
            return holderClient.getZookeeperClient().getZooKeeper().getSessionTimeout();
        }

        private List<String> queue() throws Exception {
            try {
                return observer.getChildren().forPath(path + subject.queue);
            } catch (KeeperException.NoNodeException e) {
                return List.of();
            }
        }

        /** The nodes of the queue that session {@code sessionId} owns. */
        private List<String> ownedBy(long sessionId) throws Exception {
            List<String> owned = new ArrayList<>();
            for (String child : queue()) {
                Stat stat = observer.checkExists().forPath(ZKPaths.makePath(path + subject.queue, child));
                if (stat != null && stat.getEphemeralOwner() == sessionId) {
                    owned.add(child);
                }
            }
            return owned;
        }
    }

    /**
     * A meter of pauses of the whole JVM (a collection, a starved machine), as jHiccup measures them: a thread that
     * parks for 1 ms at a time and keeps every time it woke more than 20 ms late. It measures; nothing waits on it.
     */
    private static final class Pauses {
        private static final long TICK = TimeUnit.MILLISECONDS.toNanos(1);
        private static final long NOTED = TimeUnit.MILLISECONDS.toNanos(20);

        private final ConcurrentLinkedDeque<long[]> seen = new ConcurrentLinkedDeque<>(); // {ended at, length}
        private final Thread meter = new Thread(this::measure, "pause-meter");
        private volatile boolean stopped;

        void start() {
            meter.setDaemon(true);
            meter.start();
        }

        void stop() throws InterruptedException {
            stopped = true;
            meter.join(TimeUnit.SECONDS.toMillis(5));
        }

        /** The longest pause that overlapped {@code [from, to]}, in nanoseconds. */
        long longestBetween(long from, long to) {
            long longest = 0;
            for (long[] pause : seen) {
                if (pause[0] - from >= 0 && pause[0] - pause[1] - to <= 0) {
                    longest = Math.max(longest, pause[1]);
                }
            }
            return longest;
        }

        private void measure() {
            long before = System.nanoTime();
            while (!stopped) {
                LockSupport.parkNanos(TICK);
                long now = System.nanoTime();
                if (now - before - TICK > NOTED) {
                    seen.add(new long[] {now, now - before - TICK});
                }
                before = now;
            }
        }
    }

    private static long sessionOf(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception noHandle) {
            return 0;
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private static String threadDump() {
        return Arrays.stream(ManagementFactory.getThreadMXBean().dumpAllThreads(true, true))
                .map(SemaphoreSessionKillTest::describe)
                .collect(Collectors.joining("\n"));
    }

    private static String describe(ThreadInfo info) {
        StringBuilder out = new StringBuilder();
        out.append('"').append(info.getThreadName()).append("\" ").append(info.getThreadState());
        if (info.getLockName() != null) {
            out.append(" on ").append(info.getLockName());
        }
        out.append('\n');
        for (StackTraceElement frame : info.getStackTrace()) {
            out.append("    at ").append(frame).append('\n');
        }
        return out.toString();
    }
}

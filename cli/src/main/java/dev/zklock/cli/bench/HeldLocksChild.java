package dev.zklock.cli.bench;

import dev.zklock.cli.Clients;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.ZooKeeper;

/**
 * The client JVM of the bench's row of heap per held lock ({@link HeldLocksScenario}): one client holds N locks of one
 * side, one per path, and the JVM's live heap is read by class ({@link ClassHistogram}) before they are taken and once
 * all are held. The server runs elsewhere (the bench's JVM, or {@code --connect}), so the figure is the client's
 * alone. Each lock object is made, then taken and given back once before the second reading, so that what an object
 * makes on its first acquire and keeps (its paths, its queue's state) is the object's and not the hold's: the growth
 * from the first reading (before the objects) to the second is the heap per lock object, from the second to the third
 * (all held) the heap per held lock. The locks are a side's ({@link Holder#ZKLOCK}, {@link Holder#CURATOR}) or the
 * row's floor's ({@link Holder#WATCHED_CURATOR}: Curator's, each hold with one data watch on its node). {@link #HOLDERS}
 * platform threads share the locks (each holds its own, in turn: the locks are owned per thread) so that the client's
 * requests overlap. Each reading waits first until the client has had the answers of everything it sent
 * ({@link #awaitAnswers}). The locks are not released one by one at the end: closing the client ends its session, and
 * the server deletes their nodes with it. With the system property {@value #CLASSES} set to N (a child started by hand:
 * the bench sets none), it also prints the N classes whose live bytes changed most from the first reading to the second
 * and from the second to the third, per lock, as lines the bench skips.
 */
final class HeldLocksChild {
    /** The figure said: the live heap's growth from before the locks were taken to all held, per lock, in bytes. */
    static final String HEAP_PER_HELD_LOCK = "heap-per-held-lock";

    /**
     * The figure said: the live heap's growth from before the lock objects were made to all made, taken and given back
     * once (what an object keeps after its first use), per object, in bytes.
     */
    static final String HEAP_PER_LOCK_OBJECT = "heap-per-lock-object";

    /** The system property that asks for the classes behind the heap per held lock, and how many. */
    static final String CLASSES = "zklock.bench.classes";

    private static final int HOLDERS = 8;
    private static final long STEP_MINUTES = 5;

    /** Whose locks the child holds: a side of the row, or its floor. */
    enum Holder {
        /** {@code ZkReentrantLock}. */
        ZKLOCK,
        /** Curator's {@code InterProcessMutex}. */
        CURATOR,
        /** The floor: Curator's {@code InterProcessMutex}, each hold with one data watch on its node. */
        WATCHED_CURATOR;

        /** Returns the holder of {@code side}'s locks. */
        static Holder of(Side side) {
            return switch (side) {
                case ZKLOCK -> ZKLOCK;
                case CURATOR -> CURATOR;
                default -> throw new IllegalArgumentException("no held locks of side " + side);
            };
        }

        private InterProcessLock lock(CuratorFramework client, String path) {
            return switch (this) {
                case ZKLOCK -> new ZkReentrantLock(client, path);
                case CURATOR -> new InterProcessMutex(client, path);
                case WATCHED_CURATOR -> new WatchedMutex(client, path);
            };
        }

        /** Takes {@code lock}; for the floor, then sets the watch on its node (one more round trip). */
        private void take(CuratorFramework client, InterProcessLock lock) throws Exception {
            lock.acquire();
            if (lock instanceof WatchedMutex watched) {
                watched.watchHeldNode(client.getZookeeperClient().getZooKeeper());
            }
        }
    }

    /** What a holder does with each of its locks at one step. */
    @FunctionalInterface
    private interface Step {
        void on(InterProcessLock lock) throws Exception;
    }

    private HeldLocksChild() {}

    /**
     * The child's main: {@code <holder> <connect string> <base path> <locks>}, the holder a name of {@link Holder}; says {@link BenchChild#HELD} (the locks
     * that say they are held in this process after the last reading), {@link #HEAP_PER_HELD_LOCK} and
     * {@link #HEAP_PER_LOCK_OBJECT}.
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            throw new IllegalArgumentException(
                    "expected <holder> <connect> <base path> <locks>, not '" + String.join(" ", args) + "'");
        }
        Holder holder = Holder.valueOf(args[0]);
        int count = Integer.parseInt(args[3]);
        CuratorFramework client = Clients.connect(args[1], "bench-held", 30_000, 10_000);
        List<InterProcessLock> locks = new ArrayList<>(count);
        List<ExecutorService> holders = new ArrayList<>();
        for (int i = 0; i < HOLDERS; i++) {
            holders.add(Executors.newSingleThreadExecutor());
        }
        try {
            // One lock of the side on a path of its own first, so that what the client and the library make once
            // (classes, the client's context) is in the reading before the objects.
            step(holders, List.of(holder.lock(client, args[2] + "/first")), lock -> {
                holder.take(client, lock);
                lock.release();
            });
            ClassHistogram none = reading(client);
            for (int i = 0; i < count; i++) {
                locks.add(holder.lock(client, args[2] + "/lock-" + i));
            }
            step(holders, locks, lock -> {
                holder.take(client, lock);
                lock.release();
            });
            ClassHistogram before = reading(client);
            step(holders, locks, lock -> holder.take(client, lock));
            ClassHistogram held = reading(client);
            before.printChangesSince(none, "per lock object", count);
            held.printChangesSince(before, "per held lock", count);
            BenchChild.say(
                    System.out,
                    BenchChild.HELD,
                    locks.stream()
                            .filter(InterProcessLock::isAcquiredInThisProcess)
                            .count());
            BenchChild.say(System.out, HEAP_PER_HELD_LOCK, (held.totalBytes() - before.totalBytes()) / (double) count);
            BenchChild.say(
                    System.out, HEAP_PER_LOCK_OBJECT, (before.totalBytes() - none.totalBytes()) / (double) count);
        } finally {
            holders.forEach(ExecutorService::shutdownNow);
            client.close();
        }
    }

    /** Prints each class's change of live bytes, per lock, as a line that is not a figure. */

    /** Has each holder do {@code step} on its share of the locks (every {@link #HOLDERS}th), and waits for all. */
    private static void step(List<ExecutorService> holders, List<InterProcessLock> locks, Step step) throws Exception {
        List<Future<?>> done = new ArrayList<>();
        for (int h = 0; h < holders.size(); h++) {
            int first = h;
            done.add(holders.get(h).submit(() -> {
                for (int i = first; i < locks.size(); i += holders.size()) {
                    step.on(locks.get(i));
                }
                return null;
            }));
        }
        for (Future<?> future : done) {
            future.get(STEP_MINUTES, TimeUnit.MINUTES);
        }
    }

    private static ClassHistogram reading(CuratorFramework client) throws Exception {
        awaitAnswers(client);
        return ClassHistogram.take()
                .orElseThrow(() -> new IllegalStateException(
                        "this JVM (" + Runtime.version() + ") has no class histogram (GC.class_histogram)"));
    }

    /**
     * Waits until the client has had the answers to every request it sent and run their callbacks: ZooKeeper answers
     * a session's requests in order and the client runs its callbacks in order on one thread, so the callback of a
     * request sent now runs after them. Twice, for a request that a callback sent in turn (a watch set on a node once
     * its create is answered).
     */
    private static void awaitAnswers(CuratorFramework client) throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        for (int i = 0; i < 2; i++) {
            CountDownLatch answered = new CountDownLatch(1);
            zk.exists("/", false, (code, path, context, stat) -> answered.countDown(), null);
            if (!answered.await(STEP_MINUTES, TimeUnit.MINUTES)) {
                throw new IllegalStateException("no answer to an exists of / within " + STEP_MINUTES + " min");
            }
        }
    }
}

package dev.zklock.recipes.test.partition;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;

/**
 * The workloads every client JVM of the partition rig runs, and where their lock nodes and shared stores are: what
 * the nemesis, the observer and the checkers need to know about the clients.
 *
 * <p>Each workload is one lock kind of one library on its own lock path, {@code /partitions/<library>/<kind>} (its
 * <em>key</em> in the history), driven by one or two threads of every client JVM, so the JVMs contend on each path:
 *
 * <table>
 *   <caption>workloads, in the order of their threads ({@code <id>.t1} first)</caption>
 *   <tr><th>key</th><th>lock</th><th>threads (mode)</th></tr>
 *   <tr><td>/partitions/zklock/reentrant</td><td>{@code ZkReentrantLock}</td><td>1 (exclusive)</td></tr>
 *   <tr><td>/partitions/zklock/exclusive</td><td>{@code ZkExclusiveLock.mutexLayout}</td><td>1 (exclusive)</td></tr>
 *   <tr><td>/partitions/zklock/semaphore-mutex</td><td>{@code ZkExclusiveLock}, default (semaphore-mutex) layout</td>
 *       <td>1 (exclusive)</td></tr>
 *   <tr><td>/partitions/zklock/read-write</td><td>{@code ZkReadWriteLock}, one object</td>
 *       <td>2 (read, write)</td></tr>
 *   <tr><td>/partitions/zklock/multi</td><td>{@code ZkMultiLock} over {@code <key>/a} and {@code <key>/b}</td>
 *       <td>1 (exclusive)</td></tr>
 *   <tr><td>/partitions/zklock/semaphore</td><td>{@code ZkSemaphore}, {@value #LEASES} leases</td><td>1 (lease)</td></tr>
 *   <tr><td>/partitions/zklock/cohort</td><td>{@code ZkReentrantLock} with local hand-off, one object</td>
 *       <td>2 (exclusive)</td></tr>
 *   <tr><td>/partitions/zklock/cohort-alone</td><td>the same, in the first client (c1) only: nobody else waits, so
 *       its two threads, which come back at once after a release, pass the node between them without bound, and a
 *       fault finds them passing (a pass while the connection is suspended must wait for it)</td><td>2 (exclusive), c1 only</td></tr>
 *   <tr><td>/partitions/zklock/reentrant-view, read-write-view, cohort-view</td><td>the reentrant, read/write and
 *       cohort workloads' locks built with {@code queueView()}: their queues read from one persistent recursive watch
 *       per client and path</td><td>as those</td></tr>
 *   <tr><td>/partitions/zklock/latch</td><td>{@code ZkLeaderLatch}, one participant per client JVM (its id the
 *       thread's process name); a release yields</td><td>1 (exclusive)</td></tr>
 *   <tr><td>/partitions/zklock/selector</td><td>{@code ZkLeaderSelector}, auto-requeued; a release returns from
 *       {@code takeLeadership}</td><td>1 (exclusive)</td></tr>
 *   <tr><td>/partitions/curator/mutex</td><td>{@code InterProcessMutex}</td><td>1 (exclusive)</td></tr>
 *   <tr><td>/partitions/curator/semaphore-mutex</td><td>{@code InterProcessSemaphoreMutex}</td>
 *       <td>1 (exclusive)</td></tr>
 *   <tr><td>/partitions/curator/read-write</td><td>{@code InterProcessReadWriteLock}, one object</td>
 *       <td>2 (read, write)</td></tr>
 *   <tr><td>/partitions/curator/multi</td><td>{@code InterProcessMultiLock} over {@code <key>/a} and {@code <key>/b}</td>
 *       <td>1 (exclusive)</td></tr>
 *   <tr><td>/partitions/curator/semaphore</td><td>{@code InterProcessSemaphoreV2}, {@value #LEASES} leases</td>
 *       <td>1 (lease)</td></tr>
 *   <tr><td>/partitions/curator/latch</td><td>{@code LeaderLatch}; a release closes it, the next acquire starts
 *       another</td><td>1 (exclusive)</td></tr>
 *   <tr><td>/partitions/curator/selector</td><td>{@code LeaderSelector}, auto-requeued, cancelled at SUSPENDED and
 *       LOST</td><td>1 (exclusive)</td></tr>
 * </table>
 *
 * <p>The four elections ({@link #leaderKeys}) are the leadership workloads ({@link LeaderTargets}): a term is a hold,
 * its epoch the token, its leader holds it {@link Worker#MIN_TERM_MS} to {@link Worker#MAX_TERM_MS} ms, and {@link LeadershipChecker} judges
 * their terms beyond the lock checkers: every term cut off is told revoked, epochs grow, and each client JVM's {@code
 * ZkLeaderObserver} on each latch ({@link #observedElections}) keeps up after a heal.
 *
 * <p>A holder in exclusive or write mode writes the key's unfenced counter and fenced set, in the store directory
 * shared by the run's client JVMs ({@link #counterFile}, {@link #fencedDir}).
 *
 * <p>Stateless and thread-safe; no ZooKeeper call.
 */
public final class PartitionWorkloads {
    /** The parent of every lock path of the workloads. */
    public static final String ROOT = "/partitions";

    /** The parent of the client JVMs' presence nodes, {@code /partitions-clients/<id>}, one per live session. */
    public static final String CLIENTS = "/partitions-clients";

    /** The leases of the semaphore workloads. */
    public static final int LEASES = 2;

    /** The client that runs the workloads of one client alone. */
    static final String FIRST_CLIENT = "c1";

    private static final List<Workload> ALL = List.of(
            new Workload("zklock", "reentrant", List.of(Mode.EXCLUSIVE), ZkTargets::reentrant),
            new Workload("zklock", "exclusive", List.of(Mode.EXCLUSIVE), ZkTargets::exclusive),
            new Workload("zklock", "semaphore-mutex", List.of(Mode.EXCLUSIVE), ZkTargets::semaphoreMutex),
            new Workload("zklock", "read-write", List.of(Mode.READ, Mode.WRITE), ZkTargets::readWrite),
            new Workload("zklock", "multi", List.of(Mode.EXCLUSIVE), ZkTargets::multi),
            new Workload("zklock", "semaphore", List.of(Mode.LEASE), ZkTargets::semaphore),
            new Workload("zklock", "cohort", List.of(Mode.EXCLUSIVE, Mode.EXCLUSIVE), ZkTargets::cohort),
            new Workload(
                    "zklock",
                    "cohort-alone",
                    List.of(Mode.EXCLUSIVE, Mode.EXCLUSIVE),
                    (client, key, process) -> ZkTargets.cohort(client, key),
                    true),
            new Workload("zklock", "reentrant-view", List.of(Mode.EXCLUSIVE), ZkTargets::reentrantView),
            new Workload("zklock", "read-write-view", List.of(Mode.READ, Mode.WRITE), ZkTargets::readWriteView),
            new Workload("zklock", "cohort-view", List.of(Mode.EXCLUSIVE, Mode.EXCLUSIVE), ZkTargets::cohortView),
            leader("zklock", "latch", LeaderTargets::zklockLatch),
            leader("zklock", "selector", LeaderTargets::zklockSelector),
            new Workload("curator", "mutex", List.of(Mode.EXCLUSIVE), CuratorTargets::mutex),
            new Workload("curator", "semaphore-mutex", List.of(Mode.EXCLUSIVE), CuratorTargets::semaphoreMutex),
            new Workload("curator", "read-write", List.of(Mode.READ, Mode.WRITE), CuratorTargets::readWrite),
            new Workload("curator", "multi", List.of(Mode.EXCLUSIVE), CuratorTargets::multi),
            new Workload("curator", "semaphore", List.of(Mode.LEASE), CuratorTargets::semaphore),
            leader("curator", "latch", LeaderTargets::curatorLatch),
            leader("curator", "selector", LeaderTargets::curatorSelector));

    private PartitionWorkloads() {}

    /** A leadership workload: one participant per client JVM, named after its thread, a term judged as a hold. */
    private static Workload leader(String library, String kind, Participant participant) {
        return new Workload(
                library,
                kind,
                List.of(Mode.EXCLUSIVE),
                (client, key, process) -> List.of(participant.make(client, key, process)));
    }

    /**
     * Returns the keys of the leadership workloads: elections whose terms are holds.
     *
     * @return {@code /partitions/<library>/latch} and {@code /partitions/<library>/selector} of both libraries
     */
    public static List<String> leaderKeys() {
        return ALL.stream().filter(Workload::isElection).map(Workload::key).toList();
    }

    /**
     * Returns the elections every client JVM's {@code ZkLeaderObserver}s watch: each library's latch.
     *
     * @return {@code /partitions/zklock/latch} and {@code /partitions/curator/latch}
     */
    public static List<String> observedElections() {
        return List.of(ROOT + "/zklock/latch", ROOT + "/curator/latch");
    }

    /** Makes one participant of an election, named {@code process}. */
    @FunctionalInterface
    interface Participant {
        Target make(CuratorFramework client, String key, String process);
    }

    /** Makes the targets of one workload in one client JVM; {@code process} names its first thread. */
    @FunctionalInterface
    interface Targets {
        List<Target> make(CuratorFramework client, String key, String process);
    }

    /**
     * Returns the key of every workload, in the order of their threads.
     *
     * @return the lock paths the history names
     */
    public static List<String> keys() {
        return ALL.stream().map(Workload::key).toList();
    }

    /**
     * Returns the keys whose holders write a counter and a fenced set: those with a thread in exclusive or write mode.
     *
     * @return every key but the semaphores'
     */
    public static List<String> fencedKeys() {
        return ALL.stream()
                .filter(w -> w.modes().stream().anyMatch(Mode::isAlone))
                .map(Workload::key)
                .toList();
    }

    /**
     * Returns the paths whose children are lock nodes, for a stranger to delete from: a lock's key, a multi-lock's
     * {@code <key>/a} and {@code <key>/b}, a semaphore's {@code <key>/locks} and {@code <key>/leases}.
     *
     * @return the paths, in the order of the workloads
     */
    public static List<String> nodeParents() {
        List<String> parents = new ArrayList<>();
        for (Workload workload : ALL) {
            String key = workload.key();
            if (workload.kind().equals("multi")) {
                parents.addAll(multiPaths(key));
            } else if (workload.kind().startsWith("semaphore")) {
                parents.add(ZKPaths.makePath(key, "locks"));
                parents.add(ZKPaths.makePath(key, "leases"));
            } else {
                parents.add(key);
            }
        }
        return parents;
    }

    /**
     * Returns the file of a key's unfenced counter in the store directory.
     *
     * @param store the store directory of the run
     * @param key a workload's key
     * @return {@code <store>/counter<key with / as _>}
     */
    public static Path counterFile(Path store, String key) {
        return store.resolve("counter" + key.replace('/', '_'));
    }

    /**
     * Returns the directory of a key's fenced set in the store directory.
     *
     * @param store the store directory of the run
     * @param key a workload's key
     * @return {@code <store>/fenced<key with / as _>}
     */
    public static Path fencedDir(Path store, String key) {
        return store.resolve("fenced" + key.replace('/', '_'));
    }

    /** Returns the store directory when none is given: {@code store} beside the history file. */
    static Path defaultStore(Path history) {
        Path parent = history.toAbsolutePath().getParent();
        return parent.resolve("store");
    }

    /** Returns the two paths of a multi-lock workload. */
    static List<String> multiPaths(String key) {
        return List.of(ZKPaths.makePath(key, "a"), ZKPaths.makePath(key, "b"));
    }

    /** Returns every workload, in the order of their threads. */
    static List<Workload> all() {
        return ALL;
    }

    /**
     * One workload.
     *
     * @param library {@code zklock} or {@code curator}
     * @param kind the lock kind, the last segment of the key
     * @param modes the mode of each of its threads
     * @param targets makes one target per thread from the client, the key and the first thread's process name
     * @param firstClientOnly whether only the first client runs it (a lock no other client contends for)
     */
    record Workload(String library, String kind, List<Mode> modes, Targets targets, boolean firstClientOnly) {
        Workload(
                String library,
                String kind,
                List<Mode> modes,
                BiFunction<CuratorFramework, String, List<Target>> targets) {
            this(library, kind, modes, (client, key, process) -> targets.apply(client, key), false);
        }

        Workload(String library, String kind, List<Mode> modes, Targets targets) {
            this(library, kind, modes, targets, false);
        }

        String key() {
            return ROOT + "/" + library + "/" + kind;
        }

        /**
         * Returns the longest a worker stays outside between a release and its next acquire: none for a workload of the
         * first client alone, whose threads come back at once, so that one waits whenever the other holds and every
         * release passes the node (a fault that suspends the connection finds a pass coming); otherwise {@link
         * Worker#MAX_OUTSIDE_MS}.
         */
        int maxOutsideMillis() {
            return firstClientOnly ? 0 : Worker.MAX_OUTSIDE_MS;
        }

        /** Returns the longest a worker holds: a leader's term {@link Worker#MAX_TERM_MS}, a lock's hold less. */
        int maxHoldMillis() {
            return isElection() ? Worker.MAX_TERM_MS : Worker.MAX_HOLD_MS;
        }

        /** Returns the least a worker holds: a leader's term {@link Worker#MIN_TERM_MS}, a lock's hold 0. */
        int minHoldMillis() {
            return isElection() ? Worker.MIN_TERM_MS : 0;
        }

        /** Whether this is a leadership workload, a latch's or a selector's election. */
        boolean isElection() {
            return kind.equals("latch") || kind.equals("selector");
        }

        /** Whether the client {@code clientId} runs this workload: every client, or the first ({@code c1}) alone. */
        boolean runsOn(String clientId) {
            return !firstClientOnly || clientId.equals(FIRST_CLIENT);
        }
    }
}

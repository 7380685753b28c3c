package dev.zklock.cli.bench;

import dev.zklock.recipes.locks.ZkLockRegistry;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * Virtual threads that each take a lock once, all started together behind a holder of each lock (a virtual thread that
 * holds it until they all wait), then drained: a cohort lock object, a plain lock object, or the locks of a registry's
 * keys. Reports the time from their start to the last release (less the bench's own collection for the heap figure),
 * the requests the servers counted from the one client the drain uses per acquisition (a window over whole cycles: from
 * before the holders take their locks, on lock paths made before, to the end; the holders' acquisitions counted), the heap each
 * waiting thread costs (heap in use after a collection while they all wait for the lock and the servers answer no more
 * requests, less the heap before they started: a request still on its way is the client's buffer, not the wait's; with
 * an embedded server its nodes and watches count too, so {@code --connect} measures the lock alone; the median of the
 * rounds, see {@link DrainFigures#heapPerWaiter}), the same without the virtual threads' stack chunks (the live heap by class
 * at the same two moments, {@link ClassHistogram}: the chunks vary with the JIT's state when the threads park, by more
 * than the cuts a change of the lock makes, and the rest repeats) and the platform threads alive. Curator's {@code
 * InterProcessMutex} runs at a smaller count (each of its releases wakes every waiter of the lock object, and its run
 * of the full count does not finish), named in the scenario. Needs virtual threads (release 21); {@link BenchPlan}
 * leaves it out before. A round shorter than a second (a warm-up, {@code --quick}) runs a tenth of the threads. The
 * plain row also measures the floor of its heap figure: the same threads waiting in a bare ZooKeeper queue ({@link
 * BareZooKeeperQueue}: a virtual thread, its stack, a node name, a watched path, ZooKeeper's watch and a watcher each;
 * with an embedded server, the server's node and watch too), and on the JDK's fair {@code ReentrantLock} ({@link
 * JdkFairLock}: a virtual thread, its stack and one queue node each).
 * Confined to the bench's thread.
 */
final class VirtualThreadScenario implements Scenario {
    static final String DRAIN_SECONDS = "time to drain (s)";
    static final String REQUESTS = "ZooKeeper requests";
    static final String HEAP_PER_WAITER = "heap per waiting thread (bytes)";
    static final String HEAP_WITHOUT_STACKS = "heap per waiting thread without stack chunks (bytes)";
    static final String PLATFORM_THREADS = "platform threads alive";
    static final String GROUP = "ZkReentrantLock vs InterProcessMutex, virtual threads";
    static final String BARE_QUEUE = "bare ZooKeeper queue (virtual threads on nodes and watches, no lock library)";

    /** What the threads take. */
    enum Kind {
        COHORT("cohort"),
        PLAIN("plain"),
        VIEW("view"),
        REGISTRY("registry");

        private final String key;

        Kind(String key) {
            this.key = key;
        }
    }

    private final Kind kind;
    private final int keys; // zklock's; each key is one lock object
    private final int threadsPerKey;
    private final int curatorKeys;
    private final int curatorThreadsPerKey;
    private final Targets targets = new Targets();
    private final Map<Side, DrainFigures> extras = new EnumMap<>(Side.class);

    private VirtualThreadScenario(Kind kind, int keys, int threadsPerKey, int curatorKeys, int curatorThreadsPerKey) {
        this.kind = kind;
        this.keys = keys;
        this.threadsPerKey = threadsPerKey;
        this.curatorKeys = curatorKeys;
        this.curatorThreadsPerKey = curatorThreadsPerKey;
    }

    /** {@code threads} virtual threads on one lock object with local hand-off; Curator's at {@code curatorThreads}. */
    static VirtualThreadScenario cohort(int threads, int curatorThreads) {
        return new VirtualThreadScenario(Kind.COHORT, 1, threads, 1, curatorThreads);
    }

    /** {@code threads} virtual threads on one plain lock object; Curator's at {@code curatorThreads}. */
    static VirtualThreadScenario plain(int threads, int curatorThreads) {
        return new VirtualThreadScenario(Kind.PLAIN, 1, threads, 1, curatorThreads);
    }

    /**
     * {@code threads} virtual threads on one lock object with a queue view (its watch, not one per waiter, tells them of
     * their turn); Curator's at {@code curatorThreads}.
     */
    static VirtualThreadScenario viewed(int threads, int curatorThreads) {
        return new VirtualThreadScenario(Kind.VIEW, 1, threads, 1, curatorThreads);
    }

    /** {@code each} virtual threads on each of {@code keys} keys of a registry; Curator's over {@code curatorKeys}. */
    static VirtualThreadScenario registry(int keys, int each, int curatorKeys) {
        return new VirtualThreadScenario(Kind.REGISTRY, keys, each, curatorKeys, each);
    }

    /** Sets the target of the row named {@code metric}; returns this scenario. */
    VirtualThreadScenario target(String metric, Target target) {
        targets.set(metric, target);
        return this;
    }

    @Override
    public String group() {
        return GROUP;
    }

    @Override
    public String name() {
        String what =
                switch (kind) {
                    case COHORT -> "%s virtual threads, 1 lock object, local hand-off (Curator: %s, 1 lock object)";
                    case PLAIN -> "%s virtual threads, 1 lock object (Curator: %s)";
                    case VIEW -> "%s virtual threads, 1 lock object with a queue view (Curator: %s)";
                    case REGISTRY -> "%s virtual threads, 10 per key of a registry (Curator: %s, a mutex per key)";
                };
        return String.format(Locale.ROOT, what, count(keys * threadsPerKey), count(curatorKeys * curatorThreadsPerKey));
    }

    @Override
    public String key() {
        return "virtual-threads-" + kind.key + "-" + keys * threadsPerKey;
    }

    /**
     * The path under which a side's locks live; the bare queue's is as long as zklock's ({@code raw-zk}, not {@code
     * raw}): each waiter's node path is kept as several strings (the client's, the server's node, its watch), and three
     * characters fewer made the floor about 40 bytes a waiter lighter than the same queue under zklock's path.
     */
    @Override
    public String path(BenchEnsemble ensemble, Side side) {
        if (side != Side.RAW) {
            return Scenario.super.path(ensemble, side);
        }
        String floor = ensemble.basePath() + "/" + key() + "/raw-zk";
        if (floor.length() != Scenario.super.path(ensemble, Side.ZKLOCK).length()) {
            throw new AssertionError("the floor's path '" + floor + "' is not as long as zklock's");
        }
        return floor;
    }

    @Override
    public int contenders() {
        return keys * threadsPerKey;
    }

    @Override
    public void prepare(BenchEnsemble ensemble) throws Exception {
        for (Side side : sides()) {
            ensemble.makePath(path(ensemble, side));
        }
        if (measuresFloor()) {
            ensemble.makePath(path(ensemble, Side.RAW) + "/key-0"); // the bare queue makes no parent of its own
        }
    }

    @Override
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        boolean full = duration.compareTo(Duration.ofSeconds(1)) >= 0;
        Map<Side, Measurement> measured = new EnumMap<>(Side.class);
        for (Side side : order) {
            int sideKeys = side == Side.ZKLOCK ? keys : curatorKeys;
            int each = side == Side.ZKLOCK ? threadsPerKey : curatorThreadsPerKey;
            if (!full) {
                sideKeys = Math.max(1, sideKeys / 10);
                each = kind == Kind.REGISTRY ? each : Math.max(2, each / 10);
            }
            VirtualThreadDrain.Result drain = drain(ensemble, side, sideKeys, each);
            measured.put(side, drain.measurement());
            if (full) {
                extras.merge(side, drain.figures(), DrainFigures::plus);
            }
        }
        if (measuresFloor() && full) {
            // The floor: the same threads waiting in a queue of ZooKeeper nodes with no lock library around it; and on
            // the JDK's own lock, which costs no object of its own per waiter.
            for (Side floor : List.of(Side.RAW, Side.JDK)) {
                extras.merge(floor, drain(ensemble, floor, keys, threadsPerKey).figures(), DrainFigures::plus);
            }
        }
        return measured;
    }

    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        DrainFigures zklock = extras.getOrDefault(Side.ZKLOCK, DrainFigures.NONE);
        DrainFigures curator = extras.getOrDefault(Side.CURATOR, DrainFigures.NONE);
        List<BenchRow> rows = new ArrayList<>(List.of(
                row(DRAIN_SECONDS, zklock.drainSeconds(), curator.drainSeconds()),
                targets.row(this, measured, LockScenario.ACQUISITIONS_PER_SECOND, Measurement::perSecond),
                row(REQUESTS, zklock.requests(), curator.requests()),
                targets.row(this, measured, LockScenario.REQUESTS_PER_ACQUISITION, Measurement::requestsPerAcquisition),
                row(HEAP_PER_WAITER, zklock.heapPerWaiter(), curator.heapPerWaiter())
                        .withFloor(floor().heapPerWaiter()),
                row(HEAP_WITHOUT_STACKS, zklock.heapPerWaiterWithoutStacks(), curator.heapPerWaiterWithoutStacks())
                        .withFloor(floor().heapPerWaiterWithoutStacks()),
                row(PLATFORM_THREADS, zklock.platformThreads(), curator.platformThreads())));
        return rows;
    }

    /**
     * The plain row's floor and baseline of its heap figures, with and without the stack chunks: a bare ZooKeeper
     * queue, and the JDK's fair lock.
     */
    @Override
    public List<FloorRow> floorRows(Map<Side, Measurement> measured) {
        if (!measuresFloor()) {
            return List.of();
        }
        DrainFigures jdk = extras.getOrDefault(Side.JDK, DrainFigures.NONE);
        return List.of(
                new FloorRow(BARE_QUEUE, name(), HEAP_PER_WAITER, floor().heapPerWaiter()),
                new FloorRow(BARE_QUEUE, name(), HEAP_WITHOUT_STACKS, floor().heapPerWaiterWithoutStacks()),
                new FloorRow(LockScenario.JDK_FAIR_LOCK, name(), HEAP_PER_WAITER, jdk.heapPerWaiter()),
                new FloorRow(
                        LockScenario.JDK_FAIR_LOCK, name(), HEAP_WITHOUT_STACKS, jdk.heapPerWaiterWithoutStacks()));
    }

    /** Whether the scenario measures the floor of its heap figures: one lock object, no local hand-off. */
    private boolean measuresFloor() {
        return kind == Kind.PLAIN || kind == Kind.VIEW;
    }

    /** Returns what the threads waiting in a bare ZooKeeper queue measured; nothing if they did not run. */
    private DrainFigures floor() {
        return extras.getOrDefault(Side.RAW, DrainFigures.NONE);
    }

    private BenchRow row(String metric, double zklock, double curator) {
        return targets.row(this, metric, zklock, curator);
    }

    /** Makes {@code side}'s {@code sideKeys} lock objects on lock paths made first, and drains them with {@code each}. */
    private VirtualThreadDrain.Result drain(BenchEnsemble ensemble, Side side, int sideKeys, int each)
            throws Exception {
        CuratorFramework client = ensemble.client(0);
        String base = path(ensemble, side);
        Function<Integer, InterProcessLock> locks = lockMaker(side, client, base);
        List<InterProcessLock> objects = new ArrayList<>();
        for (int key = 0; key < sideKeys; key++) {
            objects.add(locks.apply(key));
        }
        if (side != Side.JDK) {
            // Made before the window: a lock's first acquire on a path that is not there costs a failed create, the
            // path's and the create again, a cost of the key's first use, not of the drain.
            ensemble.makePaths(IntStream.range(0, sideKeys)
                    .mapToObj(key -> base + "/key-" + key)
                    .toList());
        }
        return VirtualThreadDrain.run(ensemble, client, objects, each);
    }

    private Function<Integer, InterProcessLock> lockMaker(Side side, CuratorFramework client, String base) {
        if (side == Side.JDK) {
            return key -> new JdkFairLock();
        }
        if (side == Side.RAW) {
            return key -> new BareZooKeeperQueue(client, base + "/key-" + key);
        }
        if (side == Side.CURATOR) {
            return key -> new InterProcessMutex(client, base + "/key-" + key);
        }
        return switch (kind) {
            case COHORT -> key -> ZkReentrantLock.builder(client, base + "/key-" + key)
                    .localHandOff()
                    .build();
            case PLAIN -> key -> new ZkReentrantLock(client, base + "/key-" + key);
            case VIEW -> key -> ZkReentrantLock.builder(client, base + "/key-" + key)
                    .queueView()
                    .build();
            case REGISTRY -> {
                ZkLockRegistry registry = new ZkLockRegistry(client, base);
                yield key -> registry.obtain("key-" + key);
            }
        };
    }

    private static String count(int n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}

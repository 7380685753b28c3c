package dev.zklock.cli.bench;

import dev.zklock.cli.CommandFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * The scenarios of a plain lock recipe, or of the part of one that is a plain lock (a read lock, a multi-lock over n
 * paths): one contender alone (with the raw floor beside it), N contenders each on a client (session) of its own, N
 * threads sharing one client and one lock object (with a JDK fair lock among the same threads beside them, for a lock
 * with local hand-off), or one thread alone on a lock that keeps its node cached. Each contender loops acquire/release
 * with nothing done while holding.
 */
final class LockScenario implements Scenario {
    /** How the contenders of a scenario are laid out. */
    enum Layout {
        /** One contender, alone: the latency of an uncontended acquire. */
        UNCONTENDED,
        /** N contenders, each with its own client and lock object. */
        CLIENTS,
        /** N threads sharing one client and one lock object. */
        SHARED_LOCK,
        /**
         * Two contenders on clients of their own, each holding for {@link #HAND_OFF_HOLD}, so that the other already
         * watches when it releases: the hand-off alone, the only node ahead gone.
         */
        HAND_OFF,
        /**
         * One contender, alone, on a lock that keeps its node cached after a release (keepIdle): after the first
         * cycle, what a hold costs with the node already there.
         */
        CACHED
    }

    /** How long another client may wait for a cached node to go: far longer than a watch event and a delete take. */
    private static final Duration END_CACHING_WAIT = Duration.ofSeconds(10);

    /** How long a holder keeps the lock in the hand-off scenario: far longer than a waiter takes to queue and watch. */
    static final Duration HAND_OFF_HOLD = Duration.ofMillis(2);

    static final String RAW_FLOOR = "raw floor (one create + one delete, raw ZooKeeper handle)";
    static final String RAW_VIEW_QUEUE =
            "raw view queue (one persistent recursive watch per client, a create and a delete, raw ZooKeeper handle)";
    static final String RAW_LISTING_QUEUE =
            "raw queue (a create, a listing, a watch on the node ahead, a delete, raw ZooKeeper handle)";
    static final String VIEW_OVER_QUEUE = "acquisitions/s, raw view queue / raw queue";
    static final String JDK_FAIR_LOCK = "JDK fair ReentrantLock(true), same threads, no ZooKeeper";
    static final String ACQUIRE_P50 = "acquire p50 (ms)";
    static final String VS_RAW_CREATE = "acquire p50 / raw create p50";
    static final String VS_PIPELINED_PAIR = "acquire p50 / create + pipelined listing p50";
    static final String RAW_LISTED_P50 = "create + pipelined listing p50 (ms)";
    static final String CYCLES_PER_SECOND = "cycles/s";
    static final String ACQUISITIONS_PER_SECOND = "acquisitions/s";
    static final String HAND_OFF_P50 = "hand-off p50 (ms)";
    /**
     * The contenders' context switches per acquisition: about one where each acquisition parks until the lock is passed
     * to it, fewer where threads take a free lock on their way (a JDK lock whose queue is empty at that moment).
     */
    static final String THREAD_SWITCHES_PER_ACQUISITION = "thread switches per acquisition";

    /**
     * The JDK fair lock's acquires that found it free and nobody queued: with no park, where a lock with local hand-off
     * and no idle time has given its node back to ZooKeeper.
     */
    static final String FOUND_FREE = "acquires that found the lock free, nobody queued (%)";

    static final String VS_JDK = "acquisitions/s / JDK fair lock's, same threads";

    /**
     * The least thread switches per acquisition of a round of the JDK fair lock that count as a convoy: every acquire
     * parked until the lock was passed to it, as every local waiter of a cohort does.
     */
    static final double CONVOY_SWITCHES = 0.97;

    static final String VS_JDK_CONVOY = "acquisitions/s / JDK fair lock's, in the rounds it queued every acquire";
    static final String CONVOY_ROUNDS = "rounds it queued every acquire";
    static final String REQUESTS_AFTER_THE_FIRST = "requests per cycle after the first";
    static final String REQUESTS_PER_ACQUISITION = "requests per acquisition";
    static final String REQUESTS_PER_CYCLE = "requests per cycle";
    static final String WATCH_EVENTS_PER_RELEASE = "watch events per release";

    private final Recipe recipe;
    private final Layout layout;
    private final int contenders;
    private final List<Side> sides;
    private final LoopWork work; // around each hold, threads sharing a lock object only
    private final Targets targets = new Targets();

    private LockScenario(Recipe recipe, Layout layout, int contenders, List<Side> sides) {
        this(recipe, layout, contenders, sides, LoopWork.NONE);
    }

    private LockScenario(Recipe recipe, Layout layout, int contenders, List<Side> sides, LoopWork work) {
        this.recipe = recipe;
        this.layout = layout;
        this.contenders = contenders;
        this.sides = sides;
        this.work = work;
    }

    /** One contender alone; with {@code rawFloor}, the raw floor runs beside zklock and Curator. */
    static LockScenario uncontended(Recipe recipe, boolean rawFloor) {
        return new LockScenario(
                recipe,
                Layout.UNCONTENDED,
                1,
                rawFloor
                        ? List.of(Side.ZKLOCK, Side.CURATOR, Side.RAW, Side.RAW_LISTED)
                        : List.of(Side.ZKLOCK, Side.CURATOR));
    }

    /** {@code n} contenders, each on a client of its own. */
    static LockScenario clients(Recipe recipe, int n) {
        return new LockScenario(recipe, Layout.CLIENTS, n, List.of(Side.ZKLOCK, Side.CURATOR));
    }

    /**
     * {@code n} contenders, each on a client of its own, and beside them the two raw queues on the same clients: one
     * kept from a persistent recursive watch per client, one that lists and watches the node ahead. Their figures are
     * the floors of a queue view and of the default mode's protocol on this machine, and their ratio the most a view
     * could gain over the default mode here.
     */
    static LockScenario clientsBesideRawQueues(Recipe recipe, int n) {
        return new LockScenario(
                recipe, Layout.CLIENTS, n, List.of(Side.ZKLOCK, Side.CURATOR, Side.RAW_VIEW, Side.RAW_QUEUE));
    }

    /** Two contenders on clients of their own, each holding a little, so that the other waits: the hand-off alone. */
    static LockScenario handOff(Recipe recipe) {
        return new LockScenario(recipe, Layout.HAND_OFF, 2, List.of(Side.ZKLOCK, Side.CURATOR));
    }

    /** {@code n} threads sharing one client and one lock object. */
    static LockScenario sharedLock(Recipe recipe, int n) {
        return new LockScenario(recipe, Layout.SHARED_LOCK, n, List.of(Side.ZKLOCK, Side.CURATOR));
    }

    /**
     * {@code n} threads sharing one client and one lock object, and beside them a JDK fair {@code ReentrantLock} passed
     * among {@code n} threads in the same way: the most a local hand-off could give.
     */
    static LockScenario sharedLockBesideJdk(Recipe recipe, int n) {
        return new LockScenario(recipe, Layout.SHARED_LOCK, n, List.of(Side.ZKLOCK, Side.CURATOR, Side.JDK));
    }

    /**
     * As {@link #sharedLockBesideJdk}, each thread doing {@code work} inside every hold or after every release (a busy
     * loop on the clock, on every side alike): the locks compared where the critical section is not empty, or where
     * threads do something between their holds. The JDK fair lock's second regime (its queue empty, threads taking it
     * free in turn with no park) needs holds about as short as its own lock path: with work inside, every side queues
     * every acquire; with work outside and an empty critical section, the JDK lock's queue empties more often.
     */
    static LockScenario sharedLockBesideJdk(Recipe recipe, int n, LoopWork work) {
        return new LockScenario(recipe, Layout.SHARED_LOCK, n, List.of(Side.ZKLOCK, Side.CURATOR, Side.JDK), work);
    }

    /** One thread alone on a lock that keeps its node cached between holds, beside Curator's. */
    static LockScenario cached(Recipe recipe) {
        return new LockScenario(recipe, Layout.CACHED, 1, List.of(Side.ZKLOCK, Side.CURATOR));
    }

    /** Sets the target of the row named {@code metric}; returns this scenario. */
    LockScenario target(String metric, Target target) {
        targets.set(metric, target);
        return this;
    }

    @Override
    public String group() {
        return recipe.title();
    }

    @Override
    public String name() {
        String name =
                switch (layout) {
                    case UNCONTENDED -> "uncontended";
                    case CLIENTS -> contenders + " clients";
                    case SHARED_LOCK -> sharedLockName();
                    case HAND_OFF -> "hand-off, 2 clients holding " + HAND_OFF_HOLD.toMillis() + " ms";
                    case CACHED -> "1 thread";
                };
        if (recipe.part().isEmpty()) {
            return name;
        }
        return layout == Layout.CACHED ? recipe.part() + ", " + name : name + ", " + recipe.part();
    }

    /** Threads sharing a lock object, and the work around each hold if any: "8 threads, 1 lock object, 1 us inside". */
    private String sharedLockName() {
        String name = contenders + " threads, 1 lock object";
        String label = work.label();
        return label.isEmpty() ? name : name + ", " + label;
    }

    @Override
    public String key() {
        return recipe.key() + "-" + layout.name().toLowerCase(Locale.ROOT).replace('_', '-') + work.keyPart() + "-"
                + contenders;
    }

    @Override
    public List<Side> sides() {
        return sides;
    }

    @Override
    public String series() {
        return switch (layout) {
            case UNCONTENDED, HAND_OFF, CACHED -> "";
            case CLIENTS -> "separate clients";
            case SHARED_LOCK -> "threads sharing 1 lock object";
        };
    }

    @Override
    public int contenders() {
        return contenders;
    }

    @Override
    public void prepare(BenchEnsemble ensemble) throws Exception {
        for (Side side : sides) {
            if (side != Side.JDK) {
                ensemble.makePaths(recipe.lockPaths(path(ensemble, side)));
            }
        }
        ensemble.client(
                switch (layout) {
                    case SHARED_LOCK -> 0;
                    case CACHED -> 1; // the client that ends the caching after each round
                    default -> contenders - 1;
                });
    }

    @Override
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        if (layout == Layout.UNCONTENDED || layout == Layout.CACHED) {
            Map<Side, InterProcessLock> locks = new EnumMap<>(Side.class);
            for (Side side : order) {
                locks.put(side, recipe.make(side, ensemble.client(0), path(ensemble, side)));
            }
            Map<Side, Measurement> measured = AlternatingLoop.run(
                    order, locks, duration.multipliedBy(order.size()), ensemble, List.of(ensemble.client(0)));
            if (layout == Layout.CACHED) {
                endCaching(ensemble);
            }
            return measured;
        }
        Duration hold = layout == Layout.HAND_OFF ? HAND_OFF_HOLD : Duration.ZERO;
        return LockLoop.eachSide(
                order, side -> contenders(ensemble, side), duration, hold, work, ensemble, clients(ensemble));
    }

    /**
     * Makes the round's cached node go, its counting over: a waiter of another client ends the caching at once, so no
     * cached node, watch or timer of this round outlives it into the next scenario's counts.
     */
    private void endCaching(BenchEnsemble ensemble) throws Exception {
        InterProcessLock other = Recipe.reentrant().make(Side.ZKLOCK, ensemble.client(1), path(ensemble, Side.ZKLOCK));
        if (!other.acquire(END_CACHING_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new CommandFailure("the cached node of " + recipe.zklockName() + " on '" + path(ensemble, Side.ZKLOCK)
                    + "' was not released to another client within " + END_CACHING_WAIT.toSeconds() + " s");
        }
        other.release();
    }

    /** The clients the contenders run on: the one they share, or one each. */
    private List<CuratorFramework> clients(BenchEnsemble ensemble) throws InterruptedException {
        List<CuratorFramework> clients = new ArrayList<>();
        for (int i = 0; i < (layout == Layout.SHARED_LOCK ? 1 : contenders); i++) {
            clients.add(ensemble.client(i));
        }
        return clients;
    }

    private List<Contender> contenders(BenchEnsemble ensemble, Side side) throws InterruptedException {
        String path = path(ensemble, side);
        if (layout == Layout.SHARED_LOCK) {
            return Collections.nCopies(contenders, Contender.exclusive(recipe.make(side, ensemble.client(0), path)));
        }
        List<Contender> each = new ArrayList<>();
        for (int i = 0; i < contenders; i++) {
            InterProcessLock lock = recipe.make(side, ensemble.client(i), path);
            each.add(recipe.holders() > 1 ? Contender.lease(lock, recipe.holders()) : Contender.exclusive(lock));
        }
        return each;
    }

    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        List<BenchRow> rows = new ArrayList<>();
        if (layout == Layout.CACHED) {
            rows.add(targets.row(this, measured, ACQUIRE_P50, m -> m.acquireMillis(50)));
            rows.add(targets.row(this, measured, "acquire p99 (ms)", m -> m.acquireMillis(99)));
            rows.add(targets.row(this, measured, "release p50 (ms)", m -> m.releaseMillis(50)));
            rows.add(targets.row(this, measured, CYCLES_PER_SECOND, Measurement::perSecond));
            rows.add(targets.row(this, measured, REQUESTS_AFTER_THE_FIRST, Measurement::requestsPerAcquisition));
        } else if (layout == Layout.UNCONTENDED) {
            rows.add(targets.row(this, measured, ACQUIRE_P50, m -> m.acquireMillis(50)));
            rows.add(targets.row(this, measured, "acquire p99 (ms)", m -> m.acquireMillis(99)));
            rows.add(targets.row(this, measured, "release p50 (ms)", m -> m.releaseMillis(50)));
            Measurement raw = measured.get(Side.RAW);
            if (raw != null) {
                double create = raw.acquireMillis(50);
                rows.add(targets.row(this, measured, VS_RAW_CREATE, m -> m.acquireMillis(50) / create));
            }
            Measurement pair = measured.get(Side.RAW_LISTED);
            if (pair != null) {
                double floor = pair.acquireMillis(50);
                rows.add(targets.row(this, measured, VS_PIPELINED_PAIR, m -> m.acquireMillis(50) / floor));
            }
            rows.add(targets.row(this, measured, CYCLES_PER_SECOND, Measurement::perSecond));
            rows.add(targets.row(this, measured, REQUESTS_PER_CYCLE, Measurement::requestsPerAcquisition));
        } else {
            Measurement view = measured.get(Side.RAW_VIEW);
            if (layout != Layout.HAND_OFF) {
                BenchRow rate = targets.row(this, measured, ACQUISITIONS_PER_SECOND, Measurement::perSecond);
                rows.add(view == null ? rate : rate.withFloor(view.perSecond()));
            }
            if (recipe.holders() > 1) {
                // Lease holders are not one after another: no hand-off to time; the wait of an acquire instead.
                rows.add(targets.row(this, measured, ACQUIRE_P50, m -> m.acquireMillis(50)));
                rows.add(targets.row(this, measured, "acquire p99 (ms)", m -> m.acquireMillis(99)));
            } else {
                BenchRow handOff = targets.row(this, measured, HAND_OFF_P50, m -> m.handOffMillis(50));
                rows.add(view == null ? handOff : handOff.withFloor(view.handOffMillis(50)));
                rows.add(targets.row(this, measured, "hand-off p99 (ms)", m -> m.handOffMillis(99)));
            }
            rows.add(targets.row(this, measured, REQUESTS_PER_ACQUISITION, Measurement::requestsPerAcquisition));
            rows.add(targets.row(this, measured, WATCH_EVENTS_PER_RELEASE, Measurement::watchEventsPerRelease));
            Measurement jdk = measured.get(Side.JDK);
            if (jdk != null) {
                double rate = jdk.perSecond();
                rows.add(targets.row(this, measured, VS_JDK, m -> m.perSecond() / rate));
                if (!convoyRounds(jdk).isEmpty()) { // else no figure: the JDK lock never queued every acquire
                    rows.add(targets.row(this, measured, VS_JDK_CONVOY, m -> convoyRatio(m, jdk)));
                }
                rows.add(targets.row(
                        this, measured, THREAD_SWITCHES_PER_ACQUISITION, Measurement::threadSwitchesPerAcquisition));
            }
        }
        return rows;
    }

    /** The raw floor's rows beside an uncontended scenario, or the JDK fair lock's beside threads sharing a lock. */
    @Override
    public List<FloorRow> floorRows(Map<Side, Measurement> measured) {
        Measurement raw = measured.get(Side.RAW);
        Measurement jdk = measured.get(Side.JDK);
        if (layout == Layout.UNCONTENDED && raw != null) {
            return rawFloorRows(raw, measured.get(Side.RAW_LISTED), measured.get(Side.CURATOR));
        }
        Measurement view = measured.get(Side.RAW_VIEW);
        Measurement queue = measured.get(Side.RAW_QUEUE);
        if (view != null && queue != null) {
            return rawQueueRows(contenders + " clients", view, queue);
        }
        if (jdk != null) {
            String scenario = sharedLockName();
            return List.of(
                    new FloorRow(JDK_FAIR_LOCK, scenario, ACQUISITIONS_PER_SECOND, jdk.perSecond()),
                    new FloorRow(JDK_FAIR_LOCK, scenario, HAND_OFF_P50, jdk.handOffMillis(50)),
                    new FloorRow(JDK_FAIR_LOCK, scenario, "hand-off p99 (ms)", jdk.handOffMillis(99)),
                    new FloorRow(
                            JDK_FAIR_LOCK,
                            scenario,
                            THREAD_SWITCHES_PER_ACQUISITION,
                            jdk.threadSwitchesPerAcquisition()),
                    new FloorRow(JDK_FAIR_LOCK, scenario, FOUND_FREE, jdk.foundFreePercent()),
                    new FloorRow(
                            JDK_FAIR_LOCK,
                            scenario,
                            CONVOY_ROUNDS,
                            convoyRounds(jdk).size()));
        }
        return List.of();
    }

    /**
     * The median, over the rounds in which the JDK fair lock queued every acquire ({@link #convoyRounds}), of {@code
     * m}'s rate in that round over the JDK lock's; NaN if it never did, or the rounds' switches were not counted. Both
     * sides ran once in each round, so their paces pair up by round.
     */
    static double convoyRatio(Measurement m, Measurement jdk) {
        List<ParkCounts.Round> ours = m.parks().rounds();
        List<ParkCounts.Round> its = jdk.parks().rounds();
        List<Double> ratios = new ArrayList<>();
        for (int round : convoyRounds(jdk)) {
            if (round < ours.size()) {
                ratios.add(ours.get(round).perSecond() / its.get(round).perSecond());
            }
        }
        return Measurement.median(ratios);
    }

    /** The rounds, by number, in which the JDK fair lock queued every acquire ({@link #CONVOY_SWITCHES}). */
    static List<Integer> convoyRounds(Measurement jdk) {
        List<ParkCounts.Round> rounds = jdk.parks().rounds();
        List<Integer> convoys = new ArrayList<>();
        for (int round = 0; round < rounds.size(); round++) {
            if (rounds.get(round).switchesPerAcquisition() >= CONVOY_SWITCHES) {
                convoys.add(round);
            }
        }
        return convoys;
    }

    /**
     * The two raw queues' rows beside clients on one path: each queue's rate, hand-off and requests, and the view's
     * rate over the listing queue's, the most a queue view could gain over the default mode's protocol here.
     */
    private static List<FloorRow> rawQueueRows(String scenario, Measurement view, Measurement queue) {
        List<FloorRow> rows = new ArrayList<>(queueRows(RAW_VIEW_QUEUE, scenario, view));
        rows.add(new FloorRow(RAW_VIEW_QUEUE, scenario, VIEW_OVER_QUEUE, view.perSecond() / queue.perSecond()));
        rows.addAll(queueRows(RAW_LISTING_QUEUE, scenario, queue));
        return rows;
    }

    /** One raw queue's rows: its rate, hand-off p50 and requests per acquisition. */
    private static List<FloorRow> queueRows(String floor, String scenario, Measurement raw) {
        return List.of(
                new FloorRow(floor, scenario, ACQUISITIONS_PER_SECOND, raw.perSecond()),
                new FloorRow(floor, scenario, HAND_OFF_P50, raw.handOffMillis(50)),
                new FloorRow(floor, scenario, REQUESTS_PER_ACQUISITION, raw.requestsPerAcquisition()));
    }

    /**
     * The raw floor's rows; with a measured create + listing, also the lowest acquire ratio to Curator that a lock
     * which lists its queue after its create could reach on this server (its acquire p50 over Curator's).
     */
    private static List<FloorRow> rawFloorRows(Measurement raw, Measurement listed, Measurement curator) {
        String floor = RAW_FLOOR;
        String scenario = "uncontended";
        List<FloorRow> rows = new ArrayList<>(List.of(
                new FloorRow(floor, scenario, "create p50 (ms)", raw.acquireMillis(50)),
                new FloorRow(floor, scenario, "create p99 (ms)", raw.acquireMillis(99)),
                new FloorRow(floor, scenario, "delete p50 (ms)", raw.releaseMillis(50)),
                new FloorRow(floor, scenario, "cycles/s", raw.perSecond()),
                new FloorRow(floor, scenario, "requests per cycle", raw.requestsPerAcquisition())));
        if (listed != null) {
            double pair = listed.acquireMillis(50);
            rows.add(new FloorRow(floor, scenario, RAW_LISTED_P50, pair));
            rows.add(new FloorRow(
                    floor, scenario, "create + listing p50 / raw create p50", pair / raw.acquireMillis(50)));
            if (curator != null) {
                rows.add(new FloorRow(
                        floor,
                        scenario,
                        "create + listing p50 / Curator acquire p50",
                        pair / curator.acquireMillis(50)));
            }
        }
        return rows;
    }
}

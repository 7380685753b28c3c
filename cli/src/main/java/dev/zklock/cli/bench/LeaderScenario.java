package dev.zklock.cli.bench;

import dev.zklock.cli.Clients;
import dev.zklock.cli.ConnectString;
import dev.zklock.recipes.test.TcpProxy;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.data.Stat;

/**
 * One leadership pair ({@link LeaderPair}), zklock's recipe against its counterpart on the same server, side after side
 * in each round. Every round, for the round's time or {@link #MOST_HAND_OVER_TIME}, whichever is shorter: two
 * contestants on two clients of the pool take turns, each term given up by the recipe's own call ({@code close()}, a
 * return from {@code takeLeadership}, {@code yield()}) and timed from that call to the other's grant, the pair's
 * ZooKeeper requests counted by the server over those terms. In the first {@code faultRounds} measured rounds (not the
 * warm-up), two faults as well, each on an election of its own: a leader on a client with a {@link #SESSION_MS}
 * session behind a {@link TcpProxy} whose bytes are then held back both ways, timed to the leader's revocation as its
 * recipe delivers it (its listener's {@code notLeader}, the interrupt of {@code takeLeadership}, {@code onRevoked})
 * and to its client's SUSPENDED; and a leader in a child JVM ({@link LeaderChild}) killed by SIGKILL, timed to the
 * grant of a contestant queued behind it in this process. Confined to the bench's thread.
 *
 * <p>What a side measured goes into its {@link Measurement} as: the hand-overs in {@code handOffNanos}, the kills in
 * {@code acquireNanos}, the cuts in {@code releaseNanos}, the cut client's SUSPENDED in {@code exclusiveAcquireNanos},
 * the terms as its acquisitions (and the acquisitions the requests were counted over), faults that ended in no grant
 * or no revocation within their bound as its timeouts.
 */
final class LeaderScenario implements Scenario {
    /** The session of the cut leader and of the killed one: short, so the fault rows take seconds. */
    static final int SESSION_MS = 2_000;

    static final String HAND_OVER_P50 = "next leader after the hand-over call, p50 (ms)";
    static final String HAND_OVER_P99 = "next leader after the hand-over call, p99 (ms)";
    static final String SUSPENDED_AFTER_CUT = "leader's client SUSPENDED after the cut, p50 (ms)";
    static final String REVOKED_AFTER_CUT = "leader revoked after its connection is cut, p50 (ms)";
    static final String NEXT_AFTER_KILL = "next leader after kill -9 of the leader's process, p50 (ms)";
    static final String REQUESTS_PER_TERM = "requests per term";

    /**
     * The longest a side hands over in one round: hundreds of hand-overs for the recipes that hand over in a
     * millisecond or two, and a few for the registries' initiator (its heartbeat), so that the leadership rows of a
     * full bench take about 90 s, faults included.
     */
    static final Duration MOST_HAND_OVER_TIME = Duration.ofMillis(500);

    private static final Duration GRANT_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(60);

    /** How long a cut leader may take to be revoked before the cut counts as a timeout: well past its session. */
    private static final Duration REVOKE_BOUND = Duration.ofMillis(SESSION_MS + 3_000L);

    /** How long the next leader after a kill may take before the kill counts as a timeout. */
    private static final Duration KILL_BOUND = Duration.ofMillis(SESSION_MS * 2L + 10_000L);

    private final LeaderPair pair;
    private final int faultRounds;
    private final Targets targets = new Targets();
    private final List<Kill> kills = new ArrayList<>();
    private int rounds; // round() calls, the warm-up first
    private int steps; // elections made, each on a path of its own

    /**
     * What one kill showed: the child's process and session, and the session that owned the first node of the election
     * (the leader's) just before the kill.
     *
     * @param pid the child's process id
     * @param childSession the child's session id
     * @param leaderSession the owner of the election's first node before the kill
     * @param aliveAfter whether the child's process still ran after the kill
     */
    record Kill(long pid, long childSession, long leaderSession, boolean aliveAfter) {}

    private LeaderScenario(LeaderPair pair, int faultRounds) {
        if (faultRounds < 0) {
            throw new IllegalArgumentException("fault rounds must be 0 or more, not " + faultRounds);
        }
        this.pair = pair;
        this.faultRounds = faultRounds;
    }

    /** {@code pair}'s rows, with a cut and a kill per side in each of the first {@code faultRounds} measured rounds. */
    static LeaderScenario of(LeaderPair pair, int faultRounds) {
        return new LeaderScenario(pair, faultRounds);
    }

    /** Sets the target of the row named {@code metric}; returns this scenario. */
    LeaderScenario target(String metric, Target target) {
        targets.set(metric, target);
        return this;
    }

    /** Returns the kills so far, in order. */
    List<Kill> kills() {
        return List.copyOf(kills);
    }

    @Override
    public String group() {
        return pair.title();
    }

    @Override
    public String name() {
        return "hand-over by " + pair.handOverCall() + "; faults on " + SESSION_MS / 1000 + " s sessions";
    }

    @Override
    public String key() {
        return "leader-" + pair.key();
    }

    @Override
    public int contenders() {
        return 2;
    }

    @Override
    public void prepare(BenchEnsemble ensemble) throws Exception {
        for (Side side : sides()) {
            ensemble.makePath(path(ensemble, side));
        }
        ensemble.client(2);
    }

    @Override
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        boolean faults = rounds > 0 && rounds <= faultRounds;
        rounds++;
        Map<Side, Measurement> measured = new EnumMap<>(Side.class);
        for (Side side : order) {
            measured.put(side, side(ensemble, side, duration, faults));
        }
        return measured;
    }

    private Measurement side(BenchEnsemble ensemble, Side side, Duration duration, boolean faults) throws Exception {
        Histogram handOvers = Measurement.histogram();
        Histogram cuts = Measurement.histogram();
        Histogram suspensions = Measurement.histogram();
        Histogram killed = Measurement.histogram();
        long start = System.nanoTime();
        Duration time = duration.compareTo(MOST_HAND_OVER_TIME) < 0 ? duration : MOST_HAND_OVER_TIME;
        HandOvers terms = handOvers(ensemble, side, time, handOvers);
        long elapsed = System.nanoTime() - start;
        int missed = 0;
        if (faults) {
            missed += cut(ensemble, side, cuts, suspensions) ? 0 : 1;
            missed += kill(ensemble, side, killed) ? 0 : 1;
        }
        return new Measurement(
                terms.count(),
                0,
                missed,
                elapsed,
                killed,
                cuts,
                handOvers,
                suspensions,
                Measurement.histogram(),
                List.of(terms.count()),
                terms.count(),
                terms.window().requests(),
                terms.window().watchEvents(),
                0,
                ParkCounts.NONE);
    }

    /** The terms of a side's hand-overs and the server's counts over them. */
    private record HandOvers(long count, ServerReadings.Window window) {}

    private HandOvers handOvers(BenchEnsemble ensemble, Side side, Duration duration, Histogram times)
            throws Exception {
        String path = election(ensemble, side, "hand-over");
        TermLog log = new TermLog();
        List<CuratorFramework> clients = List.of(ensemble.client(1), ensemble.client(2));
        List<String> ids = List.of("a", "b");
        Contestant[] contestants = new Contestant[2];
        try {
            contestants[0] = started(side, clients.get(0), path, ids.get(0), log);
            awaitGranted(log, ids.get(0), 0);
            contestants[1] = started(side, clients.get(1), path, ids.get(1), log);
            awaitQueued(ensemble, path);
            Optional<ServerReadings> before = ensemble.counters(clients);
            long end = System.nanoTime() + duration.toNanos();
            long count = 0;
            int leader = 0;
            do {
                int next = 1 - leader;
                long call = System.nanoTime();
                contestants[leader].handOver();
                long granted = awaitGranted(log, ids.get(next), call);
                times.recordValue(Math.min(granted - call, Measurement.MAX_NANOS));
                if (!contestants[leader].entersAgain()) {
                    contestants[leader] = started(side, clients.get(leader), path, ids.get(leader), log);
                }
                awaitQueued(ensemble, path);
                count++;
                leader = next;
            } while (System.nanoTime() - end < 0);
            Optional<ServerReadings> after = ensemble.counters(clients);
            return new HandOvers(count, ServerReadings.Window.between(before, after));
        } finally {
            for (Contestant contestant : contestants) {
                if (contestant != null) {
                    contestant.close();
                }
            }
        }
    }

    /**
     * Cuts a leader's connection and records the time to its revocation, and to its client's SUSPENDED (what the
     * recipe's revocation waits for, but Spring's registry's connection check); false if the revocation did not come in
     * its bound.
     */
    private boolean cut(BenchEnsemble ensemble, Side side, Histogram times, Histogram suspensions) throws Exception {
        String path = election(ensemble, side, "cut");
        List<TcpProxy> proxies = new ArrayList<>();
        CuratorFramework client = null;
        Contestant leader = null;
        try {
            for (ConnectString.Server server : ensemble.connectString().servers()) {
                if (!InetAddress.getByName(server.host()).isLoopbackAddress()) {
                    throw new IllegalStateException("the leadership rows cut a connection through a proxy on this"
                            + " machine, so they need servers on it; " + server.host() + " is not");
                }
                proxies.add(TcpProxy.to(server.port()));
            }
            String connect = proxies.stream().map(TcpProxy::connectString).collect(Collectors.joining(","));
            client = Clients.connect(connect, "bench-cut", SESSION_MS, 10_000, b -> b.ensembleTracker(false));
            requireSession(client);
            TermLog log = new TermLog();
            leader = started(side, client, path, "cut", log);
            awaitGranted(log, "cut", 0);
            AtomicLong suspendedAt = new AtomicLong();
            CountDownLatch suspended = new CountDownLatch(1);
            client.getConnectionStateListenable().addListener((unused, state) -> {
                if (state == ConnectionState.SUSPENDED && suspended.getCount() > 0) {
                    suspendedAt.set(System.nanoTime());
                    suspended.countDown();
                }
            });
            long cutAt = System.nanoTime();
            for (TcpProxy proxy : proxies) {
                proxy.holdRequests();
                proxy.holdReplies();
            }
            long revoked = log.awaitRevoked("cut", cutAt, REVOKE_BOUND);
            long left = REVOKE_BOUND.toNanos() - (System.nanoTime() - cutAt);
            if (suspended.await(Math.max(0, left), TimeUnit.NANOSECONDS)) {
                suspensions.recordValue(Math.max(0, suspendedAt.get() - cutAt));
            }
            proxies.forEach(TcpProxy::resume);
            return recorded(times, revoked, cutAt);
        } finally {
            if (leader != null) {
                leader.close();
            }
            if (client != null) {
                client.close();
            }
            proxies.forEach(TcpProxy::close);
        }
    }

    /**
     * Kills a leader in a child JVM and records the time to the grant of the contestant queued behind it here; false if
     * that did not come in its bound.
     */
    private boolean kill(BenchEnsemble ensemble, Side side, Histogram times) throws Exception {
        String path = election(ensemble, side, "kill");
        Contestant next = null;
        try (LeaderChild child =
                LeaderChild.start(pair, side, ensemble.connectString().text(), path, "child", SESSION_MS)) {
            String[] session = child.await("session", CHILD_TIMEOUT).split(" ");
            requireSession(Integer.parseInt(session[1]));
            long childSession = Long.parseUnsignedLong(session[0], 16);
            child.await("granted", CHILD_TIMEOUT);
            TermLog log = new TermLog();
            next = started(side, ensemble.client(1), path, "next", log);
            awaitQueued(ensemble, path);
            long leaderSession = firstNodeOwner(ensemble.client(0), path);
            long killedAt = System.nanoTime();
            child.kill();
            kills.add(new Kill(child.pid(), childSession, leaderSession, child.isAlive()));
            return recorded(times, log.awaitGranted("next", killedAt, KILL_BOUND), killedAt);
        } finally {
            if (next != null) {
                next.close();
            }
        }
    }

    /** Records the time from {@code since} to {@code at} and returns true, or returns false if {@code at} is -1. */
    private static boolean recorded(Histogram times, long at, long since) {
        if (at < 0) {
            return false;
        }
        times.recordValue(Math.min(at - since, Measurement.MAX_NANOS));
        return true;
    }

    /** Makes and returns the path of a new election of {@code side}, one per hand-over run and fault. */
    private String election(BenchEnsemble ensemble, Side side, String what) throws Exception {
        String path = path(ensemble, side) + "/" + what + "-" + steps++;
        ensemble.makePath(path);
        return path;
    }

    private Contestant started(Side side, CuratorFramework client, String path, String id, TermLog log)
            throws Exception {
        Contestant contestant = pair.contestant(side, client, path, id, log);
        contestant.start();
        return contestant;
    }

    private static long awaitGranted(TermLog log, String id, long since) throws InterruptedException {
        long granted = log.awaitGranted(id, since, GRANT_TIMEOUT);
        if (granted < 0) {
            throw new IllegalStateException(
                    "contestant '" + id + "' was not granted within " + GRANT_TIMEOUT.toSeconds() + " s");
        }
        return granted;
    }

    /** Waits, on the pool's first client, until the election has two nodes: the leader's and one queued behind it. */
    private static void awaitQueued(BenchEnsemble ensemble, String path) throws Exception {
        CuratorFramework observer = ensemble.client(0);
        long end = System.nanoTime() + GRANT_TIMEOUT.toNanos();
        while (true) {
            CountDownLatch changed = new CountDownLatch(1);
            CuratorWatcher watcher = event -> changed.countDown();
            if (observer.getChildren().usingWatcher(watcher).forPath(path).size() >= 2) {
                return;
            }
            long left = end - System.nanoTime();
            if (left <= 0 || !changed.await(left, TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(
                        "no second participant queued on " + path + " within " + GRANT_TIMEOUT.toSeconds() + " s");
            }
        }
    }

    /** Returns the session that owns the election's first node by sequence: the leader's. */
    private static long firstNodeOwner(CuratorFramework observer, String path) throws Exception {
        String first = observer.getChildren().forPath(path).stream()
                .min(Comparator.comparing(node -> node.substring(Math.max(0, node.length() - 10))))
                .orElseThrow(() -> new IllegalStateException("no node on " + path));
        Stat stat = observer.checkExists().forPath(path + "/" + first);
        return stat == null ? 0 : stat.getEphemeralOwner();
    }

    private static void requireSession(CuratorFramework client) throws Exception {
        requireSession(client.getZookeeperClient().getZooKeeper().getSessionTimeout());
    }

    private static void requireSession(int negotiated) {
        if (negotiated != SESSION_MS) {
            throw new IllegalStateException("the server gave the leadership rows a session of " + negotiated
                    + " ms, not the " + SESSION_MS + " ms they need (a tick of at most " + SESSION_MS / 2 + " ms)");
        }
    }

    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        return List.of(
                targets.row(this, measured, HAND_OVER_P50, m -> m.handOffMillis(50)),
                targets.row(this, measured, HAND_OVER_P99, m -> m.handOffMillis(99)),
                targets.row(this, measured, SUSPENDED_AFTER_CUT, m -> m.exclusiveAcquireMillis(50)),
                targets.row(this, measured, REVOKED_AFTER_CUT, m -> m.releaseMillis(50)),
                targets.row(this, measured, NEXT_AFTER_KILL, m -> m.acquireMillis(50)),
                targets.row(this, measured, REQUESTS_PER_TERM, Measurement::requestsPerAcquisition));
    }
}

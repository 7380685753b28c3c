package dev.zklock.recipes.test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Injects the faults of a chaos run, one after the other, at the times a seeded plan gives. A fault that takes long
 * (a leader kill waits for the election and for the old leader to rejoin, a silence for the client to come back) delays
 * the next ones; none is skipped, so the sequence of faults is the plan's, but for one exception. A fault that cannot be
 * injected is counted as failed, with its reason; if no fault of its kind has been injected yet in the run, its kind is
 * owed, and the next planned fault of a kind already injected gives its time to it instead, up to
 * {@value #RETRIES_OF_A_KIND_NOT_YET_INJECTED} more times per kind (a silence the client never reports as SUSPENDED, a
 * known fault of ZooKeeper's client, had left a run without any silence; a retry at once pushed the plan's last first
 * fault past the run's end). Runs on its own thread; it tells the monitor
 * of every session it ends (or client it closes) before the server can delete the session's nodes, and of every lock
 * node its stranger deletes before the delete.
 */
final class FaultInjector implements Runnable {
    private static final Logger logger = LoggerFactory.getLogger(FaultInjector.class);

    /** How many more times a kind that has not been injected yet in the run is tried after a failure. */
    private static final int RETRIES_OF_A_KIND_NOT_YET_INJECTED = 2;

    /** One fault of the plan: when (from the start of the run), what, and a number that picks the client or server. */
    record Planned(long atMillis, FaultKind kind, int target) {}

    private final List<Planned> plan;
    private final EmbeddedZooKeeper servers;
    private final List<ClientSlot> slots;
    private final List<String> lockPaths;
    private final CuratorFramework stranger;
    private final List<String> strangerPaths;
    private final SafetyMonitor monitor;
    private final ChaosCounters counters;
    private final CountDownLatch stop;
    private final long startNanos;

    /**
     * @param lockPaths every lock path of the run, where holders are looked for
     * @param stranger the client that deletes lock nodes, or null if the plan has no {@link FaultKind#NODE_DELETE}
     * @param strangerPaths the lock paths whose nodes the stranger may delete
     */
    FaultInjector(
            List<Planned> plan,
            EmbeddedZooKeeper servers,
            List<ClientSlot> slots,
            List<String> lockPaths,
            CuratorFramework stranger,
            List<String> strangerPaths,
            SafetyMonitor monitor,
            ChaosCounters counters,
            CountDownLatch stop,
            long startNanos) {
        this.plan = List.copyOf(plan);
        this.servers = servers;
        this.slots = List.copyOf(slots);
        this.lockPaths = List.copyOf(lockPaths);
        this.stranger = stranger;
        this.strangerPaths = List.copyOf(strangerPaths);
        this.monitor = monitor;
        this.counters = counters;
        this.stop = stop;
        this.startNanos = startNanos;
    }

    /**
     * Draws the faults of a run from {@code random}: the times between them are exponential around the mean; the first
     * ones are one of each kind that applies to {@code serverCount} servers, the others are drawn by weight.
     */
    static List<Planned> plan(ChaosSettings settings, int serverCount, SplittableRandom random) {
        List<FaultKind> kinds = new ArrayList<>();
        List<Integer> weights = new ArrayList<>();
        for (FaultKind kind : FaultKind.values()) { // enum order, not the map's: the plan must not vary
            int weight = settings.faultWeights().getOrDefault(kind, 0);
            if (weight > 0 && kind.appliesTo(serverCount)) {
                kinds.add(kind);
                weights.add(weight);
            }
        }
        int total = weights.stream().mapToInt(Integer::intValue).sum();
        List<Planned> planned = new ArrayList<>();
        if (total == 0) {
            return planned;
        }
        // One of each kind first, in a drawn order, so that even a short run meets every kind; then draws by weight.
        List<FaultKind> first = new ArrayList<>(kinds);
        for (int i = first.size() - 1; i > 0; i--) {
            first.set(i, first.set(random.nextInt(i + 1), first.get(i)));
        }
        double mean = settings.meanFaultInterval().toMillis();
        long at = 0;
        while (true) {
            at += (long) Math.ceil(-mean * Math.log(1 - random.nextDouble()));
            if (at >= settings.duration().toMillis()) {
                return planned;
            }
            FaultKind kind =
                    planned.size() < first.size() ? first.get(planned.size()) : draw(kinds, weights, total, random);
            planned.add(new Planned(at, kind, random.nextInt(Integer.MAX_VALUE)));
        }
    }

    private static FaultKind draw(List<FaultKind> kinds, List<Integer> weights, int total, SplittableRandom random) {
        int pick = random.nextInt(total);
        int index = 0;
        while (pick >= weights.get(index)) {
            pick -= weights.get(index++);
        }
        return kinds.get(index);
    }

    @Override
    public void run() {
        try {
            Deque<FaultKind> owed = new ArrayDeque<>(); // kinds that failed before any of their kind was injected
            Map<FaultKind, Integer> retries = new EnumMap<>(FaultKind.class);
            for (Planned planned : plan) {
                long waitMillis = planned.atMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
                if (stop.await(Math.max(0, waitMillis), TimeUnit.MILLISECONDS)) {
                    return;
                }
                Planned fault = planned;
                if (!owed.isEmpty() && counters.injectedCount(planned.kind()) > 0) {
                    fault = new Planned(planned.atMillis(), owed.poll(), planned.target()); // a spare slot
                }
                if (!injectOnce(fault)
                        && counters.injectedCount(fault.kind()) == 0
                        && retries.merge(fault.kind(), 1, Integer::sum) <= RETRIES_OF_A_KIND_NOT_YET_INJECTED) {
                    owed.add(fault.kind());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Picks the client a client fault hits: for an even target, a client that holds the lock of path
     * {@code target / 2} now (the case that matters most: the hold is lost, or its release meets a dead connection, or
     * its local passes go on through a silence), else, or when nobody holds that path, client {@code target}. Which
     * path is the plan's; who holds it is the run's.
     */
    private ClientSlot victim(int target) {
        if (target % 2 == 0) {
            String path = lockPaths.get((target / 2) % lockPaths.size());
            for (SafetyMonitor.Claim claim : monitor.liveClaims(path)) {
                for (ClientSlot slot : slots) {
                    if (Sessions.current(slot.current().client()) == claim.sessionId()) {
                        return slot;
                    }
                }
            }
        }
        return slots.get(target % slots.size());
    }

    /** Injects {@code fault} once, counting it as injected or failed; returns whether it was injected. */
    private boolean injectOnce(Planned fault) throws InterruptedException {
        try {
            long began = System.nanoTime();
            String what = inject(fault);
            counters.injected(fault.kind());
            logger.debug(
                    "chaos: {} planned at {} ms, {} ms late, took {} ms: {}",
                    fault.kind(),
                    fault.atMillis(),
                    TimeUnit.NANOSECONDS.toMillis(began - startNanos) - fault.atMillis(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began),
                    what);
            return true;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            counters.faultFailed(fault.kind(), e);
            logger.warn("chaos: could not inject {}: {}", fault, e.toString());
            return false;
        }
    }

    /** Injects one fault; returns what it hit, for the debug log. */
    private String inject(Planned fault) throws Exception {
        switch (fault.kind()) {
            case SESSION_EXPIRY -> {
                ClientSlot slot = victim(fault.target());
                CuratorFramework client = slot.current().client();
                if (Sessions.current(client) == 0) {
                    throw new IllegalStateException("the client has no session to expire now");
                }
                int timeoutMs = client.getZookeeperClient().getConnectionTimeoutMs();
                long ended = Faults.expireSession(client, servers.connectString(), timeoutMs, monitor::sessionEnded);
                monitor.sessionEndAnswered(ended);
                return slot + ", session 0x" + Long.toHexString(ended);
            }
            case CONNECTION_DROP -> {
                ClientSlot slot = victim(fault.target());
                if (!Faults.dropConnection(slot.current().client())) {
                    throw new IllegalStateException("the client had no connection to drop");
                }
                return slot.toString();
            }
            case CONNECTION_SILENCE -> {
                return silence(victim(fault.target()), fault.target());
            }
            case NODE_DELETE -> {
                return deleteNode(fault.target());
            }
            case CLIENT_CLOSE -> {
                ClientSlot slot = victim(fault.target());
                long ended = slot.replace(monitor::sessionEnded);
                monitor.sessionEndAnswered(ended);
                return slot + ", session 0x" + Long.toHexString(ended);
            }
            case SERVER_RESTART -> {
                int server = fault.target() % servers.size();
                servers.stop(server);
                servers.restart(server);
                return "server " + server;
            }
            case LEADER_KILL -> {
                int leader = servers.leader();
                servers.stop(leader);
                servers.leader(); // the others elect a new leader before the old one returns
                servers.restart(leader);
                return "server " + leader;
            }
        }
        throw new AssertionError("no injection for fault kind " + fault.kind());
    }
    /** Silences the connection of the client of {@code slot}, for a time and with a cut that {@code target} draws. */
    private String silence(ClientSlot slot, int target) {
        ClientProxies proxies = slot.proxies()
                .orElseThrow(() -> new IllegalStateException("client " + slot + " connects without proxies"));
        SplittableRandom draws = new SplittableRandom(target); // the plan's, whatever the run does
        try {
            long session =
                    Faults.silenceConnection(slot.current().client(), proxies, draws.nextDouble(), draws.nextDouble());
            return slot + ", session 0x" + Long.toHexString(session);
        } catch (IllegalStateException e) { // the victim last, so that the report still adds reasons up
            throw new IllegalStateException(e.getMessage() + "; client " + slot, e);
        }
    }

    /**
     * Deletes, as the stranger, a lock node of the path {@code target} picks, telling the monitor first and once the
     * delete has its answer (or failed).
     */
    private String deleteNode(int target) {
        if (stranger == null || strangerPaths.isEmpty()) {
            throw new IllegalStateException("no lock path whose nodes a stranger may delete");
        }
        String path = strangerPaths.get(target % strangerPaths.size());
        long[] deleted = new long[1];
        try {
            return Faults.deleteLockNode(stranger, path, target / strangerPaths.size(), creationZxid -> {
                deleted[0] = creationZxid;
                monitor.nodeDeleted(path, creationZxid);
            });
        } finally {
            if (deleted[0] != 0) {
                monitor.nodeDeleteAnswered(path, deleted[0]);
            }
        }
    }
}

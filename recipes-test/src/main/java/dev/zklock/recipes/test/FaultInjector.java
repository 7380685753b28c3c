package dev.zklock.recipes.test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Injects the faults of a chaos run, one after the other, at the times a seeded plan gives. A fault that takes long
 * (a leader kill waits for the election and for the old leader to rejoin) delays the next ones; none is skipped, so the
 * sequence of faults is the plan's. Runs on its own thread; it tells the monitor of every session it ends before the
 * server can delete the session's nodes.
 */
final class FaultInjector implements Runnable {
    private static final Logger logger = LoggerFactory.getLogger(FaultInjector.class);

    /** One fault of the plan: when (from the start of the run), what, and a number that picks the client or server. */
    record Planned(long atMillis, FaultKind kind, int target) {}

    private final List<Planned> plan;
    private final EmbeddedZooKeeper servers;
    private final List<CuratorFramework> clients;
    private final List<String> lockPaths;
    private final SafetyMonitor monitor;
    private final ChaosCounters counters;
    private final CountDownLatch stop;
    private final long startNanos;

    FaultInjector(
            List<Planned> plan,
            EmbeddedZooKeeper servers,
            List<CuratorFramework> clients,
            List<String> lockPaths,
            SafetyMonitor monitor,
            ChaosCounters counters,
            CountDownLatch stop,
            long startNanos) {
        this.plan = List.copyOf(plan);
        this.servers = servers;
        this.clients = List.copyOf(clients);
        this.lockPaths = List.copyOf(lockPaths);
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
            for (Planned fault : plan) {
                long waitMillis = fault.atMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
                if (stop.await(Math.max(0, waitMillis), TimeUnit.MILLISECONDS)) {
                    return;
                }
                try {
                    inject(fault);
                    counters.injected(fault.kind());
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    counters.faultFailed(fault.kind(), e);
                    logger.warn("chaos: could not inject {}: {}", fault, e.toString());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Picks the client a session fault hits: for an even target, a client that holds the lock of path
     * {@code target / 2} now (the case that matters most: the hold is lost, or its release meets a dead connection),
     * else, or when nobody holds that path, client {@code target}. Which path is the plan's; who holds it is the run's.
     */
    private CuratorFramework victim(int target) {
        if (target % 2 == 0) {
            String path = lockPaths.get((target / 2) % lockPaths.size());
            for (SafetyMonitor.Claim claim : monitor.liveClaims(path)) {
                for (CuratorFramework client : clients) {
                    if (Sessions.current(client) == claim.sessionId()) {
                        return client;
                    }
                }
            }
        }
        return clients.get(target % clients.size());
    }

    private void inject(Planned fault) throws Exception {
        switch (fault.kind()) {
            case SESSION_EXPIRY -> {
                CuratorFramework client = victim(fault.target());
                if (Sessions.current(client) == 0) {
                    throw new IllegalStateException("the client has no session to expire now");
                }
                int timeoutMs = client.getZookeeperClient().getConnectionTimeoutMs();
                Faults.expireSession(client, servers.connectString(), timeoutMs, monitor::sessionEnded);
            }
            case CONNECTION_DROP -> {
                CuratorFramework client = victim(fault.target());
                if (!Faults.dropConnection(client)) {
                    throw new IllegalStateException("the client had no connection to drop");
                }
            }
            case SERVER_RESTART -> {
                int server = fault.target() % servers.size();
                servers.stop(server);
                servers.restart(server);
            }
            case LEADER_KILL -> {
                int leader = servers.leader();
                servers.stop(leader);
                servers.leader(); // the others elect a new leader before the old one returns
                servers.restart(leader);
            }
        }
    }
}

package dev.zklock.cli.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Several clients (sessions) on one lock path, each with one lock object that its threads share, each thread looping
 * acquire/release with nothing done while holding: for a lock with local hand-off, two cohorts taking turns at the
 * ZooKeeper queue. How many acquisitions each client gets, and how long the first acquire after the other client held
 * the lock waits: for a cohort, its leader's wait (the leader's acquire, from its call to its grant, while the other
 * cohort passes the lock among its own threads up to its bounds and then lets it go); for Curator, whose every thread
 * takes a node of its own, the acquire that follows another client's hold in the queue.
 */
final class ClientCohortScenario implements Scenario {
    static final String CLIENT_SHARE = "client %d's share of acquisitions (%%)";
    static final String SWITCH_WAIT_P50 = "first acquire after the other client's, wait p50 (ms)";
    static final String SWITCH_WAIT_P99 = "first acquire after the other client's, wait p99 (ms)";

    private final Recipe recipe;
    private final int clients;
    private final int threadsEach;
    private final Targets targets = new Targets();

    private ClientCohortScenario(Recipe recipe, int clients, int threadsEach) {
        this.recipe = recipe;
        this.clients = clients;
        this.threadsEach = threadsEach;
    }

    /** {@code clients} clients on one path, each with one lock object shared by {@code threadsEach} threads. */
    static ClientCohortScenario of(Recipe recipe, int clients, int threadsEach) {
        return new ClientCohortScenario(recipe, clients, threadsEach);
    }

    /** Returns the metric of client {@code i}'s share (from 1, as the report shows it). */
    static String clientShare(int i) {
        return String.format(CLIENT_SHARE, i);
    }

    /** Sets the target of the row named {@code metric}; returns this scenario. */
    ClientCohortScenario target(String metric, Target target) {
        targets.set(metric, target);
        return this;
    }

    @Override
    public String group() {
        return recipe.title();
    }

    @Override
    public String name() {
        String name = clients + " clients x " + threadsEach + " threads";
        return recipe.part().isEmpty() ? name : name + ", " + recipe.part();
    }

    @Override
    public String key() {
        return recipe.key() + "-client-cohorts-" + clients + "x" + threadsEach;
    }

    @Override
    public int contenders() {
        return clients * threadsEach;
    }

    @Override
    public void prepare(BenchEnsemble ensemble) throws Exception {
        for (Side side : sides()) {
            ensemble.makePath(path(ensemble, side));
        }
        ensemble.client(clients - 1);
    }

    @Override
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        return LockLoop.eachSide(order, side -> contenders(ensemble, side), duration, Duration.ZERO, ensemble);
    }

    private List<Contender> contenders(BenchEnsemble ensemble, Side side) throws InterruptedException {
        String path = path(ensemble, side);
        List<Contender> contenders = new ArrayList<>();
        for (int client = 0; client < clients; client++) {
            Contender shared = Contender.exclusive(recipe.make(side, ensemble.client(client), path))
                    .inGroup(client);
            contenders.addAll(Collections.nCopies(threadsEach, shared));
        }
        return contenders;
    }

    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        List<BenchRow> rows = new ArrayList<>();
        rows.add(targets.row(this, measured, LockScenario.ACQUISITIONS_PER_SECOND, Measurement::perSecond));
        for (int client = 0; client < clients; client++) {
            int group = client;
            rows.add(targets.row(this, measured, clientShare(client + 1), m -> m.sharePercent(group)));
        }
        rows.add(targets.row(this, measured, SWITCH_WAIT_P50, m -> m.switchAcquireMillis(50)));
        rows.add(targets.row(this, measured, SWITCH_WAIT_P99, m -> m.switchAcquireMillis(99)));
        rows.add(targets.row(this, measured, LockScenario.HAND_OFF_P50, m -> m.handOffMillis(50)));
        rows.add(targets.row(this, measured, "hand-off p99 (ms)", m -> m.handOffMillis(99)));
        rows.add(targets.row(
                this, measured, LockScenario.REQUESTS_PER_ACQUISITION, Measurement::requestsPerAcquisition));
        rows.add(
                targets.row(this, measured, LockScenario.WATCH_EVENTS_PER_RELEASE, Measurement::watchEventsPerRelease));
        return rows;
    }
}

package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.leader.ZkLeaderObserver;
import dev.zklock.recipes.test.history.HistoryWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * One client JVM of the partition rig: one Curator client and a worker thread per lock kind of each library (every
 * {@linkplain PartitionWorkloads workload}), each writing what it does to this JVM's history, until the run ends.
 *
 * <p>Every client JVM runs the same threads on the same lock paths, so the JVMs contend on each path; each thread's
 * random choices (hold and pause times) come from the seed, the client id and the thread's number. The history names
 * thread {@code k} (from 1, in the order of {@link PartitionWorkloads}) {@code <id>.t<k>}, and the JVM itself, for its
 * sessions, {@code <id>}. Every line is flushed when written, so a {@code kill -9} or a SIGSTOP loses nothing recorded.
 *
 * <p>A {@code ZkLeaderObserver} on each library's latch election records every leader change it tells ({@link
 * #OBSERVER_SUFFIX}).
 *
 * <p>At the end the threads finish their iteration (a hold is released), the client is closed (its session ends, and its
 * presence node with it) and {@code main} exits 0. The fenced sets' final reads are the observer's.
 *
 * <p>Confined to the thread that calls {@link #run}. Cost: the workloads' acquires and releases, a stat per Curator
 * hold (its token), and a create per session (the presence node).
 */
public final class PartitionClient {
    /**
     * The process name, after the client id, of the JVM's {@code ZkLeaderObserver}s on {@link
     * PartitionWorkloads#observedElections}: each records each change as {@code <id>.obs ok leader <election> <GRANTED or
     * REVOKED> <participant> <epoch>}.
     */
    static final String OBSERVER_SUFFIX = ".obs";

    private final ClientOptions options;
    private final CuratorFramework client;

    /**
     * Makes a client JVM's workload; nothing starts until {@link #run}.
     *
     * @param options what the rig said
     */
    public PartitionClient(ClientOptions options) {
        this.options = Objects.requireNonNull(options, "options");
        this.client = CuratorFrameworkFactory.builder()
                .connectString(options.connect())
                .sessionTimeoutMs(options.sessionTimeoutMs())
                .connectionTimeoutMs(Math.max(1, options.sessionTimeoutMs() / 3))
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
    }

    /**
     * Runs one client JVM: {@code --id c<i> --connect <cs> --history <file> --seed <S> --seconds <s>
     * --session-timeout-ms <ms> [--store <dir>]} ({@link ClientOptions#parse}); exits 0 at the end of the run, 2 for a
     * bad command line, 1 for any other failure.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        ClientOptions options = Mains.parseOrExit(() -> ClientOptions.parse(args));
        long end = System.nanoTime() + options.runLength().toNanos();
        Mains.runAndExit(() -> new PartitionClient(options).run(() -> System.nanoTime() - end >= 0));
    }

    /**
     * Starts the client and the workers, waits for them to see {@code stop} and finish their iteration, then closes
     * the client and the history.
     *
     * @param stop tells the workers, between iterations, that the run is over
     * @throws InterruptedException if the calling thread is interrupted while the workers run; they are stopped too
     */
    public void run(BooleanSupplier stop) throws InterruptedException {
        Objects.requireNonNull(stop, "stop");
        try (HistoryWriter history = HistoryWriter.open(options.history());
                Presence presence = new Presence(client, options.id(), history)) {
            List<Worker> workers = workers(history, stop);
            client.getConnectionStateListenable().addListener(presence);
            client.getConnectionStateListenable().addListener((c, state) -> {
                // The client's own line, for the checkers (HoldStateChecker: granted while suspended)
                history.record(options.id(), "info", "connection", "-", state.name());
                for (Worker worker : workers) {
                    worker.connectionChanged(state);
                }
            });
            client.start();
            List<ZkLeaderObserver> observers = new ArrayList<>();
            for (String election : PartitionWorkloads.observedElections()) {
                observers.add(ZkLeaderObserver.observe(
                        client,
                        election,
                        change -> history.record(
                                options.id() + OBSERVER_SUFFIX,
                                "ok",
                                "leader",
                                election,
                                change.kind().name() + " " + change.participant() + " " + change.epoch())));
            }
            List<Thread> threads = new ArrayList<>();
            for (int k = 0; k < workers.size(); k++) {
                Thread thread = new Thread(workers.get(k), options.id() + ".t" + (k + 1));
                thread.setDaemon(true);
                thread.start();
                threads.add(thread);
            }
            try {
                for (Thread thread : threads) {
                    thread.join();
                }
            } finally {
                threads.forEach(Thread::interrupt);
                observers.forEach(ZkLeaderObserver::close);
                client.close();
            }
        }
    }

    /** The client's session now (0 while it has none): read locally, no request. */
    private long sessionId() {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception noHandle) {
            return 0; // the client is closing
        }
    }

    /** Returns the Curator client, for tests that fault its session. */
    CuratorFramework client() {
        return client;
    }

    private List<Worker> workers(HistoryWriter history, BooleanSupplier stop) {
        Stores stores = new Stores(options.store(), options.id());
        List<Worker> workers = new ArrayList<>();
        for (PartitionWorkloads.Workload workload : PartitionWorkloads.all()) {
            if (!workload.runsOn(options.id())) {
                continue;
            }
            List<Target> targets =
                    workload.targets().make(client, workload.key(), options.id() + ".t" + (workers.size() + 1));
            for (int i = 0; i < targets.size(); i++) {
                String process = options.id() + ".t" + (workers.size() + 1);
                SplittableRandom random =
                        new SplittableRandom(options.seed() ^ (process.hashCode() * 0x9E3779B97F4A7C15L));
                Worker worker = new Worker(
                        process,
                        workload.key(),
                        workload.modes().get(i),
                        targets.get(i),
                        history,
                        stores,
                        random,
                        stop,
                        this::sessionId,
                        workload.maxOutsideMillis(),
                        workload.minHoldMillis(),
                        workload.maxHoldMillis());
                targets.get(i).addStateListener(worker::stateChanged);
                workers.add(worker);
            }
        }
        return workers;
    }
}

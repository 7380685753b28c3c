package dev.zklock.cli.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Readers and writers of one read/write lock at once, each looping acquire/release with nothing done while holding:
 * how many readers get in while writers keep queueing among them, how long a writer waits, and what that costs in
 * requests and watch events. Either every reader and writer has a client (session) and lock object of its own, or the
 * readers are threads of one process sharing one client and one lock object (for zklock, built with local hand-off)
 * and each writer has a client of its own. {@code ZkReadWriteLock} against Curator's {@code InterProcessReadWriteLock},
 * one side after the other.
 */
final class ReadWriteScenario implements Scenario {
    static final String READER_ACQUISITIONS_PER_SECOND = "reader acquisitions/s";
    static final String WRITER_ACQUISITIONS_PER_SECOND = "writer acquisitions/s";
    static final String WRITER_WAIT_P99 = "writer wait p99 (ms)";

    private final Recipe read;
    private final Recipe write = Recipe.writeLock();
    private final int readers;
    private final int writers;
    private final boolean readersShareALock;
    private final Targets targets = new Targets();

    private ReadWriteScenario(Recipe read, int readers, int writers, boolean readersShareALock) {
        this.read = read;
        this.readers = readers;
        this.writers = writers;
        this.readersShareALock = readersShareALock;
    }

    /** {@code readers} readers and {@code writers} writers, each on a client of its own. */
    static ReadWriteScenario mix(int readers, int writers) {
        return new ReadWriteScenario(Recipe.readLock(), readers, writers, false);
    }

    /**
     * {@code readers} reader threads sharing one client and one lock object made by {@code read}, and {@code writers}
     * writers, each on a client of its own.
     */
    static ReadWriteScenario sharedReaders(Recipe read, int readers, int writers) {
        return new ReadWriteScenario(read, readers, writers, true);
    }

    /** Sets the target of the row named {@code metric}; returns this scenario. */
    ReadWriteScenario target(String metric, Target target) {
        targets.set(metric, target);
        return this;
    }

    @Override
    public String group() {
        return read.title();
    }

    @Override
    public String name() {
        String writerClients = writers + (writers == 1 ? " writer" : " writers");
        if (!readersShareALock) {
            return readers + " readers + " + writerClients + ", separate clients";
        }
        String name = readers + " reader threads + " + writerClients + (writers == 1 ? " client" : " clients");
        return name + (read.part().endsWith("local hand-off") ? ", local hand-off" : "");
    }

    @Override
    public String key() {
        return (readersShareALock ? read.key() + "-mix-" : "readwrite-mix-") + readers + "-" + writers;
    }

    @Override
    public int contenders() {
        return readers + writers;
    }

    @Override
    public void prepare(BenchEnsemble ensemble) throws Exception {
        for (Side side : sides()) {
            ensemble.makePath(path(ensemble, side));
        }
        ensemble.client(readersShareALock ? writers : contenders() - 1);
    }

    @Override
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        return LockLoop.eachSide(order, side -> contenders(ensemble, side), duration, Duration.ZERO, ensemble);
    }

    private List<Contender> contenders(BenchEnsemble ensemble, Side side) throws InterruptedException {
        String path = path(ensemble, side);
        List<Contender> contenders = new ArrayList<>();
        if (readersShareALock) {
            contenders.addAll(
                    Collections.nCopies(readers, Contender.reader(read.make(side, ensemble.client(0), path))));
        } else {
            for (int i = 0; i < readers; i++) {
                contenders.add(Contender.reader(read.make(side, ensemble.client(i), path)));
            }
        }
        int firstWriter = readersShareALock ? 1 : readers;
        for (int i = firstWriter; i < firstWriter + writers; i++) {
            contenders.add(Contender.exclusive(write.make(side, ensemble.client(i), path)));
        }
        return contenders;
    }

    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        List<BenchRow> rows = new ArrayList<>();
        rows.add(targets.row(this, measured, READER_ACQUISITIONS_PER_SECOND, Measurement::sharedPerSecond));
        rows.add(targets.row(this, measured, WRITER_ACQUISITIONS_PER_SECOND, Measurement::exclusivePerSecond));
        if (readersShareALock) {
            rows.add(targets.row(this, measured, "writer wait p50 (ms)", m -> m.exclusiveAcquireMillis(50)));
            rows.add(targets.row(this, measured, WRITER_WAIT_P99, m -> m.exclusiveAcquireMillis(99)));
        }
        rows.add(targets.row(
                this, measured, LockScenario.REQUESTS_PER_ACQUISITION, Measurement::requestsPerAcquisition));
        rows.add(
                targets.row(this, measured, LockScenario.WATCH_EVENTS_PER_RELEASE, Measurement::watchEventsPerRelease));
        return rows;
    }
}

package dev.zklock.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Readers and writers of one read/write lock at once, each with a client (session) and lock object of its own, each
 * looping acquire/release with nothing done while holding: how many readers get in while writers keep queueing among
 * them, and what that costs in requests and watch events. {@code ZkReadWriteLock} against Curator's
 * {@code InterProcessReadWriteLock}, one side after the other.
 */
final class ReadWriteScenario implements Scenario {
    static final String READER_ACQUISITIONS_PER_SECOND = "reader acquisitions/s";
    static final String WRITER_ACQUISITIONS_PER_SECOND = "writer acquisitions/s";

    private final Recipe read = Recipe.readLock();
    private final Recipe write = Recipe.writeLock();
    private final int readers;
    private final int writers;
    private final Targets targets = new Targets();

    private ReadWriteScenario(int readers, int writers) {
        this.readers = readers;
        this.writers = writers;
    }

    /** {@code readers} readers and {@code writers} writers, each on a client of its own. */
    static ReadWriteScenario mix(int readers, int writers) {
        return new ReadWriteScenario(readers, writers);
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
        return readers + " readers + " + writers + (writers == 1 ? " writer" : " writers") + ", separate clients";
    }

    @Override
    public String key() {
        return "readwrite-mix-" + readers + "-" + writers;
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
        ensemble.client(contenders() - 1);
    }

    @Override
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        return LockLoop.eachSide(order, side -> contenders(ensemble, side), duration, Duration.ZERO, ensemble);
    }

    private List<Contender> contenders(BenchEnsemble ensemble, Side side) throws InterruptedException {
        String path = path(ensemble, side);
        List<Contender> contenders = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            contenders.add(Contender.reader(read.make(side, ensemble.client(i), path)));
        }
        for (int i = readers; i < readers + writers; i++) {
            contenders.add(Contender.exclusive(write.make(side, ensemble.client(i), path)));
        }
        return contenders;
    }

    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        return List.of(
                targets.row(this, measured, READER_ACQUISITIONS_PER_SECOND, Measurement::sharedPerSecond),
                targets.row(this, measured, WRITER_ACQUISITIONS_PER_SECOND, Measurement::exclusivePerSecond),
                targets.row(this, measured, LockScenario.REQUESTS_PER_ACQUISITION, Measurement::requestsPerAcquisition),
                targets.row(this, measured, LockScenario.WATCH_EVENTS_PER_RELEASE, Measurement::watchEventsPerRelease));
    }
}

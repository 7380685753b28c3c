package dev.zklock.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;

/**
 * A {@link LeaderLatchListener} that records what it is told, in order, with the time ({@link System#nanoTime()}) and,
 * for a zklock latch's {@code isLeader}, the epoch read inside the callback. Tests take the events one at a time.
 */
final class LeaderEvents implements LeaderLatchListener {
    /** One call: {@code isLeader} or {@code notLeader}, when, and the epoch (0 if none was read). */
    record Told(boolean leader, long nanos, long epoch) {}

    private final BlockingQueue<Told> told = new LinkedBlockingQueue<>();
    private volatile ZkLeaderLatch latch; // read for its epoch at isLeader; null for a Curator latch

    LeaderEvents(ZkLeaderLatch latch) {
        this.latch = latch;
    }

    /** Returns events added as a listener of {@code latch}, which read its epoch at each {@code isLeader}. */
    static LeaderEvents listenedTo(ZkLeaderLatch latch) {
        LeaderEvents events = new LeaderEvents(latch);
        latch.addListener(events);
        return events;
    }

    /** Has {@code isLeader} read the epoch of {@code latch}. */
    void readEpochOf(ZkLeaderLatch latch) {
        this.latch = latch;
    }

    @Override
    public void isLeader() {
        long now = System.nanoTime();
        long epoch = 0;
        ZkLeaderLatch latch = this.latch;
        if (latch != null) {
            try {
                epoch = latch.epoch();
            } catch (IllegalStateException gone) {
                epoch = -1; // deposed again before the callback ran
            }
        }
        told.add(new Told(true, now, epoch));
    }

    @Override
    public void notLeader() {
        told.add(new Told(false, System.nanoTime(), 0));
    }

    /** Takes the next event, waiting at most 30 s; fails if none comes or it is not of the kind expected. */
    Told next(boolean leader) throws InterruptedException {
        Told next = told.poll(30, TimeUnit.SECONDS);
        assertThat(next).as("an event within 30 s").isNotNull();
        assertThat(next.leader()).as("isLeader (true) or notLeader (false)").isEqualTo(leader);
        return next;
    }

    /** Tells whether nothing was told that no test took yet. */
    boolean isQuiet() {
        return told.isEmpty();
    }
}

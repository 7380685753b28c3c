package dev.zklock.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;

/**
 * A {@link LeaderLatchListener} that records what it is told, in order, with the time ({@link System#nanoTime()}) and,
 * for a zklock latch's {@code isLeader}, the epoch read inside the callback; and, as a {@link LeaderTermListener}, the
 * epoch and cause of each term's end. Tests take the events one at a time.
 */
final class LeaderEvents implements LeaderTermListener {
    /** One call: {@code isLeader} or {@code notLeader}, when, and the epoch (0 if none was read). */
    record Told(boolean leader, long nanos, long epoch) {}

    /** One term's end as a {@link LeaderTermListener} hears it. */
    record Ended(long epoch, TermEnd why) {}

    private final BlockingQueue<Told> told = new LinkedBlockingQueue<>();
    private final BlockingQueue<Long> granted = new LinkedBlockingQueue<>();
    private final BlockingQueue<Ended> ended = new LinkedBlockingQueue<>();
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

    @Override
    public void granted(long epoch) {
        granted.add(epoch);
    }

    @Override
    public void revoked(long epoch, TermEnd why) {
        ended.add(new Ended(epoch, why));
    }

    /** Takes the epoch of the next {@code granted}, waiting at most 30 s; fails if none comes. */
    long nextGranted() throws InterruptedException {
        Long next = granted.poll(30, TimeUnit.SECONDS);
        assertThat(next).as("a granted within 30 s").isNotNull();
        return next;
    }

    /** Takes the next {@code revoked}, waiting at most 30 s; fails if none comes. */
    Ended nextEnd() throws InterruptedException {
        Ended next = ended.poll(30, TimeUnit.SECONDS);
        assertThat(next).as("a revoked within 30 s").isNotNull();
        return next;
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

package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;

/** Every candidate's terms: who leads, when each term began and its onRevoked returned, and overlaps. */
final class InitiatorTerms {
    final Map<String, Long> granted = new ConcurrentHashMap<>();
    final Map<String, Long> epochs = new ConcurrentHashMap<>();
    final Map<String, Long> revokeReturned = new ConcurrentHashMap<>();
    final CountDownLatch revokeBegan = new CountDownLatch(1);
    private volatile CountDownLatch revokeWaitsFor; // null: onRevoked returns at once
    private String leader; // guarded by this
    private int overlaps; // guarded by this
    private int grantedCount; // guarded by this

    synchronized void granted(String id, Context ctx) {
        if (leader != null) {
            overlaps++;
        }
        leader = id;
        grantedCount++;
        granted.put(id, System.nanoTime());
        if (ctx instanceof ZkLeaderInitiator.LeaderContext ours) { // Spring's own initiator's context has none
            epochs.put(id, ours.epoch());
        }
    }

    void revoked(String id) throws InterruptedException {
        synchronized (this) {
            if (id.equals(leader)) {
                leader = null;
            }
        }
        revokeBegan.countDown();
        CountDownLatch waiting = revokeWaitsFor;
        if (waiting != null) {
            assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
        }
        revokeReturned.put(id, System.nanoTime());
    }

    void holdRevokes() {
        revokeWaitsFor = new CountDownLatch(1);
    }

    void release() {
        CountDownLatch waiting = revokeWaitsFor;
        if (waiting != null) {
            waiting.countDown();
        }
    }

    synchronized String leader() {
        return leader;
    }

    synchronized int overlaps() {
        return overlaps;
    }

    synchronized int grantedCount() {
        return grantedCount;
    }

    long grantedAt(String id) {
        return granted.get(id);
    }

    /** From the old leader's {@code onRevoked} returning to the next's {@code onGranted}; negative: overlap. */
    long revokedToGrantedMicros(String old, String next) {
        return TimeUnit.NANOSECONDS.toMicros(granted.get(next) - revokeReturned.get(old));
    }
}

/** A candidate of {@link ZkLeaderInitiatorTest} that records its terms; open so a test can change a callback. */
class RecordingCandidate implements Candidate {
    private final String id;
    private final String role;
    private final InitiatorTerms terms;

    RecordingCandidate(String id, String role, InitiatorTerms terms) {
        this.id = id;
        this.role = role;
        this.terms = terms;
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public String getRole() {
        return role;
    }

    @Override
    public void onGranted(Context ctx) {
        terms.granted(id, ctx);
    }

    @Override
    public void onRevoked(Context ctx) {
        try {
            terms.revoked(id);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

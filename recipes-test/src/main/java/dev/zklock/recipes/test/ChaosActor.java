package dev.zklock.recipes.test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread of the chaos workload: until told to stop, picks a lock, acquires it with a drawn timeout, holds it for a
 * drawn time and releases it, telling the monitor of each step. Each round takes the lock objects of the client its
 * {@link ClientSlot} runs on then; what a round does on a client that a fault closes under it is counted apart from
 * the errors. Confined to its thread.
 */
final class ChaosActor implements Runnable {
    private static final Logger logger = LoggerFactory.getLogger(ChaosActor.class);

    private final String name;
    private final LockKind kind;
    private final ClientSlot slot;
    private final boolean ownLockObjects;
    private final SafetyMonitor monitor;
    private final ChaosCounters counters;
    private final SplittableRandom random;
    private final ChaosSettings settings;
    private final CountDownLatch stop;
    private ClientSlot.Life ownFor; // the client life of own, if the thread has lock objects of its own
    private List<Contender> own;

    /**
     * @param ownLockObjects whether the thread makes lock objects of its own on each client of its slot, rather than
     *     share the slot's
     */
    ChaosActor(
            String name,
            LockKind kind,
            ClientSlot slot,
            boolean ownLockObjects,
            SafetyMonitor monitor,
            ChaosCounters counters,
            SplittableRandom random,
            ChaosSettings settings,
            CountDownLatch stop) {
        this.name = name;
        this.kind = kind;
        this.slot = slot;
        this.ownLockObjects = ownLockObjects;
        this.monitor = monitor;
        this.counters = counters;
        this.random = random;
        this.settings = settings;
        this.stop = stop;
    }

    @Override
    public void run() {
        while (stop.getCount() > 0) {
            if (!round()) {
                return;
            }
        }
    }

    /** One acquire, hold and release; false if the thread was interrupted, which only a run that gives up does. */
    private boolean round() {
        ClientSlot.Life life = slot.current();
        if (life.isClosed()) { // the process restarts: its threads wait for the new client rather than spin
            try {
                life.awaitReplaced(settings.maxAcquireTimeout());
            } catch (InterruptedException e) {
                return false;
            }
            life = slot.current();
        }
        // Every round draws the same numbers, whatever happens, so a seed replays each thread's choices.
        int pick = random.nextInt(slot.lockObjects());
        Duration timeout = drawTimeout();
        long holdNanos = drawHold();
        List<Contender> contenders;
        try {
            contenders = contenders(life);
        } catch (RuntimeException e) { // lock objects of its own, made on a client closed a moment ago
            if (!life.isClosed()) {
                throw e;
            }
            counters.onClosedClient(kind.name() + " new lock object: " + ChaosCounters.describe(e));
            return true;
        }
        Contender contender = contenders.get(pick);
        SafetyMonitor.Waiter waiter = monitor.startWaiting(name, contender.lockPaths());
        Optional<List<SafetyMonitor.Claim>> claims;
        try {
            claims = contender.acquire(timeout);
        } catch (InterruptedException e) {
            return false; // the waiter stays unfinished: the run gave up on it, and the report counts it as stuck
        } catch (Exception e) {
            waiter.finished();
            failed("acquire", contender, life, e);
            return true;
        }
        waiter.finished();
        if (life.isClosed()) {
            counters.onClosedClient(kind.name() + " acquire: " + (claims.isEmpty() ? "timed out" : "held"));
            counters.acquireEndedAfterClose(life.sinceCloseNanos());
        }
        if (claims.isEmpty()) {
            counters.timedOut();
            return true;
        }
        counters.acquired(kind);
        if (claims.get().isEmpty()) {
            counters.unidentifiedHold();
        }
        List<SafetyMonitor.Hold> holds =
                claims.get().stream().map(claim -> monitor.enter(name, claim)).toList();
        if (holds.stream().anyMatch(SafetyMonitor.Hold::isSameNodeAsBefore)) {
            counters.onSameNode(kind);
        }
        LockSupport.parkNanos(holdNanos); // the holder's work: the longer it holds, the likelier an overlap shows
        holds.forEach(SafetyMonitor.Hold::exit);
        try {
            contender.release();
        } catch (Exception e) {
            failed("release", contender, life, e);
        }
        return true;
    }

    /** The lock objects of the slot's client now: the slot's, or the thread's own, made again for a new client. */
    private List<Contender> contenders(ClientSlot.Life life) {
        if (!ownLockObjects) {
            return life.shared();
        }
        if (ownFor != life) {
            own = slot.newContenders(life);
            ownFor = life;
        }
        return own;
    }

    /** Up to the maximum hold; one hold in ten up to ten times longer, so that faults aimed at holders find some. */
    private long drawHold() {
        boolean longHold = random.nextInt(10) == 0;
        long nanos = random.nextLong(settings.maxHold().toNanos() + 1);
        return longHold ? nanos * 10 : nanos;
    }

    private Duration drawTimeout() {
        boolean once = random.nextInt(5) == 0;
        long maxNanos = settings.maxAcquireTimeout().toNanos();
        long nanos = maxNanos == 0 ? 0 : 1 + random.nextLong(maxNanos);
        return once ? Duration.ZERO : Duration.ofNanos(nanos);
    }

    private void failed(String operation, Contender contender, ClientSlot.Life life, Exception e) {
        if (life.isClosed()) {
            counters.onClosedClient(kind.name() + " " + operation + ": " + ChaosCounters.describe(e));
            if (operation.equals("acquire")) {
                counters.acquireEndedAfterClose(life.sinceCloseNanos());
            }
            return;
        }
        if (counters.error(kind, operation, e)) {
            logger.warn("chaos: {} {} of {} failed (first of its sort)", name, operation, contender, e);
        }
    }
}

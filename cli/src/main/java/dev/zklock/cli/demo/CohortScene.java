package dev.zklock.cli.demo;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.utils.ZKPaths;

/**
 * The cohort part of the demo: the threads of one client share a {@link ZkReentrantLock} built with local hand-off and
 * pass it among themselves with no ZooKeeper request (the node stays; each pass adds one to the fencing token); then a
 * second client asks for the same path, and the cohort lets it in within its bound of {@value #MAX_PASSES} passes.
 */
final class CohortScene {
    /** The bound of local passes once another client waits: small, so that the demo shows it. */
    static final int MAX_PASSES = 4;

    private static final int THREADS = 3;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Ensemble ensemble;
    private final Screen screen;
    private final String path;
    private final int rounds;
    private final long holdMs;
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger timeouts = new AtomicInteger();
    private final AtomicInteger localPasses = new AtomicInteger();
    private final AtomicInteger holdsWhileBobWaits = new AtomicInteger();
    private final AtomicBoolean bobWaits = new AtomicBoolean();

    CohortScene(Ensemble ensemble, Screen screen, String path, int rounds, long holdMs) {
        this.ensemble = ensemble;
        this.screen = screen;
        this.path = path;
        this.rounds = rounds;
        this.holdMs = holdMs;
    }

    Outcome play() throws Exception {
        ZkReentrantLock cohort = ZkReentrantLock.builder(ensemble.newClient("alice"), path)
                .localHandOff(MAX_PASSES, Duration.ofSeconds(1))
                .build();
        ZkReentrantLock bob = new ZkReentrantLock(ensemble.newClient("bob"), path);
        screen.say(
                "cohort lock %s: alice's %d threads share one lock object with local hand-off (at most %d passes"
                        + " while another client waits); bob, another client, asks after alice's first hold",
                path, THREADS, MAX_PASSES);
        CountDownLatch aliceHolds = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(THREADS + 1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 1; i <= THREADS; i++) {
                String name = "alice" + i;
                done.add(threads.submit(() -> loop(name, cohort, aliceHolds)));
            }
            done.add(threads.submit(() -> bob(bob, aliceHolds)));
            for (Future<?> future : done) {
                future.get(2, TimeUnit.MINUTES);
            }
        } finally {
            threads.shutdownNow();
        }
        int nodesLeft = bob.participantNodes().size();
        screen.say(
                "cohort lock: %d of alice's %d holds were local passes, with no ZooKeeper request",
                localPasses.get(), THREADS * rounds);
        Outcome outcome = new Outcome("cohort lock", overlaps.get(), timeouts.get(), nodesLeft);
        screen.say("%s", outcome.line());
        return outcome;
    }

    private Void loop(String name, ZkReentrantLock cohort, CountDownLatch aliceHolds) throws Exception {
        for (int round = 0; round < rounds; round++) {
            if (!cohort.acquire(TIMEOUT)) {
                timeouts.incrementAndGet();
                continue;
            }
            long token = cohort.fencingToken();
            int pass = FencingToken.pass(token);
            if (pass > 0) {
                localPasses.incrementAndGet();
            }
            if (bobWaits.get()) {
                holdsWhileBobWaits.incrementAndGet();
            }
            enter();
            screen.say(
                    "%-6s holds    token %d   node %s, %s",
                    name,
                    token,
                    ZKPaths.getNodeFromPath(cohort.getLockPath()),
                    pass == 0 ? "a new node" : "pass " + pass + ": a local pass, no request");
            aliceHolds.countDown();
            Thread.sleep(holdMs); // the holder's work
            leave();
            cohort.release();
        }
        return null;
    }

    private Void bob(ZkReentrantLock bob, CountDownLatch aliceHolds) throws Exception {
        aliceHolds.await();
        screen.say("bob    asks for the lock: it queues behind alice's node");
        bobWaits.set(true);
        if (!bob.acquire(TIMEOUT)) {
            timeouts.incrementAndGet();
            return null;
        }
        bobWaits.set(false);
        enter();
        screen.say(
                "bob    holds    token %d   after %d more holds of alice's (bound: %d passes once the cohort knows)",
                bob.fencingToken(), holdsWhileBobWaits.get(), MAX_PASSES);
        Thread.sleep(holdMs);
        leave();
        bob.release();
        screen.say("bob    released");
        return null;
    }

    private void enter() {
        if (inside.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
    }

    private void leave() {
        inside.decrementAndGet();
    }
}

package dev.zklock.cli.demo;

import dev.zklock.recipes.leader.LeaderChanged;
import dev.zklock.recipes.leader.ZkLeaderLatch;
import dev.zklock.recipes.leader.ZkLeaderObserver;
import dev.zklock.recipes.test.Faults;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;

/**
 * The leadership part of the demo: alice and carol with zklock's {@link ZkLeaderLatch} and bob with Curator's
 * {@code LeaderLatch} elect one leader on one path, while a {@link ZkLeaderObserver} that takes no part shows each
 * term's grant and revocation with its epoch. Alice leads; her session ends as after a crash and bob leads; bob closes
 * and carol leads; carol yields and alice, queued again after her crash, leads. The screen shows how long each
 * hand-over took. An overlap is a term granted before the one before was revoked, or an epoch that does not grow.
 */
final class LeaderScene {
    private static final long TIMEOUT_SECONDS = 30;

    private final Ensemble ensemble;
    private final Screen screen;
    private final String path;
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicLong lastEpoch = new AtomicLong();
    private final AtomicInteger terms = new AtomicInteger(); // granted and not yet revoked, as the observer tells
    private int timeouts;

    LeaderScene(Ensemble ensemble, Screen screen, String path) {
        this.ensemble = ensemble;
        this.screen = screen;
        this.path = path;
    }

    Outcome play() throws Exception {
        CuratorFramework observerClient = ensemble.newClient("observer");
        CuratorFramework aliceClient = ensemble.newClient("alice");
        ZkLeaderLatch alice = new ZkLeaderLatch(aliceClient, path, "alice");
        LeaderLatch bob = new LeaderLatch(ensemble.newClient("bob"), path, "bob");
        ZkLeaderLatch carol = new ZkLeaderLatch(ensemble.newClient("carol"), path, "carol");
        screen.say(
                "leader election on %s: alice and carol use zklock's ZkLeaderLatch, bob Curator's LeaderLatch;"
                        + " an observer watches",
                path);
        try (ZkLeaderObserver observer = ZkLeaderObserver.observe(observerClient, path, this::told)) {
            alice.start();
            waitFor("alice", () -> alice.await(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            bob.start(); // Curator's latch creates its node in the background: carol queues once it stands
            waitFor("bob to queue", () -> awaitParticipants(alice, 2));
            carol.start();
            waitFor("carol to queue", () -> awaitParticipants(alice, 3));

            screen.say("crash: alice's session ends (as after kill -9 and a session timeout)");
            Faults.expireSession(aliceClient, ensemble.connectString(), ensemble.sessionTimeoutMs());
            waitFor("bob", () -> bob.await(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            waitFor("alice to queue again", () -> awaitParticipants(carol, 3));

            long start = System.nanoTime();
            bob.close();
            waitFor("carol", () -> carol.await(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            screen.say("hand-over: bob closed, carol leads %.1f ms later", (System.nanoTime() - start) / 1e6);

            start = System.nanoTime();
            carol.yield();
            waitFor("alice", () -> alice.await(TIMEOUT_SECONDS, TimeUnit.SECONDS));
            screen.say("hand-over: carol yielded, alice leads %.1f ms later", (System.nanoTime() - start) / 1e6);
            alice.close();
            carol.close();
            waitFor("the last revocation", () -> awaitNoTerm());
        }
        int nodesLeft = Outcome.nodesUnder(observerClient, path);
        Outcome outcome = new Outcome("leader election", overlaps.get(), timeouts, nodesLeft);
        screen.say("%s", outcome.line());
        return outcome;
    }

    /** On the observer's thread, one change at a time. */
    private void told(LeaderChanged change) {
        if (change.kind() == LeaderChanged.Kind.GRANTED) {
            if (terms.incrementAndGet() > 1 || change.epoch() <= lastEpoch.getAndSet(change.epoch())) {
                overlaps.incrementAndGet();
            }
            screen.say("%-6s leads     epoch %d   (the observer)", change.participant(), change.epoch());
        } else {
            terms.decrementAndGet();
            screen.say("%-6s revoked   epoch %d   (the observer)", change.participant(), change.epoch());
        }
    }

    private boolean awaitParticipants(ZkLeaderLatch latch, int count) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (latch.getParticipants().size() != count) {
            if (System.nanoTime() > end) {
                return false;
            }
            Thread.sleep(10); // a listing every 10 ms: the demo shows, it does not measure this wait
        }
        return true;
    }

    private boolean awaitNoTerm() throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (terms.get() != 0 || lastEpoch.get() == 0) {
            if (System.nanoTime() > end) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    private void waitFor(String what, Wait wait) throws Exception {
        if (!wait.done()) {
            timeouts++;
            screen.say("timed out waiting for %s", what);
        }
    }

    @FunctionalInterface
    private interface Wait {
        boolean done() throws Exception;
    }
}

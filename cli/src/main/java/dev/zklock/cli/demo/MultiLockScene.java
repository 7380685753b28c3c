package dev.zklock.cli.demo;

import dev.zklock.recipes.locks.ZkMultiLock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;

/**
 * The multi-lock part of the demo: two clients move money between the same two accounts, one naming them
 * {@code [1, 2]}, the other {@code [2, 1]}. Curator's multi-lock can deadlock here until a timeout; a
 * {@link ZkMultiLock} enters every queue in one transaction and cannot. Returns its {@link Outcome}.
 */
final class MultiLockScene {
    private final Ensemble ensemble;
    private final Screen screen;
    private final String base;
    private final int rounds;

    MultiLockScene(Ensemble ensemble, Screen screen, String base, int rounds) {
        this.ensemble = ensemble;
        this.screen = screen;
        this.base = base;
        this.rounds = rounds;
    }

    Outcome play() throws Exception {
        String one = base + "/account-1";
        String two = base + "/account-2";
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ZkMultiLock erin = new ZkMultiLock(ensemble.newClient("erin"), List.of(one, two));
        ZkMultiLock frank = new ZkMultiLock(ensemble.newClient("frank"), List.of(two, one));
        screen.say(
                "multi-lock: erin locks [account-1, account-2], frank [account-2, account-1], %d rounds each", rounds);
        AtomicInteger timeouts = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> a = threads.submit(() -> transfer("erin", erin, timeouts, inside, overlaps));
            Future<?> b = threads.submit(() -> transfer("frank", frank, timeouts, inside, overlaps));
            a.get(60, TimeUnit.SECONDS);
            b.get(60, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
        screen.say("multi-lock: %d timeouts (one transaction per acquire: no deadlock)", timeouts.get());
        CuratorFramework observer = ensemble.newClient("observer");
        int nodesLeft = Outcome.nodesUnder(observer, one) + Outcome.nodesUnder(observer, two);
        Outcome outcome = new Outcome("multi-lock", overlaps.get(), timeouts.get(), nodesLeft);
        screen.say("%s", outcome.line());
        return outcome;
    }

    private Void transfer(
            String name, ZkMultiLock lock, AtomicInteger timeouts, AtomicInteger inside, AtomicInteger overlaps)
            throws Exception {
        for (int round = 0; round < rounds; round++) {
            if (!lock.acquire(2, TimeUnit.SECONDS)) {
                timeouts.incrementAndGet();
                screen.say("%-6s timed out", name);
                continue;
            }
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            screen.say(
                    "%-6s holds both accounts   tokens %s",
                    name, lock.fencingTokens().values());
            Thread.sleep(50); // the transfer
            inside.decrementAndGet();
            lock.release();
        }
        return null;
    }
}

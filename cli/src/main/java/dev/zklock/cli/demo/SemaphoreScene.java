package dev.zklock.cli.demo;

import dev.zklock.recipes.locks.ZkSemaphore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

/**
 * The semaphore part of the demo: two clients with a {@link ZkSemaphore} and two with Curator's
 * {@code InterProcessSemaphoreV2} share {@value #LEASES} leases on one path, one lease count for both libraries; the
 * screen shows each lease taken and how many are out.
 */
final class SemaphoreScene {
    /** The lease count every client gives, zklock's and Curator's alike. */
    static final int LEASES = 2;

    private static final long TIMEOUT_SECONDS = 30;

    private final Ensemble ensemble;
    private final Screen screen;
    private final String path;
    private final int rounds;
    private final long holdMs;
    private final AtomicInteger holders = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger timeouts = new AtomicInteger();

    SemaphoreScene(Ensemble ensemble, Screen screen, String path, int rounds, long holdMs) {
        this.ensemble = ensemble;
        this.screen = screen;
        this.path = path;
        this.rounds = rounds;
        this.holdMs = holdMs;
    }

    /** One client's semaphore: takes a lease within a timeout (null if none came), as both libraries' do. */
    @FunctionalInterface
    private interface Semaphore {
        Lease acquire(long time, TimeUnit unit) throws Exception;
    }

    Outcome play() throws Exception {
        CuratorFramework observer = ensemble.newClient("observer");
        List<String> names = List.of("carol", "dave", "erin", "frank");
        List<Semaphore> semaphores = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            CuratorFramework client = ensemble.newClient(names.get(i));
            if (i % 2 == 0) {
                semaphores.add(new ZkSemaphore(client, path, LEASES)::acquire);
            } else {
                semaphores.add(new InterProcessSemaphoreV2(client, path, LEASES)::acquire);
            }
        }
        screen.say(
                "semaphore %s, %d leases: carol and erin use zklock's ZkSemaphore, dave and frank Curator's"
                        + " InterProcessSemaphoreV2, on one lease count",
                path, LEASES);
        ExecutorService threads = Executors.newFixedThreadPool(names.size());
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                String library = i % 2 == 0 ? "zklock" : "Curator";
                Semaphore semaphore = semaphores.get(i);
                done.add(threads.submit(() -> loop(name, library, semaphore)));
            }
            for (Future<?> future : done) {
                future.get(2, TimeUnit.MINUTES);
            }
        } finally {
            threads.shutdownNow();
        }
        int nodesLeft = Outcome.nodesUnder(observer, path + "/leases") + Outcome.nodesUnder(observer, path + "/locks");
        screen.say("semaphore: at most %d of %d leases out at once", mostAtOnce.get(), LEASES);
        Outcome outcome = new Outcome("semaphore", overlaps.get(), timeouts.get(), nodesLeft);
        screen.say("%s", outcome.line());
        return outcome;
    }

    private Void loop(String name, String library, Semaphore semaphore) throws Exception {
        for (int round = 0; round < rounds; round++) {
            Lease lease = semaphore.acquire(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (lease == null) {
                timeouts.incrementAndGet();
                continue;
            }
            int out = holders.incrementAndGet();
            mostAtOnce.accumulateAndGet(out, Math::max);
            if (out > LEASES) {
                overlaps.incrementAndGet();
            }
            screen.say("%-6s takes a lease (%s)   leases out: %d of %d", name, library, out, LEASES);
            Thread.sleep(holdMs); // the holder's work
            holders.decrementAndGet();
            lease.close();
        }
        return null;
    }
}

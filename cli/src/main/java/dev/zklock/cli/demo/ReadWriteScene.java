package dev.zklock.cli.demo;

import dev.zklock.recipes.locks.ZkReadWriteLock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;

/**
 * The read/write part of the demo: two readers share the lock, a writer queues behind them, a late reader queues
 * behind the writer (writers do not starve), the writer downgrades and the late reader joins its read lock.
 * Returns its {@link Outcome}: a reader and the writer holding at once is an overlap; its acquires wait as long as it
 * takes, so none times out.
 */
final class ReadWriteScene {
    private final Ensemble ensemble;
    private final Screen screen;
    private final String path;
    private final AtomicInteger readers = new AtomicInteger(); // alice's and bob's read holds
    private final AtomicInteger overlaps = new AtomicInteger();
    private volatile boolean writing; // carol holds the write lock
    private CuratorFramework observer;

    ReadWriteScene(Ensemble ensemble, Screen screen, String path) {
        this.ensemble = ensemble;
        this.screen = screen;
        this.path = path;
    }

    Outcome play() throws Exception {
        observer = ensemble.newClient("observer");
        ZkReadWriteLock alice = new ZkReadWriteLock(ensemble.newClient("alice"), path);
        ZkReadWriteLock bob = new ZkReadWriteLock(ensemble.newClient("bob"), path);
        ZkReadWriteLock carol = new ZkReadWriteLock(ensemble.newClient("carol"), path);
        ZkReadWriteLock dave = new ZkReadWriteLock(ensemble.newClient("dave"), path);
        screen.say("read/write lock %s: alice and bob read, carol writes, dave reads late", path);
        ExecutorService carolThread = Executors.newSingleThreadExecutor();
        ExecutorService daveThread = Executors.newSingleThreadExecutor();
        try {
            alice.readLock().acquire();
            readers.incrementAndGet();
            bob.readLock().acquire();
            readers.incrementAndGet();
            screen.say("alice  reads    token %d   queue: %s", alice.readLock().fencingToken(), queue(alice));
            screen.say(
                    "bob    reads    token %d   (readers share)", bob.readLock().fencingToken());
            Future<?> writer = carolThread.submit(() -> {
                carol.writeLock().acquire();
                writing = true;
                if (readers.get() > 0) {
                    overlaps.incrementAndGet();
                }
                screen.say(
                        "carol  writes   token %d   queue: %s",
                        carol.writeLock().fencingToken(), queue(carol));
                carol.readLock().acquire();
                writing = false;
                carol.writeLock().release();
                screen.say("carol  downgrades: holds the read lock, releases the write lock");
                return null;
            });
            awaitQueueLength(alice, 3);
            screen.say("carol  waits to write   queue: %s", queue(alice));
            Future<?> lateReader = daveThread.submit(() -> {
                dave.readLock().acquire();
                if (writing) {
                    overlaps.incrementAndGet();
                }
                screen.say(
                        "dave   reads    token %d   queue: %s", dave.readLock().fencingToken(), queue(dave));
                return null;
            });
            awaitQueueLength(alice, 4);
            screen.say("dave   waits behind the queued writer   queue: %s", queue(alice));
            readers.decrementAndGet();
            alice.readLock().release();
            readers.decrementAndGet();
            bob.readLock().release();
            screen.say("alice and bob release");
            writer.get(30, TimeUnit.SECONDS);
            lateReader.get(30, TimeUnit.SECONDS);
            carolThread.submit(() -> carol.readLock().release()).get(30, TimeUnit.SECONDS); // the owning threads
            daveThread.submit(() -> dave.readLock().release()).get(30, TimeUnit.SECONDS);
            Outcome outcome = new Outcome(
                    "read/write lock",
                    overlaps.get(),
                    0,
                    alice.participantNodes().size());
            screen.say("%s", outcome.line());
            return outcome;
        } finally {
            carolThread.shutdownNow();
            daveThread.shutdownNow();
        }
    }

    private static void awaitQueueLength(ZkReadWriteLock lock, int length) throws InterruptedException {
        while (lock.participantNodes().size() < length) {
            Thread.sleep(10); // a demo waiting for its own actors; tests wait on watched conditions instead
        }
    }

    /** The queue in order: each node as R or W and the name its client wrote into it. */
    private String queue(ZkReadWriteLock lock) throws Exception {
        List<String> nodes = lock.participantNodes();
        StringBuilder line = new StringBuilder();
        for (String node : nodes) {
            if (line.length() > 0) {
                line.append(" > ");
            }
            line.append(node.contains("__WRIT__") ? "W " : "R ").append(NodeOwners.of(observer, node));
        }
        return line.toString();
    }
}

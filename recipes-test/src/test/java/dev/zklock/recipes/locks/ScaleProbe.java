package dev.zklock.recipes.locks;

import dev.zklock.recipes.test.Faults;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;

/**
 * Figures of scale, measured on the client alone (the server runs in a child JVM, so its nodes and watches are not
 * counted). {@code threads:N} and {@code async:N}: heap per waiting acquire, with one lock held by another client and N
 * waiters (threads blocked in {@code acquire()}, or {@code acquireAsync} futures with no thread), heap after a full GC
 * before and while they wait, divided by N. {@code reconnect:N}: N locks held on one client, its connection dropped,
 * and the time from RECONNECTED to the last hold HELD again. Not a test (no {@code Test} suffix): run it by hand, for
 * the figures an issue asks for.
 *
 * <pre>{@code
 * java -cp "$(cat cp.txt):recipes-test/target/test-classes:recipes-test/target/classes:recipes/target/classes" \
 *     dev.zklock.recipes.locks.ScaleProbe threads:500 threads:2000 async:10000
 * }</pre>
 */
final class ScaleProbe {
    private ScaleProbe() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("server")) {
            try (TestingServer server = new TestingServer()) {
                System.out.println(server.getConnectString());
                System.in.read(); // until the parent closes our input
            }
            return;
        }
        Process server = new ProcessBuilder(
                        ProcessHandle.current().info().command().orElse("java"),
                        "-cp",
                        System.getProperty("java.class.path"),
                        ScaleProbe.class.getName(),
                        "server")
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            String connect = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            for (String arg : args) {
                String[] kindAndCount = arg.split(":");
                if (kindAndCount[0].equals("holds")) {
                    holds(connect, Integer.parseInt(kindAndCount[1]));
                } else if (kindAndCount[0].equals("registry")) {
                    registry(connect, Integer.parseInt(kindAndCount[1]));
                } else if (kindAndCount[0].equals("reconnect")) {
                    reconnect(connect, Integer.parseInt(kindAndCount[1]));
                } else {
                    measure(connect, kindAndCount[0], Integer.parseInt(kindAndCount[1]));
                }
            }
        } finally {
            server.getOutputStream().close();
            server.waitFor(30, TimeUnit.SECONDS);
            server.destroyForcibly();
        }
    }

    private static void measure(String connect, String kind, int waiters) throws Exception {
        String path = "/probe/" + kind + "-" + waiters + "-" + System.nanoTime();
        try (CuratorFramework holderClient = client(connect);
                CuratorFramework waiterClient = client(connect)) {
            ZkReentrantLock holder = new ZkReentrantLock(holderClient, path);
            ZkReentrantLock lock = new ZkReentrantLock(waiterClient, path);
            holder.acquire();
            lock.participantNodes(); // warm the client up before the baseline
            long before = usedHeapAfterGc();
            List<Thread> threads = new ArrayList<>();
            List<CompletableFuture<LockHold>> futures = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                if (kind.equals("threads")) {
                    Thread thread = new Thread(() -> {
                        try {
                            lock.acquire();
                            lock.release();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                    thread.start();
                    threads.add(thread);
                } else {
                    futures.add(lock.acquireAsync(Duration.ofMinutes(10)));
                }
            }
            awaitChildren(holderClient, path, waiters + 1);
            drain(waiterClient); // the listings' replies are handled and the watches set: waiting, not entering
            drain(waiterClient);
            long during = usedHeapAfterGc();
            double perWaiter = (during - before) / (double) waiters;
            System.out.printf(
                    "%s waiters: %,d on one lock, %.1f KB of client heap per waiter (%s)%n",
                    kind, waiters, perWaiter / 1024, kind.equals("threads") ? "Thread objects included" : "no thread");
            holder.release();
            for (Thread thread : threads) {
                thread.join();
            }
            for (CompletableFuture<LockHold> future : futures) {
                future.get().close();
            }
        }
    }

    /** Heap per held lock, the lock objects made before the baseline: zklock's reentrant lock, then Curator's mutex. */
    private static void holds(String connect, int holds) throws Exception {
        try (CuratorFramework client = client(connect)) {
            String base = "/probe/holds-" + System.nanoTime();
            List<ZkReentrantLock> ours = new ArrayList<>();
            for (int i = 0; i < holds; i++) {
                ours.add(new ZkReentrantLock(client, base + "/zklock/" + i));
            }
            long before = usedHeapAfterGc();
            for (ZkReentrantLock lock : ours) {
                lock.acquire();
            }
            drain(client);
            double zklock = (usedHeapAfterGc() - before) / (double) holds;
            for (ZkReentrantLock lock : ours) {
                lock.release();
            }
            ours.clear();
            List<InterProcessMutex> theirs = new ArrayList<>();
            for (int i = 0; i < holds; i++) {
                theirs.add(new InterProcessMutex(client, base + "/curator/" + i));
            }
            before = usedHeapAfterGc();
            for (InterProcessMutex mutex : theirs) {
                mutex.acquire();
            }
            double curator = (usedHeapAfterGc() - before) / (double) holds;
            for (InterProcessMutex mutex : theirs) {
                mutex.release();
            }
            System.out.printf(
                    "holds: %,d held locks on one client, %.0f B of heap per hold for ZkReentrantLock, %.0f B for"
                            + " InterProcessMutex (lock objects made before the baseline)%n",
                    holds, zklock, curator);
        }
    }

    private static void registry(String connect, int keys) throws Exception {
        try (CuratorFramework client = client(connect)) {
            ZkLockRegistry registry = new ZkLockRegistry(client, "/probe/registry-" + System.nanoTime());
            int slice = Math.min(10_000, keys / 2);
            long firstSlice = 0;
            long lastSlice = 0;
            for (int i = 0; i < keys; i++) {
                long start = System.nanoTime();
                registry.obtain("entity-" + i);
                long took = System.nanoTime() - start;
                if (i < slice) {
                    firstSlice += took;
                } else if (i >= keys - slice) {
                    lastSlice += took;
                }
            }
            System.out.printf(
                    "registry: obtain of a new key %.1f us on average over the first %,d keys, %.1f us over the last"
                            + " %,d (of %,d)%n",
                    firstSlice / 1e3 / slice, slice, lastSlice / 1e3 / slice, slice, keys);
        }
    }

    private static void reconnect(String connect, int holds) throws Exception {
        try (CuratorFramework client = client(connect)) {
            List<ZkExclusiveLock> locks = new ArrayList<>();
            for (int i = 0; i < holds; i++) {
                ZkExclusiveLock lock =
                        ZkExclusiveLock.mutexLayout(client, "/probe/reconnect-" + System.nanoTime() + "/" + i);
                lock.acquire();
                locks.add(lock);
            }
            AtomicLong reconnectedAt = new AtomicLong();
            CountDownLatch allHeld = new CountDownLatch(holds);
            AtomicLong lastHeldAt = new AtomicLong();
            client.getConnectionStateListenable().addListener((c, state) -> {
                if (state == ConnectionState.RECONNECTED) {
                    reconnectedAt.compareAndSet(0, System.nanoTime());
                }
            });
            LockStates.addListener(client, event -> {
                if (event.state() == LockState.HELD) {
                    lastHeldAt.set(System.nanoTime());
                    allHeld.countDown();
                }
            });
            Faults.dropConnection(client);
            boolean done = allHeld.await(2, TimeUnit.MINUTES);
            System.out.printf(
                    "reconnect: %,d holds on one client, %s %.1f ms after RECONNECTED%n",
                    holds,
                    done ? "all HELD again" : "NOT all HELD within 2 minutes; the last so far",
                    (lastHeldAt.get() - reconnectedAt.get()) / 1e6);
            for (ZkExclusiveLock lock : locks) {
                lock.release();
            }
        }
    }

    private static void awaitChildren(CuratorFramework client, String path, int count) throws Exception {
        while (true) {
            CountDownLatch changed = new CountDownLatch(1);
            Watcher watcher = event -> changed.countDown();
            if (client.getChildren().usingWatcher(watcher).forPath(path).size() >= count) {
                return;
            }
            changed.await(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Returns once ZooKeeper's event thread of {@code client} has handled every reply that came before now: callbacks
     * run in order on that thread, so a callback sent now runs after them.
     */
    private static void drain(CuratorFramework client) throws Exception {
        CountDownLatch handled = new CountDownLatch(1);
        client.getZookeeperClient().getZooKeeper().exists("/", false, (rc, p, ctx, stat) -> handled.countDown(), null);
        handled.await(5, TimeUnit.MINUTES);
    }

    private static CuratorFramework client(String connect) {
        CuratorFramework client = CuratorFrameworkFactory.newClient(connect, 60_000, 15_000, new RetryOneTime(100));
        client.start();
        return client;
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 4; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}

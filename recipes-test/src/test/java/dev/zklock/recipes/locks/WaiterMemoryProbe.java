package dev.zklock.recipes.locks;

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
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;

/**
 * Heap per waiting acquire, measured on the client alone: one client, one lock held by another client, N waiters
 * (threads blocked in {@code acquire()}, or {@code acquireAsync} futures with no thread), heap after a full GC before
 * and while they wait, divided by N. The server runs in a child JVM so that its nodes and watches are not counted. Not
 * a test (no {@code Test} suffix): run it by hand, for the figures an issue asks for.
 *
 * <pre>{@code
 * java -cp "$(cat cp.txt):recipes-test/target/test-classes:recipes-test/target/classes:recipes/target/classes" \
 *     dev.zklock.recipes.locks.WaiterMemoryProbe threads:500 threads:2000 async:10000
 * }</pre>
 */
final class WaiterMemoryProbe {
    private WaiterMemoryProbe() {}

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
                        WaiterMemoryProbe.class.getName(),
                        "server")
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            String connect = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            for (String arg : args) {
                String[] kindAndCount = arg.split(":");
                measure(connect, kindAndCount[0], Integer.parseInt(kindAndCount[1]));
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

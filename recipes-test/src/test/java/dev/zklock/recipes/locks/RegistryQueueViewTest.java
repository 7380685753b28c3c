package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ServerWatches;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A registry built with {@link ZkLockRegistry.Builder#queueView()} on a real server: one server watch per client for
 * all its keys (read with {@code wchc}), the resync after a reconnect in one multi read per root (the requests counted
 * as the client's ZooKeeper handle sends them), and the idle drop that removes the watch. (A viewed registry's key
 * beside Curator's {@code InterProcessMutex}: {@code QueueViewLocksTest}.)
 */
@Timeout(90)
final class RegistryQueueViewTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.serverWithTick(Duration.ofMillis(100));

    @Test
    void waiters_onManyKeysFromSeveralClients_keepOneServerWatchPerClient() throws Exception {
        String base = zk.path("keys");
        int keys = 20;
        List<CuratorFramework> clients = new ArrayList<>();
        List<ZkLockRegistry> registries = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            clients.add(zk.newClient());
            registries.add(viewRegistry(clients.get(c), base));
        }
        List<CompletableFuture<Void>> released = new ArrayList<>();
        try (LockActor holder = LockActor.start("holder")) {
            holder.run(() -> {
                        for (int k = 0; k < keys; k++) {
                            registries.get(0).obtain("k" + k).acquire();
                        }
                    })
                    .join();
            for (int c = 1; c < clients.size(); c++) {
                for (int k = 0; k < keys; k++) {
                    released.add(
                            registries.get(c).obtain("k" + k).acquireAsync().thenAcceptAsync(LockHold::close));
                }
            }
            ZkLockRegistry first = registries.get(0);
            await().until(() -> allQueued(first, keys, clients.size()));

            Map<Long, Set<String>> watches = ServerWatches.bySession("127.0.0.1", port());
            for (CuratorFramework client : clients) {
                assertThat(ours(watches.getOrDefault(sessionOf(client), Set.of())))
                        .as("server watches of session 0x%x, %d keys waited on", sessionOf(client), keys)
                        .containsExactly(fixed(client, base));
            }

            holder.run(() -> {
                        for (int k = 0; k < keys; k++) {
                            registries.get(0).obtain("k" + k).release();
                        }
                    })
                    .join();
            for (CompletableFuture<Void> hold : released) {
                hold.get();
            }
        }
    }

    /**
     * Actors: holder H (plain locks) on ten keys of a registry and on a lone path; waiter W (a view registry on the ten
     * keys and a view lock on the lone path, its client through a proxy) behind H on each. Interleaving: W's connection
     * drops and comes back while it waits. Allowed: W lists again in one multi read per root (ten paths in one, the lone
     * path in the other) and then lists nothing more, granted each lock from its views once H releases. Forbidden: a
     * listing per path, or a waiter never woken.
     */
    @Test
    void reconnect_withWaitersUnderTwoRoots_resyncsWithOneMultiReadPerRoot() throws Exception {
        String base = zk.path("keys");
        String lone = zk.path("lone");
        int keys = 10;
        CuratorFramework holderClient = zk.newClient();
        ZkLockRegistry plain = new ZkLockRegistry(holderClient, base);
        ZkReentrantLock loneHeld = new ZkReentrantLock(holderClient, lone);
        try (TcpProxy proxy = TcpProxy.to(port());
                LockActor holder = LockActor.start("holder")) {
            List<List<Op>> multis = new CopyOnWriteArrayList<>();
            List<String> listings = new CopyOnWriteArrayList<>();
            CuratorFramework waiterClient = zk.newClient(builder ->
                    builder.connectString(proxy.connectString()).zookeeperFactory(counting(multis, listings)));
            ZkLockRegistry viewed = viewRegistry(waiterClient, base);
            ZkReentrantLock loneViewed =
                    ZkReentrantLock.builder(waiterClient, lone).queueView().build();
            ConnectionCut outage = ConnectionCut.of(waiterClient, proxy);
            holder.run(() -> {
                        loneHeld.acquire();
                        for (int k = 0; k < keys; k++) {
                            plain.obtain("k" + k).acquire();
                        }
                    })
                    .join();
            List<CompletableFuture<Void>> released = new ArrayList<>();
            released.add(loneViewed.acquireAsync().thenAcceptAsync(LockHold::close));
            for (int k = 0; k < keys; k++) {
                released.add(viewed.obtain("k" + k).acquireAsync().thenAcceptAsync(LockHold::close));
            }
            await().until(() ->
                    allQueued(plain, keys, 2) && loneHeld.participantNodes().size() == 2);

            outage.cut();
            multis.clear();
            listings.clear();
            outage.heal();
            await().until(() -> multis.size() == 2);
            holder.run(() -> {
                        for (int k = 0; k < keys; k++) {
                            plain.obtain("k" + k).release();
                        }
                        loneHeld.release();
                    })
                    .join();
            for (CompletableFuture<Void> hold : released) {
                hold.get();
            }

            assertThat(multis.stream().map(List::size).sorted().toList())
                    .as("paths listed by each multi read after the reconnect")
                    .containsExactly(1, keys);
            assertThat(multis.stream().flatMap(List::stream).map(Op::getType))
                    .as("operations of the resync")
                    .containsOnly(ZooDefs.OpCode.getChildren);
            assertThat(listings).as("single listings after the reconnect").isEmpty();
        }
    }

    @Test
    void idleViews_afterAboutOneSessionTimeout_removeTheServerWatch() throws Exception {
        String base = zk.path("keys");
        CuratorFramework client = zk.newClient(builder -> builder.sessionTimeoutMs(1_000));
        ZkLockRegistry registry = viewRegistry(client, base);
        long session = sessionOf(client);
        ZkReentrantLock lock = registry.obtain("k");
        lock.acquire();
        try {
            assertThat(watchesOf(session)).containsExactly(fixed(client, base));
        } finally {
            lock.release();
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> watchesOf(session).isEmpty());

        lock.acquire(); // a new view: a fresh addWatch, then its listing
        try {
            assertThat(watchesOf(session)).containsExactly(fixed(client, base));
        } finally {
            lock.release();
        }
    }

    private static ZkLockRegistry viewRegistry(CuratorFramework client, String base) {
        return ZkLockRegistry.builder(client, base).queueView().build();
    }

    private static boolean allQueued(ZkLockRegistry registry, int keys, int nodes) throws Exception {
        for (int k = 0; k < keys; k++) {
            if (registry.obtain("k" + k).participantNodes().size() != nodes) {
                return false;
            }
        }
        return true;
    }

    /** The server watches of {@code session}, but Curator's own on the ensemble's configuration. */
    private static Set<String> watchesOf(long session) {
        return ours(ServerWatches.bySession("127.0.0.1", port()).getOrDefault(session, Set.of()));
    }

    private static Set<String> ours(Set<String> watched) {
        Set<String> ours = new TreeSet<>(watched);
        ours.remove(ZooDefs.CONFIG_NODE); // Curator's ensemble tracker watches it on every client
        return ours;
    }

    private static int port() {
        return Integer.parseInt(zk.connectString().split(":")[1]);
    }

    private static long sessionOf(CuratorFramework client) throws Exception {
        return client.getZookeeperClient().getZooKeeper().getSessionId();
    }

    private static String fixed(CuratorFramework client, String path) {
        return ZKPaths.fixForNamespace(client.getNamespace(), path);
    }

    /** A factory of ZooKeeper handles that record each multi's operations and each single listing sent. */
    private static ZookeeperFactory counting(List<List<Op>> multis, List<String> listings) {
        return new ZookeeperFactory() {
            @Override
            public ZooKeeper newZooKeeper(String connect, int timeout, Watcher watcher, boolean readOnly)
                    throws Exception {
                return newZooKeeper(connect, timeout, watcher, readOnly, new ZKClientConfig());
            }

            @Override
            public ZooKeeper newZooKeeper(
                    String connect, int timeout, Watcher watcher, boolean readOnly, ZKClientConfig config)
                    throws Exception {
                return new ZooKeeper(connect, timeout, watcher, readOnly, config) {
                    @Override
                    public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback cb, Object ctx) {
                        List<Op> sent = new ArrayList<>();
                        ops.forEach(sent::add);
                        multis.add(sent);
                        super.multi(sent, cb, ctx);
                    }

                    @Override
                    public void getChildren(String path, boolean watch, AsyncCallback.ChildrenCallback cb, Object ctx) {
                        listings.add(path);
                        super.getChildren(path, watch, cb, ctx);
                    }
                };
            }
        };
    }
}

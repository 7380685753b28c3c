package dev.zklock.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zklock.cli.CommandRun;
import dev.zklock.recipes.leader.ZkLeaderLatch;
import dev.zklock.recipes.locks.ZkLease;
import dev.zklock.recipes.locks.ZkReentrantLock;
import dev.zklock.recipes.locks.ZkSemaphore;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.io.IOException;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code zklock inspect} against a real server, on queues made by zklock's and Curator's locks, and on bad input. */
@Timeout(60)
final class InspectCommandTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void inspect_zklockQueue_showsTheHolderThenTheWaitersInOrder() throws Exception {
        String path = zk.path("lock");
        try (Queue queue = new Queue()) {
            CuratorFramework holder = queue.hold("holder", c -> new ZkReentrantLock(c, path));
            CuratorFramework first = queue.wait("first", c -> new ZkReentrantLock(c, path), path, 2);
            CuratorFramework second = queue.wait("second", c -> new ZkReentrantLock(c, path), path, 3);

            CommandRun run = CommandRun.of("inspect", "--connect", zk.connectString(), path);

            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out()).contains(path + ": 1 holder, 2 waiting");
            List<String> rows = rows(run.out());
            assertThat(rows).hasSize(3);
            assertThat(rows.get(0)).contains("holds", "exclusive", session(holder));
            assertThat(rows.get(1)).contains("waits", "exclusive", session(first));
            assertThat(rows.get(2)).contains("waits", "exclusive", session(second));
        }
    }

    @Test
    void inspect_leaderLatchPath_showsTheLeaderAndItsEpoch() throws Exception {
        String path = zk.path("latch");
        try (ZkLeaderLatch alice = new ZkLeaderLatch(zk.newClient(), path, "alice");
                LeaderLatch bob = new LeaderLatch(zk.newClient(), path, "bob")) {
            alice.start();
            alice.await();
            bob.start();
            await().until(() -> alice.getParticipants().size() == 2);

            CommandRun run = CommandRun.of("inspect", "--connect", zk.connectString(), path);

            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out()).contains(path + ": 1 holder, 1 waiting");
            assertThat(run.out()).contains("leader: 'alice', epoch " + alice.epoch());
            assertThat(rows(run.out()).get(1)).contains("waits", "-latch-", "bob");

            JsonNode json = CommandRun.of("inspect", "--json", "--connect", zk.connectString(), path)
                    .json();
            assertThat(json.path("leader").path("participant").asText()).isEqualTo("alice");
            assertThat(json.path("leader").path("epoch").asLong()).isEqualTo(alice.epoch());
            alice.yield();
            await().until(bob::hasLeadership);
            JsonNode next = CommandRun.of("inspect", "--json", "--connect", zk.connectString(), path)
                    .json();
            assertThat(next.path("leader").path("participant").asText()).isEqualTo("bob");
        }
    }

    @Test
    void inspect_selectorPathWithLeaderOption_showsTheLeaderAndItsEpoch() throws Exception {
        String path = zk.path("selector");
        try (Queue queue = new Queue()) {
            queue.hold("holder", c -> new InterProcessMutex(c, path));

            CommandRun plain = CommandRun.of("inspect", "--connect", zk.connectString(), path);
            CommandRun run = CommandRun.of("inspect", "--connect", zk.connectString(), "--leader", path);

            assertThat(plain.out()).doesNotContain("leader:");
            assertThat(CommandRun.of("inspect", "--json", "--connect", zk.connectString(), path)
                            .json()
                            .has("leader"))
                    .as("a lock that is no election has no leader field")
                    .isFalse();
            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out()).containsPattern("leader: '[^']*', epoch [1-9][0-9]*");
        }
    }

    @Test
    void inspect_curatorMutexQueue_showsTheHolderAndTheWaiters() throws Exception {
        String path = zk.path("lock");
        try (Queue queue = new Queue()) {
            CuratorFramework holder = queue.hold("holder", c -> new InterProcessMutex(c, path));
            CuratorFramework waiter = queue.wait("waiter", c -> new InterProcessMutex(c, path), path, 2);

            CommandRun run = CommandRun.of("inspect", "--connect", zk.connectString(), path);

            assertThat(run.exitCode()).as(run.err()).isZero();
            List<String> rows = rows(run.out());
            assertThat(rows.get(0)).contains("holds", "exclusive", session(holder), "-lock-");
            assertThat(rows.get(1)).contains("waits", "exclusive", session(waiter), "-lock-");
        }
    }

    @Test
    void inspect_curatorReadWriteLock_readersBeforeTheFirstWriterHold() throws Exception {
        String path = zk.path("rw");
        try (Queue queue = new Queue()) {
            queue.hold("reader-1", c -> new InterProcessReadWriteLock(c, path).readLock());
            queue.hold("reader-2", c -> new InterProcessReadWriteLock(c, path).readLock());
            queue.wait("writer", c -> new InterProcessReadWriteLock(c, path).writeLock(), path, 3);
            queue.wait("reader-3", c -> new InterProcessReadWriteLock(c, path).readLock(), path, 4);

            CommandRun run = CommandRun.of("inspect", "--connect", zk.connectString(), path);

            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out()).contains("2 holders, 2 waiting");
            List<String> rows = rows(run.out());
            assertThat(rows.get(0)).contains("holds", "read");
            assertThat(rows.get(1)).contains("holds", "read");
            assertThat(rows.get(2)).contains("waits", "write");
            assertThat(rows.get(3)).contains("waits", "read");
        }
    }

    @Test
    void inspect_curatorDowngrade_showsTheWritersReadNodeHoldingBesideIt() throws Exception {
        String path = zk.path("rw");
        CuratorFramework client = zk.newClient();
        InterProcessReadWriteLock downgrading = new InterProcessReadWriteLock(client, path);
        try (Queue queue = new Queue();
                LockActor writer = LockActor.start("downgrading-writer")) {
            writer.submit(() -> {
                        downgrading.writeLock().acquire();
                        downgrading.readLock().acquire(); // a plain EPHEMERAL read node with the writer's sequence
                        return null;
                    })
                    .get(20, TimeUnit.SECONDS);
            try {
                CuratorFramework reader =
                        queue.wait("reader", c -> new InterProcessReadWriteLock(c, path).readLock(), path, 3);

                CommandRun run = CommandRun.of("inspect", "--connect", zk.connectString(), path);

                assertThat(run.exitCode()).as(run.err()).isZero();
                assertThat(run.out()).contains(path + ": 2 holders, 1 waiting");
                List<String> rows = rows(run.out());
                assertThat(rows).hasSize(3);
                assertThat(rows.subList(0, 2))
                        .anySatisfy(row -> assertThat(row).contains("holds", "write", session(client), "__WRIT__"))
                        .anySatisfy(row -> assertThat(row).contains("holds", "read", session(client), "__READ__"));
                assertThat(rows.get(2)).contains("waits", "read", session(reader));
            } finally {
                writer.submit(() -> {
                            downgrading.writeLock().release();
                            downgrading.readLock().release();
                            return null;
                        })
                        .get(20, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void inspect_semaphoreOfBothLibraries_showsTheLeasesOutThenTheWaiterAndTheMutexQueue() throws Exception {
        String path = zk.path("sem");
        CuratorFramework zklockClient = zk.newClient();
        CuratorFramework curatorClient = zk.newClient();
        CuratorFramework waiterClient = zk.newClient();
        CuratorFramework queuedClient = zk.newClient();
        ZkSemaphore zklock = new ZkSemaphore(zklockClient, path, 3);
        InterProcessSemaphoreV2 curator = new InterProcessSemaphoreV2(curatorClient, path, 3);
        Collection<Lease> zklockLeases = zklock.acquire(2);
        Lease curatorLease = curator.acquire();
        try (LockActor waiter = LockActor.start("waiter");
                LockActor queued = LockActor.start("queued")) {
            ZkSemaphore waiting = new ZkSemaphore(waiterClient, path, 3);
            InterProcessSemaphoreV2 queueing = new InterProcessSemaphoreV2(queuedClient, path, 3);
            CompletableFuture<ZkLease> waiterLease = waiter.submit(() -> waiting.acquire(30, TimeUnit.SECONDS));
            await().until(() ->
                    zklockClient.getChildren().forPath(path + "/leases").size() == 4);
            CompletableFuture<Lease> queuedLease = queued.submit(() -> queueing.acquire(30, TimeUnit.SECONDS));
            await().until(() ->
                    zklockClient.getChildren().forPath(path + "/locks").size() == 2);

            CommandRun run = CommandRun.of("inspect", "--connect", zk.connectString(), path);

            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out())
                    .contains(path + ": semaphore, 3 leases out, 1 waiting for a lease, 1 queued for its mutex");
            List<String> rows = rows(run.out());
            assertThat(rows).hasSize(6);
            assertThat(rows.get(0)).contains("holds", "lease", session(zklockClient), "leases/_c_");
            assertThat(rows.get(1)).contains("holds", "lease", session(zklockClient));
            assertThat(rows.get(2)).contains("holds", "lease", session(curatorClient));
            assertThat(rows.get(3)).contains("waits", "lease", session(waiterClient));
            assertThat(rows.get(4)).contains("holds", "mutex", session(waiterClient), "locks/_c_");
            assertThat(rows.get(5)).contains("waits", "mutex", session(queuedClient));

            curator.returnLease(curatorLease);
            waiterLease.get().close();
            zklock.returnAll(zklockLeases);
            queueing.returnLease(queuedLease.get());
        }
    }

    @Test
    void inspect_json_printsOneObjectAScriptCanRead() throws Exception {
        String path = zk.path("lock");
        try (Queue queue = new Queue()) {
            CuratorFramework holder = queue.hold("holder", c -> new ZkReentrantLock(c, path));
            queue.wait("waiter", c -> new InterProcessMutex(c, path), path, 2);

            CommandRun run = CommandRun.of("inspect", "--json", "--connect", zk.connectString(), path);

            assertThat(run.exitCode()).as(run.err()).isZero();
            assertThat(run.out().strip()).doesNotContain("\n");
            JsonNode json = run.json();
            assertThat(json.path("path").asText()).isEqualTo(path);
            assertThat(json.path("holders").asInt(-1)).isEqualTo(1);
            assertThat(json.path("waiters").asInt(-1)).isEqualTo(1);
            JsonNode nodes = json.path("nodes");
            assertThat(nodes.size()).isEqualTo(2);
            assertThat(nodes.get(0).path("position").asInt(-1)).isEqualTo(1);
            assertThat(nodes.get(0).path("kind").asText()).isEqualTo("exclusive");
            assertThat(nodes.get(0).path("state").asText()).isEqualTo("holder");
            assertThat(nodes.get(0).path("session").asText()).isEqualTo(session(holder));
            assertThat(nodes.get(0).fieldNames()).toIterable().contains("node", "created", "ageMs", "data");
            assertThat(nodes.get(1).path("state").asText()).isEqualTo("waiting");
        }
    }

    @Test
    void inspect_watch_drawsAgainWhenTheQueueChanges() throws Exception {
        String path = zk.path("lock");
        CuratorFramework client = zk.newClient();
        client.create().forPath(path);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        try (LockActor watcher = LockActor.start("inspect-watch")) {
            CompletableFuture<Integer> exit = watcher.submit(() -> CommandRun.into(out, err)
                    .execute("inspect", "--watch", "--json", "--connect", zk.connectString(), path));
            await().atMost(Duration.ofSeconds(20)).until(() -> !lines(out).isEmpty());
            assertThat(CommandRun.json(lines(out).get(0)).path("holders").asInt(-1))
                    .isZero();

            ZkReentrantLock lock = new ZkReentrantLock(client, path);
            lock.acquire();
            await().atMost(Duration.ofSeconds(20)).until(() -> lines(out).stream()
                    .anyMatch(line -> CommandRun.json(line).path("holders").asInt(-1) == 1));
            lock.release();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                List<String> lines = lines(out);
                return CommandRun.json(lines.get(lines.size() - 1))
                                .path("holders")
                                .asInt(-1)
                        == 0;
            });

            watcher.interrupt();
            assertThat(exit.get(20, TimeUnit.SECONDS)).as(err.toString()).isZero();
        }
    }

    @Test
    void inspect_existingPathWithoutNodes_showsAFreeLock() throws Exception {
        String path = zk.path("free");
        zk.newClient().create().forPath(path);

        CommandRun run = CommandRun.of("inspect", "--connect", zk.connectString(), path);

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains(path + ": free");
    }

    @Test
    void inspect_missingPath_failsNamingThePath() {
        String path = zk.path("no-such-lock");

        CommandRun run = CommandRun.of("inspect", "--connect", zk.connectString(), path);

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("no lock at '" + path + "'").doesNotContain("Exception");
    }

    @Test
    void inspect_pathWhoseChildrenAreNotLockNodes_failsNamingThePath() throws Exception {
        String path = zk.path("config");
        CuratorFramework client = zk.newClient();
        client.create().forPath(path);
        client.create().forPath(path + "/timeout");
        client.create().forPath(path + "/retries");

        CommandRun run = CommandRun.of("inspect", "--connect", zk.connectString(), path);

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("'" + path + "' holds no lock", "retries, timeout");
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost:99999", "localhost:port", "zk1:2181,,zk2:2181"})
    void inspect_malformedConnectString_failsAsBadUsageNamingIt(String connect) {
        CommandRun run = CommandRun.of("inspect", "--connect", connect, "/locks/a");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("malformed connect string '" + connect + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"locks/a", "/locks/a/", "/locks//a"})
    void inspect_invalidPath_failsAsBadUsageNamingIt(String path) {
        CommandRun run = CommandRun.of("inspect", "--connect", zk.connectString(), path);

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("invalid lock path '" + path + "'");
    }

    @Test
    @Timeout(30)
    void inspect_unreachableServer_failsWithinTheTimeLimit() throws IOException {
        String connect = "127.0.0.1:" + CommandRun.closedPort();

        CommandRun run = CommandRun.of("inspect", "--timeout-ms", "1000", "--connect", connect, "/locks/a");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("cannot reach ZooKeeper at '" + connect + "' within 1000 ms");
    }

    private static String session(CuratorFramework client) throws Exception {
        return "0x"
                + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId());
    }

    /** The table's rows: the lines after the header line that starts with '#'. */
    private static List<String> rows(String out) {
        List<String> lines = out.lines().toList();
        int header = 0;
        while (!lines.get(header).trim().startsWith("#")) {
            header++;
        }
        return lines.subList(header + 1, lines.size()).stream()
                .filter(line -> line.trim().matches("\\d+ .*"))
                .toList();
    }

    /** Returns the complete lines printed so far: a line still being written on the command's thread is left out. */
    private static List<String> lines(StringWriter out) {
        String text = out.toString();
        String complete = text.substring(0, text.lastIndexOf('\n') + 1);
        return complete.lines().filter(line -> !line.isBlank()).toList();
    }

    /**
     * Lock holders and waiters, each with a client and an actor of its own: holders acquire at once; waiters acquire
     * until the queue has the node count given. Closing releases everyone in queue order, so no node is left behind.
     */
    private static final class Queue implements AutoCloseable {
        private final List<Member> members = new ArrayList<>();

        CuratorFramework hold(String name, Function<CuratorFramework, InterProcessLock> locks) throws Exception {
            Member member = join(name, locks, () -> {
                member(name).lock.acquire();
                return true;
            });
            member.acquired.get(20, TimeUnit.SECONDS);
            return member.client;
        }

        CuratorFramework wait(String name, Function<CuratorFramework, InterProcessLock> locks, String path, int nodes) {
            Member member = join(name, locks, () -> member(name).lock.acquire(30, TimeUnit.SECONDS));
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> member.client.getChildren().forPath(path).size() == nodes);
            return member.client;
        }

        private Member join(
                String name, Function<CuratorFramework, InterProcessLock> locks, LockActor.Action<Boolean> acquire) {
            CuratorFramework client = zk.newClient();
            Member member = new Member(name, client, locks.apply(client), LockActor.start(name));
            members.add(member);
            member.acquired = member.actor.submit(acquire);
            return member;
        }

        private Member member(String name) {
            return members.stream().filter(m -> m.name.equals(name)).findFirst().orElseThrow();
        }

        @Override
        public void close() throws Exception {
            for (Member member : members) {
                assertThat(member.acquired.get(30, TimeUnit.SECONDS)).isTrue();
                member.actor
                        .submit(() -> {
                            member.lock.release();
                            return null;
                        })
                        .get(30, TimeUnit.SECONDS);
                member.actor.close();
            }
        }
    }

    private static final class Member {
        final String name;
        final CuratorFramework client;
        final InterProcessLock lock;
        final LockActor actor;
        CompletableFuture<Boolean> acquired;

        Member(String name, CuratorFramework client, InterProcessLock lock, LockActor actor) {
            this.name = name;
            this.client = client;
            this.lock = lock;
            this.actor = actor;
        }
    }
}

package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.Contender;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.LockKind;
import dev.zklock.recipes.test.SafetyMonitor;
import dev.zklock.recipes.test.SafetyReport;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Server failures in a real 3-server ensemble while a lock is held and waiters are queued: the leader, a follower, the
 * holder's own server, the quorum, and every server in turn. Sessions outlive a server's loss (clients move to another
 * server within the session timeout), so a hold outlives it too, and the queue keeps its order.
 *
 * <table>
 *   <caption>Outcomes</caption>
 *   <tr><th>fault</th><th>acceptable</th><th>forbidden</th></tr>
 *   <tr><td>leader killed while held, 3 waiters queued</td><td>holder keeps its node and token; waiters get the
 *       lock one at a time in queue order after the release</td><td>a waiter holding before the release; a waiter
 *       never finishing; a node left</td></tr>
 *   <tr><td>the holder's server killed</td><td>the holder's client moves to another server, keeps its node</td>
 *       <td>the hold lost; a second holder</td></tr>
 *   <tr><td>quorum lost</td><td>a timed acquire returns false and leaves no node; an untimed one gets the lock once
 *       the quorum is back</td><td>a hang; a node left behind</td></tr>
 * </table>
 *
 * <p>Each test prints one {@code [failover]} line with what it measured.
 */
@Timeout(180)
final class FailoverIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.ensemble(3);

    private final SafetyMonitor monitor = SafetyMonitor.create();
    private final List<LockActor> actors = new ArrayList<>();

    @AfterEach
    void closeActors() throws InterruptedException {
        for (LockActor actor : actors) {
            actor.close();
        }
    }

    @Test
    void acquire_whenTheLeaderIsKilledWhileHeldWithWaitersQueued_waitersGetTheLockInQueueOrder() throws Exception {
        CuratorFramework holderClient = zk.newClient();
        ZkReentrantLock holder = new ZkReentrantLock(holderClient, zk.path("lock"));
        holder.acquire();
        long token = holder.fencingToken();
        SafetyMonitor.Hold hold = enter("holder", holder.path(), token, holderClient);
        List<String> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> waiters = queueWaiters(holder, order);

        long killed = System.nanoTime();
        int leader = zk.killLeader();
        int newLeader = zk.leader();
        long electionMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);

        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> holder.participantNodes().size() == 4);
        assertThat(holder.fencingToken()).isEqualTo(token);
        assertThat(waiters).noneMatch(CompletableFuture::isDone);
        zk.restartServer(leader);
        hold.exit();
        holder.release();

        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(order).containsExactly("zk-reentrant", "zk-exclusive", "curator-mutex");
        assertClean();
        System.out.printf(
                "[failover] leader %d killed while held with 3 waiters: server %d leads after %d ms; holder kept "
                        + "token %d; waiters served in order %s; %s%n",
                leader, newLeader, electionMillis, token, order, monitor.report());
    }

    @Test
    void hold_whenTheHoldersServerIsKilled_movesToAnotherServerAndKeepsTheLock() throws Exception {
        CuratorFramework holderClient = zk.newClient();
        ZkExclusiveLock holder = ZkExclusiveLock.mutexLayout(holderClient, zk.path("lock"));
        holder.acquire();
        long token = holder.fencingToken();
        SafetyMonitor.Hold hold = enter("holder", holder.path(), token, holderClient);
        CuratorFramework otherClient = zk.newClient();
        ZkReentrantLock other = new ZkReentrantLock(otherClient, zk.path("lock"));
        int server = zk.serverOf(holderClient);
        boolean wasLeader = server == zk.leader();

        long killed = System.nanoTime();
        zk.stopServer(server);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            int now = zk.serverOf(holderClient);
            return now >= 0 && now != server;
        });
        long movedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);

        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> !other.acquire(Duration.ZERO));
        // A try that gave up while the connection was down may leave its node to the background: a delete that failed
        // with the connection goes to Curator's guaranteed delete, and a create whose reply was lost is swept for by
        // its prefix once the client is connected (NodeDeletes). So the other's node may stand a moment after false.
        await().atMost(Duration.ofSeconds(30))
                .until(() -> holder.participantNodes().size() == 1);
        assertThat(holder.fencingToken()).isEqualTo(token);
        hold.exit();
        holder.release();
        assertThat(other.acquire(30, TimeUnit.SECONDS)).isTrue();
        enter("other", other.path(), other.fencingToken(), otherClient).exit();
        other.release();
        zk.restartServer(server);
        assertClean();
        System.out.printf(
                "[failover] holder's server %d (%s) killed: client on server %d after %d ms, node and token %d kept%n",
                server, wasLeader ? "leader" : "follower", zk.serverOf(holderClient), movedMillis, token);
    }

    @Test
    void acquire_whenAFollowerIsKilledWhileWaitersAreQueued_everyWaiterFinishes() throws Exception {
        CuratorFramework holderClient = zk.newClient();
        ZkReentrantLock holder = new ZkReentrantLock(holderClient, zk.path("lock"));
        holder.acquire();
        SafetyMonitor.Hold hold = enter("holder", holder.path(), holder.fencingToken(), holderClient);
        List<String> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> waiters = queueWaiters(holder, order);

        int follower = zk.killFollower();
        hold.exit();
        holder.release();

        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(order).containsExactly("zk-reentrant", "zk-exclusive", "curator-mutex");
        zk.restartServer(follower);
        assertClean();
        System.out.printf(
                "[failover] follower %d killed with 3 waiters queued: all served in order %s%n", follower, order);
    }

    @Test
    void acquire_whenTheQuorumIsLost_timedAcquireGivesUpCleanlyAndUntimedOneGetsTheLockLater() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock timed = new ZkReentrantLock(client, zk.path("lock"));
        ZkReentrantLock untimed = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        timed.acquire(); // makes the container parents, so the outage is the only thing that can fail the creates
        timed.release();
        int leader = zk.killLeader();
        int follower = zk.killFollower();

        long start = System.nanoTime();
        assertThat(timed.acquire(1, TimeUnit.SECONDS)).isFalse();
        long gaveUpMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        LockActor actor = actor("untimed");
        CompletableFuture<Long> acquired = actor.submit(() -> {
            untimed.acquire();
            long token = untimed.fencingToken();
            untimed.release();
            return token;
        });
        assertThat(acquired).isNotDone();

        zk.restartServer(follower);
        assertThat(acquired.get(60, TimeUnit.SECONDS)).isPositive();
        zk.restartServer(leader);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> timed.participantNodes()
                .isEmpty());
        System.out.printf(
                "[failover] quorum lost (servers %d and %d): timed acquire of 1 s gave up after %d ms, untimed one "
                        + "held once the quorum was back; no node left%n",
                leader, follower, gaveUpMillis);
    }

    @Test
    void acquire_whileEveryServerRestartsInTurn_neverOverlapsAndEveryoneProgresses() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        List<AtomicInteger> counts = new ArrayList<>();
        List<CompletableFuture<Void>> loops = new ArrayList<>();
        for (LockKind kind : LockKind.mutexes()) {
            Contender contender = kind.newContender(zk.newClient(), List.of(zk.path("lock")));
            AtomicInteger count = new AtomicInteger();
            counts.add(count);
            loops.add(actor(kind.name()).submit(() -> loop(contender, kind.name(), stop, count)));
        }

        for (int server = 0; server < zk.servers().size(); server++) {
            zk.stopServer(server);
            zk.restartServer(server);
        }
        List<Integer> afterRestarts = counts.stream().map(AtomicInteger::get).toList();
        await().atMost(Duration.ofSeconds(60)).until(() -> IntStream.range(0, counts.size())
                .allMatch(i -> counts.get(i).get() >= afterRestarts.get(i) + 5));
        stop.set(true);

        CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        int acquisitions = counts.stream().mapToInt(AtomicInteger::get).sum();
        assertClean();
        System.out.printf(
                "[failover] rolling restart of 3 servers: %d acquisitions over 3 lock kinds, %s%n",
                acquisitions, monitor.report());
    }

    /** Queues a zklock reentrant, a zklock exclusive and a Curator waiter behind {@code holder}, in that order. */
    private List<CompletableFuture<Void>> queueWaiters(ZkReentrantLock holder, List<String> order) throws Exception {
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (LockKind kind : LockKind.mutexes()) {
            Contender contender = kind.newContender(zk.newClient(), List.of(holder.path()));
            int queued = holder.participantNodes().size();
            waiters.add(actor(kind.name()).submit(() -> {
                assertThat(acquireAndRelease(contender, kind.name(), Duration.ofSeconds(60), order))
                        .isTrue();
                return null;
            }));
            await().until(() -> holder.participantNodes().size() == queued + 1);
        }
        return waiters;
    }

    /** Loops acquire and release until told to stop, counting holds; Curator's give-ups during an election are misses. */
    private Void loop(Contender contender, String name, AtomicBoolean stop, AtomicInteger count)
            throws InterruptedException {
        while (!stop.get()) {
            try {
                if (acquireAndRelease(contender, name, Duration.ofSeconds(2), new ArrayList<>())) {
                    count.incrementAndGet();
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                // Curator's mutex gives up when its retry policy runs out during an election: not a safety matter
            }
        }
        return null;
    }

    /** One acquire, recorded in the monitor, and its release; returns whether it held. */
    private boolean acquireAndRelease(Contender contender, String name, Duration timeout, List<String> order)
            throws Exception {
        SafetyMonitor.Waiter waiter = monitor.startWaiting(name, contender.lockPaths());
        Optional<List<SafetyMonitor.Claim>> claims;
        try {
            claims = contender.acquire(timeout);
        } finally {
            waiter.finished();
        }
        if (claims.isEmpty()) {
            return false;
        }
        List<SafetyMonitor.Hold> holds =
                claims.get().stream().map(claim -> monitor.enter(name, claim)).toList();
        order.add(name);
        holds.forEach(SafetyMonitor.Hold::exit);
        contender.release();
        return true;
    }

    private SafetyMonitor.Hold enter(String owner, String path, long token, CuratorFramework client) {
        return monitor.enter(owner, SafetyMonitor.Claim.exclusive(path, token, client));
    }

    private LockActor actor(String name) {
        LockActor actor = LockActor.start(name);
        actors.add(actor);
        return actor;
    }

    private void assertClean() throws InterruptedException {
        monitor.checkNoNodesLeft(zk.newClient(), List.of(zk.path("lock")), Duration.ofSeconds(30));
        SafetyReport report = monitor.report();
        assertThat(report.isClean()).as(report.toString()).isTrue();
    }
}

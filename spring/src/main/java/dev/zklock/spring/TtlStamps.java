package dev.zklock.spring;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a hold's time to live, written on its node so that any process can judge it, as Spring's JDBC registry
 * keeps a lock's expiry in its row: the node's data is {@code zklock-ttl-until=} and the end in milliseconds since the
 * epoch by the holder's clock. A process whose no-wait try finds the key held reads the holder's node, and if the end
 * is past by its own clock, deletes that node (only the version it read) and tries again: the key is free when the time
 * is up whether or not the holder's timer has run, a paused or busy holder process included. The clocks of the
 * processes must agree, as with Spring's JDBC registry.
 *
 * <p>Stateless beyond its client: safe for use by multiple threads.
 *
 * <p>Cost: a stamp is one {@code setData} on the hold's node (each fires the data watches on it: the holder's own,
 * which sets itself again with one read, and the next waiter's, which looks at the queue again); a take-over is a
 * listing and a read, and a delete if the holder's time is up
 * ({@code SpringRequestCountTest.lockWithATtlAndUnlock_uncontended_costTheEndsWriteAndItsWatchMore},
 * {@code ZkSpringLockTest.lockWithTtl_holderProcessesTimerStuck_anotherProcessTakesTheKeyWhenTheTtlIsUp}).
 */
final class TtlStamps {
    private static final Logger logger = LoggerFactory.getLogger(TtlStamps.class);
    private static final String PREFIX = "zklock-ttl-until=";
    private static final byte[] CLEARED = new byte[0];

    private final CuratorFramework client;

    TtlStamps(CuratorFramework client) {
        this.client = client;
    }

    /** The data of a node whose hold's time to live ends at {@code epochMillis}. */
    static byte[] until(long epochMillis) {
        return (PREFIX + epochMillis).getBytes(StandardCharsets.UTF_8);
    }

    /** The end of the time to live {@code data} records, if it is a stamp. */
    static OptionalLong untilOf(byte[] data) {
        if (data == null || data.length <= PREFIX.length()) {
            return OptionalLong.empty();
        }
        String text = new String(data, StandardCharsets.UTF_8);
        if (!text.startsWith(PREFIX)) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(text.substring(PREFIX.length())));
        } catch (NumberFormatException notOurs) {
            return OptionalLong.empty();
        }
    }

    /**
     * Writes {@code data} on {@code node}, any version, sent before this returns and not waited for: requests sent
     * on one session are applied in the order sent, so stamps follow each other and the clear that ends them.
     *
     * @return completes with whether the write was applied; never exceptionally
     */
    CompletableFuture<Boolean> write(String node, byte[] data) {
        CompletableFuture<Boolean> written = new CompletableFuture<>();
        try {
            client.setData()
                    .inBackground((c, event) -> written.complete(event.getResultCode() == 0))
                    .forPath(node, data);
        } catch (Exception refused) {
            logger.debug("the time to live of node {} was not written", node, refused);
            written.complete(false);
        }
        return written;
    }

    /** Takes the stamp off {@code node}, so that a hold passed on with it is not judged by its time. */
    CompletableFuture<Boolean> clear(String node) {
        return write(node, CLEARED);
    }

    /**
     * Waits for {@code written} for at most {@code timeoutNanos}, through interrupts (an unlock in a cancelled task
     * must not take an interrupt for a failed write); false if it failed or did not come. The interrupt flag is set
     * again if it was set.
     */
    static boolean await(CompletableFuture<Boolean> written, long timeoutNanos) {
        return awaitDone(written, System.nanoTime() + timeoutNanos) && written.join();
    }

    /**
     * Waits until {@code future} is done or {@code deadlineNanos} passes, through interrupts (the flag is set again
     * after): the one bounded wait of the registry's owners, for a write's reply, a take-over's requests and an
     * expiry under way ({@link ThreadHold}).
     *
     * @return true if it completed normally in time
     */
    static boolean awaitDone(CompletableFuture<?> future, long deadlineNanos) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return true;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | TimeoutException e) {
                    return false;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Ends the hold ahead of us if its time to live is up: lists the lock's path, reads the first node in the queue
     * (the holder), and if its stamp's end is past by this clock, deletes that node in the version read (a renewal or
     * a clear since then keeps it). Each request is sent in the background and waited for until {@code deadlineNanos}:
     * a silent or lost connection makes it give up (false), never throw. Not tried while the client is disconnected.
     *
     * @param lock the lock whose holder is judged
     * @param lockName the lock as messages name it
     * @param deadlineNanos when to give up ({@link System#nanoTime()})
     * @return true if the holder's node is gone (deleted here or before), so that a try may be made again
     */
    boolean takeOverExpired(ZkReentrantLock lock, String lockName, long deadlineNanos) {
        if (!client.getZookeeperClient().isConnected()) {
            return false;
        }
        CuratorEvent listed = call(
                deadlineNanos, (c, done) -> c.getChildren().inBackground(done).forPath(lock.path()));
        if (listed == null || listed.getResultCode() != KeeperException.Code.OK.intValue()) {
            return false;
        }
        List<String> queue = LockDriver.exclusive().sort(listed.getChildren()); // a registry's locks' driver
        if (queue.isEmpty()) {
            return false;
        }
        String holder = ZKPaths.makePath(lock.path(), queue.get(0));
        CuratorEvent read =
                call(deadlineNanos, (c, done) -> c.getData().inBackground(done).forPath(holder));
        if (read == null) {
            return false;
        }
        if (read.getResultCode() == KeeperException.Code.NONODE.intValue()) {
            return true;
        }
        OptionalLong until = read.getResultCode() == KeeperException.Code.OK.intValue()
                ? untilOf(read.getData())
                : OptionalLong.empty();
        long now = System.currentTimeMillis();
        if (until.isEmpty() || until.getAsLong() > now) {
            return false;
        }
        int version = read.getStat().getVersion();
        CuratorEvent deleted = call(
                deadlineNanos,
                (c, done) -> c.delete().withVersion(version).inBackground(done).forPath(holder));
        if (deleted == null) {
            return false;
        }
        int code = deleted.getResultCode();
        if (code == KeeperException.Code.OK.intValue()) {
            logger.warn(
                    "{}: the hold on node {} outlived its ttl (it ended at {}, {} ms ago by this clock); node deleted",
                    lockName,
                    holder,
                    until.getAsLong(),
                    now - until.getAsLong());
        }
        return code == KeeperException.Code.OK.intValue() || code == KeeperException.Code.NONODE.intValue();
    }

    /** One background request, its reply awaited until {@code deadlineNanos}; null if none came or it failed. */
    private CuratorEvent call(long deadlineNanos, Request request) {
        CompletableFuture<CuratorEvent> reply = new CompletableFuture<>();
        try {
            request.send(client, (c, event) -> reply.complete(event)); // on ZooKeeper's event thread: never blocks
        } catch (Exception refused) {
            logger.debug("a request to judge a holder's ttl was refused", refused);
            return null;
        }
        return awaitDone(reply, deadlineNanos) ? reply.join() : null; // an interrupt flag stays set
    }

    /** A request sent in the background, its reply told to {@code done}. */
    @FunctionalInterface
    private interface Request {
        void send(CuratorFramework client, BackgroundCallback done) throws Exception;
    }
}

package dev.zklock.spring;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateListener;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The time to live of one hold: a timer that, unless the hold is renewed or ends first, deletes the hold's node (one
 * request) and so ends it, as a Redis lock's key expires. Safe for use by multiple threads: the holding thread renews
 * and ends it, the timer's thread expires it.
 *
 * <p>The node must be known gone by the lock before the holder's unlock lets the lock go on: with local hand-off the
 * lock passes its node to a local waiter, and a node passed after its delete was sent would be held by a thread that
 * does not know it is gone. So {@link #end()} of an expired hold waits, within one request timeout, for the delete's
 * reply and, when the lock watches its own node (local hand-off), for the hold's LOST
 * ({@code ZkSpringLockRegistryTest.lockWithTtl_whenTheTtlRunsOut_deletesTheNodeAndTheHoldGoesLost}).
 */
final class HoldExpiry {
    private static final Logger logger = LoggerFactory.getLogger(HoldExpiry.class);

    private final TtlTimer timer;
    private final ZkReentrantLock lock;
    private final String key;
    private final String node;
    private final boolean lockWatchesItsNode;
    private final CompletableFuture<Void> deleted = new CompletableFuture<>();
    private final CompletableFuture<Void> lost = new CompletableFuture<>();
    private final LockStateListener lostListener;

    private Duration ttl; // guarded by this
    private ScheduledFuture<?> pending; // guarded by this
    private boolean expired; // guarded by this
    private boolean ended; // guarded by this

    HoldExpiry(TtlTimer timer, ZkReentrantLock lock, String key, String node, boolean lockWatchesItsNode) {
        this.timer = timer;
        this.lock = lock;
        this.key = key;
        this.node = node;
        this.lockWatchesItsNode = lockWatchesItsNode;
        this.lostListener = event -> {
            if (event.node().equals(node) && event.state() == LockState.LOST) {
                lost.complete(null);
            }
        };
    }

    /** Starts or restarts the time to live; false if the hold already expired or ended. */
    synchronized boolean renew(Duration ttl) {
        if (expired || ended) {
            return false;
        }
        if (pending != null) {
            pending.cancel(false);
        }
        this.ttl = ttl;
        pending = timer.schedule(this::expire, ttl);
        return true;
    }

    synchronized Duration ttl() {
        return ttl;
    }

    synchronized boolean isExpired() {
        return expired;
    }

    /**
     * Ends the time to live as the holder unlocks; returns whether it had run out, after waiting (within one request
     * timeout) until the lock knows the node is gone.
     */
    boolean end() {
        synchronized (this) {
            ended = true;
            if (pending != null) {
                pending.cancel(false);
            }
            if (!expired) {
                return false;
            }
        }
        awaitGone();
        lock.removeStateListener(lostListener);
        return true;
    }

    private void expire() {
        synchronized (this) {
            if (expired || ended) {
                return;
            }
            expired = true;
        }
        logger.warn("lock '{}' at {}: the hold's ttl of {} ran out; deleting its node {}", key, lock.path(), ttl, node);
        lock.addStateListener(lostListener);
        timer.delete(node, deleted);
    }

    private void awaitGone() {
        long deadline = System.nanoTime() + timer.requestTimeoutNanos();
        boolean interrupted = false;
        CompletableFuture<Void> gone = lockWatchesItsNode ? CompletableFuture.allOf(deleted, lost) : deleted;
        while (true) {
            try {
                gone.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | TimeoutException e) {
                logger.warn(
                        "lock '{}' at {}: node {} of an expired hold not known gone within a request timeout",
                        key,
                        lock.path(),
                        node,
                        e);
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}

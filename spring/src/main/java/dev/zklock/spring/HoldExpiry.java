package dev.zklock.spring;

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
 * The time to live of one hold: a timer that, unless the hold is renewed or ends first, expires the hold through the
 * lock ({@code ZkReentrantLock.expire}: the hold goes LOST at once, then its node is deleted, one request), as a Redis
 * lock's key expires. Safe for use by multiple threads: the holding thread renews and ends it, the timer's thread
 * expires it.
 *
 * <p>The hold must be LOST before the holder's unlock lets the lock go on: with local hand-off the lock would otherwise
 * pass its node to a local waiter while the delete is on its way. So {@link #end()} of an expired hold waits until the
 * expiry has run ({@code ZkSpringLockRegistryTest.lockWithTtl_whenTheTtlRunsOut_deletesTheNodeAndTheHoldGoesLost}).
 */
final class HoldExpiry {
    private static final Logger logger = LoggerFactory.getLogger(HoldExpiry.class);

    private final TtlTimer timer;
    private final ZkReentrantLock lock;
    private final String key;
    private final String node;
    private final CompletableFuture<Void> gone = new CompletableFuture<>();

    private Duration ttl; // guarded by this
    private ScheduledFuture<?> pending; // guarded by this
    private boolean expired; // guarded by this
    private boolean ended; // guarded by this

    HoldExpiry(TtlTimer timer, ZkReentrantLock lock, String key, String node) {
        this.timer = timer;
        this.lock = lock;
        this.key = key;
        this.node = node;
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

    /** Ends the time to live as the holder unlocks; returns whether it had run out, once the hold is LOST. */
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
        return true;
    }

    private void expire() {
        synchronized (this) {
            if (expired || ended) {
                return;
            }
            expired = true;
        }
        logger.warn("lock '{}' at {}: the hold's ttl of {} ran out; expiring its node {}", key, lock.path(), ttl, node);
        try {
            lock.expire(node);
        } finally {
            gone.complete(null);
        }
    }

    /** Waits for the expiry under way, which never blocks on ZooKeeper: within one request timeout all the same. */
    private void awaitGone() {
        long deadline = System.nanoTime() + timer.requestTimeoutNanos();
        boolean interrupted = false;
        while (true) {
            try {
                gone.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | TimeoutException e) {
                logger.warn(
                        "lock '{}' at {}: the expiry of node {} did not end within a request timeout",
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

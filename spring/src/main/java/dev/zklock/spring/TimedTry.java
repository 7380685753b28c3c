package dev.zklock.spring;

import dev.zklock.recipes.locks.LockHold;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockTimeoutException;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The timed try of a {@link ZkSpringLock}: an acquire with no thread in it ({@link ZkReentrantLock#acquireAsync}),
 * which the trying thread waits for until the try's time and {@value #GRACE_MILLIS} ms more, whatever the network
 * does, and then withdraws from. Stateless; safe for use by multiple threads.
 *
 * <p>Why not the lock's blocking acquire: every acquire of zklock's engine comes back within its timeout plus one
 * request timeout (two thirds of the session timeout), for a reply to a request already sent is worth waiting for; on a
 * silent connection, where neither a reply nor a disconnect comes, a {@code tryLock(1, SECONDS)} on a 15 s session took
 * 10.1 s. Spring's registry gives up at its time. Here the try gives up at its time too, and what it sent is cleaned up
 * in the background: cancelling the acquire withdraws it, and its node, protected and ephemeral, is deleted when the
 * create's reply comes, or found by the engine's sweep for a create whose reply never came, or goes with the session
 * ({@code ZkSpringLockTest.tryLock_onASilentConnection_returnsFalseInTimeAndTheNodeGoesOnReconnect}).
 *
 * <p>The price: such an acquire takes a node of its own, also with local hand-off (the engine has no cohort for an
 * acquire that no thread waits in): a timed try queues in ZooKeeper behind the nodes of this process too, and does not
 * take a node the cohort keeps idle (that node goes when the try's node arrives: one delete, so a try with no time to
 * wait finds it still there). An uncontended try and its unlock cost what a blocking one does: 4 requests.
 */
final class TimedTry {
    static final long GRACE_MILLIS = 50;
    private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS);
    private static final long MAX_WAIT_NANOS = Long.MAX_VALUE / 4;

    private TimedTry() {}

    /**
     * Tries to acquire {@code lock} within {@code waitNanos} (zero or less: one try that does not wait for the lock),
     * and comes back by then and {@value #GRACE_MILLIS} ms more.
     *
     * @return the grant, owned by no thread; or null if the time ran out first (the cleanup goes on in the background)
     * @throws InterruptedException if the thread is interrupted while it waits (the flag is cleared; the acquire is
     *     withdrawn in the background, and a grant that came meanwhile released)
     * @throws IllegalStateException if the client is not started or is closed
     * @throws dev.zklock.recipes.locks.ZkLockException if ZooKeeper refuses a request
     */
    static ThreadHold.Grant attempt(ZkReentrantLock lock, long waitNanos) throws InterruptedException {
        long wait = Math.max(0, Math.min(waitNanos, MAX_WAIT_NANOS));
        long bound = System.nanoTime() + wait + GRACE_NANOS; // from here: the acquire's start may take a while
        CompletableFuture<LockHold> acquiring = lock.acquireAsync(Duration.ofNanos(wait));
        LockHold granted;
        try {
            granted = acquiring.get(Math.max(0, bound - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException late) {
            withdraw(acquiring);
            return null;
        } catch (InterruptedException e) {
            withdraw(acquiring);
            throw e;
        } catch (ExecutionException e) {
            granted = grantOrNull(e.getCause());
        }
        return granted == null ? null : new AsyncGrant(granted, lock.path());
    }

    /**
     * Withdraws the acquire in the background: cancelling it runs the engine's cleanup on the cancelling thread, which
     * the trying thread does not wait for. A grant that came first is released.
     */
    private static void withdraw(CompletableFuture<LockHold> acquiring) {
        ForkJoinPool.commonPool().execute(() -> {
            if (!acquiring.cancel(false)) {
                acquiring.thenAccept(LockHold::close); // granted as the try gave up: given back at once
            }
        });
    }

    /** Null for a try whose time ran out; the failure itself for any other. */
    private static LockHold grantOrNull(Throwable failure) {
        if (failure instanceof LockTimeoutException) {
            return null;
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        throw new IllegalStateException("acquire failed", failure); // the engine fails futures with unchecked only
    }

    /**
     * A hold of a node of its own, which belongs to the hold, not to a thread: its time to live expires it as a
     * thread's hold is expired ({@link LockHold#expire()}: LOST, the listeners told, the node deleted in the
     * background).
     */
    private static final class AsyncGrant implements ThreadHold.Grant {
        private final LockHold hold;
        private final String lockPath;

        AsyncGrant(LockHold hold, String lockPath) {
            this.hold = hold;
            this.lockPath = lockPath;
        }

        @Override
        public LockState state() {
            return hold.state();
        }

        @Override
        public long token() {
            return hold.fencingToken();
        }

        @Override
        public void release() {
            hold.close();
        }

        @Override
        public void expire() {
            hold.expire();
        }

        @Override
        public String node() {
            return hold.node().orElseThrow(() -> new IllegalStateException("no node for a hold of " + lockPath));
        }

        @Override
        public boolean passesNodeOn() {
            return false; // a node of its own: its release deletes it
        }
    }
}

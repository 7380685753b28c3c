package dev.zklock.recipes.locks;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One held acquisition of one lock node, and its {@link LockState}. The state is changed by the client's
 * {@link ConnectionTracker} and read by any thread.
 */
final class Hold {
    private static final Logger logger = LoggerFactory.getLogger(Hold.class);

    private final LockNode node;
    private final String lockPath;
    private final List<LockStateListener> lockListeners;
    private final long grantedNanos = System.nanoTime();
    private LockState state; // guarded by this

    Hold(LockNode node, String lockPath, List<LockStateListener> lockListeners, LockState initial) {
        this.node = node;
        this.lockPath = lockPath;
        this.lockListeners = lockListeners;
        this.state = initial;
    }

    LockNode node() {
        return node;
    }

    String lockPath() {
        return lockPath;
    }

    /** Returns how long ago the lock was granted. */
    long heldNanos() {
        return System.nanoTime() - grantedNanos;
    }

    synchronized LockState state() {
        return state;
    }

    /**
     * Moves to {@code next} unless the hold is already LOST (which is final); returns the event, or null if nothing
     * changed.
     */
    synchronized LockStateEvent moveTo(LockState next) {
        if (state == next || state == LockState.LOST) {
            return null;
        }
        LockState previous = state;
        state = next;
        return new LockStateEvent(lockPath, node.path(), node.token(), node.sessionId(), previous, next);
    }

    /**
     * Tells the lock's listeners and then {@code clientListeners}; a listener that throws is logged and skipped. The
     * client's tracker logs one line for every hold that moved at once; this logs each hold at DEBUG.
     */
    void announce(LockStateEvent event, Iterable<LockStateListener> clientListeners) {
        logger.debug("{}: {} is {} ({} before)", lockPath, node, event.state(), event.previous());
        for (LockStateListener listener : lockListeners) {
            tell(listener, event);
        }
        for (LockStateListener listener : clientListeners) {
            tell(listener, event);
        }
    }

    private static void tell(LockStateListener listener, LockStateEvent event) {
        try {
            listener.stateChanged(event);
        } catch (RuntimeException e) {
            logger.warn("{}: lock state listener {} threw on {}", event.lockPath(), listener, event, e);
        }
    }
}

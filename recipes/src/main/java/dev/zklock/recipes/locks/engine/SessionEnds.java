package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What waits on one session of a client and must hear at once when that session ends: a watch set on it (which may
 * never fire: a watch set on a handle after its Expired event is never told anything), a step waiting for a
 * connection. The client's {@link ConnectionTracker} tells it of every session end it learns of (Curator's LOST, a
 * reconnect on another session) and of the client's close. Each action runs once, on the thread that learns of the end,
 * and must not block. Safe for use by multiple threads; no ZooKeeper call.
 *
 * <p>The registrations are linked through themselves, in the order made, under a lock held only to link or unlink one
 * or to copy the list: a waiting thread's watcher costs its two links, not an entry of a concurrent set (32 bytes a
 * waiting thread fewer), and every client tells them in the same order (a seed of the simulator runs alike).
 */
public final class SessionEnds {
    private static final Logger logger = LoggerFactory.getLogger(SessionEnds.class);

    private static final long NO_SESSION = 0;

    private final ReentrantLock lock = new ReentrantLock(); // a virtual thread that waits for it is never pinned
    private Registration first; // guarded by lock: the oldest registration waiting
    private Registration last; // guarded by lock
    private int count; // guarded by lock
    private volatile boolean closed;

    SessionEnds() {}

    /**
     * Runs {@code action} once session {@code sessionId} of {@code client} ends or the client closes; at once if either
     * is known already.
     *
     * @return the registration, to cancel once nothing waits any more
     */
    public Registration onEnd(ClientPort client, long sessionId, Runnable action) {
        return register(client, new Action(sessionId, action));
    }

    /**
     * Has {@code registration} told ({@link Registration#sessionEnded}) once its session of {@code client} ends or the
     * client closes; at once if either is known already. Returns it.
     */
    public <R extends Registration> R register(ClientPort client, R registration) {
        Registration made = registration; // a type variable's private fields cannot be read
        made.owner = this;
        long sessionId = made.sessionId;
        link(made);
        if (closed || !client.isStarted()) {
            fire(registration);
        } else {
            SessionPort current = client.connected();
            if (current != null && current.sessionId() != sessionId) {
                fire(registration);
            }
        }
        return registration;
    }

    /**
     * Runs {@code action} once {@code client} is connected (now, or at its next connection) or closed: how a step that
     * needs a connection waits for one, and ends when the client closes.
     *
     * @return the registration, to cancel once nothing waits any more
     */
    public Registration onConnectedOrClosed(ClientPort client, Runnable action) {
        return onEnd(client, NO_SESSION, action); // every connection is on a session other than none
    }

    /**
     * Every session but {@code live} has ended (0: every session; a wait for a connection goes on): told by the client's
     * tracker, or by a simulated client. The registrations told are those made before the call.
     */
    public void ended(long live) {
        for (Registration registration : waiting()) {
            if (registration.sessionId != live && (live != NO_SESSION || registration.sessionId != NO_SESSION)) {
                fire(registration);
            }
        }
    }

    /** The client closed: every session has ended, and so does every session registered later. */
    public void closed() {
        closed = true;
        for (Registration registration : waiting()) {
            fire(registration);
        }
    }

    /** Returns how many wait now; for tests. */
    public int waitingCount() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }

    /** The registrations waiting now, in the order made. */
    private List<Registration> waiting() {
        lock.lock();
        try {
            List<Registration> copy = new ArrayList<>(count);
            for (Registration at = first; at != null; at = at.next) {
                copy.add(at);
            }
            return copy;
        } finally {
            lock.unlock();
        }
    }

    private void link(Registration registration) {
        lock.lock();
        try {
            if (registration.linked) {
                return; // registered already: it keeps its place, as in a set
            }
            registration.linked = true;
            registration.previous = last;
            if (last == null) {
                first = registration;
            } else {
                last.next = registration;
            }
            last = registration;
            count++;
        } finally {
            lock.unlock();
        }
    }

    /** Takes {@code registration} out of the list; false if it was not in it (told, or cancelled, already). */
    private boolean unlink(Registration registration) {
        lock.lock();
        try {
            if (!registration.linked) {
                return false;
            }
            registration.linked = false;
            Registration before = registration.previous;
            Registration after = registration.next;
            if (before == null) {
                first = after;
            } else {
                before.next = after;
            }
            if (after == null) {
                last = before;
            } else {
                after.previous = before;
            }
            registration.previous = null;
            registration.next = null;
            count--;
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void fire(Registration registration) {
        if (unlink(registration)) {
            try {
                registration.sessionEnded();
            } catch (RuntimeException e) {
                logger.error("session 0x{}: an action on its end threw", Long.toHexString(registration.sessionId), e);
            }
        }
    }

    /**
     * One thing waiting on one session's end; a watcher that waits on it is one itself (one object fewer for each
     * waiting thread), linked into its owner's list through its own fields. Identity is its equality.
     */
    public abstract static class Registration {
        private final long sessionId;
        private volatile SessionEnds owner; // set when registered
        private Registration previous; // guarded by the owner's lock
        private Registration next; // guarded by the owner's lock
        private boolean linked; // guarded by the owner's lock: waiting in the owner's list

        protected Registration(long sessionId) {
            this.sessionId = sessionId;
        }

        /** The session waited on; 0 for a wait for a connection. */
        public final long sessionId() {
            return sessionId;
        }

        /** Its session ended, or the client closed: runs once, on the thread that learns of it; must not block. */
        protected abstract void sessionEnded();

        /** Stops waiting; {@link #sessionEnded} will not run if it has not yet. */
        public final void cancel() {
            SessionEnds registeredIn = owner;
            if (registeredIn != null) {
                registeredIn.unlink(this);
            }
        }
    }

    /** An action waiting on one session's end. */
    private static final class Action extends Registration {
        private final Runnable action;

        Action(long sessionId, Runnable action) {
            super(sessionId);
            this.action = action;
        }

        @Override
        protected void sessionEnded() {
            action.run();
        }
    }
}

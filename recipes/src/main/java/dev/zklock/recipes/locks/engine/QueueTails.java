package dev.zklock.recipes.locks.engine;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The newest lock node this client made on each lock path, from its create's reply until its delete is sent, and the
 * creates of this client on their way to each path. Owned by the client's {@link ClientContext}; safe for use by
 * multiple threads; no ZooKeeper call. Keys are namespace-fixed lock paths; an entry goes when its path has neither.
 *
 * <p>Why: a waiter whose predecessor in the queue is a node of its own client already knows what to watch, so only a
 * waiter behind another session's node needs the listing, which carries the whole queue (with 10,000 waiters of one
 * client, 10,000 listings of up to 10,000 names each). ZooKeeper takes a sequential node's sequence from its parent's
 * child version, which every child create bumps, whatever its mode, so a node whose sequence is one more than that of a
 * node this client made on that path proves that no node was created between the two. And that node still stood when
 * ours was made: its entry is dropped before its delete is sent ({@link #deleting}), one session answers in order, and
 * the replies here are read on ZooKeeper's event thread in the order they come ({@link #created}). (A delete by another
 * client would not keep that node from being found here; a waiter that finds it gone lists the queue, unless this
 * client released it from the front, in which case nothing else can stand before ours.)
 *
 * <p>The listing is pipelined behind the create, so whether to send it is decided before the create goes out, from
 * {@link #sending}: a guess, since another client may create between ours; a wrong guess costs one more round trip
 * (the listing, sent after the create's reply), never one more request.
 */
public final class QueueTails {
    private static final int SEQUENCE_DIGITS = 10;

    // A path's entry: a Tail while a create of ours is on its way there or a node was deleted before its create's reply
    // was read; the held LockNode itself once it is our newest node there and nothing is on its way (held), which
    // costs a held lock the map's node alone.
    private final ConcurrentHashMap<String, Object> tails = new ConcurrentHashMap<>();

    /**
     * Counts a create about to be sent on {@code path}, and returns what of ours it will likely be right behind: the
     * prefix of our newest create still on its way, or else the name of our newest node, or null when this client has
     * neither on that path on this session.
     *
     * @param prefix the protected prefix (with the lock name) of the create, unique to it
     */
    public String sending(String path, long sessionId, String prefix) {
        String[] ahead = new String[1];
        tails.compute(path, (p, entry) -> {
            Tail now = Tail.of(entry);
            if (now.sessionId != sessionId) {
                now.sessionId = sessionId;
                now.forgetNewest(); // the nodes of an ended session went with it
                now.newestSent = null;
            }
            ahead[0] = now.newestSent != null ? now.newestSent : now.newestName();
            now.inFlight = Tail.with(now.inFlight, prefix);
            now.newestSent = prefix;
            return now;
        });
        return ahead[0];
    }

    /**
     * Takes the reply of a create counted by {@link #sending}; call it on ZooKeeper's event thread, before any later
     * reply of the session is read. Returns the node of this client whose sequence is one less than that of {@code
     * ours} on the same path and session: the node right before ours, with nothing created between. Null if there is
     * none, or if the create failed ({@code ours} null). The node itself, not its name: a waiter behind it watches it
     * by the path string it keeps, with no copy of its own.
     *
     * @param prefix the create's prefix, which our node's name carries before its sequence
     * @param ours the node made, or null if the create failed
     */
    public LockNode created(String path, long sessionId, String prefix, LockNode ours) {
        String name = ours == null ? null : ours.name();
        long sequence = name == null ? -1 : sequence(name.substring(prefix.length()));
        LockNode[] before = new LockNode[1];
        tails.computeIfPresent(path, (p, entry) -> {
            Tail tail = Tail.of(entry);
            tail.sent(prefix);
            if (tail.wasGone(prefix)) {
                // Its delete was sent before this reply was read (a runner took the node from the listing): it must
                // never be taken for a node that still stands.
                tail.forgetNewest();
            } else if (name != null && tail.sessionId == sessionId) {
                if (tail.newest != null && sequence > 0 && tail.newestSequence == sequence - 1) {
                    before[0] = tail.newest;
                }
                tail.newest = ours;
                tail.newestSequence = sequence;
            }
            return tail.entry();
        });
        return before[0];
    }

    /**
     * Has the entry of {@code path} be {@code node} itself, just granted, once it is our newest node there and no create
     * of ours is on its way (now, or when the last reply or delete that keeps the tail is told): the entry then keeps no
     * copy of its name. A node found in the pipelined listing is granted before its create's reply is read here.
     */
    public void held(String path, LockNode node) {
        tails.computeIfPresent(path, (p, entry) -> {
            if (entry instanceof Tail tail) {
                tail.held = node;
                return tail.entry();
            }
            return entry;
        });
    }

    /** Forgets node {@code name} of {@code path}; call it before its delete is sent. */
    public void deleting(String path, String name) {
        tails.computeIfPresent(path, (p, entry) -> {
            if (entry instanceof LockNode node) {
                return name.equals(node.name()) ? null : node;
            }
            Tail tail = (Tail) entry;
            if (name.equals(tail.newestName())) {
                tail.forgetNewest();
            }
            String prefix = name.length() > SEQUENCE_DIGITS ? name.substring(0, name.length() - SEQUENCE_DIGITS) : name;
            if (tail.inFlight != null && tail.inFlight.contains(prefix)) {
                tail.sent(prefix); // taken from a listing before its create's reply was read here
                tail.gone = Tail.with(tail.gone, prefix);
            }
            return tail.entry();
        });
    }

    /** Returns how many paths have an entry: for tests, which check that nothing is kept once the nodes are gone. */
    public int size() {
        return tails.size();
    }

    /**
     * Tells whether the entry of {@code path} is a held node itself, with no tail and no copy of its name: for tests,
     * which check what a held lock keeps here.
     */
    boolean keepsNodeAlone(String path) {
        return tails.get(path) instanceof LockNode;
    }

    /** Returns a sequence as ZooKeeper appended it, or -1 if it wrapped below zero (then it orders nothing here). */
    private static long sequence(String text) {
        try {
            return Math.max(-1, Integer.parseInt(text));
        } catch (NumberFormatException notASequence) {
            return -1;
        }
    }

    /**
     * One path's entry while a create is on its way; guarded by the map (changed only inside its compute functions). The
     * sets are made when a create is sent and dropped once empty; once the newest node is granted and nothing is on its
     * way, the node itself takes the entry's place ({@link #held}).
     */
    private static final class Tail {
        long sessionId;
        Set<String> inFlight; // the prefixes of creates sent whose node is not known yet; null if none
        Set<String> gone; // creates whose node was deleted before their reply was read here; null if none
        String newestSent; // the prefix of the newest create in flight, or null
        LockNode newest; // the newest node made whose delete is not sent yet, or null
        long newestSequence = -1; // its sequence
        LockNode held; // a node granted on this path, which stands for the tail once it is the newest alone; or null

        /** The entry as a tail: {@code entry} itself, one made of a held node, or a new one for none. */
        static Tail of(Object entry) {
            if (entry instanceof Tail tail) {
                return tail;
            }
            Tail made = new Tail();
            if (entry instanceof LockNode node) {
                made.sessionId = node.sessionId();
                made.held = node;
                made.newest = node;
                String name = node.name();
                made.newestSequence = name.length() > SEQUENCE_DIGITS
                        ? sequence(name.substring(name.length() - SEQUENCE_DIGITS))
                        : -1;
            }
            return made;
        }

        /** The path's entry now: none once nothing is kept, the held node if it may stand for the tail, else the tail. */
        Object entry() {
            if (isEmpty()) {
                return null;
            }
            return held != null && isNewestAlone(held) ? held : this;
        }

        /** Tells whether {@code node} is the newest node, with nothing else kept: it may stand for this tail. */
        boolean isNewestAlone(LockNode node) {
            return inFlight == null
                    && gone == null
                    && newestSent == null
                    && sessionId == node.sessionId()
                    && node.name().equals(newestName());
        }

        /** The name of the newest node, or null. */
        String newestName() {
            return newest == null ? null : newest.name();
        }

        static Set<String> with(Set<String> set, String prefix) {
            Set<String> now = set == null ? new HashSet<>(4) : set;
            now.add(prefix);
            return now;
        }

        void sent(String prefix) {
            if (inFlight != null && inFlight.remove(prefix) && inFlight.isEmpty()) {
                inFlight = null;
            }
            if (prefix.equals(newestSent)) {
                newestSent = null;
            }
        }

        boolean wasGone(String prefix) {
            if (gone == null || !gone.remove(prefix)) {
                return false;
            }
            if (gone.isEmpty()) {
                gone = null;
            }
            return true;
        }

        void forgetNewest() {
            newest = null;
            newestSequence = -1;
        }

        boolean isEmpty() {
            return inFlight == null && gone == null && newest == null;
        }
    }
}

package dev.zklock.recipes.locks.engine;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The protection ids of one client's lock nodes: a random version-4 UUID of the client's own with a counter added to
 * its low bits (variant bits kept), so no two nodes get the same id. Curator draws a random UUID for every create; that
 * costs a {@code SecureRandom} draw (several microseconds, measured) between {@code acquire()} and the create leaving,
 * which a counter avoids. The random base keeps the ids of different clients and processes apart as well as a fresh
 * draw does, and its high bits name the client that made a node ({@link ClientContext#isReleasingFromFront}). A node
 * that bears our id is still taken for ours only if our session owns it (the acquisition's recovery checks its
 * ephemeral owner). Safe for use by multiple threads; no ZooKeeper call.
 */
public final class ProtectionIds {
    public static final String PROTECTED_MARKER = "_c_";
    private static final int UUID_LENGTH = 36;
    private static final long VARIANT_MASK = 0xC000_0000_0000_0000L;
    private static final long VARIANT_IETF = 0x8000_0000_0000_0000L;

    private final UUID base = UUID.randomUUID();
    private final AtomicLong counter = new AtomicLong();

    /** Returns the high bits every id of this generator shares: the key {@link #keyOf} finds in a node name. */
    public long key() {
        return base.getMostSignificantBits();
    }

    /** Returns a fresh protected prefix for one node: {@code _c_<uuid>-<lockName>}. */
    public String newPrefix(String lockName) {
        return PROTECTED_MARKER + next() + "-" + lockName;
    }

    /** Returns a protection id no other node gets. */
    public UUID next() {
        long low = base.getLeastSignificantBits() + counter.incrementAndGet();
        return new UUID(base.getMostSignificantBits(), (low & ~VARIANT_MASK) | VARIANT_IETF);
    }

    /**
     * Returns the {@link #key()} of the generator that named {@code nodeName}, if it carries a protection id.
     *
     * @return the key, or null for a node name with no protection id
     */
    public static Long keyOf(String nodeName) {
        int start = PROTECTED_MARKER.length();
        if (!nodeName.startsWith(PROTECTED_MARKER) || nodeName.length() < start + UUID_LENGTH) {
            return null;
        }
        try {
            return UUID.fromString(nodeName.substring(start, start + UUID_LENGTH))
                    .getMostSignificantBits();
        } catch (IllegalArgumentException notAnId) {
            return null;
        }
    }
}

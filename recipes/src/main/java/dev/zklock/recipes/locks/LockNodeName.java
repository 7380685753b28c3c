package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.NodeNames;
import dev.zklock.recipes.locks.engine.ProtectionIds;
import java.util.Objects;
import java.util.Optional;

/**
 * The name of one lock node, read as zklock and Curator lay lock nodes out:
 * {@code [_c_<uuid>-]<lock name><sequence>}. The optional {@code _c_<uuid>-} part is Curator's protection prefix;
 * the lock name is {@code lock-} for exclusive locks, {@code __READ__} and {@code __WRIT__} for the read and write nodes
 * of a read/write lock, or any other name a Curator {@code LockInternals} user chose; the sequence is the counter
 * ZooKeeper appended to an {@code EPHEMERAL_SEQUENTIAL} create (or, for a downgrade's read node, the counter copied
 * from its writer). It is for tools that read a lock's queue, such as {@code zklock inspect}: it tells them which
 * children are lock nodes and which {@linkplain #driver() built-in driver} decides each one, by the same rules the
 * locks of this package follow.
 *
 * <p>{@code lock-0000000007}, {@code _c_0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11-__WRIT__0000000012} and
 * {@code _c_0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11-latch-0000000003} are lock node names; {@code config}, {@code v2},
 * {@code lock-} and {@code 0000000001} are not.
 *
 * <p>Instances are immutable and safe for use by multiple threads. Nothing here calls ZooKeeper.
 *
 * @since 0.1.0
 */
public final class LockNodeName {
    /*
     * Implementation notes.
     *
     * 1. The sequence is the name's trailing digits, the text NodeNames.sequenceKey orders the queue by, so a
     *    sequence() never disagrees with the order LockDriver.sort gives (LockNodeNameTest
     *    sequence_ofLockNode_isTheKeyTheLibraryOrdersBy). At least ten: ZooKeeper pads its counter to ten digits, and
     *    the bar keeps a child such as "v2" or "backup2024" from passing for a lock node of lock name "v" or "backup".
     * 2. Write nodes are told as the read driver tells them, NodeNames.isWriter (the lock name contains __WRIT__), so
     *    isWrite() and the driver that waits on writers never disagree (LockNodeNameTest
     *    isWrite_ofLockNode_agreesWithTheLibrarysWriterTest).
     * 3. A name that starts with Curator's marker "_c_" but carries no well-formed uuid after it is not a lock node,
     *    rather than a lock node whose lock name starts with "_c_" (LockNodeNameTest parse_otherName_isEmpty).
     */
    private static final int MIN_SEQUENCE_DIGITS = 10;
    private static final int UUID_LENGTH = 36;

    private final String name;
    private final String protectionId;
    private final String lockName;
    private final String sequence;

    private LockNodeName(String name, String protectionId, String lockName, String sequence) {
        this.name = name;
        this.protectionId = protectionId;
        this.lockName = lockName;
        this.sequence = sequence;
    }

    /**
     * Reads the name of a child of a lock path.
     *
     * @param childName the child's name, as ZooKeeper lists it (not its path)
     * @return the parsed name, or empty if {@code childName} is not laid out as a lock node: no lock name, fewer than
     *     ten trailing digits, or a {@code _c_} prefix without a well-formed uuid
     * @throws NullPointerException if {@code childName} is null
     */
    public static Optional<LockNodeName> parse(String childName) {
        Objects.requireNonNull(childName, "childName");
        String protectionId = null;
        String rest = childName;
        if (childName.startsWith(ProtectionIds.PROTECTED_MARKER)) {
            int idEnd = ProtectionIds.PROTECTED_MARKER.length() + UUID_LENGTH;
            if (childName.length() <= idEnd || childName.charAt(idEnd) != '-') {
                return Optional.empty();
            }
            protectionId = childName.substring(ProtectionIds.PROTECTED_MARKER.length(), idEnd);
            if (!isUuid(protectionId)) {
                return Optional.empty();
            }
            rest = childName.substring(idEnd + 1);
        }
        String sequence = NodeNames.sequenceKey(rest);
        if (sequence.length() == rest.length() || sequence.length() < MIN_SEQUENCE_DIGITS) {
            return Optional.empty(); // no trailing digits, no lock name, or too few digits for a ZooKeeper sequence
        }
        String lockName = rest.substring(0, rest.length() - sequence.length());
        return Optional.of(new LockNodeName(childName, protectionId, lockName, sequence));
    }

    /**
     * Returns the child name this was read from.
     *
     * @return the name given to {@link #parse(String)}
     */
    public String name() {
        return name;
    }

    /**
     * Returns the protection id: the uuid of Curator's {@code _c_<uuid>-} prefix, by which a client that lost the
     * reply of its create finds its node again.
     *
     * @return the 36-character uuid as it appears in the name, or empty if the node is not protected
     */
    public Optional<String> protectionId() {
        return Optional.ofNullable(protectionId);
    }

    /**
     * Returns the lock name: the text between the protection prefix (if any) and the sequence.
     *
     * @return {@code lock-}, {@code __READ__}, {@code __WRIT__}, or another non-empty lock name
     */
    public String lockName() {
        return lockName;
    }

    /**
     * Returns the sequence: the trailing digits, which ZooKeeper appended to the name. Queues are ordered by it, as
     * Curator orders them by the text after the lock name; {@link LockDriver#sort(java.util.Collection)} does so.
     *
     * @return ten or more digits, as they appear in the name
     */
    public String sequence() {
        return sequence;
    }

    /**
     * Tells whether this is a read node of a read/write lock (lock name {@code __READ__}).
     *
     * @return {@code true} for a read node
     */
    public boolean isRead() {
        return lockName.equals(NodeNames.READ_LOCK_NAME);
    }

    /**
     * Tells whether this is a write node of a read/write lock: its lock name contains {@code __WRIT__}, the test by
     * which {@link LockDriver#read()} (and Curator's read lock) tells the writers that readers wait for.
     *
     * @return {@code true} for a write node
     */
    public boolean isWrite() {
        return NodeNames.isWriter(lockName);
    }

    /**
     * Tells whether this is the read node that a read/write lock creates when the holder of {@code writer} takes the
     * read lock as well (a downgrade): a plain {@code EPHEMERAL} read node that carries the writer's sequence instead of
     * one of its own. It ranks with its writer and holds beside it, without being decided by a driver: zklock's
     * {@link ZkReadWriteLock} and Curator's {@code InterProcessReadWriteLock} both grant it at once.
     *
     * @param writer another node of the same lock path
     * @return {@code true} if this is a read node, {@code writer} a write node, and both carry the same sequence
     * @throws NullPointerException if {@code writer} is null
     */
    public boolean isDowngradeOf(LockNodeName writer) {
        Objects.requireNonNull(writer, "writer");
        return isRead() && writer.isWrite() && sequence.equals(writer.sequence);
    }

    /**
     * Returns the built-in driver that decides whether this node holds its lock: {@link LockDriver#read()} for a read
     * node, {@link LockDriver#write()} for a write node, and {@link LockDriver#exclusive()} for any other lock name.
     * Ask it with the queue sorted by its own {@link LockDriver#sort(java.util.Collection)}.
     *
     * @return one of the shared built-in drivers
     */
    public LockDriver driver() {
        if (isRead()) {
            return LockDriver.read();
        }
        return isWrite() ? LockDriver.write() : LockDriver.exclusive();
    }

    /**
     * Tells whether {@code o} is a lock node name with the same text.
     *
     * @param o the object to compare with
     * @return {@code true} if {@code o} is a {@code LockNodeName} parsed from an equal name
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof LockNodeName other && name.equals(other.name);
    }

    /**
     * Returns a hash code of the name.
     *
     * @return the name's hash code
     */
    @Override
    public int hashCode() {
        return name.hashCode();
    }

    /**
     * Returns the name and its parts, for logs and messages.
     *
     * @return for example {@code LockNodeName[lock-0000000007: lock name 'lock-', sequence 0000000007]}
     */
    @Override
    public String toString() {
        return "LockNodeName[" + name + ": lock name '" + lockName + "', sequence " + sequence
                + (protectionId == null ? "" : ", protection id " + protectionId) + "]";
    }

    /** Tells whether {@code text} is a uuid in its canonical 8-4-4-4-12 hex form, either case. */
    private static boolean isUuid(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean dash = i == 8 || i == 13 || i == 18 || i == 23;
            boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (dash ? c != '-' : !hex) {
                return false;
            }
        }
        return true;
    }
}

package dev.zklock.cli;

import java.util.Optional;

/**
 * The kind of a lock node, told by the lock name in its node name, as Curator's recipes (and zklock's, which share
 * their layout) name them: {@code [_c_<uuid>-]<lock name><10-digit sequence>}.
 */
enum LockNodeKind {
    /** A node of an exclusive lock ({@code InterProcessMutex}, {@code ZkReentrantLock}, {@code ZkExclusiveLock}). */
    EXCLUSIVE("lock-", "exclusive"),
    /** A read node of a read/write lock ({@code InterProcessReadWriteLock}). */
    READ("__READ__", "read"),
    /** A write node of a read/write lock ({@code InterProcessReadWriteLock}). */
    WRITE("__WRIT__", "write");

    private final String lockName;
    private final String label;

    LockNodeKind(String lockName, String label) {
        this.lockName = lockName;
        this.label = label;
    }

    /** Returns the kind of the child named {@code node}, or empty if it is not a lock node. */
    static Optional<LockNodeKind> of(String node) {
        String name = node.substring(0, node.length() - sequence(node).length());
        if (name.length() == node.length()) {
            return Optional.empty();
        }
        for (LockNodeKind kind : values()) {
            if (name.endsWith(kind.lockName) && isPrefix(name.substring(0, name.length() - kind.lockName.length()))) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }

    /** Returns the sequence number ZooKeeper appended to a node name (its trailing digits), or "" if none. */
    static String sequence(String node) {
        int start = node.length();
        while (start > 0 && Character.isDigit(node.charAt(start - 1))) {
            start--;
        }
        return node.substring(start);
    }

    /** Tells whether holders of this kind keep every other node out (exclusive and write); readers share. */
    boolean isExclusive() {
        return this != READ;
    }

    /** Returns the name shown for the kind: exclusive, read or write. */
    String label() {
        return label;
    }

    /** Nothing, or Curator's protection prefix {@code _c_<uuid>-}. */
    private static boolean isPrefix(String text) {
        return text.isEmpty() || text.matches("_c_[0-9a-fA-F\\-]{36}-");
    }
}

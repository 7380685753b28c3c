package dev.zklock.recipes.locks.engine;

/**
 * How a thread's first hold of one side of a read/write lock begins, given what it holds of the other side: the one
 * rule for upgrades and downgrades, in every mode (own nodes or local hand-off). A thread that holds the write lock
 * and asks for the read lock downgrades: its read node ranks beside its write node and holds at once. A thread that
 * holds only the read lock and asks for the write lock is refused: its write node would queue behind its own read node
 * and wait for ever (Curator lets it; the JDK's {@code ReentrantReadWriteLock} does by design). Pure: the lock asks it
 * before any request, and so does the simulator ({@code ZkReadWriteLockTest}, {@code AdmissionTest}, {@code SimulationTest}). Stateless.
 */
public enum ReadWriteEntry {
    /** A node of its own, in the queue like any other (or the cohort's). */
    QUEUE,
    /** A downgrade: a read node beside the thread's write node, which holds at once. */
    BESIDE,
    /** An upgrade: refused at once, with nothing sent. */
    REFUSE;

    /** The entry of a thread that asks for the read lock, holding the write lock or not. */
    public static ReadWriteEntry ofRead(boolean holdsWrite) {
        return holdsWrite ? BESIDE : QUEUE;
    }

    /** The entry of a thread that asks for the write lock, holding the read lock or not. */
    public static ReadWriteEntry ofWrite(boolean holdsRead) {
        return holdsRead ? REFUSE : QUEUE;
    }
}

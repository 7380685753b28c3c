package dev.zklock.recipes.test.history;

/**
 * The lock modes of a history and which of them exclude each other: readers share with readers, every other pair of
 * modes conflicts, and a semaphore's {@code lease}s are counted against the semaphore's lease count.
 *
 * <p>Stateless and thread-safe.
 */
final class Modes {
    static final String READ = "read";
    static final String LEASE = "lease";

    private Modes() {}

    static boolean conflict(String a, String b) {
        if (LEASE.equals(a) || LEASE.equals(b)) {
            return false;
        }
        return !(READ.equals(a) && READ.equals(b));
    }

    static void requireMode(String mode, String key) {
        switch (mode) {
            case "exclusive", "read", "write", "lease" -> {}
            default -> throw new IllegalArgumentException(
                    "mode '" + mode + "' on " + key + " is none of exclusive, read, write, lease");
        }
    }
}

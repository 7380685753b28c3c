package dev.zklock.recipes.test.partition;

/**
 * Thrown by {@link PartitionRig#start} where network namespaces cannot be made (not root, no {@code ip}); its message
 * is one line saying why, for a command to print as it is. Immutable.
 */
public final class RigUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RigUnavailableException(String message) {
        super(message);
    }
}

package dev.zklock.recipes.test.partition;

import java.io.IOException;

/**
 * Someone outside the workload who deletes lock nodes (an operator's cleanup, a reaper): the nemesis only schedules it
 * and logs the fault; what it deletes is up to the implementation. {@link PartitionRig#stranger()} asks the observer
 * process, by the line {@code stranger-delete} on its standard input. Implementations must be safe for use by the
 * nemesis's thread.
 */
@FunctionalInterface
public interface Stranger {
    /** The line the rig's stranger writes to the observer's standard input. */
    String OBSERVER_COMMAND = "stranger-delete";

    /** Deletes some lock nodes now, or asks someone to; returns a short text naming what was asked. */
    String deleteLockNodes() throws IOException;
}

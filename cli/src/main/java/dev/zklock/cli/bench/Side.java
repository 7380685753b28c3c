package dev.zklock.cli.bench;

/**
 * Whose lock a bench run measures: zklock's, Curator's counterpart, the raw floor (a create and a delete), or a JDK
 * lock within the process.
 */
enum Side {
    /** The zklock recipe. */
    ZKLOCK("zklock"),
    /** Curator's counterpart of the recipe. */
    CURATOR("Curator"),
    /** No lock: one create and one delete on the raw ZooKeeper handle, the least any lock can cost. */
    RAW("raw floor"),
    /**
     * No lock either: one create with a listing sent behind it without waiting, then one delete, on the raw handle. The
     * least a lock that lists its queue can cost; what zklock's uncontended acquire is, without zklock's code.
     */
    RAW_LISTED("raw create + listing"),
    /**
     * No lock library: a queue of sequential nodes kept from one persistent recursive watch per client, two requests
     * per acquisition ({@link RawViewQueueLock}): the least a queue view can cost on this machine.
     */
    RAW_VIEW("raw view queue"),
    /**
     * No lock library: a queue of sequential nodes, a create, a listing and a watch on the node just ahead
     * ({@link RawQueueLock}): the least the default mode's protocol can cost on this machine.
     */
    RAW_QUEUE("raw queue"),
    /**
     * No ZooKeeper: a JDK fair {@code ReentrantLock} passed among the threads of the process, what a local hand-off
     * costs with nothing else around it.
     */
    JDK("JDK fair ReentrantLock");

    private final String label;

    Side(String label) {
        this.label = label;
    }

    /** Returns the name shown in progress and reports. */
    String label() {
        return label;
    }
}

package dev.zklock.cli;

/** Whose lock a bench run measures: zklock's, Curator's counterpart, or the raw floor (a create and a delete). */
enum Side {
    /** The zklock recipe. */
    ZKLOCK("zklock"),
    /** Curator's counterpart of the recipe. */
    CURATOR("Curator"),
    /** No lock: one create and one delete on the raw ZooKeeper handle, the least any lock can cost. */
    RAW("raw floor");

    private final String label;

    Side(String label) {
        this.label = label;
    }

    /** Returns the name shown in progress and reports. */
    String label() {
        return label;
    }
}

package dev.zklock.cli.bench;

/**
 * One participant of a leader election in the bench's leadership rows, of either library: started, it enters the
 * election and tells its {@link TermLog} when it is granted leadership and when it is revoked; {@link #handOver()}
 * gives leadership up the way its recipe does (a latch's {@code close()}, a selector's return from
 * {@code takeLeadership}, an initiator's {@code yield()}). Implementations are safe for use by multiple threads, as the
 * recipes they wrap are.
 */
interface Contestant extends AutoCloseable {
    /** Enters the election; grants and revocations go to the log from then on. */
    void start() throws Exception;

    /**
     * Gives up leadership as the recipe does it, and enters again if the recipe does; a latch is closed by it and must
     * be replaced ({@link #entersAgain()}).
     */
    void handOver() throws Exception;

    /** Tells whether the contestant enters the election again by itself after {@link #handOver()}. */
    boolean entersAgain();

    /** Leaves the election and releases what the contestant made (executors, registries); not its client. */
    @Override
    void close();
}

package dev.zklock.recipes.locks.engine;

/**
 * One local thread waiting in a cohort's {@link LocalQueue}. Its status and grant are written by the machine (under its
 * runner's lock) and read by the thread itself, which parks until they change. Safe for use by multiple threads.
 */
public final class LocalWaiter {
    /** How the wait ends. */
    public enum Status {
        /** Waiting in the local queue. */
        WAITING,
        /** Granted the node: the thread asks {@link Admission}, then holds. */
        GRANTED,
        /** To take a node for the cohort. */
        LEAD
    }

    private final Thread thread;
    private volatile Status status = Status.WAITING;
    private LockNode node; // written before status becomes GRANTED, read after it is: the volatile status publishes it
    private int pass; // likewise
    private volatile boolean parked; // written by its own thread around a park, read by the thread that wakes it

    public LocalWaiter(Thread thread) {
        this.thread = thread;
    }

    /** The waiting thread, for the runner to wake. */
    public Thread thread() {
        return thread;
    }

    public Status status() {
        return status;
    }

    /** The node granted; the status is GRANTED. */
    public LockNode node() {
        return node;
    }

    /** The hold granted; the status is GRANTED. */
    public Hold hold() {
        return PassHold.local(node, pass);
    }

    /**
     * Its thread is about to park ({@code true}, before it reads its status one last time) or is back ({@code false}).
     * Both this flag and the status are volatile: a thread that parks after a grant sees the grant, or its waker sees
     * it parked and unparks it.
     */
    void parking(boolean parking) {
        parked = parking;
    }

    /** Whether its thread may be parked, so that a change of its status must unpark it. */
    boolean mayBeParked() {
        return parked;
    }

    void grant(LockNode granted, int grantedPass) {
        node = granted;
        pass = grantedPass;
        status = Status.GRANTED;
    }

    void lead() {
        status = Status.LEAD;
    }

    void waitAgain() {
        status = Status.WAITING;
    }

    @Override
    public String toString() {
        return "LocalWaiter[" + thread.getName() + ", " + status + "]";
    }
}

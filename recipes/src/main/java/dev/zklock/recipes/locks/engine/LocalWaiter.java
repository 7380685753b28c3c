package dev.zklock.recipes.locks.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One local thread waiting in a cohort: at an exclusive cohort's {@link PassGate}, or in its {@link LocalQueue}. Its
 * status and grant are written by the machine (under its runner's lock) or by the gate (a compare-and-set: the thread
 * that releases the gate and the waiter that gives up race for it), and read by the thread itself, which parks until
 * they change. Safe for use by multiple threads.
 */
public final class LocalWaiter {
    /** How the wait ends. */
    public enum Status {
        /** Waiting at the cohort's gate, behind the thread that has it. */
        QUEUED,
        /** Let through the gate with no hold: the thread asks the machine ({@link LocalQueue}) for one. */
        ENTERED,
        /** Gave up at the gate: it left before the gate was passed to it. */
        LEFT,
        /** Waiting in the local queue. */
        WAITING,
        /** Granted the node: the thread asks {@link Admission}, then holds. */
        GRANTED,
        /** To take a node for the cohort. */
        LEAD
    }

    private static final VarHandle STATUS;

    static {
        try {
            STATUS = MethodHandles.lookup().findVarHandle(LocalWaiter.class, "status", Status.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
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

    /** It waits at the gate. */
    void queue() {
        status = Status.QUEUED;
    }

    /** It has the gate, with no hold, and goes on to the machine. */
    void entered() {
        status = Status.WAITING;
    }

    /** The gate lets it through with no hold, unless it left first; returns whether it did. */
    boolean letThrough() {
        return STATUS.compareAndSet(this, Status.QUEUED, Status.ENTERED);
    }

    /** The gate passes it the hold of {@code granted} with {@code grantedPass}, unless it left first. */
    boolean passAtGate(LockNode granted, int grantedPass) {
        node = granted; // read only once the status says GRANTED: the compare-and-set publishes them
        pass = grantedPass;
        return STATUS.compareAndSet(this, Status.QUEUED, Status.GRANTED);
    }

    /** It gives up at the gate, unless the gate was passed to it first; returns whether it left. */
    boolean leave() {
        return STATUS.compareAndSet(this, Status.QUEUED, Status.LEFT);
    }

    @Override
    public String toString() {
        return "LocalWaiter[" + thread.getName() + ", " + status + "]";
    }
}

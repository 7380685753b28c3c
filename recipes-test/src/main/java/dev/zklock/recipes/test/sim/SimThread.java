package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.ParkPort;
import dev.zklock.recipes.locks.engine.Ticker;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One simulated thread: a real thread that runs the engine's own blocking code (a cohort's acquire and release, the
 * blocking runner, the virtual-thread drive) but only while the simulation hands it the turn, so that one thread of
 * the simulation runs at a time and a seed gives the same events in any JVM. Every park and wake of the engine
 * reaches it through its {@link ParkPort} ({@code Parking}), and {@link #interrupt} wakes it: a park ends when an event
 * of the seed's world resumes it (a wake, after a delay the seed draws; the park's timeout; an interrupt). Runs jobs
 * one after another, each handed over with {@link #submit}; a job's end is told to the world as an event.
 *
 * <p>Thread-safety: every field is read and written only by whoever holds the turn (the world's loop or this thread),
 * and the turn passes through two semaphores, which order what one side wrote before the other reads it.
 */
final class SimThread extends Thread implements ParkPort {
    /** Thrown out of a park when the simulation ends while the thread waits: unwinds what it was running. */
    static final class Stopped extends Error {
        Stopped() {
            super("the simulation ended", null, false, false);
        }
    }

    /** How long the world waits for a thread to hand its turn back before it calls the thread stuck. */
    private static final long STUCK_SECONDS = Long.getLong("zklock.sim.stuckSeconds", 60);

    private final SimWorld world;
    private final boolean virtual;
    private final LongSupplier heard; // the server time of the newest news its client has handed over
    private final Ticker clock; // the world's, in nanoseconds
    private long heardAtResume; // what its client had heard when the event that gave it its turn was scheduled
    private final Semaphore go = new Semaphore(0);
    private final Semaphore back = new Semaphore(0);
    private Runnable job;
    private boolean permit; // a wake that came while it was not parked
    private boolean parked;
    private long parkNumber; // which park a scheduled resume is meant for
    private boolean stopping;
    private boolean idle = true; // between jobs
    private Throwable failure; // a job's unexpected error, reported by the world
    private String passedLocally; // the node a cohort last passed it a grant of since it last asked, or null

    SimThread(SimWorld world, String name, boolean virtual, LongSupplier heard) {
        super(name);
        this.world = world;
        this.virtual = virtual;
        this.heard = heard;
        this.clock = () -> TimeUnit.MICROSECONDS.toNanos(world.now());
        setDaemon(true);
    }

    /**
     * Runs {@code job} on this thread, beginning after a delay the seed draws, then tells {@code done} on the world's
     * loop whether it threw (null if not). The thread must be idle. Called by whoever holds the turn.
     */
    void submit(String what, SimJob job, Consumer<Throwable> done) {
        if (!idle) {
            throw new IllegalStateException(getName() + " is busy; cannot run " + what);
        }
        idle = false;
        this.job = () -> {
            Throwable thrown = null;
            try {
                job.run();
            } catch (Stopped stopped) {
                throw stopped;
            } catch (Throwable t) {
                thrown = t;
            }
            Throwable outcome = thrown;
            world.after(0, getName() + " ran " + what, () -> done.accept(outcome));
        };
        if (!isAlive()) {
            start();
        }
        world.after(world.delay(0, 20), getName() + " begins " + what, () -> {
            heardAtResume = heard.getAsLong();
            giveTurn();
        });
    }

    /** A job of a simulated thread: blocking code that may throw anything. */
    @FunctionalInterface
    interface SimJob {
        void run() throws Exception;
    }

    @Override
    public void run() {
        while (true) {
            go.acquireUninterruptibly();
            if (stopping) {
                back.release();
                return;
            }
            Runnable next = job;
            job = null;
            try {
                next.run();
            } catch (Stopped stopped) {
                // the world ended while the job waited: its thread goes
            } catch (Throwable t) {
                failure = t;
            }
            idle = true;
            if (stopping) {
                back.release();
                return;
            }
            back.release();
        }
    }

    /** Hands the turn to this thread until it parks, ends its job or ends. World's loop (or the turn's holder) only. */
    private void giveTurn() {
        go.release();
        try {
            if (!back.tryAcquire(STUCK_SECONDS, TimeUnit.SECONDS)) {
                AssertionError stuck = new AssertionError(
                        getName() + " blocked outside the park port (a wait the simulation cannot schedule)");
                stuck.setStackTrace(getStackTrace());
                throw stuck;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("the simulation's loop was interrupted", e);
        }
        if (failure != null) {
            Throwable failed = failure;
            failure = null;
            throw new AssertionError(getName() + " failed outside its job", failed);
        }
    }

    @Override
    public void parkThread(Object blocker, long nanos) {
        if (stopping) {
            throw new Stopped();
        }
        if (permit) {
            permit = false;
            return;
        }
        if (nanos <= 0 || isInterrupted()) { // as LockSupport's: an interrupted thread does not park
            return;
        }
        waitForTurn(nanos == Long.MAX_VALUE ? -1 : Math.max(1, (nanos + 999) / 1000), " park times out");
    }

    @Override
    public void wakeThread() {
        if (!parked) {
            permit = true;
            return;
        }
        long number = parkNumber;
        long news = heard.getAsLong();
        world.after(world.delay(0, 20), getName() + " wakes", () -> resumePark(number, news));
    }

    /**
     * Parks until an event resumes this park: a wake, or {@code micros} from now (never, if negative) the event named
     * {@code what}. Throws {@link Stopped} if the simulation ends meanwhile. This thread only, holding the turn.
     */
    private void waitForTurn(long micros, String what) {
        long number = ++parkNumber;
        parked = true;
        if (micros >= 0) {
            world.after(micros, getName() + what, () -> resumePark(number, heard.getAsLong()));
        }
        handBack();
        parked = false;
        if (stopping) {
            throw new Stopped();
        }
    }

    /**
     * The thread's interrupt flag is set, and a park it is in ends, as a real thread's. The thread's own interrupt
     * (restoring its flag, as the JDK's uninterruptible waits do, the turn's among them) only sets the flag: it is not
     * parked, and its next park returns at once.
     */
    @Override
    public void interrupt() {
        super.interrupt();
        if (world != null && Thread.currentThread() != this) { // world: null while Thread's constructor runs
            wakeThread();
        }
    }

    @Override
    public boolean drivesAsVirtual() {
        return virtual;
    }

    @Override
    public Ticker clock() {
        return clock;
    }

    /**
     * The server time of the newest news its client had handed over when the thread was woken, or given its turn: what
     * a grant it makes now was decided on. News handed over after that, while it waited for its turn, it has not seen
     * (a real thread woken by a reply is as late to run).
     */
    long heardAtResume() {
        return heardAtResume;
    }

    /** A cohort passes this thread a grant of its node {@code node} (the engine's {@code QueueHooks.passed}). */
    void passedLocally(String node) {
        passedLocally = node;
    }

    /** Returns the node a cohort last passed this thread a grant of since the last ask, or null; forgets it. */
    String takePassedLocally() {
        String passed = passedLocally;
        passedLocally = null;
        return passed;
    }

    /** Resumes park {@code number} if the thread is still in it; {@code news}: what its client had heard at the wake. */
    private void resumePark(long number, long news) {
        if (parked && parkNumber == number) {
            heardAtResume = news;
            giveTurn();
        }
    }

    /** Gives the turn back to the world's loop and waits for it again. This thread only. */
    private void handBack() {
        back.release();
        go.acquireUninterruptibly();
    }

    /** Ends the thread when the simulation ends: a park it waits in throws {@link Stopped}. World's loop only. */
    void end() {
        stopping = true;
        if (isAlive() && (parked || idle)) {
            giveTurn();
        }
    }
}

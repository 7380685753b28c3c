package dev.zklock.recipes.locks.engine;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The gate of an exclusive cohort: a fair lock of the engine's own in front of its {@link LocalQueue} machine. One
 * thread at a time has the gate, from its acquire to its release: it asks the machine for a hold, waits in it, leads
 * it to a node, or holds; the others queue at the gate, first come first served. At a release the gate passes to the
 * next: with the hold itself when the machine left passing open ({@link Cohort}: the node is vouched for, no
 * conflicting node is known behind it, nothing asked it to go), so a local pass takes no JVM lock, no event and no
 * command; else with no hold, and the next asks the machine. Waiters park through {@link Parking}, as every thread of
 * the engine does, so the simulator drives them. No ZooKeeper round trip.
 *
 * <p>Safe for use by multiple threads, lock-free: a flag says whether a thread has the gate, and a queue of
 * {@link LocalWaiter}s holds the others. Only the thread that has the gate passes it on; a waiter whose status the
 * passer could not change (it left: deadline, interrupt) is skipped. A release that finds nobody frees the gate and
 * looks at the queue once more, and a waiter that queues looks at the flag once more: one of the two sees the other,
 * so no waiter is left queued at a free gate ({@code CohortModelTest} checks the interleavings).
 *
 * <p>A hold passed to a parked thread costs an unpark and a wake on its way (a few microseconds on a virtual machine:
 * the bulk of a local hand-off). So the first thread queued spins a while before it parks ({@link #spinIfNext}), as
 * the JDK's own queued locks do, and every pass leaves the thread queued after the taker to be woken ahead of its turn,
 * by the next thread of the cohort that parks, just before it parks ({@link #beforePark}): that one is spinning when
 * its pass comes (a spin outlasts a wake here, {@link #SPINS}), and takes it with no unpark, and so on down the queue.
 * The wake is left to a thread about to park, not made by the releaser at its pass, so that the thread woken takes the
 * processor a parking thread gives up, not the holder's: at 8 and 32 threads on this 2-processor host, a wake ahead at
 * the pass made 0.86x, 0.87x, 0.51x and 0.90x the JDK fair lock's rate among the same threads at 8 and 0.81x, 0.74x,
 * 0.57x and 0.86x at 32, a wake ahead left to the next to park 1.22x, 1.35x, 1.33x and 1.50x at 8 and 1.37x, 1.20x,
 * 1.14x and 1.13x at 32 (the bench's local hand-off rows, four runs each, the two alternating, 2026-12-03); at 4
 * threads, where the queue is short enough that a thread woken at the pass never parks, the pass's wake made 4.84x to
 * 10.62x and the left one 1.12x to 2.02x, and a wake at the pass when the taker took it spinning, left when it was
 * parked, lost at 8 (0.92x, 0.93x) what it won at 4 (5.59x, 4.56x). A wake left is a hint: one left unused (nobody
 * parked before the next pass) or used twice costs a wake ahead missed or a spurious one, never a pass, which wakes its
 * taker itself. Where that puts a cohort: BENCHMARKS.md's local hand-off rows, at 2, 4, 8 and 32 threads.
 *
 * <p>A release that finds nobody queued while the gate passes holds (its own hold came by a pass) first waits a little
 * for a thread to queue, keeping the gate and the hold, and passes to it ({@link #GRACE}): with two or three threads
 * taking turns, the next is often on its way back from its own release, and the machine would otherwise give the node
 * back and take a new one (a delete and a create) between their turns. A thread alone never waits; the wait changes
 * nothing in the gate's protocol (the releaser has the gate throughout).
 *
 * <p>Why a release that finds nobody queued goes to the machine (which gives the node back, or keeps it idle), and does
 * not leave its hold at the gate for the next thread to take with a compare-and-set, as a free JDK lock is taken: it
 * was built and measured (2026-12-02: a scratch harness of 0.7 s rounds and the bench's row, on 2 processors) and did
 * nothing here. The JDK fair lock's lead over a cohort on the bench's row is its second regime: its queue empties
 * at times, and two threads then take the free lock in turn with no park. That regime needs a lock path as short as
 * its own: with 400 ns of work inside the JDK lock's critical section its acquires that found it free and nobody
 * queued fell from 7 to 68,330 a round to 36 to 3,023, and its rate from 58,753-181,183/s to 70,997-75,314/s, a convoy
 * in every round. A cohort's hold path (the pass, {@link Admission}, the hold counts) is longer: with holds left at a
 * free gate, 1 release a round found the gate's queue empty (the round's end), and the row's ratio at 8 and 32 threads
 * did not move beyond its noise (0.79, 0.92, 0.77 against 0.73, 0.78, 0.75 at 8). Where both locks have 1 us of work
 * inside, and neither leaves its convoy, they compare like with like: BENCHMARKS.md's local hand-off rows "1 us
 * inside" ({@code BenchPlan.WORK_INSIDE}).
 *
 * <p>Why a pass goes to the next thread itself, and the gate is not freed for the thread woken to take it with a
 * compare-and-set, as the JDK's queued locks do: that was built too (2026-12-02: a release left its hold at the gate,
 * freed it and woke the first queued, which took both) and every acquire still parked, at 8 threads with the critical
 * section empty and with 3 us of work after each release alike (one park per acquisition; 63,841-87,009 acquisitions/s
 * a round empty, 53,559-72,356 with the work after). Where a hand-off's time goes on this 2-processor host (a scratch
 * harness timing each pass to a parked thread, 8 threads): the wake, 11 to 13 us from the unpark to the woken thread
 * running (the unpark call alone 5.9 us of the releaser's time); the releaser's path from its release to the pass 0.35
 * us, and the taker's from its wake to its caller, admission included, 0.45 us. The JDK fair lock, in its convoy, pays
 * the same wake; what it saves beyond that is its shorter path, and its rounds out of the convoy, which need a critical
 * section far shorter than a cohort's path (500 ns of work inside kept it in its convoy even with 3 us of work after
 * each release: 70,259 acquisitions/s).
 *
 * <p>Why the threads queued behind the first park and do not yield the processor in a loop while they wait: that was
 * built too (2026-12-03, the bench's row, 8 and 32 threads on 2 processors): the first 3 queued yielding up to 100
 * times, with each pass waking the third queued ahead, made 0.46x the JDK fair lock at 8 threads and 0.69x at 32; the
 * first 1 or 3 yielding up to 200 times with no wake ahead 0.81x and 0.77x at 8 (0.86x without, in the same session):
 * a yielding thread takes the processor the holder and the woken thread need.
 */
final class PassGate {
    /**
     * How many times the first queued thread looks at its status before it parks, with {@link Thread#onSpinWait} between
     * (about 40 microseconds here): longer than a wake on this host (11 to 13 us), so a thread woken ahead of its turn is
     * spinning when its pass comes. 256 looks (about 10 us, shorter than a wake) kept a cohort in its convoy at 4
     * threads, where the JDK fair lock runs free: 96,904 acquisitions/s, 0.46x the JDK lock, against 152,196/s, 0.81x,
     * with 1,024 and the {@link #GRACE} (the bench's local hand-off row, one run each, back to back, 2026-12-03; 0.75x
     * to 1.09x in four more runs); 4,096 was no faster at 4 threads and slower at 8. 0 is the gate without spinning.
     */
    static final int SPINS = 1_024;

    /**
     * How many times a release that finds nobody queued, while the gate passes holds, looks for a thread to queue before
     * it gives its hold to the machine ({@link #passHold}), with {@link Thread#onSpinWait} between: about 40
     * microseconds here, the time a thread takes to come back from its own release and queue again. Without it, two
     * threads taking turns found the queue empty at hundreds of releases a round, each a node deleted and created
     * again (about a millisecond): 5,292 acquisitions/s, 0.01x the JDK fair lock, against 1,447,971/s, 5.66x, with it
     * (the bench's local hand-off row at 2 threads, one run each, back to back, 2026-12-03; 2.00x to 3.62x in four more
     * runs); 256 looks made 17,861 to 47,300/s. Every
     * {@link #YIELD_EVERY} looks it yields its processor, which the thread on its way back may need: with a busy loop on
     * one of this host's two processors, {@code CohortLockTest}'s local hand-off loop (8 threads, 400 acquisitions)
     * sent 0.01 to 0.51 requests per acquisition in 10 runs with a grace of pure spinning (2 runs above its bound of
     * 0.3), 0.01 to 0.30 with no grace at all, and 0.01 to 0.04 with the yields (2026-12-03).
     */
    static final int GRACE = 1_024;

    /** How often a release waiting its {@link #GRACE} yields its processor, in looks. */
    private static final int YIELD_EVERY = 64;

    private final int spins;
    private final int grace;
    private final AtomicBoolean taken = new AtomicBoolean();
    private final ConcurrentLinkedQueue<LocalWaiter> queued = new ConcurrentLinkedQueue<>();
    private volatile LocalWaiter ahead; // the thread a pass left to wake ahead of its turn (beforePark), or null
    private boolean passing; // whether the gate's last hold came by a pass: the gate's holder's alone

    /** A gate whose first queued thread spins {@link #SPINS} times before it parks, and whose releases wait {@link #GRACE}. */
    PassGate() {
        this(SPINS, GRACE);
    }

    /**
     * A gate whose first queued thread spins {@code spins} times before it parks, and whose release that finds nobody
     * queued looks {@code grace} times for one to come (a test sets either beyond what it could outlast).
     */
    PassGate(int spins, int grace) {
        this.spins = spins;
        this.grace = grace;
    }

    /**
     * {@code waiter}'s thread comes to the gate: it has the gate at once if nobody has it and nobody waits (its status
     * stays WAITING: it goes on to the machine); else it queues (QUEUED), and its status tells when the gate comes to
     * it (ENTERED, or GRANTED with a hold), perhaps at once, if the gate was freed as it queued.
     *
     * @return whether it had the gate at once
     */
    boolean enter(LocalWaiter waiter) {
        if (queued.isEmpty() && taken.compareAndSet(false, true)) {
            return true;
        }
        waiter.queue();
        queued.add(waiter);
        if (!taken.get() && taken.compareAndSet(false, true)) {
            passOn(); // freed as it queued: to the first that still waits, which may be this one
        }
        return false;
    }

    /**
     * {@code waiter}'s thread, about to park, spins a while first if it is the first queued: a pass that comes meanwhile
     * costs no unpark and no wake. A simulated thread does not spin: the simulator runs one thread at a time, so its
     * status cannot change while it spins.
     */
    void spinIfNext(LocalWaiter waiter) {
        if (spins == 0 || queued.peek() != waiter || Thread.currentThread() instanceof ParkPort) {
            return;
        }
        for (int i = 0; i < spins && waiter.status() == LocalWaiter.Status.QUEUED; i++) {
            Thread.onSpinWait();
        }
    }

    /**
     * {@code waiter}'s thread is about to park: it first wakes the thread a pass left to wake ahead of its turn, if any
     * (and not itself), so that the thread woken takes the processor this one gives up.
     */
    void beforePark(LocalWaiter waiter) {
        LocalWaiter owed = ahead;
        if (owed != null) {
            ahead = null; // a hint, so no compare-and-set: two that park at once may both wake it (a spurious wake)
            if (owed != waiter) {
                wake(owed);
            }
        }
    }

    /** Whether a thread waits at the gate (one that left may count until the gate passes it over). */
    boolean hasQueued() {
        return !queued.isEmpty();
    }

    /** Whether a thread has the gate, or waits at it: the cohort is in use. */
    boolean inUse() {
        return taken.get() || !queued.isEmpty();
    }

    /** The threads that wait at the gate, for monitoring: one pass over the queue. */
    int queuedCount() {
        int count = 0;
        for (LocalWaiter waiter : queued) {
            if (waiter.status() == LocalWaiter.Status.QUEUED) {
                count++;
            }
        }
        return count;
    }

    /**
     * The thread that has the gate passes it with the hold of {@code node} and {@code pass} to the first waiter that
     * still waits, and wakes it. If nobody waits and the caller's own hold came by a pass, it looks up to {@link #GRACE}
     * times for a thread to queue, holding the gate and the hold, and passes to it ({@link #awaitQueued}): a thread
     * that took its turn is on its way back. A thread alone never waits: its holds do not come by a pass.
     *
     * @return whether one took it; else the caller still has the gate, and its hold
     */
    boolean passHold(LockNode node, int pass) {
        boolean mayWait = passing;
        passing = true; // handed on with the gate before the pass publishes it: the taker's hold came by a pass
        if (passToFirst(node, pass) || (mayWait && awaitQueued() && passToFirst(node, pass))) {
            return true;
        }
        passing = false;
        return false;
    }

    /**
     * Passes the hold to the first waiter that still waits, and wakes it; leaves the one after it to be woken ahead of
     * its turn ({@link #beforePark}).
     */
    private boolean passToFirst(LockNode node, int pass) {
        for (LocalWaiter next = queued.poll(); next != null; next = queued.poll()) {
            if (next.passAtGate(node, pass)) {
                wake(next);
                ahead = queued.peek(); // one left before is the taker now, or gone
                return true;
            }
        }
        return false;
    }

    /**
     * The thread that has the gate, with a hold nobody queued took, looks up to {@code grace} times for a thread to
     * queue. A simulated thread does not look: the simulator runs one thread at a time. It runs on a user thread that
     * releases a hold ({@code Cohort.release}), never on ZooKeeper's event thread, as {@link #spinIfNext} runs on one
     * about to park.
     *
     * @return whether one queued
     */
    private boolean awaitQueued() {
        if (grace == 0 || Thread.currentThread() instanceof ParkPort) {
            return false;
        }
        for (int i = 1; i <= grace; i++) {
            if (!queued.isEmpty()) {
                return true;
            }
            if (i % YIELD_EVERY == 0) {
                Thread.yield(); // the thread on its way back may need this processor
            } else {
                Thread.onSpinWait();
            }
        }
        return !queued.isEmpty();
    }

    /**
     * The thread that has the gate lets it go with no hold: to the first waiter that still waits, which asks the
     * machine, or else free.
     */
    void release() {
        passing = false;
        passOn();
    }

    /**
     * {@code waiter}, queued, gives up.
     *
     * @return whether it left; false if the gate was passed to it first (its status says how)
     */
    boolean leave(LocalWaiter waiter) {
        if (!waiter.leave()) {
            return false;
        }
        queued.remove(waiter);
        return true;
    }

    /** Passes the gate, held by the caller, to the first that still waits, with no hold; frees it if none does. */
    private void passOn() {
        while (true) {
            for (LocalWaiter next = queued.poll(); next != null; next = queued.poll()) {
                if (next.letThrough()) {
                    wake(next);
                    return;
                }
            }
            ahead = null; // nobody queued: nothing to wake ahead, nor a waiter to keep
            taken.set(false);
            // A waiter that queued after the poll above and read the flag before it was cleared is seen here.
            if (queued.isEmpty() || !taken.compareAndSet(false, true)) {
                return;
            }
        }
    }

    private static void wake(LocalWaiter waiter) {
        if (waiter.mayBeParked() && waiter.thread() != Thread.currentThread()) {
            Parking.unpark(waiter.thread());
        }
    }
}

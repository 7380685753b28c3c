package dev.zklock.recipes.test.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What a seed chooses before a simulation runs: the clients, each thread's client, lock kind and number of acquires,
 * and each fault's time, kind and victim. The delays and timeouts inside the run come from the seed too, drawn as the
 * run goes, each scaled by the plan's {@code delayPercent} (100 as the seed chose them). A plan can be made smaller (a
 * thread or a fault fewer, fewer acquires, shorter delays, a fault sooner) to find the shortest one that still fails.
 * Immutable.
 *
 * @param seed the seed the plan came from, which also drives the run's delays
 * @param clients how many clients
 * @param threads the simulated threads
 * @param faults the faults, in time order
 * @param delayPercent every delay the run draws, as a percentage of the drawn value: 100 as the seed chose it, less in
 *     a shrunk plan (at least 1)
 */
public record SimPlan(long seed, int clients, List<Thread> threads, List<Fault> faults, int delayPercent) {
    /** Checks the delay percentage. */
    public SimPlan {
        if (delayPercent < 1 || delayPercent > 100) {
            throw new IllegalArgumentException("delayPercent must be 1 to 100: " + delayPercent);
        }
    }

    /** A plan with the delays as the seed draws them. */
    public SimPlan(long seed, int clients, List<Thread> threads, List<Fault> faults) {
        this(seed, clients, threads, faults, 100);
    }

    /** The lock kinds a simulated thread may use. */
    public enum Kind {
        /** A lock of its own per acquire on the exclusive path (the engine's queue machine). */
        EXCLUSIVE,
        /** A read lock of its own on the read/write path. */
        READ,
        /** A write lock of its own on the read/write path. */
        WRITE,
        /** A multi-lock over the exclusive path and a second one, taken as one. */
        MULTI,
        /** The client's cohort on the exclusive path (the engine's local queue). */
        COHORT,
        /** The client's cohort on the exclusive path, keeping an idle node. */
        COHORT_CACHED,
        /** The client's read cohort on the read/write path. */
        COHORT_READ,
        /** The client's write cohort on the read/write path. */
        COHORT_WRITE,
        /** One or two leases of a semaphore of one or two, by the seed (its mutex and the engine's lease machine). */
        SEMAPHORE
    }

    /** The faults a seed may choose. */
    public enum FaultKind {
        /** The client's connection goes down for less than the session timeout. */
        SUSPEND,
        /** The server ends the client's session. */
        EXPIRE,
        /** The client hears Expired at once; the server ends the session a timeout later. */
        KILL,
        /** The client closes. */
        CLOSE,
        /** A stranger deletes a lock node. */
        STRANGER_DELETE,
        /** A stranger asks the holder of a lock node to let it go, as Curator's {@code Revoker} does. */
        REVOKE
    }

    /**
     * One simulated thread.
     *
     * @param client the client it uses
     * @param kind the lock it takes
     * @param acquires how many acquires it makes
     */
    public record Thread(int client, Kind kind, int acquires) {}

    /**
     * One fault.
     *
     * @param atMicros when, from the start of the run
     * @param kind what
     * @param target a number that picks the client or the node
     */
    public record Fault(long atMicros, FaultKind kind, int target) {}

    /** The plan a seed chooses. */
    public static SimPlan of(long seed, SimSettings settings) {
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        int clients = 1 + random.nextInt(settings.maxClients());
        List<Thread> threads = new ArrayList<>();
        int count = 2 + random.nextInt(settings.maxThreads() - 1);
        Kind[] kinds = settings.kinds().toArray(Kind[]::new);
        for (int i = 0; i < count; i++) {
            threads.add(new Thread(
                    random.nextInt(clients),
                    kinds[random.nextInt(kinds.length)],
                    1 + random.nextInt(settings.maxAcquires())));
        }
        List<Fault> faults = new ArrayList<>();
        int faultCount = random.nextInt(settings.maxFaults() + 1);
        FaultKind[] faultKinds = settings.faults().toArray(FaultKind[]::new);
        for (int i = 0; i < faultCount && faultKinds.length > 0; i++) {
            faults.add(new Fault(
                    random.nextLong(settings.faultWindowMicros()),
                    faultKinds[random.nextInt(faultKinds.length)],
                    random.nextInt(Integer.MAX_VALUE)));
        }
        faults.sort((a, b) -> Long.compare(a.atMicros(), b.atMicros()));
        return new SimPlan(seed, clients, List.copyOf(threads), List.copyOf(faults));
    }

    /**
     * The plans one step smaller, the structural steps first: each with one fault or one thread fewer, or one acquire
     * fewer for one thread; then with every delay halved; then with one fault at half its time.
     */
    List<SimPlan> smaller() {
        List<SimPlan> smaller = new ArrayList<>();
        for (int i = 0; i < faults.size(); i++) {
            List<Fault> fewer = new ArrayList<>(faults);
            fewer.remove(i);
            smaller.add(withFaults(fewer));
        }
        for (int i = 0; i < threads.size() && threads.size() > 1; i++) {
            List<Thread> fewer = new ArrayList<>(threads);
            fewer.remove(i);
            smaller.add(withThreads(fewer));
        }
        for (int i = 0; i < threads.size(); i++) {
            Thread thread = threads.get(i);
            if (thread.acquires() > 1) {
                List<Thread> fewer = new ArrayList<>(threads);
                fewer.set(i, new Thread(thread.client(), thread.kind(), thread.acquires() - 1));
                smaller.add(withThreads(fewer));
            }
        }
        if (delayPercent > 1) {
            smaller.add(new SimPlan(seed, clients, threads, faults, delayPercent / 2));
        }
        for (int i = 0; i < faults.size(); i++) {
            Fault fault = faults.get(i);
            if (fault.atMicros() > 0) {
                List<Fault> sooner = new ArrayList<>(faults);
                sooner.set(i, new Fault(fault.atMicros() / 2, fault.kind(), fault.target()));
                sooner.sort((a, b) -> Long.compare(a.atMicros(), b.atMicros()));
                smaller.add(withFaults(sooner));
            }
        }
        return smaller;
    }

    private SimPlan withFaults(List<Fault> changed) {
        return new SimPlan(seed, clients, threads, List.copyOf(changed), delayPercent);
    }

    private SimPlan withThreads(List<Thread> changed) {
        return new SimPlan(seed, clients, List.copyOf(changed), faults, delayPercent);
    }

    /**
     * The plan as a Java expression, to run a shrunk plan again ({@code Simulation.run(<this>, SimSettings.defaults())}):
     * a seed alone replays only the plan it chose.
     */
    public String toSource() {
        StringBuilder text =
                new StringBuilder("new SimPlan(").append(seed).append("L, ").append(clients);
        text.append(", List.of(");
        for (int i = 0; i < threads.size(); i++) {
            Thread thread = threads.get(i);
            text.append(i == 0 ? "" : ", ")
                    .append("new SimPlan.Thread(")
                    .append(thread.client())
                    .append(", SimPlan.Kind.")
                    .append(thread.kind())
                    .append(", ")
                    .append(thread.acquires())
                    .append(')');
        }
        text.append("), List.of(");
        for (int i = 0; i < faults.size(); i++) {
            Fault fault = faults.get(i);
            text.append(i == 0 ? "" : ", ")
                    .append("new SimPlan.Fault(")
                    .append(fault.atMicros())
                    .append("L, SimPlan.FaultKind.")
                    .append(fault.kind())
                    .append(", ")
                    .append(fault.target())
                    .append(')');
        }
        return text.append("), ").append(delayPercent).append(')').toString();
    }

    /** The size a shrink makes smaller: threads, acquires and faults together. */
    int size() {
        return threads.size()
                + faults.size()
                + threads.stream().mapToInt(Thread::acquires).sum();
    }
}

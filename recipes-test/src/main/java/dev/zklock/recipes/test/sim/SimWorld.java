package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.LockNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The clock, the event queue and the random source of one simulation: every delay, fault and schedule comes from the
 * seed's random numbers, and events run one at a time in time order (ties in the order they were scheduled), so a seed
 * replays exactly. Keeps the last events run, for the report of a failure. Not thread-safe.
 */
final class SimWorld {
    private static final Pattern PROTECTION_ID = Pattern.compile("_c_([0-9a-f-]{36})-");

    /** How many of the last events a failure shows. */
    static final int TRACE = Integer.getInteger("zklock.sim.trace", 60);

    /** The tally of creates made right behind a node of their own client, known from the reply. */
    static final String BEHIND_OWN = "create right behind a node of its own client";

    private record Task(long at, long order, String what, Runnable action) {}

    /** A deadline on the world's clock that never passes. */
    static final long FOREVER = Long.MAX_VALUE;

    final SplittableRandom random;
    final SimServer server = new SimServer();
    final long sessionTimeoutMicros;
    final long requestTimeoutMicros;
    private final int delayPercent;
    /** The nodes released after they held from the front, as the engine's FrontNodes of this process know them. */
    final Set<String> releasedFromFront = new HashSet<>();

    private final PriorityQueue<Task> queue =
            new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));

    private record Line(long at, String what) {}

    private final Deque<Line> trace = new ArrayDeque<>();
    private final Map<String, Long> tallies = new TreeMap<>();
    private final List<SimThread> threads = new ArrayList<>();
    private long now;
    private long order;
    private long steps;

    SimWorld(long seed, long sessionTimeoutMicros) {
        this(seed, sessionTimeoutMicros, 100);
    }

    /** A world whose every delay is {@code delayPercent} percent of what the seed draws (a shrunk plan's). */
    SimWorld(long seed, long sessionTimeoutMicros, int delayPercent) {
        this.delayPercent = delayPercent;
        this.random = new SplittableRandom(seed);
        this.sessionTimeoutMicros = sessionTimeoutMicros;
        this.requestTimeoutMicros = sessionTimeoutMicros * 2 / 3;
    }

    /**
     * A node is about to be deleted by its owner: if it held from the front, waiters of this process learn so (the
     * engine's {@code LockPath} tells {@code FrontNodes} before the delete). Every simulated client is of one process.
     */
    void releasing(List<LockNode> nodes) {
        for (LockNode node : nodes) {
            if (node.isGrantedAtFront()) {
                releasedFromFront.add(node.name());
                node.queue().context().frontNodes().releasing(node); // what the engine's NodeWatcher asks
            }
        }
    }

    long now() {
        return now;
    }

    /**
     * A simulated thread of this world, ended with the world ({@link #stopThreads}); {@code heard}: the server time of
     * the newest news its client has handed over ({@link SimThread#heardAtResume}).
     */
    SimThread thread(String name, boolean virtual, LongSupplier heard) {
        SimThread made = new SimThread(this, name, virtual, heard);
        threads.add(made);
        return made;
    }

    /** Ends every simulated thread: a park one still waits in throws, and unwinds what it ran. */
    void stopThreads() {
        for (SimThread thread : threads) {
            thread.end();
        }
        threads.clear();
    }

    /** Counts a create made right behind a node of its own client (no listing needed to know what to watch). */
    void createdBehindOwn() {
        tally(BEHIND_OWN);
    }

    long steps() {
        return steps;
    }

    /** Runs {@code action} at {@code at} (not before now). */
    void at(long at, String what, Runnable action) {
        queue.add(new Task(Math.max(at, now), order++, what, action));
    }

    void after(long delay, String what, Runnable action) {
        at(now + delay, what, action);
    }

    /**
     * A random delay between {@code min} and {@code max} microseconds, scaled by the plan's delay percentage (a shrunk
     * plan's delays are shorter; the same random numbers are drawn, so the schedule keeps its shape).
     */
    long delay(long min, long max) {
        long drawn = min + random.nextLong(max - min + 1);
        return delayPercent == 100 ? drawn : Math.max(Math.min(min, 1), drawn * delayPercent / 100);
    }

    /** Runs the next event; false if none is left or {@code until} is reached. */
    boolean step(long until) {
        Task task = queue.peek();
        if (task == null || task.at > until) {
            return false;
        }
        queue.poll();
        now = task.at;
        steps++;
        note(task.what);
        task.action.run();
        return true;
    }

    boolean isIdle() {
        return queue.isEmpty();
    }

    /** Counts one more of the paths a run took that a seed may or may not reach ({@link SimReport#tallies}). */
    void tally(String what) {
        tallies.merge(what, 1L, Long::sum);
    }

    Map<String, Long> tallies() {
        return Map.copyOf(tallies);
    }

    /** Records a line of the trace. */
    void note(String what) {
        if (trace.size() == TRACE) {
            trace.removeFirst();
        }
        trace.addLast(new Line(now, what));
    }

    /**
     * The last events, one per line, with each node's protection id (random in every run) named by its first
     * appearance ({@code _c_#1-}), so that two runs of one seed print the same trace.
     */
    String trace() {
        StringBuilder text = new StringBuilder();
        Map<String, String> aliases = new HashMap<>();
        for (Line line : trace) {
            Matcher id = PROTECTION_ID.matcher(line.what);
            String what = id.replaceAll(found ->
                    "_c_#" + aliases.computeIfAbsent(found.group(1), key -> String.valueOf(aliases.size() + 1)) + "-");
            text.append(String.format("%10.3f ms  %s%n", line.at / 1000.0, what));
        }
        return text.toString();
    }
}

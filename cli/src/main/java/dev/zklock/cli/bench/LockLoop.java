package dev.zklock.cli.bench;

import dev.zklock.cli.CommandFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Runs contenders that loop acquire/release, each on a thread of its own, all started at once, for a time; and counts
 * what the servers saw meanwhile. Each side's contenders run on their own, one side after the other. Nothing is done
 * while holding (the loop measures the lock alone), unless a hold time is given: then each holder keeps the lock that
 * long, so that the others are already waiting when it releases, or busy work is given inside every hold and after every
 * release ({@link LoopWork}). A contender with a timeout counts the acquires that gave up and goes on with the next.
 *
 * <p>The counters are read after every contender is ready and before any starts, and again after the last one has
 * finished: every request in between belongs to the run. Server-wide, the pings of the pool's idle clients count too
 * (one each per third of the session timeout); given the clients the contenders run on, only their sessions' packets
 * count ({@link BenchEnsemble#countersOf}).
 *
 * <p>Overlaps are counted as a check on the locks: an exclusive holder beside anyone, a reader beside an exclusive
 * holder, or more lease holders of a semaphore than it has leases. Hand-off is timed from an exclusive holder's release to the next exclusive holder's acquisition. Where the
 * contenders are grouped (one group per client), the acquisitions of each group are counted, and an exclusive acquire
 * whose holder before was of another group is timed on its own, from its call to its grant: the wait of the first
 * acquire after the lock was another client's.
 */
final class LockLoop {
    /** How long a contender may take to finish after the run's time is up before the bench gives up. */
    private static final Duration GRACE = Duration.ofSeconds(60);

    private final List<Contender> contenders;
    private final BenchEnsemble ensemble;
    private final List<CuratorFramework> counted; // the clients whose sessions count; empty for the whole server
    private final long holdNanos;
    private final long insideNanos;
    private final long outsideNanos;
    private final AtomicInteger readersInside = new AtomicInteger();
    private final AtomicInteger exclusiveInside = new AtomicInteger();
    private final AtomicLong overlaps = new AtomicLong();
    private final CountDownLatch ready;
    private final CountDownLatch go = new CountDownLatch(1);
    private volatile long deadline;
    private volatile long releasedAt;
    private volatile int releasedBy = -1;

    private LockLoop(
            List<Contender> contenders,
            BenchEnsemble ensemble,
            List<CuratorFramework> counted,
            Duration hold,
            LoopWork work) {
        this.contenders = contenders;
        this.ensemble = ensemble;
        this.counted = counted;
        this.holdNanos = hold.toNanos();
        this.insideNanos = work.inside().toNanos();
        this.outsideNanos = work.outside().toNanos();
        this.ready = new CountDownLatch(contenders.size());
    }

    /**
     * Runs the contenders of each side in {@code order}, one side after the other, each for {@code duration}.
     *
     * @param order the sides in the order to run them
     * @param contenders makes the contenders of a side, on the locks of that side
     * @param duration how long each side's contenders loop
     * @param hold how long each holder keeps the lock before it releases; zero for not at all
     * @param ensemble where the counters are read
     */
    static Map<Side, Measurement> eachSide(
            List<Side> order, ContendersOf contenders, Duration duration, Duration hold, BenchEnsemble ensemble)
            throws Exception {
        return eachSide(order, contenders, duration, hold, LoopWork.NONE, ensemble, List.of());
    }

    /**
     * Runs the contenders of each side as {@link #eachSide(List, ContendersOf, Duration, Duration, BenchEnsemble)}
     * does, each contender doing {@code work} inside every hold and after every release ({@link LoopWork}), and counting
     * the requests and watch events of the sessions of {@code counted} alone: the clients the contenders run on.
     */
    static Map<Side, Measurement> eachSide(
            List<Side> order,
            ContendersOf contenders,
            Duration duration,
            Duration hold,
            LoopWork work,
            BenchEnsemble ensemble,
            List<CuratorFramework> counted)
            throws Exception {
        Map<Side, Measurement> measured = new EnumMap<>(Side.class);
        for (Side side : order) {
            measured.put(side, new LockLoop(contenders.of(side), ensemble, counted, hold, work).run(duration));
        }
        return measured;
    }

    /** Makes the contenders of one side. */
    @FunctionalInterface
    interface ContendersOf {
        List<Contender> of(Side side) throws Exception;
    }

    private Measurement run(Duration duration) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(contenders.size(), runnable -> {
            Thread thread = new Thread(runnable, "bench-contender");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<Result>> results = new ArrayList<>();
            for (int i = 0; i < contenders.size(); i++) {
                int contender = i;
                results.add(threads.submit(() -> loop(contender, contenders.get(contender))));
            }
            ready.await();
            Optional<ServerReadings> before = ensemble.countersOf(counted);
            long start = System.nanoTime();
            deadline = start + duration.toNanos();
            go.countDown();
            long acquisitions = 0;
            long shared = 0;
            long timeouts = 0;
            Histogram acquire = Measurement.histogram();
            Histogram release = Measurement.histogram();
            Histogram handOff = Measurement.histogram();
            Histogram exclusiveAcquire = Measurement.histogram();
            Histogram switchAcquire = Measurement.histogram();
            long[] byGroup = new long[groups()];
            OptionalLong switches = OptionalLong.of(0);
            for (int i = 0; i < results.size(); i++) {
                Result result = awaitResult(results.get(i), duration);
                acquisitions += result.acquisitions;
                shared += result.shared;
                timeouts += result.timeouts;
                byGroup[contenders.get(i).group()] += result.acquisitions;
                acquire.add(result.acquire);
                release.add(result.release);
                handOff.add(result.handOff);
                exclusiveAcquire.add(result.exclusiveAcquire);
                switchAcquire.add(result.switchAcquire);
                switches = result.switches.isPresent() && switches.isPresent()
                        ? OptionalLong.of(switches.getAsLong() + result.switches.getAsLong())
                        : OptionalLong.empty();
            }
            long elapsed = System.nanoTime() - start;
            ServerReadings.Window window = ServerReadings.Window.between(before, ensemble.countersOf(counted));
            return new Measurement(
                    acquisitions,
                    shared,
                    timeouts,
                    elapsed,
                    acquire,
                    release,
                    handOff,
                    exclusiveAcquire,
                    switchAcquire,
                    Arrays.stream(byGroup).boxed().toList(),
                    acquisitions,
                    window.requests(),
                    window.watchEvents(),
                    overlaps.get(),
                    ParkCounts.ofRound(switches, foundFree(), acquisitions, elapsed));
        } finally {
            threads.shutdownNow();
            closeLocks();
        }
    }

    /** The acquires the contenders' JDK fair lock saw find it free and nobody queued; empty for any other lock. */
    private OptionalLong foundFree() {
        Set<InterProcessLock> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        OptionalLong found = OptionalLong.empty();
        for (Contender contender : contenders) {
            if (contender.lock() instanceof JdkFairLock jdk && seen.add(jdk)) {
                found = OptionalLong.of(found.orElse(0) + jdk.takeFoundFree());
            }
        }
        return found;
    }

    /** Closes the contenders' locks that keep something past a round (a raw view queue's watch), each once. */
    private void closeLocks() throws Exception {
        Set<InterProcessLock> closed = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Contender contender : contenders) {
            if (contender.lock() instanceof AutoCloseable closeable && closed.add(contender.lock())) {
                closeable.close();
            }
        }
    }

    private Result loop(int index, Contender contender) throws Exception {
        Result result = new Result();
        ready.countDown();
        go.await();
        OptionalLong switchesBefore = ThreadSwitches.ofCurrentThread();
        do {
            long asked = System.nanoTime();
            if (!contender.acquire()) {
                result.timeouts++;
                continue;
            }
            long acquired = System.nanoTime();
            enter(contender);
            long wait = Math.min(acquired - asked, Measurement.MAX_NANOS);
            result.acquire.recordValue(wait);
            if (!contender.shared()) {
                result.exclusiveAcquire.recordValue(wait);
                int before = releasedBy;
                if (before >= 0 && before != index) {
                    result.handOff.recordValue(Math.min(acquired - releasedAt, Measurement.MAX_NANOS));
                }
                if (before >= 0 && contenders.get(before).group() != contender.group()) {
                    result.switchAcquire.recordValue(wait);
                }
            }
            result.acquisitions++;
            result.shared += contender.shared() ? 1 : 0;
            if (holdNanos > 0) {
                LockSupport.parkNanos(holdNanos);
            }
            if (insideNanos > 0) {
                LoopWork.busyUntil(System.nanoTime() + insideNanos);
            }
            (contender.shared() ? readersInside : exclusiveInside).decrementAndGet();
            long releasing = System.nanoTime();
            if (!contender.shared()) {
                releasedAt = releasing;
                releasedBy = index;
            }
            contender.lock().release();
            result.release.recordValue(Math.min(System.nanoTime() - releasing, Measurement.MAX_NANOS));
            if (outsideNanos > 0) {
                LoopWork.busyUntil(System.nanoTime() + outsideNanos);
            }
        } while (System.nanoTime() - deadline < 0);
        OptionalLong switchesAfter = ThreadSwitches.ofCurrentThread();
        if (switchesBefore.isPresent() && switchesAfter.isPresent()) {
            result.switches = OptionalLong.of(switchesAfter.getAsLong() - switchesBefore.getAsLong());
        }
        return result;
    }

    private int groups() {
        return contenders.stream().mapToInt(Contender::group).max().orElse(0) + 1;
    }

    /**
     * Counts an overlap if the holder that has just entered is not allowed beside those inside: a shared holder beside
     * an exclusive one or beyond its limit, an exclusive holder beside anyone.
     */
    private void enter(Contender contender) {
        boolean allowed;
        if (contender.shared()) {
            int shared = readersInside.incrementAndGet();
            allowed = exclusiveInside.get() == 0 && (contender.limit() == 0 || shared <= contender.limit());
        } else {
            allowed = exclusiveInside.incrementAndGet() == 1 && readersInside.get() == 0;
        }
        if (!allowed) {
            overlaps.incrementAndGet();
        }
    }

    private static Result awaitResult(Future<Result> future, Duration duration) throws Exception {
        try {
            return future.get(duration.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            throw new CommandFailure("a bench contender did not finish within " + GRACE.toSeconds()
                    + " s after its time was up: a lock never handed off");
        }
    }

    /** What one contender measured; confined to its thread until it returns. */
    private static final class Result {
        final Histogram acquire = Measurement.histogram();
        final Histogram release = Measurement.histogram();
        final Histogram handOff = Measurement.histogram();
        final Histogram exclusiveAcquire = Measurement.histogram();
        final Histogram switchAcquire = Measurement.histogram();
        long acquisitions;
        long shared;
        long timeouts;
        OptionalLong switches = OptionalLong.empty(); // its thread's context switches over the loop, if told
    }
}

package dev.zklock.cli.bench;

import dev.zklock.recipes.test.VirtualThreads;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * One drain of {@link VirtualThreadScenario}: each lock object taken by a holder of its own (a virtual thread), virtual
 * threads started on each, all of them waiting, then the holders' release and the drain. Measures the time from the
 * threads' start to the last release (less the bench's own collection), the requests the servers counted from the one
 * client the drain uses, the heap each waiting thread costs (with and without the virtual threads' stack chunks) and the
 * platform threads alive. Confined to the bench's thread; it starts the virtual threads and waits for them.
 */
final class VirtualThreadDrain {
    /** The longest any step of a drain may take before the bench gives up. */
    static final Duration LONGEST_WAIT = Duration.ofMinutes(10);

    private VirtualThreadDrain() {}

    /** What one drain measured: the scenario's measurement, and its figures beyond it. */
    record Result(Measurement measurement, DrainFigures figures) {}

    /**
     * Takes each of {@code objects} with a holder of its own (a virtual thread), starts {@code each} virtual threads on
     * each, waits until all of them wait, then lets the holders release at once and waits for the threads to drain.
     *
     * @param client the one client the locks use: only its session's packets are counted
     * @param objects the lock objects, on lock paths made before (a first acquire on a missing path costs a create)
     */
    static Result run(BenchEnsemble ensemble, CuratorFramework client, List<InterProcessLock> objects, int each)
            throws Exception {
        Optional<ServerReadings> before = counters(ensemble, client); // the holders' whole cycles are in the window
        CountDownLatch held = new CountDownLatch(objects.size());
        CountDownLatch letGo = new CountDownLatch(1);
        for (InterProcessLock lock : objects) {
            VirtualThreads.start(() -> hold(lock, held, letGo));
        }
        if (!held.await(LONGEST_WAIT.toMinutes(), TimeUnit.MINUTES)) {
            throw new IllegalStateException(
                    held.getCount() + " of " + objects.size() + " locks not taken by their holders");
        }
        // The holders' last requests (a hold's read of its own node, sent after its grant) are answered before the
        // heap is read; a window opened here, as it was, counted the 6,000 to 9,000 still under way (registry row).
        int readings = awaitQuietServers(ensemble, client, before);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        System.gc();
        long heapBefore = memory.getHeapMemoryUsage().getUsed();
        Optional<ClassHistogram> classesBefore = ClassHistogram.take();
        threads.resetPeakThreadCount();
        int total = objects.size() * each;
        CountDownLatch done = new CountDownLatch(total);
        AtomicInteger overlaps = new AtomicInteger();
        List<Thread> started = new ArrayList<>(total);
        long start = System.nanoTime();
        for (InterProcessLock lock : objects) {
            AtomicInteger inside = new AtomicInteger(); // holders of this lock object at once
            for (int i = 0; i < each; i++) {
                started.add(VirtualThreads.start(() -> takeOnce(lock, inside, overlaps, done)));
            }
        }
        awaitAllWaiting(started);
        readings += awaitQuietServers(ensemble, client, before);
        long pauseStart = System.nanoTime();
        System.gc();
        long heapPerWaiter = Math.max(0, memory.getHeapMemoryUsage().getUsed() - heapBefore) / total;
        List<Long> withoutStacks = withoutStackChunks(classesBefore, ClassHistogram.take(), total);
        long pause = System.nanoTime() - pauseStart; // the bench's collection, not the threads' time
        letGo.countDown();
        if (!done.await(LONGEST_WAIT.toMinutes(), TimeUnit.MINUTES)) {
            throw new IllegalStateException(total + " virtual threads did not drain within " + LONGEST_WAIT);
        }
        long elapsed = System.nanoTime() - start - pause;
        ServerReadings.Window window = ServerReadings.Window.between(before, counters(ensemble, client), readings);
        Measurement measurement = new Measurement(
                total,
                0,
                0,
                elapsed,
                Measurement.histogram(),
                Measurement.histogram(),
                Measurement.histogram(),
                Measurement.histogram(),
                Measurement.histogram(),
                List.of((long) total),
                total + objects.size(), // the holders' acquisitions too: their whole cycles are in the window
                window.requests(),
                window.watchEvents(),
                overlaps.get(),
                ParkCounts.NONE);
        return new Result(
                measurement,
                new DrainFigures(
                        1,
                        elapsed,
                        window.requests(),
                        List.of(heapPerWaiter),
                        withoutStacks,
                        threads.getPeakThreadCount()));
    }

    /**
     * Returns the heap per waiting thread without the stack chunks, from the class histograms before the threads and
     * while they all wait, as a list of one; empty where either histogram could not be taken.
     */
    private static List<Long> withoutStackChunks(
            Optional<ClassHistogram> before, Optional<ClassHistogram> waiting, int total) {
        if (before.isEmpty() || waiting.isEmpty()) {
            return List.of();
        }
        long grown = waiting.get().withoutStackChunks() - before.get().withoutStackChunks();
        waiting.get().printChangesSince(before.get(), "per waiting thread", total);
        return List.of(Math.max(0, grown) / total);
    }

    /** Holds {@code lock} from before the threads start until they all wait. */
    private static void hold(InterProcessLock lock, CountDownLatch held, CountDownLatch letGo) {
        try {
            lock.acquire();
            held.countDown();
            letGo.await();
            lock.release();
        } catch (Exception e) {
            throw new IllegalStateException("the holder of " + lock + " failed", e);
        }
    }

    private static void takeOnce(
            InterProcessLock lock, AtomicInteger inside, AtomicInteger overlaps, CountDownLatch done) {
        try {
            lock.acquire();
            try {
                if (inside.incrementAndGet() > 1) {
                    overlaps.incrementAndGet();
                }
                inside.decrementAndGet();
            } finally {
                lock.release();
            }
        } catch (Exception e) {
            throw new IllegalStateException("a virtual thread failed to take " + lock, e);
        } finally {
            done.countDown();
        }
    }

    /** Waits until every thread of {@code started} is parked: each waits for the lock, or for a reply on its way. */
    private static void awaitAllWaiting(List<Thread> started) throws InterruptedException {
        long deadline = System.nanoTime() + LONGEST_WAIT.toNanos();
        while (true) {
            int waiting = 0;
            for (Thread thread : started) {
                Thread.State state = thread.getState();
                if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) {
                    waiting++;
                }
            }
            if (waiting == started.size()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        waiting + " of " + started.size() + " virtual threads waiting after " + LONGEST_WAIT);
            }
            Thread.sleep(20); // polling threads' states; nothing here to be told by
        }
    }

    /**
     * Waits until the servers count no packet either way between two readings, 20 ms apart: the threads' requests are
     * answered (a thread that waits for a reply is WAITING too). Returns how many readings it made, whose own packets
     * the window of the drain takes off; none where the servers cannot be read.
     */
    private static int awaitQuietServers(BenchEnsemble ensemble, CuratorFramework client, Optional<ServerReadings> from)
            throws Exception {
        int readings = 0;
        Optional<ServerReadings> last = from;
        long deadline = System.nanoTime() + LONGEST_WAIT.toNanos();
        while (last.isPresent() && System.nanoTime() < deadline) {
            Thread.sleep(20); // polling the servers' counters; nothing here to be told by
            Optional<ServerReadings> now = counters(ensemble, client);
            readings++;
            ServerReadings.Window step = ServerReadings.Window.between(last, now);
            last = now;
            if (step.requests().orElse(0) == 0 && step.watchEvents().orElse(0) == 0) {
                break; // no request came and no reply nor event went: every request sent is answered
            }
        }
        return readings;
    }

    /**
     * Reads what the servers counted of {@code client}'s session alone, the one client a drain uses: the pool's other
     * clients ping while idle (one each per third of the session timeout; after a full run's 32 clients, about 12
     * pings in a drain's window). Where {@code cons} is not allowed, every packet of the servers.
     */
    private static Optional<ServerReadings> counters(BenchEnsemble ensemble, CuratorFramework client) throws Exception {
        Optional<ServerReadings> sessions = ensemble.counters(List.of(client));
        return sessions.isPresent() ? sessions : ensemble.counters();
    }
}

package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.VirtualThreads;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Ten thousand virtual threads on one lock object: none pins its carrier in a zklock frame while it waits, and none
 * makes zklock hold a platform thread of its own. Virtual threads need release 21; the {@code jdk25} execution of the
 * build runs this class on JDK 25 (where {@code jdk.VirtualThreadPinned} names every park of a pinned virtual thread),
 * and on an older JVM it is skipped.
 */
@Timeout(300)
final class VirtualThreadTest {
    private static final int THREADS = 10_000;
    private static final String PINNED = "jdk.VirtualThreadPinned";

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @BeforeAll
    static void virtualThreads() {
        assumeTrue(VirtualThreads.isAvailable(), "virtual threads need release 21; this JVM is " + Runtime.version());
    }

    /**
     * One run of ten thousand threads for both properties (a run takes some 20 s here): while they all wait behind a
     * holder, no platform thread but the carriers has appeared and the carriers stay within the cores; and from the
     * first wait to the last release, no {@code jdk.VirtualThreadPinned} event has a zklock frame.
     */
    @Test
    void acquire_tenThousandVirtualThreadsOnOneLockObject_waitOnNoPlatformThreadAndNeverPinInAZklockFrame()
            throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        AtomicInteger watching = new AtomicInteger();
        lock.setHooks(new QueueHooks() {
            @Override
            public void watchSet(String lockPath, String ourNode, String watchedNode) {
                watching.incrementAndGet();
            }
        });
        // A few virtual threads first, before the recording: they start the carriers and load the classes of a wait.
        // Loading a class pins a virtual thread on any JDK, once per JVM (a contended class loader's monitor); this
        // test is about waiting, which must never pin.
        Drain warmUp = Drain.start(lock, 2 * Runtime.getRuntime().availableProcessors());
        warmUp.join();
        warmUp.assertEveryThreadHeldAlone();
        Path file = Files.createTempFile("zklock-virtual-threads", ".jfr");
        Drain drain;
        List<Thread> started;
        int carriers;
        try (Recording recording = new Recording();
                LockActor holder = LockActor.start("holder")) {
            recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            // One acquire on this platform thread, with the recording on: it loads zklock's JFR event types, which a
            // recording makes it use, for the same reason.
            lock.acquire();
            lock.release();
            holder.run(lock::acquire).join();
            Set<Thread> before = new HashSet<>(VirtualThreads.platformThreadsButCarriers());
            watching.set(0);

            drain = Drain.start(lock);
            await().pollInSameThread().atMost(Duration.ofMinutes(3)).until(() -> watching.get() >= THREADS);
            started = VirtualThreads.platformThreadsButCarriers();
            started.removeAll(before);
            carriers = VirtualThreads.carrierCount();
            holder.run(lock::release).join();
            drain.join();
            recording.stop();
            recording.dump(file);
        }
        List<String> pinnedInZklock = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            if (event.getEventType().getName().equals(PINNED) && FirstUseChild.inZklock(event)) {
                pinnedInZklock.add(event.toString());
            }
        }
        Files.delete(file);

        drain.assertEveryThreadHeldAlone();
        assertThat(started).isEmpty();
        assertThat(carriers).isLessThanOrEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(pinnedInZklock).isEmpty();
    }

    /** Virtual threads that each take the lock once and release it, counting how many hold at once. */
    private static final class Drain {
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicInteger holding = new AtomicInteger();
        private final AtomicInteger mostHolding = new AtomicInteger();
        private final AtomicInteger held = new AtomicInteger();
        private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        private final int count;

        private Drain(int count) {
            this.count = count;
        }

        static Drain start(ZkReentrantLock lock) {
            return start(lock, THREADS);
        }

        static Drain start(ZkReentrantLock lock, int count) {
            Drain drain = new Drain(count);
            for (int i = 0; i < count; i++) {
                drain.threads.add(VirtualThreads.start(() -> drain.takeOnce(lock)));
            }
            return drain;
        }

        private void takeOnce(ZkReentrantLock lock) {
            try {
                lock.acquire();
                try {
                    mostHolding.accumulateAndGet(holding.incrementAndGet(), Math::max);
                    held.incrementAndGet();
                    holding.decrementAndGet();
                } finally {
                    lock.release();
                }
            } catch (Throwable e) {
                failures.add(e);
            }
        }

        void join() throws InterruptedException {
            for (Thread thread : threads) {
                thread.join();
            }
        }

        void assertEveryThreadHeldAlone() {
            assertThat(failures).isEmpty();
            assertThat(held).hasValue(count);
            assertThat(mostHolding).hasValue(1);
        }
    }
}

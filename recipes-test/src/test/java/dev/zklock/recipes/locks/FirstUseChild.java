package dev.zklock.recipes.locks;

import dev.zklock.recipes.test.VirtualThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.retry.RetryOneTime;

/**
 * The JVM {@code VirtualThreadFirstUseTest} starts: records {@code jdk.VirtualThreadPinned} with stacks from before its
 * first lock is made, has N virtual threads take that lock once each, and prints how many held it and every pinned
 * event with a zklock frame, then their count. Arguments: the connect string, the lock path, the kind
 * ({@code reentrant} or {@code semaphore-mutex}), N.
 */
final class FirstUseChild {
    static final String HELD = "held ";
    static final String PINNED = "pinned in zklock frames ";

    private FirstUseChild() {}

    public static void main(String[] args) throws Exception {
        CuratorFramework client = CuratorFrameworkFactory.newClient(args[0], new RetryOneTime(100));
        client.start();
        client.blockUntilConnected();
        Path file = Files.createTempFile("zklock-first-use", ".jfr");
        AtomicInteger held = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        try (Recording recording = new Recording()) {
            recording
                    .enable("jdk.VirtualThreadPinned")
                    .withThreshold(Duration.ZERO)
                    .withStackTrace();
            recording.start();
            InterProcessLock lock = args[2].equals("reentrant")
                    ? new ZkReentrantLock(client, args[1])
                    : new ZkExclusiveLock(client, args[1]);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < Integer.parseInt(args[3]); i++) {
                threads.add(VirtualThreads.start(() -> {
                    try {
                        lock.acquire();
                        held.incrementAndGet();
                        lock.release();
                    } catch (Exception | Error e) {
                        failures.add(e);
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            recording.stop();
            recording.dump(file);
        }
        int pinned = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            if (event.getEventType().getName().equals("jdk.VirtualThreadPinned") && inZklock(event)) {
                pinned++;
                System.out.println(event);
            }
        }
        Files.delete(file);
        failures.forEach(Throwable::printStackTrace);
        client.close();
        System.out.println(HELD + held.get());
        System.out.println(PINNED + pinned);
    }

    /** Tells whether a recorded event's stack has a zklock frame. */
    static boolean inZklock(RecordedEvent event) {
        if (event.getStackTrace() == null) {
            return false;
        }
        for (RecordedFrame frame : event.getStackTrace().getFrames()) {
            if (frame.getMethod().getType().getName().startsWith("dev.zklock.")) {
                return true;
            }
        }
        return false;
    }
}

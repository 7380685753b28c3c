package dev.zklock.cli.bench;

import dev.zklock.cli.Clients;
import dev.zklock.recipes.locks.ZkReentrantLock;
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
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * The JVM of the bench's rows of pinned virtual threads ({@link PinnedScenario}): a JVM that has never run a lock
 * records {@code jdk.VirtualThreadPinned} with stacks and no threshold, makes one lock of one side, and has N virtual
 * threads take it once each, so the first use (the classes a crowd of threads loads, initializes and links at once) is
 * in the recording. Says how many threads held the lock, how many events have a frame of the side's library
 * ({@code dev.zklock.recipes} for zklock, {@code org.apache.curator} for Curator), and how many events there were in
 * all. Needs virtual threads (release 21).
 */
final class PinnedChild {
    /** The figure said: {@code jdk.VirtualThreadPinned} events with a frame of the side's library. */
    static final String PINNED_IN_LIBRARY = "pinned-in-library";

    /** The figure said: {@code jdk.VirtualThreadPinned} events, any frame. */
    static final String PINNED = "pinned";

    private static final String EVENT = "jdk.VirtualThreadPinned";

    private PinnedChild() {}

    /** Returns the package prefix of {@code side}'s library, whose frames make an event count as the library's. */
    static String library(Side side) {
        return switch (side) {
            case ZKLOCK -> "dev.zklock.recipes.";
            case CURATOR -> "org.apache.curator.";
            default -> throw new IllegalArgumentException("no library lock on side " + side);
        };
    }

    /**
     * The child's main: {@code <side> <connect string> <lock path> <threads> <local hand-off: true or false>} (the
     * last for zklock's lock only); says {@link BenchChild#HELD} (the threads that held the lock),
     * {@link #PINNED_IN_LIBRARY} and {@link #PINNED}.
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            throw new IllegalArgumentException("expected <side> <connect> <lock path> <threads> <local hand-off>, not '"
                    + String.join(" ", args) + "'");
        }
        if (!VirtualThreads.isAvailable()) {
            throw new IllegalStateException("virtual threads need release 21; this JVM is " + Runtime.version());
        }
        Side side = Side.valueOf(args[0]);
        String library = library(side);
        CuratorFramework client = Clients.connect(args[1], "bench-pinned", 30_000, 10_000);
        Path file = Files.createTempFile("zklock-bench-pinned", ".jfr");
        AtomicInteger held = new AtomicInteger();
        ConcurrentLinkedQueue<Exception> failures = new ConcurrentLinkedQueue<>();
        try (Recording recording = new Recording()) {
            recording.enable(EVENT).withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            InterProcessLock lock = lock(side, client, args[2], Boolean.parseBoolean(args[4]));
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < Integer.parseInt(args[3]); i++) {
                threads.add(VirtualThreads.start(() -> takeOnce(lock, held, failures)));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            recording.stop();
            recording.dump(file);
        }
        int pinned = 0;
        int inLibrary = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            if (event.getEventType().getName().equals(EVENT)) {
                pinned++;
                if (hasFrameIn(event, library)) {
                    inLibrary++;
                    System.out.println(describe(event)); // its whole stack, for whoever reads the child's output
                }
            }
        }
        Files.delete(file);
        client.close();
        failures.forEach(Throwable::printStackTrace);
        BenchChild.say(System.out, BenchChild.HELD, held.get());
        BenchChild.say(System.out, PINNED_IN_LIBRARY, inLibrary);
        BenchChild.say(System.out, PINNED, pinned);
    }

    private static InterProcessLock lock(Side side, CuratorFramework client, String path, boolean localHandOff) {
        if (side != Side.ZKLOCK) {
            return new InterProcessMutex(client, path);
        }
        return localHandOff
                ? ZkReentrantLock.builder(client, path).localHandOff().build()
                : new ZkReentrantLock(client, path);
    }

    private static void takeOnce(InterProcessLock lock, AtomicInteger held, ConcurrentLinkedQueue<Exception> failures) {
        try {
            lock.acquire();
            held.incrementAndGet();
            lock.release();
        } catch (Exception e) {
            failures.add(e);
        }
    }

    /** The event's fields and every frame of its stack (its own toString shows five). */
    private static String describe(RecordedEvent event) {
        StringBuilder text = new StringBuilder(event.getEventType().getName()).append(" {");
        event.getFields().stream()
                .filter(field -> !field.getName().equals("stackTrace"))
                .forEach(field -> text.append(System.lineSeparator())
                        .append("  ")
                        .append(field.getName())
                        .append(" = ")
                        .append((Object) event.getValue(field.getName())));
        for (RecordedFrame frame : event.getStackTrace().getFrames()) {
            text.append(System.lineSeparator())
                    .append("    at ")
                    .append(frame.getMethod().getType().getName())
                    .append('.')
                    .append(frame.getMethod().getName())
                    .append(" line ")
                    .append(frame.getLineNumber());
        }
        return text.append(System.lineSeparator()).append('}').toString();
    }

    /** Tells whether a recorded event's stack has a frame whose class is in {@code prefix}. */
    private static boolean hasFrameIn(RecordedEvent event, String prefix) {
        if (event.getStackTrace() == null) {
            return false;
        }
        for (RecordedFrame frame : event.getStackTrace().getFrames()) {
            if (frame.getMethod().getType().getName().startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}

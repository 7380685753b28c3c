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
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedClassLoader;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.retry.RetryOneTime;

/**
 * The JVM {@code VirtualThreadFirstUseTest} starts: records {@code jdk.VirtualThreadPinned} with stacks from before its
 * first lock is made, has N virtual threads take that lock once each, and prints how many held it and every pinned
 * event with a zklock frame, then their count. Arguments: the connect string, the lock path, the kind
 * ({@code reentrant}, {@code local-hand-off}: a reentrant lock with local hand-off, or {@code semaphore-mutex}), N.
 */
final class FirstUseChild {
    static final String HELD = "held ";
    static final String PINNED = "pinned in zklock frames ";
    static final String LOADED_ON_VIRTUAL = "classes of the class path loaded on virtual threads ";

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
            recording.enable("jdk.ClassLoad").withThreshold(Duration.ZERO);
            recording.start();
            InterProcessLock lock =
                    switch (args[2]) {
                        case "reentrant" -> new ZkReentrantLock(client, args[1]);
                        case "local-hand-off" -> ZkReentrantLock.builder(client, args[1])
                                .localHandOff()
                                .build();
                        default -> new ZkExclusiveLock(client, args[1]);
                    };
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
        int loadedOnVirtual = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            if (event.getEventType().getName().equals("jdk.VirtualThreadPinned") && inZklock(event)) {
                pinned++;
                System.out.println(event);
            }
            if (event.getEventType().getName().equals("jdk.ClassLoad") && onVirtualFromClassPath(event)) {
                loadedOnVirtual++;
                System.out.println("loaded on a virtual thread: "
                        + event.getClass("loadedClass").getName());
            }
        }
        Files.delete(file);
        failures.forEach(Throwable::printStackTrace);
        client.close();
        System.out.println(HELD + held.get());
        System.out.println(PINNED + pinned);
        System.out.println(LOADED_ON_VIRTUAL + loadedOnVirtual);
    }

    /**
     * Tells whether a class load was made on a virtual thread and read the class path (the application class loader
     * defined the class): such a load reads a jar under its monitor, and a virtual thread that meets another thread
     * there cannot leave its carrier.
     */
    static boolean onVirtualFromClassPath(RecordedEvent event) {
        RecordedClassLoader definer = event.getValue("definingClassLoader");
        RecordedClass loaded = event.getClass("loadedClass");
        if (loaded.hasField("hidden") && loaded.getBoolean("hidden")) {
            return false; // a lambda's class, spun in memory: no jar is read
        }
        RecordedThread thread = event.getThread();
        return thread != null
                && thread.hasField("virtual") // release 21: built for 17, run where virtual threads are
                && thread.getBoolean("virtual")
                && definer != null
                && "app".equals(definer.getName());
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

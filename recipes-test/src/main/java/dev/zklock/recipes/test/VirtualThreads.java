package dev.zklock.recipes.test;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;

/**
 * Virtual threads for code compiled for Java 17, which cannot name {@code Thread.ofVirtual()}: looked up once through
 * a method handle, present on a JVM of release 21 or later. Also what the JVM's platform threads are while virtual
 * threads wait, split into the virtual threads' carriers and the rest. Stateless and safe for use by multiple threads.
 */
public final class VirtualThreads {
    private static final String CARRIER = "jdk.internal.misc.CarrierThread";
    private static final ThreadFactory FACTORY = lookUpFactory();

    private VirtualThreads() {}

    /**
     * Tells whether this JVM has virtual threads (release 21 or later).
     *
     * @return true if {@link #factory()} can be called
     */
    public static boolean isAvailable() {
        return FACTORY != null;
    }

    /**
     * Returns a factory of unstarted virtual threads.
     *
     * @return the factory of {@code Thread.ofVirtual()}
     * @throws UnsupportedOperationException if this JVM has no virtual threads, naming its release
     */
    public static ThreadFactory factory() {
        if (FACTORY == null) {
            throw new UnsupportedOperationException(
                    "virtual threads need a JVM of release 21 or later; this one is " + Runtime.version());
        }
        return FACTORY;
    }

    /**
     * Starts a virtual thread running {@code task}.
     *
     * @param task what the thread runs
     * @return the started thread
     */
    public static Thread start(Runnable task) {
        Thread thread = factory().newThread(task);
        thread.start();
        return thread;
    }

    /**
     * Returns the live platform threads of the JVM, virtual threads' carriers left out: the threads that code running
     * in virtual threads may have started. (Virtual threads themselves are never listed.)
     *
     * @return the platform threads that are not carriers
     */
    public static List<Thread> platformThreadsButCarriers() {
        List<Thread> threads = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (!isCarrier(thread)) {
                threads.add(thread);
            }
        }
        return threads;
    }

    /**
     * Returns how many carrier threads of virtual threads are alive: at most the scheduler's parallelism (the cores)
     * unless a virtual thread pinned its carrier in a blocking call and the scheduler added one to make up for it.
     *
     * @return the live carrier threads
     */
    public static int carrierCount() {
        int carriers = 0;
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (isCarrier(thread)) {
                carriers++;
            }
        }
        return carriers;
    }

    private static boolean isCarrier(Thread thread) {
        return thread.getClass().getName().equals(CARRIER);
    }

    private static ThreadFactory lookUpFactory() {
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> builder = Class.forName("java.lang.Thread$Builder$OfVirtual");
            MethodHandle ofVirtual = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(builder));
            MethodHandle factory = lookup.findVirtual(
                    Class.forName("java.lang.Thread$Builder"), "factory", MethodType.methodType(ThreadFactory.class));
            return (ThreadFactory) factory.invoke(ofVirtual.invoke());
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            return null; // before release 21
        } catch (Throwable e) {
            throw new IllegalStateException("Thread.ofVirtual() is there but could not be called", e);
        }
    }
}

package dev.zklock.recipes.locks.engine;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * What the engine asks of the calling thread that Java 17, which the library is built for, cannot say: whether it is a
 * virtual thread (release 21). Stateless; the lookup is made once per class load.
 */
final class Threads {
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    private Threads() {}

    /** Tells whether the calling thread is a virtual thread; false before release 21. */
    static boolean isVirtual() {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(Thread.currentThread());
        } catch (Throwable e) {
            throw new AssertionError("Thread.isVirtual() failed", e);
        }
    }

    private static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup()
                    .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null; // before release 21: no thread is virtual
        }
    }
}
